package symbols

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
)

// square100 is a 100-unit square with a 20-unit hole at (60..80, 60..80).
var square100 = [][]orb.Point{
	{{0, 0}, {100, 0}, {100, 100}, {0, 100}, {0, 0}},
	{{60, 60}, {60, 80}, {80, 80}, {80, 60}, {60, 60}},
}

func TestSignedBoundaryDist(t *testing.T) {
	tests := []struct {
		name string
		p    orb.Point
		want float64
	}{
		{"inside near the left edge", orb.Point{10, 30}, 10},
		{"inside near the hole", orb.Point{50, 70}, 10},
		{"in the hole", orb.Point{70, 70}, -10},
		{"outside", orb.Point{-5, 50}, -5},
		{"outside past a corner", orb.Point{103, 104}, -5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := signedBoundaryDist(tc.p, polygonRings(square100)); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("signedBoundaryDist(%v) = %v, want %v", tc.p, got, tc.want)
			}
		})
	}
}

func TestRingCentroid(t *testing.T) {
	tests := []struct {
		name string
		ring []orb.Point
		want orb.Point
		ok   bool
	}{
		{"closed square", []orb.Point{{0, 0}, {4, 0}, {4, 2}, {0, 2}, {0, 0}}, orb.Point{2, 1}, true},
		{"open triangle, clockwise", []orb.Point{{0, 0}, {0, 3}, {3, 0}}, orb.Point{1, 1}, true},
		{"L shape", []orb.Point{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}, orb.Point{5.0 / 6, 5.0 / 6}, true},
		{"flat", []orb.Point{{0, 0}, {1, 1}, {2, 2}}, orb.Point{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ringCentroid(tc.ring)
			if ok != tc.ok || math.Hypot(got[0]-tc.want[0], got[1]-tc.want[1]) > 1e-9 {
				t.Errorf("ringCentroid = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestPoleAgainstSampling checks the search's promise: no point of a fine
// grid over the polygon is farther from the edges than the pole by more than
// the precision; and degenerate polygons report false.
func TestPoleAgainstSampling(t *testing.T) {
	star := starRing(10, orb.Point{200, 200}, 100, 35)
	tests := []struct {
		name      string
		rings     [][]orb.Point
		precision float64
	}{
		{"square with a hole", square100, 0.5},
		{"star", [][]orb.Point{star}, 1},
		{"comb", [][]orb.Point{{{0, 0}, {90, 0}, {90, 50}, {70, 50}, {70, 10}, {50, 10}, {50, 50}, {30, 50}, {30, 10}, {10, 10}, {10, 80}, {0, 80}}}, 0.25},
		{"thin diagonal", [][]orb.Point{{{0, 0}, {1000, 990}, {1000, 1000}, {0, 10}}}, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := poleOfInaccessibility(tc.rings, tc.precision)
			if !ok {
				t.Fatal("no pole")
			}
			rings := polygonRings(tc.rings)
			got := signedBoundaryDist(p, rings)
			if got <= 0 {
				t.Fatalf("pole %v is outside (distance %v)", p, got)
			}
			box := orb.LineString(tc.rings[0]).Bound()
			step := math.Max(box.Max[0]-box.Min[0], box.Max[1]-box.Min[1]) / 400
			best := math.Inf(-1)
			for y := box.Min[1]; y <= box.Max[1]; y += step {
				for x := box.Min[0]; x <= box.Max[0]; x += step {
					best = math.Max(best, signedBoundaryDist(orb.Point{x, y}, rings))
				}
			}
			if best-got > tc.precision {
				t.Errorf("pole %v at distance %v; a sampled point is at %v (precision %v)", p, got, best, tc.precision)
			}
		})
	}
	for _, rings := range [][][]orb.Point{
		nil,
		{{{0, 0}, {1, 1}}},
		{{{0, 0}, {5, 0}, {10, 0}, {0, 0}}},
	} {
		if p, ok := poleOfInaccessibility(rings, 1); ok {
			t.Errorf("poleOfInaccessibility(%v) = %v, true; want false", rings, p)
		}
	}
}

// BenchmarkPoleOfInaccessibility finds the pole of a 2,000-vertex star in
// tile units at the renderer's precision (16).
func BenchmarkPoleOfInaccessibility(b *testing.B) {
	ring := starRing(2000, orb.Point{4096, 4096}, 4000, 3000)
	rings := [][]orb.Point{ring}
	for b.Loop() {
		poleOfInaccessibility(rings, 16)
	}
}

// starRing returns a closed star of n points about c, alternately r0 and
// r1 from it, the first straight above c.
func starRing(n int, c orb.Point, r0, r1 float64) []orb.Point {
	ring := make([]orb.Point, 0, n+1)
	for i := range n {
		r := r0
		if i%2 == 1 {
			r = r1
		}
		a := float64(i) * 2 * math.Pi / float64(n)
		ring = append(ring, orb.Point{c[0] + r*math.Sin(a), c[1] - r*math.Cos(a)})
	}
	return append(ring, ring[0])
}
