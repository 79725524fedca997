package coords

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

var (
	testIxOnce sync.Once
	testIx     *Index
	testIxErr  error
)

// testIndex is the index of the machine's proj.db (read once per test
// binary); the test skips without one unless tools are required.
func testIndex(t testing.TB) *Index {
	t.Helper()
	path, err := FindDatabase()
	if err != nil {
		if fixtures.RequireTools() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	testIxOnce.Do(func() { testIx, testIxErr = Load(context.Background(), path) })
	if testIxErr != nil {
		t.Fatal(testIxErr)
	}
	return testIx
}

func TestParseSearch(t *testing.T) {
	good := []struct {
		query  string
		params string
		want   SearchRequest
	}{
		{"swiss", "", SearchRequest{Terms: []string{"swiss"}, Kind: "CRS", Limit: 10}},
		{"Zürich  LV95", "limit=50&offset=3", SearchRequest{Terms: []string{"zurich", "lv95"}, Kind: "CRS", Limit: 50, Offset: 3}},
		{"kind:crs-projcrs deprecated:* code:2056", "", SearchRequest{Kind: "CRS-PROJCRS", Code: "2056", Deprecated: -1, Limit: 10}},
		{"EPSG:4326", "transformations=true&exports=1", SearchRequest{Kind: "CRS", Code: "EPSG:4326", Limit: 10, Transformations: true, Exports: true}},
		{"trans:epsg:1676 deprecated:1 kind:*", "exports=false", SearchRequest{Kind: "*", Trans: "EPSG:1676", Deprecated: 1, Limit: 10}},
		{"foo:bar", "", SearchRequest{Terms: []string{"foo:bar"}, Kind: "CRS", Limit: 10}},
		{"", "limit=1", SearchRequest{Kind: "CRS", Limit: 1}},
	}
	for _, c := range good {
		q, _ := url.ParseQuery(c.params)
		got, err := ParseSearch(c.query, q)
		if err != nil {
			t.Errorf("%q %q: %v", c.query, c.params, err)
			continue
		}
		if strings.Join(got.Terms, "|") != strings.Join(c.want.Terms, "|") {
			t.Errorf("%q: terms %q, want %q", c.query, got.Terms, c.want.Terms)
		}
		if !reflect.DeepEqual(withoutTerms(got), withoutTerms(c.want)) {
			t.Errorf("%q %q: %+v, want %+v", c.query, c.params, got, c.want)
		}
	}
	bad := []struct{ query, params, msg string }{
		{strings.Repeat("a", 257), "", "too long"},
		{"\xff", "", "UTF-8"},
		{"kind:PLANET", "", "unknown kind"},
		{"kind:CRS kind:*", "", "twice"},
		{"deprecated:2", "", "deprecated is"},
		{"code:", "", "no value"},
		{"code:FOO:12", "", "unknown authority"},
		{"x", "limit=0", "limit must be between 1 and 50"},
		{"x", "limit=51", "limit"},
		{"x", "limit=ten", "not an integer"},
		{"x", "offset=-1", "offset"},
		{"x", "limit=1&limit=2", "given 2 times"},
		{"x", "exports=maybe", "boolean"},
		{"x", "transformations=2", "boolean"},
	}
	for _, c := range bad {
		q, _ := url.ParseQuery(c.params)
		_, err := ParseSearch(c.query, q)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%.30q %q: error %v, want ErrInvalid with %q", c.query, c.params, err, c.msg)
		}
	}
}

func withoutTerms(r SearchRequest) SearchRequest {
	r.Terms = nil
	return r
}

