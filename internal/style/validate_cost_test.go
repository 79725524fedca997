package style

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// hostileAll50k is a style whose one filter is an "all" of 50,000 terms:
// it took 14 s and 1 GB to validate when every term re-built a string of
// the argument types so far.
const hostileAll50k = "testdata/hostile/filter-all-50000.json.gz"

func readGzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// allFilterStyle is a style with one layer filtered by an "all" of n
// expression terms.
func allFilterStyle(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":8,"sources":{"s":{"type":"geojson","data":{"type":"FeatureCollection","features":[]}}},"layers":[{"id":"l","type":"fill","source":"s","filter":["all"`)
	for i := range n {
		fmt.Fprintf(&b, `,["!=",["get","k%d"],%d]`, i%7, i)
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestValidateCostLinear holds validation to work in proportion to the
// style: ten times the terms may take about ten times the memory, not a
// hundred (what a quadratic step makes of it).
func TestValidateCostLinear(t *testing.T) {
	cost := func(n int) uint64 {
		s, err := Parse(allFilterStyle(n))
		if err != nil {
			t.Fatal(err)
		}
		return allocatedBy(func() {
			if errs := Validate(s, nil); len(errs) != 0 {
				t.Fatalf("%d terms: %v", n, errs[0])
			}
		})
	}
	small, large := cost(4000), cost(40000)
	if ratio := float64(large) / float64(small); ratio > 16 {
		t.Errorf("validating 10x the terms allocates %.1fx the memory (%d -> %d bytes): not linear", ratio, small, large)
	}
}

func TestValidateHostileAllFilter(t *testing.T) {
	raw := readGzip(t, hostileAll50k)
	s, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var errs []ValidationError
	n := allocatedBy(func() { errs = Validate(s, nil) })
	if len(errs) != 0 {
		t.Fatalf("valid style refused: %v", errs[0])
	}
	// 1.2 MB of style: about 140 MB allocated in all (it was 10 GB).
	if n > 400<<20 {
		t.Errorf("validating a %d-byte style allocated %d MB", len(raw), n>>20)
	}
	// The same filter with an error in the last term is refused, at the
	// term's path.
	bad := strings.Replace(string(raw), `["!=",["get","k"],"x"]]`, `["!=",["get","k"]]]`, 1)
	s, err = Parse([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	errs = Validate(s, nil)
	if len(errs) == 0 || !strings.Contains(errs[0].Path, "filter[50000]") {
		t.Errorf("error in the last term: %v", errs)
	}
}

func BenchmarkValidateHostileAllFilter(b *testing.B) {
	s, err := Parse(readGzip(b, hostileAll50k))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Validate(s, nil)
	}
}

// TestValidateExpressionValues: expressions go to the compiler as the
// style holds them (no JSON round trip): numbers beyond float64 are
// infinities, objects inside expressions are read, errors keep their
// paths.
func TestValidateExpressionValues(t *testing.T) {
	for _, tt := range []struct {
		layer string
		want  string // "" for valid, else part of the first error
	}{
		{`"filter": ["<", ["get", "x"], 1e400]`, ""},
		{`"layout": {"text-field": ["format", "a", {"font-scale": 1.2}]}`, ""},
		{`"layout": {"text-field": ["format", "a", {"font-scale": "big"}]}`, "text-field[1]: Expected number but found string"},
		{`"filter": ["==", ["get", "x", ["literal", {"x": [1, 2]}]], 1]`, ""},
		{`"filter": ["==", ["get", "x"], ["literal", {"a": [1, 2]}]]`, "comparisons are not supported for type 'object'"},
		{`"filter": ["all", true, ["==", ["get"], 1]]`, "layers[0].filter[2][1]"},
	} {
		doc := `{"version": 8, "glyphs": "https://h/{fontstack}/{range}.pbf", "sources": {"s": {"type": "geojson", "data": {"type": "FeatureCollection", "features": []}}},
			"layers": [{"id": "l", "type": "symbol", "source": "s", ` + tt.layer + `}]}`
		s, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		errs := Validate(s, nil)
		switch {
		case tt.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", tt.layer, errs)
		case tt.want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Error(), tt.want)):
			t.Errorf("%s: %v, want an error at %s", tt.layer, errs, tt.want)
		}
	}
}
