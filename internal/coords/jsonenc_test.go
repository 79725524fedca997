package coords

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"
)

// TestAppendJSON: the hand-written encoding of transforms is encoding/json's,
// byte for byte, on edge values and random ones.
func TestAppendJSON(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, -1e-7, 1e-9, 1.5e-10, 1e20, 1e21, -1e21, 1.234e22,
		2566327.7016861373, 1149948.852062, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789012345678, 5e-324}
	strategies := []string{"", "proj_create_crs_to_crs: axis order change (2D) + Inverse of CH1903+ to WGS 84 (1) + Swiss Oblique Mercator 1995",
		`ops: "quoted" \ back`, "a<b>&c", "line\nbreak\ttab\r\x01\x1f\b\f\x7f", "Réseau géodésique français 1993", "\u2028\u2029", "bad \xff utf-8 \xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		floats = append(floats, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(60)-30)))
	}
	check := func(r *TransformResult) {
		t.Helper()
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		if got := r.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
	check(&TransformResult{})
	for _, s := range strategies {
		check(&TransformResult{Results: []Point{}, Strategy: s})
	}
	for i := 0; i+3 <= len(floats); i += 3 {
		check(&TransformResult{Results: []Point{{floats[i], floats[i+1], floats[i+2]}, {floats[i+2], floats[i], floats[i+1]}}, Strategy: strategies[i%len(strategies)]})
	}
}

// fixedExports gives every object the same exports, with characters JSON
// escapes.
type fixedExports struct{}

func (fixedExports) Export(context.Context, Ref, Category) (Exports, error) {
	return Exports{Proj4: "+proj=longlat <&> +no_defs", WKT: "GEOGCRS[\"x\",\n    ID[\"EPSG\",4326]]"}, nil
}

// TestSearchAppendJSON: the hand-written encoding of search answers is
// encoding/json's, byte for byte, on real answers of the registry (every
// kind, transformations, exports, IGNF string codes, null accuracies and
// boxes) and on edge values.
func TestSearchAppendJSON(t *testing.T) {
	ix := testIndex(t)
	n := 0
	for _, q := range []string{"kind:*", "kind:* deprecated:*", "ignf", "lambert", "kind:COORDOP france", "kind:AREA", "kind:UNIT", "trans:1676 kind:*", "wgs 84", "kind:DATUM", "kind:ELLIPSOID", "kind:CS", "kind:AXIS"} {
		for _, tr := range []bool{false, true} {
			for off := 0; off < 400; off += 50 {
				req, err := ParseSearch(q, url.Values{"limit": {"50"}, "offset": {strconv.Itoa(off)}, "transformations": {strconv.FormatBool(tr)}, "exports": {strconv.FormatBool(off%100 == 0)}})
				if err != nil {
					t.Fatal(err)
				}
				res, err := ix.Search(context.Background(), req, fixedExports{})
				if err != nil {
					t.Fatal(err)
				}
				want, _ := json.Marshal(res)
				if got := res.AppendJSON(nil); string(got) != string(want)+"\n" {
					t.Fatalf("%q offset %d: AppendJSON differs from encoding/json:\n%.600s\n%.600s", q, off, got, want)
				}
				n += len(res.Results)
			}
		}
	}
	one := 1.5
	empty := []Transformation{}
	var none []Transformation
	for _, r := range []SearchResults{
		{},
		{Results: []Result{{}}},
		{Results: []Result{{Accuracy: &one, BBox: []float64{}, Transformations: &empty, ID: Ref{"IGNF", "LAMB93"}}}, Total: 3},
		{Results: []Result{{Transformations: &none, DefaultTransformation: &Ref{"EPSG", "0"}}}},
		{Results: []Result{{Transformations: &[]Transformation{{Grids: []Grid{}}, {Grids: []Grid{{"a\"b"}}, TargetCRS: Ref{"ESRI", "102100"}}}}}},
	} {
		want, _ := json.Marshal(&r)
		if got := r.AppendJSON(nil); string(got) != string(want)+"\n" {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
	if n < 1000 {
		t.Errorf("%d results compared", n)
	}
}
