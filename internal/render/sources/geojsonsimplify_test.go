package sources

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

func TestImportance(t *testing.T) {
	// A zigzag whose middle vertex sticks out most: it is picked first,
	// with its squared distance from the chord.
	pts := []orb.Point{{0, 0}, {1, 0.1}, {2, 1}, {3, 0.2}, {4, 0}}
	imp := make([]float64, len(pts))
	importance(pts, imp, 0, len(pts)-1, 0)
	if imp[2] != 1 {
		t.Errorf("middle vertex importance %v, want 1", imp[2])
	}
	// The others are measured against the halves' chords.
	for _, i := range []int{1, 3} {
		want := geo.SegmentDist2(pts[i], pts[2*(i/2)], pts[2*(i/2)+2])
		if math.Abs(imp[i]-want) > 1e-12 {
			t.Errorf("vertex %d importance %v, want %v", i, imp[i], want)
		}
	}
	// Under the tolerance nothing is picked.
	clear(imp)
	importance(pts, imp, 0, len(pts)-1, 2)
	for i, v := range imp {
		if v != 0 {
			t.Errorf("vertex %d importance %v under a tolerance above every distance", i, v)
		}
	}
}

func TestSimplifierLine(t *testing.T) {
	// A gentle curve in world units at zoom 4: wiggles far under the
	// tolerance go, the corner stays; at maxzoom everything stays.
	unit := 1 / (math.Exp2(4) * GeoJSONExtent) // one tile unit at zoom 4
	var pts []orb.Point
	for i := 0; i <= 100; i++ {
		pts = append(pts, orb.Point{float64(i) * 10 * unit, 0.5 + float64(i%2)*0.1*unit})
	}
	pts = append(pts, orb.Point{1000 * unit, 0.5 + 500*unit}) // a corner
	s := newSimplifier(defaultGeoJSONTolerance, 18, 4)
	got := s.line(pts, false)
	if len(got) != 3 || got[0] != pts[0] || got[2] != pts[len(pts)-1] {
		t.Errorf("kept %d vertices %v, want the ends and the corner", len(got), got)
	}
	if all := newSimplifier(defaultGeoJSONTolerance, 4, 4).line(pts, false); len(all) != len(pts) {
		t.Errorf("at maxzoom %d of %d vertices kept", len(all), len(pts))
	}
	// A line shorter than the tolerance is not drawn; a ring of too little
	// area neither.
	short := []orb.Point{{0.5, 0.5}, {0.5 + unit, 0.5}, {0.5 + 2*unit, 0.5}}
	if got := s.line(short, false); got != nil {
		t.Errorf("a 2-unit line kept: %v", got)
	}
	tiny := []orb.Point{{0.5, 0.5}, {0.5 + unit, 0.5}, {0.5 + unit, 0.5 + unit}, {0.5, 0.5 + unit}, {0.5, 0.5}}
	if got := s.line(tiny, true); got != nil {
		t.Errorf("a ring of 1 square unit kept: %v", got)
	}
	big := []orb.Point{{0.5, 0.5}, {0.5 + 100*unit, 0.5}, {0.5 + 100*unit, 0.5 + 100*unit}, {0.5, 0.5 + 100*unit}, {0.5, 0.5}}
	if got := s.line(big, true); len(got) != len(big) {
		t.Errorf("a square ring lost corners: %v", got)
	}
}

func TestClipLineFromStarts(t *testing.T) {
	// A line along y=0.5 from x=0 to 10 and back up to y=5 at x=10, cut to
	// the box 2..4 x 0..10, then to 8..12 x 0..3: each piece starts where
	// it enters, measured along the whole line.
	line := []orb.Point{{0, 0.5}, {10, 0.5}, {10, 5}}
	pieces, starts := scene.ClipLineFrom(line, scene.Box{X0: 2, Y0: 0, X1: 4, Y1: 10})
	if len(pieces) != 1 || starts[0] != 2 {
		t.Errorf("pieces %v starts %v, want one from 2", pieces, starts)
	}
	pieces, starts = scene.ClipLineFrom(line, scene.Box{X0: 8, Y0: 0, X1: 12, Y1: 3})
	if len(pieces) != 1 || starts[0] != 8 || pieces[0][len(pieces[0])-1] != (orb.Point{10, 3}) {
		t.Errorf("pieces %v starts %v, want one from 8 to (10, 3)", pieces, starts)
	}
	if got := scene.LineLength(line); got != 14.5 {
		t.Errorf("length %v, want 14.5", got)
	}
}

func TestClipRing(t *testing.T) {
	b := scene.Box{X0: 0, Y0: 0, X1: 10, Y1: 10}
	tests := []struct {
		name string
		ring []orb.Point
		want []orb.Point
	}{
		{"inside", []orb.Point{{1, 1}, {9, 1}, {9, 9}}, []orb.Point{{1, 1}, {9, 1}, {9, 9}}},
		{"on the edges", []orb.Point{{0, 0}, {10, 0}, {10, 10}, {0, 10}}, []orb.Point{{0, 0}, {10, 0}, {10, 10}, {0, 10}}},
		{"across the right edge", []orb.Point{{5, 2}, {15, 2}, {15, 8}, {5, 8}}, []orb.Point{{5, 2}, {10, 2}, {10, 8}, {5, 8}}},
		{"outside", []orb.Point{{20, 20}, {30, 20}, {30, 30}}, nil},
		{"too few points inside", []orb.Point{{1, 1}, {2, 2}}, nil},
	}
	for _, tc := range tests {
		got := scene.ClipRing(tc.ring, b)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		// The same ring, possibly starting elsewhere.
		start := -1
		for i, p := range got {
			if p == tc.want[0] {
				start = i
			}
		}
		for i := range tc.want {
			if start < 0 || got[(start+i)%len(got)] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}
