package coords

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendJSON: the hand-written encoding is encoding/json's, byte for
// byte, on edge values and random ones.
func TestAppendJSON(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, -1e-7, 1e-9, 1.5e-10, 1e20, 1e21, -1e21, 1.234e22,
		2566327.7016861373, 1149948.852062, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789012345678, 5e-324}
	strategies := []string{"", "proj_create_crs_to_crs: axis order change (2D) + Inverse of CH1903+ to WGS 84 (1) + Swiss Oblique Mercator 1995",
		`ops: "quoted" \ back`, "a<b>&c", "line\nbreak\ttab\r\x01\x1f", "Réseau géodésique français 1993", "\u2028\u2029", "bad \xff utf-8 \xc3"}
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
