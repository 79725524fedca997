package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/coords"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/store"
)

func coordsEnv(t *testing.T, mutate func(*config.Config)) *testEnv {
	if _, err := coords.FindDatabase(); err != nil {
		if fixtures.RequireTools() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return newEnv(t, mutate)
}

// TestCoordinates checks both endpoints through the server: the spec's
// shapes field by field, 400s with messages, and 501 for transforms in a
// build without PROJ.
func TestCoordinates(t *testing.T) {
	e := coordsEnv(t, nil)
	r := e.do("GET", "/coordinates/search/lv95%20kind:CRS-PROJCRS.json?limit=1&transformations=true", nil)
	if r.status != 200 {
		t.Fatalf("search: %d %s", r.status, r.body)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &body); err != nil || len(body) != 2 || body["results"] == nil || body["total"] == nil {
		t.Fatalf("search body %s", r.body)
	}
	var res []map[string]json.RawMessage
	json.Unmarshal(body["results"], &res)
	if len(res) != 1 {
		t.Fatalf("results %s", body["results"])
	}
	for _, k := range []string{"accuracy", "area", "bbox", "default_transformation", "deprecated", "id", "kind", "name", "transformations", "unit"} {
		if _, ok := res[0][k]; !ok {
			t.Errorf("result has no %s: %s", k, r.body)
		}
	}
	if string(res[0]["id"]) != `{"authority":"EPSG","code":2056}` || string(res[0]["kind"]) != `"CRS-PROJCRS"` {
		t.Errorf("result %s", r.body)
	}
	var trans []map[string]json.RawMessage
	json.Unmarshal(res[0]["transformations"], &trans)
	if len(trans) == 0 {
		t.Fatal("no transformations")
	}
	for _, k := range []string{"accuracy", "area", "bbox", "deprecated", "grids", "id", "name", "reversible", "target_crs", "unit", "usable"} {
		if _, ok := trans[0][k]; !ok {
			t.Errorf("transformation has no %s: %s", k, res[0]["transformations"])
		}
	}

	exports := e.do("GET", "/coordinates/search/code:EPSG:4326.json?exports=true", nil)
	tr := e.do("GET", "/coordinates/transform/8.5,47.3;7.4,46.9,100.json?s_srs=4326&t_srs=2056", nil)
	if coords.Available {
		if exports.status != 200 || !strings.Contains(string(exports.body), `"exports":{"proj4":"+proj=longlat +datum=WGS84 +no_defs +type=crs","wkt":"GEOGCRS[\"WGS 84\"`) {
			t.Errorf("exports: %d %s", exports.status, exports.body)
		}
		var out struct {
			Results []map[string]float64 `json:"results"`
			S       string               `json:"transformer_selection_strategy"`
		}
		if tr.status != 200 || json.Unmarshal(tr.body, &out) != nil || len(out.Results) != 2 || out.S == "" {
			t.Fatalf("transform: %d %s", tr.status, tr.body)
		}
		if p := out.Results[1]; len(p) != 3 || p["x"] < 2597056 || p["x"] > 2597057 || p["y"] < 1194321 || p["y"] > 1194322 || p["z"] == 0 {
			t.Errorf("transform: %s", tr.body)
		}
	} else {
		for _, r := range []resp{exports, tr} {
			if r.status != 501 || !strings.Contains(string(r.body), "built without PROJ") {
				t.Errorf("without PROJ: %d %s", r.status, r.body)
			}
		}
	}

	for _, c := range []struct{ path, msg string }{
		{"/coordinates/search/x.json?limit=51", "limit must be between 1 and 50"},
		{"/coordinates/search/x.json?offset=-2", "offset"},
		{"/coordinates/search/kind:PLANET.json", "unknown kind"},
		{"/coordinates/search/deprecated:3.json", "deprecated is"},
		{"/coordinates/search/x.json?exports=perhaps", "boolean"},
		{"/coordinates/search/" + strings.Repeat("a", 300) + ".json", "too long"},
		{"/coordinates/transform/1,2,3,4.json", "not x,y"},
		{"/coordinates/transform/" + strings.Repeat("1,2;", 50) + "1,2.json", "at most 50"},
		{"/coordinates/transform/1,2.json?s_srs=wgs84", "s_srs is an EPSG code"},
		{"/coordinates/transform/1,2.json?ops=abc", "ops"},
		{"/coordinates/search/x.json?limt=5", "unknown parameter(s) limt: /coordinates/search/{query}.json takes key, limit, offset, transformations, exports"},
		{"/coordinates/transform/1,2.json?s_crs=4326&x=1", "unknown parameter(s) s_crs, x: /coordinates/transform/{coordinates}.json takes key, s_srs, t_srs, ops"},
	} {
		r := e.do("GET", c.path, nil)
		if r.status != 400 || !strings.Contains(string(r.body), `"message"`) || !strings.Contains(string(r.body), c.msg) {
			t.Errorf("%.60s: %d %s, want 400 with %q", c.path, r.status, r.body, c.msg)
		}
	}
	if r := e.do("GET", "/coordinates/search/x.xml", nil); r.status != 404 {
		t.Errorf("no .json: %d", r.status)
	}
}

// TestCoordinatesUsage: answered coordinates requests are counted under the
// service "coordinates"; refused ones (400) are not.
func TestCoordinatesUsage(t *testing.T) {
	e := coordsEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour })
	want := int64(0)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/coordinates/search/lv95.json", 200},
		{"/coordinates/search/code:EPSG:4326.json?limit=2", 200},
		{"/coordinates/search/x.json?limit=0", 400},
		{"/coordinates/transform/1,2,3,4.json", 400},
	} {
		r := e.do("GET", c.path, nil)
		if r.status != c.status {
			t.Fatalf("%s: %d %s", c.path, r.status, r.body)
		}
		if r.status == 200 {
			want++
		}
	}
	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/coordinates"]; got != want {
		t.Errorf("coordinates counted %d times, want %d (%v)", got, want, e.usageSums(store.ByService))
	}
}

// TestCoordinatesKeys: with keys required, the coordinates endpoints want
// one like every public path.
func TestCoordinatesKeys(t *testing.T) {
	e := coordsEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	if r := e.do("GET", "/coordinates/search/swiss.json", nil); r.status != 403 {
		t.Errorf("search without a key: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/coordinates/transform/1,2.json", nil); r.status != 403 {
		t.Errorf("transform without a key: %d %s", r.status, r.body)
	}
}
