package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/store"
)

const parksGeoJSON = `{"type": "FeatureCollection", "features": [
  {"type": "Feature", "properties": {"name": "North park", "area": 12.5}, "geometry": {"type": "Polygon", "coordinates": [[[2.30, 48.86], [2.32, 48.86], [2.32, 48.87], [2.30, 48.87], [2.30, 48.86]]]}},
  {"type": "Feature", "id": 7, "properties": {"name": "Well"}, "geometry": {"type": "Point", "coordinates": [2.31, 48.865]}}
]}`

// TestDataFeatures: a GeoJSON upload through the admin API and through the
// account API's dataset ingest is kept as uploaded and served at
// /data/{dataId}/features.json (by tileset name or id); a replacement by
// another kind of file removes it; parameters are checked, requests keyed
// and counted.
func TestDataFeatures(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour })
	r, rec := e.ingestFile("parks.geojson", []byte(parksGeoJSON))
	if r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	for _, p := range []string{"/data/parks/features.json", "/data/" + rec.DocumentID + "/features.json"} {
		got := e.do("GET", p, nil)
		if got.status != 200 || got.header.Get("Content-Type") != "application/geo+json" || string(got.body) != parksGeoJSON {
			t.Fatalf("%s: %d %q %s", p, got.status, got.header.Get("Content-Type"), got.body)
		}
		if lm := got.header.Get("Last-Modified"); lm == "" {
			t.Errorf("%s: no Last-Modified", p)
		} else if again := e.do("GET", p, nil, "If-Modified-Since", lm); again.status != 304 {
			t.Errorf("%s conditional: %d", p, again.status)
		}
	}
	var fc struct {
		Features []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(e.do("GET", "/data/parks/features.json", nil).body, &fc); err != nil || len(fc.Features) != 2 {
		t.Errorf("features: %v %d", err, len(fc.Features))
	}
	// The tileset made beside it is there too.
	if tj := e.do("GET", "/tiles/parks/tiles.json", nil); tj.status != 200 {
		t.Errorf("tileset: %d", tj.status)
	}

	// The account API's dataset ingest (resumable upload).
	secret := e.serviceToken("data")
	data := []byte(strings.ReplaceAll(parksGeoJSON, "North park", "South park"))
	cr := e.account("POST", "/datasets/ingest", secret, map[string]any{"filename": "gardens.geojson", "size": len(data), "supported_upload_types": []string{"resumable"}})
	v := decodeJSON[ingestView](t, cr.body)
	if cr.status != 200 {
		t.Fatalf("create: %d %s", cr.status, cr.body)
	}
	if status, _, body := plainPut(t, v.UploadURL, data); status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	if r := e.account("POST", "/datasets/ingest/"+v.ID+"/process", secret, nil); r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	if v = e.awaitIngest(secret, v.ID); v.State != "completed" {
		t.Fatalf("ingest %+v", v)
	}
	if got := e.do("GET", "/data/gardens/features.json", nil); got.status != 200 || string(got.body) != string(data) {
		t.Fatalf("gardens: %d %s", got.status, got.body)
	}
	// Replaced by an MBTiles file: the tileset has no features any more.
	src := filepath.Join(t.TempDir(), "in.mbtiles")
	writeVector(t, src)
	mb, _ := os.ReadFile(src)
	rr := e.account("POST", "/datasets/"+*v.DocumentID+"/ingest", secret, map[string]any{"filename": "gardens.mbtiles", "size": len(mb), "supported_upload_types": []string{"resumable"}})
	rv := decodeJSON[ingestView](t, rr.body)
	if status, _, body := plainPut(t, rv.UploadURL, mb); status != 200 {
		t.Fatalf("upload: %d %s", status, body)
	}
	e.account("POST", "/datasets/ingest/"+rv.ID+"/process", secret, nil)
	if rv = e.awaitIngest(secret, rv.ID); rv.State != "completed" {
		t.Fatalf("replace %+v", rv)
	}
	checkError(t, e.do("GET", "/data/gardens/features.json", nil), 404)

	for _, c := range []struct {
		path   string
		status int
	}{
		{"/data/roads/features.json", 404}, // a tileset not made from GeoJSON
		{"/data/nope/features.json", 404},
		{"/data/parks/features.geojson", 400},
		{"/data/parks/tiles.json", 400},
		{"/data/.parks/features.json", 400},
		{"/data/" + strings.Repeat("a", 129) + "/features.json", 400},
	} {
		checkError(t, e.do("GET", c.path, nil), c.status)
	}
	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/data"]; got != 6 { // 2 + 2 conditional + 1 + 1
		t.Errorf("data requests counted: %d, want 6", got)
	}
	// An unpublished tileset's dataset is not served.
	if r := e.admin("POST", "/tiles/"+rec.DocumentID+"/unpublish", nil); r.status != 200 {
		t.Fatalf("unpublish: %d %s", r.status, r.body)
	}
	checkError(t, e.do("GET", "/data/parks/features.json", nil), 404)
	// A deleted tileset's dataset is gone (its file is removed at the next
	// start: TestPruneFeatures).
	if r := e.admin("DELETE", "/tiles/"+rec.DocumentID, nil); r.status != 200 && r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	checkError(t, e.do("GET", "/data/parks/features.json", nil), 404)
}

// TestDataFeaturesKeyed: with api_keys required a dataset needs a key.
func TestDataFeaturesKeyed(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	if r, _ := e.ingestFile("parks.geojson", []byte(parksGeoJSON)); r.status != 200 {
		t.Fatalf("process: %d %s", r.status, r.body)
	}
	tok := e.serviceToken("data")
	key := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, map[string]any{}).body).Token
	checkError(t, e.do("GET", "/data/parks/features.json", nil), 403)
	if r := e.do("GET", "/data/parks/features.json?key="+key, nil); r.status != 200 || string(r.body) != parksGeoJSON {
		t.Errorf("with a key: %d %s", r.status, r.body)
	}
}
