package render

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

func TestLineBuilderJoins(t *testing.T) {
	// A right-angle turn: east 20 px, then south 20 px.
	corner := []raster.Point{{X: 0, Y: 0}, {X: 20, Y: 0}, {X: 20, Y: 20}}
	// A near reversal.
	sharp := []raster.Point{{X: 0, Y: 0}, {X: 20, Y: 0}, {X: 0, Y: 2}}
	tests := []struct {
		name  string
		pts   []raster.Point
		shape lineShape
		sharp float64 // px from a sharp corner to GL's extra vertex pair
		tris  int
		// farthest vertex on the outer side of the corner (20, 0), in
		// outsets
		far float64
	}{
		{"miter", corner, lineShape{join: "miter", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 4, math.Sqrt2},
		{"a right angle is a sharp corner", corner, lineShape{join: "miter", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 3, 8, math.Sqrt2},
		{"miter past the limit bevels", corner, lineShape{join: "miter", cap: "butt", miterLimit: 1.2, roundLimit: 1.05}, 0, 6, 1},
		{"bevel", corner, lineShape{join: "bevel", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 6, 1},
		{"round turns into a fan", corner, lineShape{join: "round", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 10, 1},
		{"round caps", corner[:2], lineShape{join: "miter", cap: "round", miterLimit: 2, roundLimit: 1.05}, 0, 6, math.Sqrt2},
		{"sharp turn flips its bevel", sharp, lineShape{join: "miter", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 6, 0},
	}
	for _, tc := range tests {
		b := &lineBuilder{outset: 2, tile: 0.01, sharp: tc.sharp, alongScale: 1}
		b.add(tc.pts, tc.shape, false)
		if len(b.tris) != tc.tris {
			t.Errorf("%s: %d triangles, want %d", tc.name, len(b.tris), tc.tris)
		}
		if tc.far == 0 {
			continue
		}
		far := 0.0
		for _, tri := range b.tris {
			for _, v := range tri {
				d := math.Hypot(v.X-tc.pts[1].X, v.Y-tc.pts[1].Y)
				if d < 10 && v.X >= 20-1e-9 && v.Y <= 1e-9 {
					far = math.Max(far, d/b.outset)
				}
			}
		}
		if math.Abs(far-tc.far) > 0.02 {
			t.Errorf("%s: farthest corner vertex at %.3f outsets, want %.3f", tc.name, far, tc.far)
		}
	}
}

func TestLineBuilderOffsetAndDistance(t *testing.T) {
	b := &lineBuilder{outset: 1, offset: 3, tile: 0.5, alongScale: 1}
	b.add([]raster.Point{{X: 0, Y: 10}, {X: 40, Y: 10}}, lineShape{join: "miter", cap: "butt", miterLimit: 2}, false)
	for _, tri := range b.tris {
		for _, v := range tri {
			// A line going east shifts south (its right) by the offset.
			if math.Abs(math.Abs(v.Y-13)-1) > 0.02 {
				t.Fatalf("vertex at y %.3f, want 13 +/- 1", v.Y)
			}
			if v.X == 40 && v.Along != 40 {
				t.Errorf("distance at the end %v, want 40", v.Along)
			}
		}
	}
}

func TestSpriteURL(t *testing.T) {
	tests := []struct{ base, suffix, want string }{
		{"local://sprites/a", "@2x.json", "local://sprites/a@2x.json"},
		{"https://x/s?key=1", ".png", "https://x/s.png?key=1"},
	}
	for _, tc := range tests {
		if got := spriteURL(tc.base, tc.suffix); got != tc.want {
			t.Errorf("spriteURL(%q, %q) = %q, want %q", tc.base, tc.suffix, got, tc.want)
		}
	}
}

// TestReversalInDevicePixels builds a line that turns straight back on
// itself, in device pixels where the two normals cancel only up to
// rounding: no vertex may land far from the line (a real coastline ring
// once drew a spike across the map from such a turn).
func TestReversalInDevicePixels(t *testing.T) {
	pts := []raster.Point{{X: 300.4419417382416, Y: 301.679378605318}, {X: 300.9722718241315, Y: 301.14904851942805},
		{X: 299.91161165235167, Y: 302.2097086912079}, {X: 298.49739808997856, Y: 301.679378605318}}
	for _, join := range []string{"miter", "bevel", "round"} {
		b := &lineBuilder{outset: 2, alongScale: 1, tile: 0.0884, sharp: 21.2}
		b.add(pts, lineShape{join: join, cap: "butt", miterLimit: 2, roundLimit: 1.05}, false)
		if len(b.tris) == 0 {
			t.Fatalf("%s: no triangles", join)
		}
		for _, tr := range b.tris {
			for _, v := range tr {
				if d := math.Hypot(v.X-300, v.Y-301.5); d > 6 || math.IsNaN(d) {
					t.Errorf("%s: vertex %+v is %.1f px from the line", join, v, d)
				}
			}
		}
	}
}

func TestLineDistanceRestarts(t *testing.T) {
	// Points 10000 tile units apart: the distance passes 16384 units at
	// the third point, where it starts again from zero (that point's pair
	// added twice), so the fourth counts 10000 from there.
	b := &lineBuilder{outset: 1, tile: 1, alongScale: 1}
	b.add([]raster.Point{{X: 0, Y: 0}, {X: 10000, Y: 0}, {X: 20000, Y: 0}, {X: 30000, Y: 0}}, lineShape{join: "miter", cap: "butt", miterLimit: 2}, false)
	var got []float64
	for _, v := range b.verts {
		if v.NY < 0 {
			got = append(got, v.Along)
		}
	}
	want := []float64{0, 10000, 20000, 0, 10000}
	if len(got) != len(want) {
		t.Fatalf("distances %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("distances %v, want %v", got, want)
			break
		}
	}
}

// TestLineReach checks that every vertex of a line's triangles lies within
// lineReach of the box around the line's points, for joins, caps, sharp
// turns, reversals and offsets.
func TestLineReach(t *testing.T) {
	zigzag := []raster.Point{{X: 0, Y: 0}, {X: 40, Y: 1}, {X: 0, Y: 2}, {X: 40, Y: 30}, {X: 41, Y: 0}, {X: 10, Y: 10}}
	reversal := []raster.Point{{X: 0, Y: 0}, {X: 20, Y: 0}, {X: 5, Y: 0}}
	square := []raster.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}, {X: 0, Y: 10}, {X: 0, Y: 0}}
	tests := []struct {
		name   string
		shape  lineShape
		offset float64
	}{
		{"miter", lineShape{join: "miter", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0},
		{"long miters", lineShape{join: "miter", cap: "butt", miterLimit: 10, roundLimit: 1.05}, 0},
		{"bevel", lineShape{join: "bevel", cap: "square", miterLimit: 10, roundLimit: 1.05}, 0},
		{"round", lineShape{join: "round", cap: "round", miterLimit: 2, roundLimit: 1.05}, 0},
		{"round, round limit high", lineShape{join: "round", cap: "round", miterLimit: 2, roundLimit: 5}, 0},
		{"miter with offset", lineShape{join: "miter", cap: "square", miterLimit: 3, roundLimit: 1.05}, -7},
		{"round with offset", lineShape{join: "round", cap: "round", miterLimit: 2, roundLimit: 1.05}, 5},
		{"small miter limit", lineShape{join: "miter", cap: "butt", miterLimit: 0.5, roundLimit: 1.05}, 2},
	}
	for _, tc := range tests {
		for _, closed := range []bool{false, true} {
			for _, line := range [][]raster.Point{zigzag, reversal, square} {
				if closed && line[0] != line[len(line)-1] {
					continue
				}
				b := &lineBuilder{outset: 3, offset: tc.offset, tile: 0.25, sharp: 4, alongScale: 1}
				b.add(line, tc.shape, closed)
				reach := lineReach(tc.shape, b.outset, b.offset, b.tile)
				x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
				for _, p := range line {
					x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
				}
				for _, tri := range b.tris {
					for _, v := range tri {
						if d := max(x0-v.X, v.X-x1, y0-v.Y, v.Y-y1); d > reach {
							t.Errorf("%s (closed %v, %d points): a vertex %v past the points' box, reach %v", tc.name, closed, len(line), d, reach)
						}
					}
				}
			}
		}
	}
	if r := lineReach(lineShape{join: "miter", miterLimit: math.NaN()}, 3, 0, 1); r >= 0 {
		t.Errorf("a NaN miter limit gives reach %v, want no bound (NaN)", r)
	}
}
