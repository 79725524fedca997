package geo

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMercator(t *testing.T) {
	tests := []struct {
		lon, lat, x, y float64
	}{
		{0, 0, 0, 0},
		{180, 0, OriginShift, 0},
		{-180, MaxLat, -OriginShift, OriginShift},
		{13.404954, 52.520008, 1492232.6, 6894701.7}, // Berlin
		{0, 89.9, 0, OriginShift},                    // clamped
		{0, -90, 0, -OriginShift},
	}
	for _, tc := range tests {
		x, y := LonLatToMercator(tc.lon, tc.lat)
		if !near(x, tc.x, 0.5) || !near(y, tc.y, 0.5) {
			t.Errorf("LonLatToMercator(%v, %v) = %v, %v; want %v, %v", tc.lon, tc.lat, x, y, tc.x, tc.y)
		}
		lon, lat := MercatorToLonLat(x, y)
		if !near(lon, tc.lon, 1e-9) || !near(lat, ClampLat(tc.lat), 1e-9) {
			t.Errorf("round trip of %v, %v gave %v, %v", tc.lon, tc.lat, lon, lat)
		}
	}
}

func TestWorld(t *testing.T) {
	x, y := LonLatToWorld(0, 0)
	if x != 0.5 || !near(y, 0.5, 1e-15) {
		t.Fatalf("origin: %v, %v", x, y)
	}
	x, y = LonLatToWorld(-180, MaxLat)
	if x != 0 || y != 0 {
		t.Fatalf("corner: %v, %v", x, y)
	}
	lon, lat := WorldToLonLat(1, 1)
	if lon != 180 || !near(lat, -MaxLat, 1e-9) {
		t.Fatalf("other corner: %v, %v", lon, lat)
	}
}

func TestTileRangeAndBounds(t *testing.T) {
	tests := []struct {
		name   string
		b      [4]float64
		z      int
		c0, c1 int
		r0, r1 int
	}{
		{"world z0", [4]float64{-180, -85, 180, 85}, 0, 0, 0, 0, 0},
		{"world z2", [4]float64{-180, -MaxLat, 180, MaxLat}, 2, 0, 3, 0, 3},
		{"north-east quarter z1", [4]float64{0, 0, 180, MaxLat}, 1, 1, 1, 0, 0},
		{"edge does not pull the neighbour", [4]float64{0, 0, 90, 66.51326044311186}, 2, 2, 2, 1, 1},
		{"point", [4]float64{13.4, 52.5, 13.4, 52.5}, 10, 550, 550, 335, 335},
	}
	for _, tc := range tests {
		c0, c1, r0, r1 := TileRange(tc.b[0], tc.b[1], tc.b[2], tc.b[3], tc.z)
		if c0 != tc.c0 || c1 != tc.c1 || r0 != tc.r0 || r1 != tc.r1 {
			t.Errorf("%s: got cols %d-%d rows %d-%d, want %d-%d %d-%d", tc.name, c0, c1, r0, r1, tc.c0, tc.c1, tc.r0, tc.r1)
		}
	}
	w, s, e, n := TileBounds(1, 1, 0)
	if w != 0 || !near(s, 0, 1e-12) || e != 180 || !near(n, MaxLat, 1e-9) {
		t.Errorf("TileBounds(1,1,0) = %v %v %v %v", w, s, e, n)
	}
}

func TestPointInPolygon(t *testing.T) {
	square := orb.Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	hole := orb.Ring{{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}
	// A concave "U": the notch between x 3..7 above y 3 is outside.
	u := orb.Ring{{0, 0}, {10, 0}, {10, 10}, {7, 10}, {7, 3}, {3, 3}, {3, 10}, {0, 10}}
	tests := []struct {
		name string
		p    orb.Point
		poly orb.Polygon
		want bool
	}{
		{"inside", orb.Point{1, 1}, orb.Polygon{square}, true},
		{"outside", orb.Point{11, 1}, orb.Polygon{square}, false},
		{"in the hole", orb.Point{5, 5}, orb.Polygon{square, hole}, false},
		{"beside the hole", orb.Point{3, 5}, orb.Polygon{square, hole}, true},
		{"ray through a vertex", orb.Point{-1, 10}, orb.Polygon{square}, false},
		{"concave notch", orb.Point{5, 8}, orb.Polygon{u}, false},
		{"concave arm", orb.Point{8, 8}, orb.Polygon{u}, true},
		{"degenerate", orb.Point{0, 0}, orb.Polygon{{{0, 0}, {1, 1}}}, false},
		{"empty", orb.Point{0, 0}, orb.Polygon{}, false},
	}
	for _, tc := range tests {
		if got := PointInPolygon(tc.p, tc.poly); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
	if !PointInMultiPolygon(orb.Point{5, 5}, orb.MultiPolygon{{hole}, {square}}) {
		t.Error("multipolygon: a point in the second polygon")
	}
	if a := SignedArea(square); a != 100 {
		t.Errorf("area %v", a)
	}
	if a := SignedArea(orb.Ring{{0, 0}, {0, 10}, {10, 10}, {10, 0}}); a != -100 {
		t.Errorf("clockwise area %v", a)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b orb.Point
		km   float64
	}{
		{orb.Point{2.3522, 48.8566}, orb.Point{-0.1276, 51.5072}, 343.5}, // Paris-London
		{orb.Point{0, 0}, orb.Point{180, 0}, math.Pi * MeanEarthRadius / 1000},
		{orb.Point{10, 10}, orb.Point{10, 10}, 0},
		{orb.Point{0, 90}, orb.Point{0, -90}, math.Pi * MeanEarthRadius / 1000},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b) / 1000; !near(got, tc.km, 1) {
			t.Errorf("Distance(%v, %v) = %.1f km, want %.1f", tc.a, tc.b, got, tc.km)
		}
	}
}
