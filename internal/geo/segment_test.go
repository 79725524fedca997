package geo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
)

func TestSegments(t *testing.T) {
	a, b := orb.Point{0, 0}, orb.Point{4, 4}
	for _, tc := range []struct {
		p  orb.Point
		on bool
	}{{orb.Point{2, 2}, true}, {orb.Point{0, 0}, true}, {orb.Point{4, 4}, true}, {orb.Point{5, 5}, false}, {orb.Point{2, 2.0001}, false}} {
		if got := OnSegment(tc.p, a, b); got != tc.on {
			t.Errorf("OnSegment(%v) = %v", tc.p, got)
		}
	}
	tests := []struct {
		name       string
		a, b, c, d orb.Point
		cross      bool
	}{
		{"X", orb.Point{0, 0}, orb.Point{2, 2}, orb.Point{0, 2}, orb.Point{2, 0}, true},
		{"T touching", orb.Point{0, 0}, orb.Point{2, 0}, orb.Point{1, 0}, orb.Point{1, 2}, false},
		{"parallel", orb.Point{0, 0}, orb.Point{2, 0}, orb.Point{0, 1}, orb.Point{2, 1}, false},
		{"collinear overlap", orb.Point{0, 0}, orb.Point{2, 0}, orb.Point{1, 0}, orb.Point{3, 0}, false},
		{"apart", orb.Point{0, 0}, orb.Point{1, 1}, orb.Point{2, 0}, orb.Point{3, -1}, false},
	}
	for _, tc := range tests {
		if got := SegmentsCross(tc.a, tc.b, tc.c, tc.d); got != tc.cross {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}

func TestLocate(t *testing.T) {
	square := orb.Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	open := orb.Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}} // not closed: the closing edge still counts
	hole := orb.Ring{{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}
	tests := []struct {
		p     orb.Point
		rings []orb.Ring
		want  Location
	}{
		{orb.Point{1, 1}, []orb.Ring{square}, Inside},
		{orb.Point{0, 5}, []orb.Ring{square}, OnBoundary},
		{orb.Point{0, 5}, []orb.Ring{open}, OnBoundary},
		{orb.Point{10, 10}, []orb.Ring{square}, OnBoundary},
		{orb.Point{11, 5}, []orb.Ring{square}, Outside},
		{orb.Point{5, 5}, []orb.Ring{square, hole}, Outside},
		{orb.Point{4, 5}, []orb.Ring{square, hole}, OnBoundary},
		{orb.Point{3, 5}, []orb.Ring{square, hole}, Inside},
	}
	for _, tc := range tests {
		if got := Locate(tc.p, tc.rings); got != tc.want {
			t.Errorf("Locate(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if !RingsCrossedBy(orb.Point{5, 5}, orb.Point{15, 5}, []orb.Ring{square}) || RingsCrossedBy(orb.Point{1, 1}, orb.Point{2, 2}, []orb.Ring{square}) {
		t.Error("RingsCrossedBy")
	}
}

func TestLocalScale(t *testing.T) {
	// One degree of latitude is about 110.6 km at the equator and 111.7 km
	// at the poles; one degree of longitude 111.3 km at the equator.
	eq, pole := NewLocalScale(0), NewLocalScale(90)
	if !near(eq.MetresPerDegLat, 110574, 2) || !near(pole.MetresPerDegLat, 111694, 2) || !near(eq.MetresPerDegLon, 111320, 2) {
		t.Errorf("scales: %+v %+v", eq, pole)
	}
	s := NewLocalScale(48.85)
	// Across the antimeridian the short way round is taken.
	if d := s.Dist(orb.Point{179.9, 0}, orb.Point{-179.9, 0}); !near(d, 0.2*s.MetresPerDegLon, 1e-6) {
		t.Errorf("across the antimeridian: %v", d)
	}
	// A short distance agrees with the great circle to 0.1%.
	a, b := orb.Point{2.35, 48.85}, orb.Point{2.45, 48.90}
	if d, gc := s.Dist(a, b), Distance(a, b); math.Abs(d-gc)/gc > 0.003 {
		t.Errorf("local %v vs great circle %v", d, gc)
	}
	if d := s.PointSegment(orb.Point{1, 1}, orb.Point{0, 0}, orb.Point{2, 0}); !near(d, s.MetresPerDegLat, 1e-6) {
		t.Errorf("point to segment: %v", d)
	}
	if d := s.SegmentSegment(orb.Point{0, 0}, orb.Point{2, 2}, orb.Point{0, 2}, orb.Point{2, 0}); d != 0 {
		t.Errorf("crossing segments: %v", d)
	}
}

// TestPartDistancePruning checks the pruned distance against brute force.
func TestPartDistancePruning(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	walk := func(n int, x, y float64) []orb.Point {
		pts := make([]orb.Point, n)
		for i := range pts {
			x += rng.Float64()*0.02 - 0.01
			y += rng.Float64()*0.02 - 0.01
			pts[i] = orb.Point{x, y}
		}
		return pts
	}
	s := NewLocalScale(45)
	for i := 0; i < 40; i++ {
		a := Part{walk(20+rng.IntN(300), 8, 45), i%2 == 0}
		b := Part{walk(20+rng.IntN(300), 8+rng.Float64()*0.2, 45+rng.Float64()*0.2), i%3 != 0}
		want := s.leafDistance(a, b)
		if got := s.PartDistance(a, b); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("case %d (lines %v/%v): pruned %v, brute force %v", i, a.Line, b.Line, got, want)
		}
	}
	if d := s.PartDistance(Part{[]orb.Point{{0, 0}}, true}, Part{[]orb.Point{{0, 1}, {2, 1}}, true}); !near(d, s.MetresPerDegLat, 1e-6) {
		t.Errorf("a one-point polyline: %v", d)
	}
}

func TestPolygonDistances(t *testing.T) {
	s := NewLocalScale(0)
	sq := []orb.Ring{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}
	far := []orb.Ring{{{3, 0}, {4, 0}, {4, 1}, {3, 1}, {3, 0}}}
	crossing := []orb.Ring{{{0.5, -1}, {0.6, -1}, {0.6, 2}, {0.5, 2}, {0.5, -1}}} // no vertex inside the square
	if d := s.PolygonDistance(Part{Points: []orb.Point{{0.5, 0.5}}}, sq); d != 0 {
		t.Errorf("point inside: %v", d)
	}
	if d := s.PolygonDistance(Part{Points: []orb.Point{{2, 0.5}}}, sq); !near(d, s.MetresPerDegLon, 1e-6) {
		t.Errorf("point outside: %v", d)
	}
	if d := s.PolygonsDistance(sq, far); !near(d, 2*s.MetresPerDegLon, 1e-6) {
		t.Errorf("polygons apart: %v", d)
	}
	if d := s.PolygonsDistance(sq, crossing); d != 0 {
		t.Errorf("crossing polygons: %v", d)
	}
}

func TestSegmentDist2(t *testing.T) {
	a, b := orb.Point{0, 0}, orb.Point{10, 0}
	tests := []struct {
		name    string
		p, a, b orb.Point
		want    float64
	}{
		{"above the middle", orb.Point{5, 3}, a, b, 9},
		{"on the segment", orb.Point{7, 0}, a, b, 0},
		{"beyond b", orb.Point{13, 4}, a, b, 25},
		{"before a", orb.Point{-3, -4}, a, b, 25},
		{"at a", a, a, b, 0},
		{"zero-length segment", orb.Point{3, 4}, orb.Point{0, 0}, orb.Point{0, 0}, 25},
		{"slanted", orb.Point{0, 2}, orb.Point{0, 0}, orb.Point{2, 2}, 2},
		{"reversed ends", orb.Point{5, 3}, b, a, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SegmentDist2(tc.p, tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("SegmentDist2(%v, %v, %v) = %v, want %v", tc.p, tc.a, tc.b, got, tc.want)
			}
		})
	}
}
