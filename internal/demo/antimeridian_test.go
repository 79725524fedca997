package demo

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

func TestSplitAntimeridian(t *testing.T) {
	tests := []struct {
		name    string
		poly    orb.Polygon
		bounds  []orb.Bound
		area    float64
		inside  []orb.Point
		outside []orb.Point
	}{
		{
			name:   "ordinary",
			poly:   orb.Polygon{{{0, 0}, {2, 0}, {2, 1}, {0, 1}, {0, 0}}},
			bounds: []orb.Bound{{Min: orb.Point{0, 0}, Max: orb.Point{2, 1}}},
			area:   2,
		},
		{
			name:    "crossing like Fiji",
			poly:    orb.Polygon{{{178, -17}, {-179, -17}, {-179, -16}, {178, -16}, {178, -17}}},
			bounds:  []orb.Bound{{Min: orb.Point{178, -17}, Max: orb.Point{180, -16}}, {Min: orb.Point{-180, -17}, Max: orb.Point{-179, -16}}},
			area:    3,
			inside:  []orb.Point{{179, -16.5}, {-179.5, -16.5}},
			outside: []orb.Point{{0, -16.5}},
		},
		{
			name: "crossing with a hole",
			poly: orb.Polygon{
				{{170, 60}, {-170, 60}, {-170, 70}, {170, 70}, {170, 60}},
				{{175, 64}, {175, 66}, {177, 66}, {177, 64}, {175, 64}},
			},
			bounds:  []orb.Bound{{Min: orb.Point{170, 60}, Max: orb.Point{180, 70}}, {Min: orb.Point{-180, 60}, Max: orb.Point{-170, 70}}},
			area:    200 - 4,
			inside:  []orb.Point{{172, 65}, {-175, 65}},
			outside: []orb.Point{{176, 65}, {0, 65}},
		},
		{
			// The exterior unwraps from its first position (east of 180°)
			// to longitudes below -180, the hole (a Caspian) stays near 50°.
			name: "crossing with a hole far from the antimeridian",
			poly: orb.Polygon{
				{{-175, 30}, {-175, 70}, {175, 70}, {40, 70}, {40, 30}, {175, 30}, {-175, 30}},
				{{45, 40}, {55, 40}, {55, 45}, {45, 45}, {45, 40}},
			},
			bounds:  []orb.Bound{{Min: orb.Point{40, 30}, Max: orb.Point{180, 70}}, {Min: orb.Point{-180, 30}, Max: orb.Point{-175, 70}}},
			area:    5*40 + 140*40 - 10*5,
			inside:  []orb.Point{{42, 50}, {-177, 65}},
			outside: []orb.Point{{50, 42}, {0, 65}},
		},
		{
			// A Natural Earth land island east of 180° whose ring touches the
			// antimeridian with one vertex written as -180.
			name:    "touching with a vertex at -180",
			poly:    orb.Polygon{{{180, -16.96}, {179.9, -17}, {179.9, -16.8}, {180, -16.79}, {-180, -16.78}, {180, -16.96}}},
			bounds:  []orb.Bound{{Min: orb.Point{179.9, -17}, Max: orb.Point{180, -16.78}}},
			inside:  []orb.Point{{179.95, -16.9}},
			outside: []orb.Point{{0, -16.9}},
		},
		{
			name:    "around the South Pole like Antarctica",
			poly:    orb.Polygon{{{-180, -70}, {-90, -72}, {0, -70}, {90, -72}, {180, -70}, {-180, -70}}},
			bounds:  []orb.Bound{{Min: orb.Point{-180, -90}, Max: orb.Point{180, -70}}},
			inside:  []orb.Point{{0, -80}, {-179, -85}, {179, -85}},
			outside: []orb.Point{{0, -60}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := splitAntimeridian(tc.poly)
			if len(got) != len(tc.bounds) {
				t.Fatalf("got %d polygons, want %d: %v", len(got), len(tc.bounds), got)
			}
			var area float64
			for i, p := range got {
				b := p.Bound()
				if !near2(b.Min, tc.bounds[i].Min) || !near2(b.Max, tc.bounds[i].Max) {
					t.Errorf("polygon %d bounds %v, want %v", i, b, tc.bounds[i])
				}
				for _, r := range p {
					if r[0] != r[len(r)-1] || len(r) < 4 {
						t.Errorf("polygon %d has an open or short ring %v", i, r)
					}
				}
				area += math.Abs(planar.Area(p))
			}
			if tc.area > 0 && math.Abs(area-tc.area) > 1e-9 {
				t.Errorf("area %v, want %v", area, tc.area)
			}
			mp := orb.MultiPolygon(got)
			for _, pt := range tc.inside {
				if !planar.MultiPolygonContains(mp, pt) {
					t.Errorf("%v not inside", pt)
				}
			}
			for _, pt := range tc.outside {
				if planar.MultiPolygonContains(mp, pt) {
					t.Errorf("%v inside", pt)
				}
			}
		})
	}
}

func near2(a, b orb.Point) bool { return math.Abs(a[0]-b[0]) < 1e-9 && math.Abs(a[1]-b[1]) < 1e-9 }

func TestSplitLineAntimeridian(t *testing.T) {
	tests := []struct {
		name string
		line orb.LineString
		want []orb.LineString
	}{
		{"ordinary", orb.LineString{{0, 0}, {1, 1}}, []orb.LineString{{{0, 0}, {1, 1}}}},
		{"eastwards", orb.LineString{{178, 0}, {179, 0}, {-179, 2}, {-178, 2}},
			[]orb.LineString{{{178, 0}, {179, 0}, {180, 1}}, {{-180, 1}, {-179, 2}, {-178, 2}}}},
		{"westwards", orb.LineString{{-179, 0}, {179, 2}},
			[]orb.LineString{{{-179, 0}, {-180, 1}}, {{180, 1}, {179, 2}}}},
	}
	for _, tc := range tests {
		got := splitLineAntimeridian(tc.line)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if len(got[i]) != len(tc.want[i]) {
				t.Errorf("%s: part %d = %v, want %v", tc.name, i, got[i], tc.want[i])
				continue
			}
			for j := range got[i] {
				if !near2(got[i][j], tc.want[i][j]) {
					t.Errorf("%s: part %d = %v, want %v", tc.name, i, got[i], tc.want[i])
					break
				}
			}
		}
	}
}
