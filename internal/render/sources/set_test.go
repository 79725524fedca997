package sources

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

func TestShiftedX(t *testing.T) {
	poly := scene.Feature{Kind: "Polygon", Polygons: [][][]orb.Point{{{{0.1, 0.2}, {0.3, 0.2}, {0.3, 0.4}}}}}
	line := scene.Feature{Kind: "LineString", Parts: [][]orb.Point{{{0.5, 0.5}, {0.9, 0.1}}}}
	tests := []struct {
		name string
		f    scene.Feature
		dx   float64
		want orb.Point // the first point after the shift
	}{
		{"polygon left", poly, -1, orb.Point{-0.9, 0.2}},
		{"polygon right", poly, 2, orb.Point{2.1, 0.2}},
		{"line right", line, 1, orb.Point{1.5, 0.5}},
	}
	for _, tc := range tests {
		got := shiftedX(tc.f, tc.dx)
		var first orb.Point
		if got.Polygons != nil {
			first = got.Polygons[0][0][0]
			if tc.f.Polygons[0][0][0] == first {
				t.Errorf("%s: the original was moved too", tc.name)
			}
		} else {
			first = got.Parts[0][0]
		}
		if math.Abs(first[0]-tc.want[0]) > 1e-12 || first[1] != tc.want[1] {
			t.Errorf("%s: first point %v, want %v", tc.name, first, tc.want)
		}
	}
}