func search(t *testing.T, ix *Index, query, params string) *SearchResults {
	t.Helper()
	q, _ := url.ParseQuery(params)
	req, err := ParseSearch(query, q)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	r, err := ix.Search(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	return r
}

func TestSearch(t *testing.T) {
	ix := testIndex(t)
	r := search(t, ix, "code:EPSG:2056", "transformations=true")
	if r.Total != 1 || len(r.Results) != 1 {
		t.Fatalf("code:EPSG:2056: %d results", r.Total)
	}
	lv95 := r.Results[0]
	if lv95.Name != "CH1903+ / LV95" || lv95.Kind != "CRS-PROJCRS" || lv95.Unit != "metre" || lv95.Deprecated ||
		lv95.ID != (Ref{"EPSG", "2056"}) || lv95.Area != "Liechtenstein; Switzerland." {
		t.Errorf("EPSG:2056: %+v", lv95)
	}
	// The default transformation is CH1903+ to WGS 84 (1), 1 m.
	if lv95.DefaultTransformation == nil || *lv95.DefaultTransformation != (Ref{"EPSG", "1676"}) || lv95.Accuracy == nil || *lv95.Accuracy != 1 {
		t.Errorf("EPSG:2056 default transformation %v accuracy %v", lv95.DefaultTransformation, lv95.Accuracy)
	}
	if lv95.Transformations == nil || len(*lv95.Transformations) < 3 {
		t.Fatalf("EPSG:2056 transformations: %v", lv95.Transformations)
	}
	var sawGrid bool
	for _, tr := range *lv95.Transformations {
		if tr.ID.String() == "EPSG:1676" && (tr.TargetCRS != wgs84 || !tr.Usable || len(tr.Grids) != 0) {
			t.Errorf("EPSG:1676: %+v", tr)
		}
		if len(tr.Grids) > 0 {
			sawGrid = true
			if tr.Grids[0].Path == "" {
				t.Errorf("%s: empty grid path", tr.ID)
			}
		}
	}
	if !sawGrid {
		t.Error("no transformation of EPSG:2056 names a grid (the NTv2 ones do)")
	}
	// Plain terms: a code, a name, accents folded, area names.
	if r := search(t, ix, "2056", ""); len(r.Results) == 0 || r.Results[0].ID.String() != "EPSG:2056" {
		t.Errorf("2056: first %+v", r.Results)
	}
	if r := search(t, ix, "wgs 84", "limit=1"); r.Results[0].ID.String() != "EPSG:4326" || r.Total < 10 {
		t.Errorf("wgs 84: %+v (total %d)", r.Results, r.Total)
	}
	if r := search(t, ix, "Réunion", ""); r.Total == 0 {
		t.Error("Réunion: nothing")
	}
	if r := search(t, ix, "liechtenstein lv95", ""); r.Total == 0 || r.Results[0].ID.String() != "EPSG:2056" {
		t.Errorf("liechtenstein lv95 (area and name): %+v", r.Results)
	}
	if r := search(t, ix, "qqqzzzxx", ""); r.Total != 0 || r.Results == nil {
		t.Errorf("nonsense: %+v", r)
	}
	// trans: finds the CRSs a transformation starts from.
	found := false
	for _, res := range search(t, ix, "trans:1676", "limit=50").Results {
		found = found || res.ID.String() == "EPSG:2056"
	}
	if !found {
		t.Error("trans:1676 does not find EPSG:2056")
	}
	// Paging.
	two := search(t, ix, "utm zone 32n", "limit=2")
	second := search(t, ix, "utm zone 32n", "limit=1&offset=1")
	if two.Total != second.Total || len(second.Results) != 1 || second.Results[0].ID != two.Results[1].ID {
		t.Errorf("paging: %v / %v", two.Results, second.Results)
	}
	if r := search(t, ix, "utm", "offset=100000"); len(r.Results) != 0 || r.Total == 0 {
		t.Errorf("offset past the end: %d results of %d", len(r.Results), r.Total)
	}
	// deprecated filter.
	for _, d := range []struct {
		v    string
		want bool
	}{{"1", true}, {"0", false}} {
		r := search(t, ix, "kind:* deprecated:"+d.v, "limit=50")
		for _, res := range r.Results {
			if res.Deprecated != d.want {
				t.Errorf("deprecated:%s gave %s deprecated=%v", d.v, res.ID, res.Deprecated)
			}
		}
	}
}

// TestKinds checks each kind filter gives only its kind, and the totals of
// some kinds against proj.db read directly.
func TestKinds(t *testing.T) {
	ix := testIndex(t)
	// Not in proj.db: no engineering or derived CRSs, engineering datums or
	// affine coordinate systems.
	empty := map[string]bool{"CRS-ENGCRS": true, "CRS-DRVDCRS": true, "DATUM-ENGDAT": true, "CS-AFFINE": true}
	for _, k := range Kinds {
		r := search(t, ix, "kind:"+k+" deprecated:*", "limit=50")
		if empty[k] != (r.Total == 0) {
			t.Errorf("kind:%s: %d results", k, r.Total)
		}
		for _, res := range r.Results {
			if k != "*" && res.Kind != k && !strings.HasPrefix(res.Kind, k+"-") {
				t.Errorf("kind:%s gave %s of kind %s", k, res.ID, res.Kind)
			}
		}
	}
	path, _ := FindDatabase()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for kind, q := range map[string]string{
		"CRS-PROJCRS":   "SELECT count(*) FROM projected_crs WHERE " + authFilter,
		"CRS-VERTCRS":   "SELECT count(*) FROM vertical_crs WHERE " + authFilter,
		"CRS-GEOG3DCRS": "SELECT count(*) FROM geodetic_crs WHERE type = 'geographic 3D' AND " + authFilter,
		"ELLIPSOID":     "SELECT count(*) FROM ellipsoid WHERE " + authFilter,
		"AREA":          "SELECT count(*) FROM extent WHERE " + authFilter,
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if got := search(t, ix, "kind:"+kind+" deprecated:*", "").Total; got != n || n == 0 {
			t.Errorf("kind:%s: %d, proj.db has %d", kind, got, n)
		}
	}
}

// TestSearchAgainstProjinfo compares names, areas and bounding boxes with
// what projinfo writes in its WKT2 (name, AREA, BBOX south, west, north,
// east).
func TestSearchAgainstProjinfo(t *testing.T) {
	ix := testIndex(t)
	projinfo := fixtures.Tool(t, "projinfo")
	nameRe := regexp.MustCompile(`^[A-Z0-9]+\["([^"]*)"`)
	areaRe := regexp.MustCompile(`AREA\["([^"]*)"\]`)
	bboxRe := regexp.MustCompile(`BBOX\[([-0-9.]+),([-0-9.]+),([-0-9.]+),([-0-9.]+)\]`)
	for _, c := range []struct{ code, kind string }{
		{"EPSG:2056", "crs"}, {"EPSG:4326", "crs"}, {"EPSG:3857", "crs"}, {"EPSG:32632", "crs"}, {"EPSG:27700", "crs"},
		{"EPSG:5514", "crs"}, {"EPSG:3006", "crs"}, {"EPSG:5703", "crs"}, {"ESRI:102100", "crs"}, {"IGNF:LAMB93", "crs"},
		{"EPSG:1676", "operation"}, {"EPSG:1313", "operation"},
	} {
		out, err := exec.Command(projinfo, "-k", c.kind, "-o", "WKT2_2019", "-q", c.code).Output()
		if err != nil {
			t.Errorf("projinfo %s: %v", c.code, err)
			continue
		}
		wkt := string(out)
		auth, code, _ := strings.Cut(c.code, ":")
		kind := map[string]string{"crs": "CRS", "operation": "COORDOP"}[c.kind]
		r := search(t, ix, "code:"+auth+":"+code+" deprecated:* kind:"+kind, "")
		if r.Total != 1 {
			t.Errorf("%s: %d results", c.code, r.Total)
			continue
		}
		res := r.Results[0]
		if m := nameRe.FindStringSubmatch(wkt); m == nil || m[1] != res.Name {
			t.Errorf("%s: name %q, projinfo %q", c.code, res.Name, m)
		}
		if m := areaRe.FindStringSubmatch(wkt); m == nil || m[1] != res.Area {
			t.Errorf("%s: area %q, projinfo %q", c.code, res.Area, m)
		}
		m := bboxRe.FindStringSubmatch(wkt)
		if m == nil || len(res.BBox) != 4 {
			t.Errorf("%s: bbox %v, projinfo %q", c.code, res.BBox, m)
			continue
		}
		// BBOX[south, west, north, east]; ours is west, south, east, north.
		for i, j := range []int{2, 1, 4, 3} {
			v, _ := strconv.ParseFloat(m[j], 64)
			if v != res.BBox[i] {
				t.Errorf("%s: bbox %v, projinfo %v", c.code, res.BBox, m[1:])
				break
			}
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	ix := testIndex(b)
	queries := []string{"swiss", "wgs 84", "kind:* utm zone 32n", "code:EPSG:2056", "trans:1676", "lambert", "kind:COORDOP france"}
	reqs := make([]SearchRequest, len(queries))
	for i, q := range queries {
		var err error
		if reqs[i], err = ParseSearch(q, url.Values{"limit": {"50"}, "transformations": {"true"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := ix.Search(context.Background(), reqs[i%len(reqs)], nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchP99 is the p99 of a search (limit 50, transformations) at
// concurrency 8.
func BenchmarkSearchP99(b *testing.B) {
	ix := testIndex(b)
	queries := []string{"swiss", "wgs 84", "kind:* utm zone 32n", "code:EPSG:2056", "trans:1676", "lambert", "kind:COORDOP france"}
	reqs := make([]SearchRequest, len(queries))
	for i, q := range queries {
		var err error
		if reqs[i], err = ParseSearch(q, url.Values{"limit": {"50"}, "transformations": {"true"}}); err != nil {
			b.Fatal(err)
		}
	}
	fixtures.Latency(b, 8, func(i int) error {
		_, err := ix.Search(context.Background(), reqs[i%len(reqs)], nil)
		return err
	})
}
