package layers

import (
	"testing"

	"github.com/paulmach/orb"
)

// TestRingPolygons groups lines closed into rings as GL groups a feature's
// rings: by the winding of the first ring with an area.
func TestRingPolygons(t *testing.T) {
	cw := []orb.Point{{0, 0}, {4, 0}, {4, 4}, {0, 4}}  // clockwise on the screen (y down)
	ccw := []orb.Point{{1, 1}, {1, 3}, {3, 3}, {3, 1}} // the other way
	cw2 := []orb.Point{{5, 0}, {6, 0}, {6, 1}}         // clockwise, open
	flat := []orb.Point{{0, 0}, {1, 1}, {2, 2}}        // no area
	tests := []struct {
		name  string
		rings [][]orb.Point
		want  []int // rings per polygon
	}{
		{"one", [][]orb.Point{cw}, []int{1}},
		{"hole", [][]orb.Point{cw, ccw}, []int{2}},
		{"two outers, hole of the second", [][]orb.Point{cw, cw2, ccw}, []int{1, 2}},
		{"the first sets the winding", [][]orb.Point{ccw, cw, cw2}, []int{3}},
		{"no area dropped", [][]orb.Point{flat, cw, flat}, []int{1}},
		{"only flat", [][]orb.Point{flat}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ringPolygons(tc.rings)
			if len(got) != len(tc.want) {
				t.Fatalf("%d polygons, want %d", len(got), len(tc.want))
			}
			for i, p := range got {
				if len(p) != tc.want[i] {
					t.Errorf("polygon %d has %d rings, want %d", i, len(p), tc.want[i])
				}
			}
		})
	}
}
