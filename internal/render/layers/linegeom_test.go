package layers

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
		// A bevel adds one triangle on the outer side of the turn.
		{"miter past the limit bevels", corner, lineShape{join: "miter", cap: "butt", miterLimit: 1.2, roundLimit: 1.05}, 0, 5, 1},
		{"bevel", corner, lineShape{join: "bevel", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 5, 1},
		// A round join fans: 4 triangles for 90 degrees (fanTriangles).
		{"round turns into a fan", corner, lineShape{join: "round", cap: "butt", miterLimit: 2, roundLimit: 1.05}, 0, 8, 1},
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

// turnLine is a line east 100 px to (100, 50), then turning by deg
// degrees (positive to the right, clockwise on screen) for 100 px more.
func turnLine(deg float64) []raster.Point {
	r := deg * math.Pi / 180
	return []raster.Point{{X: 0, Y: 50}, {X: 100, Y: 50}, {X: 100 + 100*math.Cos(r), Y: 50 + 100*math.Sin(r)}}
}

// cornerVertices returns the vertices of b's triangles at the line's
// point c (within 3 outsets), without repeats.
func cornerVertices(b *lineBuilder, c raster.Point) []raster.LineVertex {
	var out []raster.LineVertex
	seen := map[raster.LineVertex]bool{}
	for _, tr := range b.tris {
		for _, v := range tr {
			if math.Hypot(v.X-c.X, v.Y-c.Y) < 3*b.outset && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func TestLineJoinsAtKnownAngles(t *testing.T) {
	miter := lineShape{join: "miter", cap: "butt", miterLimit: 2, roundLimit: 1.05}
	bevel := lineShape{join: "bevel", cap: "butt", miterLimit: 2, roundLimit: 1.05}
	round := lineShape{join: "round", cap: "butt", miterLimit: 2, roundLimit: 1.05}
	tests := []struct {
		name  string
		deg   float64
		shape lineShape
		// far is the farthest corner vertex from the corner, in
		// outsets; count the distinct vertices about the corner.
		far   float64
		count int
	}{
		// A miter reaches 1/cos(turn/2) half widths: sqrt 2 at 90.
		{"miter 90", 90, miter, math.Sqrt2, 2},
		{"miter 60", 60, miter, 1 / math.Cos(math.Pi/6), 2},
		// Past the miter limit (2: a turn of 120) a miter bevels.
		{"miter 110 stays", 110, miter, 1 / math.Cos(55*math.Pi/180), 2},
		{"miter 125 bevels", 125, lineShape{join: "miter", cap: "butt", miterLimit: 1.5, roundLimit: 1.05}, 1 / math.Sin(62.5*math.Pi/180), 4},
		// A bevel: the inner miter point and two outer vertices.
		{"bevel 90", 90, bevel, math.Sqrt2, 3},
		// A bevel of a miter under 1.05 (a turn under 35.6) is a miter.
		{"bevel 30 is a miter", 30, bevel, 1 / math.Cos(math.Pi/12), 2},
		// Round joins fan about the corner (fanTriangles): 90 is 4
		// triangles, 3 vertices between the two normals.
		{"round 90", 90, round, math.Sqrt2, 6},
		{"round 40", 40, round, 1 / math.Cos(math.Pi/9), 4},
		// Under line-round-limit a round join is a miter.
		{"round 10 is a miter", 10, round, 1 / math.Cos(math.Pi/36), 2},
		// Past 120 the segments end on the line across the turn.
		{"bevel 150 ends across", 150, bevel, 1 / math.Sin(75*math.Pi/180), 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, turn := range []float64{tc.deg, -tc.deg} {
				b := &lineBuilder{outset: 2, alongScale: 1}
				pts := turnLine(turn)
				b.add(pts, tc.shape, false)
				vs := cornerVertices(b, pts[1])
				far := 0.0
				for _, v := range vs {
					far = max(far, math.Hypot(v.X-pts[1].X, v.Y-pts[1].Y)/b.outset)
				}
				// Extrusions are stored in steps of 1/63.
				if math.Abs(far-tc.far) > 0.03 {
					t.Errorf("turn %v: farthest corner vertex %.3f outsets, want %.3f", turn, far, tc.far)
				}
				if len(vs) != tc.count {
					t.Errorf("turn %v: %d vertices at the corner, want %d", turn, len(vs), tc.count)
				}
				for _, v := range vs {
					if v.NY != 1 && v.NY != -1 || v.NX != 0 {
						t.Errorf("turn %v: corner vertex normal (%v, %v)", turn, v.NX, v.NY)
					}
				}
			}
		})
	}
}

func TestLineCaps(t *testing.T) {
	// A line east from (10, 50) to (60, 50), 2 px either side.
	pts := []raster.Point{{X: 10, Y: 50}, {X: 60, Y: 50}}
	tests := []struct {
		cap            string
		minX, maxX     float64
		tris, roundVts int
	}{
		{"butt", 10, 60, 2, 0},
		{"square", 8, 62, 2, 0},
		// Round caps reach as far as square ones, with the shader's
		// normal x set at their far rungs.
		{"round", 8, 62, 6, 4},
	}
	for _, tc := range tests {
		t.Run(tc.cap, func(t *testing.T) {
			b := &lineBuilder{outset: 2, alongScale: 1}
			b.add(pts, lineShape{join: "miter", cap: tc.cap, miterLimit: 2, roundLimit: 1.05}, false)
			if len(b.tris) != tc.tris {
				t.Errorf("%d triangles, want %d", len(b.tris), tc.tris)
			}
			minX, maxX := math.Inf(1), math.Inf(-1)
			rounds := 0
			for _, v := range b.verts {
				minX, maxX = min(minX, v.X), max(maxX, v.X)
				if math.Abs(math.Abs(v.Y-50)-2) > 1e-9 {
					t.Errorf("vertex %+v off the line's edges", v)
				}
				if v.NX == 1 {
					rounds++
				}
			}
			if minX != tc.minX || maxX != tc.maxX {
				t.Errorf("x from %v to %v, want %v to %v", minX, maxX, tc.minX, tc.maxX)
			}
			if rounds != tc.roundVts {
				t.Errorf("%d round vertices, want %d", rounds, tc.roundVts)
			}
		})
	}
}

func TestLineOffsetCaps(t *testing.T) {
	// Every vertex of a square-capped line moves by the offset to the
	// line's right, the cap's too.
	pts := []raster.Point{{X: 10, Y: 50}, {X: 60, Y: 50}}
	for _, cap := range []string{"butt", "square", "round"} {
		plain := &lineBuilder{outset: 2, alongScale: 1}
		plain.add(pts, lineShape{join: "miter", cap: cap, miterLimit: 2}, false)
		shifted := &lineBuilder{outset: 2, offset: 3, alongScale: 1}
		shifted.add(pts, lineShape{join: "miter", cap: cap, miterLimit: 2}, false)
		for i := range plain.verts {
			p, s := plain.verts[i], shifted.verts[i]
			if math.Abs(s.X-p.X) > 1e-9 || math.Abs(s.Y-p.Y-3) > 1e-9 {
				t.Errorf("%s: vertex %d at (%v, %v), want (%v, %v)", cap, i, s.X, s.Y, p.X, p.Y+3)
			}
		}
	}
}

func TestLineSharpCornerRungs(t *testing.T) {
	// A right angle (sharp: past 75) with 40 px legs and extra rungs 10
	// px from the corner, on whole tile units of 1 px.
	pts := []raster.Point{{X: 0, Y: 0}, {X: 40, Y: 0}, {X: 40, Y: 40}}
	tests := []struct {
		name  string
		pts   []raster.Point
		sharp float64
		// the points rungs go through, in order
		want []vec
	}{
		{"right angle", pts, 10, []vec{{0, 0}, {30, 0}, {40, 0}, {40, 10}, {40, 40}}},
		{"no rungs past 16 times overscaled", pts, 0, []vec{{0, 0}, {40, 0}, {40, 40}}},
		// A leg shorter than twice the distance gets none.
		{"short leg", []raster.Point{{X: 0, Y: 0}, {X: 15, Y: 0}, {X: 15, Y: 40}}, 10, []vec{{0, 0}, {15, 0}, {15, 10}, {15, 40}}},
		// A shallow turn (60) is not sharp.
		{"shallow", turnLine(60), 10, []vec{{0, 50}, {100, 50}, {150, 50 + 50*math.Sqrt(3)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &lineBuilder{outset: 1, tile: 1, sharp: tc.sharp, alongScale: 1}
			b.add(tc.pts, lineShape{join: "miter", cap: "butt", miterLimit: 2}, false)
			var got []vec
			for i := 0; i+1 < len(b.verts); i += 2 {
				got = append(got, vec{(b.verts[i].X + b.verts[i+1].X) / 2, (b.verts[i].Y + b.verts[i+1].Y) / 2})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("rungs through %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].sub(tc.want[i]).length() > 0.02 { // extrusions in steps of 1/63
					t.Fatalf("rungs through %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestLineDistance(t *testing.T) {
	tests := []struct {
		name   string
		pts    []raster.Point
		closed bool
		tile   float64
		// the distance at each rung (right side), CSS pixels
		want []float64
	}{
		{"straight", []raster.Point{{X: 0, Y: 0}, {X: 30, Y: 40}, {X: 30, Y: 50}}, false, 0, []float64{0, 50, 60}},
		{"a repeated point is one", []raster.Point{{X: 0, Y: 0}, {X: 0, Y: 0}, {X: 30, Y: 40}, {X: 30, Y: 40}, {X: 30, Y: 50}}, false, 0, []float64{0, 50, 60}},
		// Held in steps of two tile units, rounded down: 50 px at 3 px a
		// unit is 16.7 units, held as 16 (48 px).
		{"in steps of two units", []raster.Point{{X: 0, Y: 0}, {X: 30, Y: 40}, {X: 30, Y: 50}}, false, 3, []float64{0, 48, 60}},
		// 40000 tile units: held as 20000 steps in 14 bits (3616 steps,
		// 7232 units); then, past 2^14 units, the distance starts again
		// at the last rung, added again.
		{"a segment past 2^15 units wraps", []raster.Point{{X: 0, Y: 0}, {X: 40000, Y: 0}}, false, 1, []float64{0, 7232, 0}},
		// A ring counts its closing edge (from its last point but one)
		// before its first point.
		{"ring", []raster.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}, {X: 0, Y: 10}, {X: 0, Y: 0}}, true, 0, []float64{10, 20, 30, 40, 50}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &lineBuilder{outset: 1, tile: tc.tile, alongScale: 1}
			b.add(tc.pts, lineShape{join: "miter", cap: "butt", miterLimit: 2}, tc.closed)
			var got []float64
			for _, v := range b.verts {
				if v.NY < 0 {
					got = append(got, v.Along)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("distances %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("distances %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestLineNearReversal(t *testing.T) {
	// Up 50 px, then straight back down 50 px and 1 px right: the turn
	// is past a miter of 100 and both segments end on the outgoing
	// segment's normal through the corner, no vertex above it.
	pts := []raster.Point{{X: 10, Y: 60}, {X: 10, Y: 10}, {X: 10.2, Y: 60}}
	for _, join := range []string{"miter", "bevel"} {
		b := &lineBuilder{outset: 2, alongScale: 1}
		b.add(pts, lineShape{join: join, cap: "butt", miterLimit: 2, roundLimit: 1.05}, false)
		for _, v := range b.verts {
			if v.Y < 10-0.05 {
				t.Errorf("%s: vertex %+v above the corner", join, v)
			}
		}
	}
	// Round: both segments capped round past the corner, in two strips
	// (no triangle joins the two caps).
	b := &lineBuilder{outset: 2, alongScale: 1}
	b.add(pts, lineShape{join: "round", cap: "butt", miterLimit: 2, roundLimit: 1.05}, false)
	top := 0
	for _, tr := range b.tris {
		ys := 0
		for _, v := range tr {
			if v.Y < 9 {
				ys++
			}
		}
		if ys == 3 {
			t.Errorf("a triangle %+v wholly past the corner: the caps are joined", tr)
		}
		if ys > 0 {
			top++
		}
	}
	if top != 4 {
		t.Errorf("%d triangles reach past the corner, want 4 (two per cap)", top)
	}
}

// FuzzLineBuilder builds lines from arbitrary points (a byte pair per
// coordinate, on a grid of 1/16 pixel) with every join and cap: no vertex
// may be NaN or lie past lineReach of the points.
func FuzzLineBuilder(f *testing.F) {
	f.Add([]byte{0, 0, 0, 40, 0, 0, 0, 40, 0, 40}, uint8(0), false)
	f.Add([]byte{0, 0, 0, 40, 0, 0, 0, 0, 0, 0}, uint8(5), true)
	f.Add([]byte{10, 10, 200, 11, 10, 12, 10, 12}, uint8(7), false)
	joins, caps := []string{"miter", "bevel", "round"}, []string{"butt", "square", "round"}
	f.Fuzz(func(t *testing.T, data []byte, style uint8, closed bool) {
		var pts []raster.Point
		for i := 0; i+3 < len(data) && len(pts) < 64; i += 4 {
			pts = append(pts, raster.Point{
				X: float64(int(data[i])<<8|int(data[i+1])) / 16,
				Y: float64(int(data[i+2])<<8|int(data[i+3])) / 16,
			})
		}
		if closed && len(pts) > 0 {
			pts = append(pts, pts[0])
		}
		shape := lineShape{join: joins[style%3], cap: caps[style/3%3], miterLimit: []float64{2, 1.2, 5}[style/9%3], roundLimit: 1.05}
		b := &lineBuilder{outset: 3, offset: float64(style%5) - 2, tile: 0.25, sharp: 4, alongScale: 1}
		b.add(pts, shape, closed)
		reach := lineReach(shape, b.outset, b.offset, b.tile)
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range pts {
			x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
		}
		for _, tri := range b.tris {
			for _, v := range tri {
				if math.IsNaN(v.X) || math.IsNaN(v.Y) || math.IsNaN(v.Along) {
					t.Fatalf("NaN vertex %+v", v)
				}
				if d := max(x0-v.X, v.X-x1, y0-v.Y, v.Y-y1); d > reach {
					t.Fatalf("vertex %+v is %v past the points' box, reach %v", v, d, reach)
				}
			}
		}
	})
}

// TestJoinAt checks which join is drawn for each line-join and miter
// length against the limits.
func TestJoinAt(t *testing.T) {
	shape := func(join string) lineShape { return lineShape{join: join, miterLimit: 2, roundLimit: 1.05} }
	tests := []struct {
		join string
		ml   float64
		want string
	}{
		{"miter", 1.5, "miter"},
		{"miter", 2, "miter"},
		{"miter", 2.5, "bevel"},
		{"miter", math.Inf(1), "bevel"},
		{"bevel", 1.5, "bevel"},
		{"bevel", 1.04, "miter"}, // nearly straight: mitred (parity)
		{"bevel", 1.05, "bevel"},
		{"round", 1.5, "round"},
		{"round", 1.04, "miter"}, // under line-round-limit
		{"round", math.Inf(1), "round"},
		{"", 1.5, "miter"},
	}
	for _, tc := range tests {
		if got := shape(tc.join).joinAt(tc.ml); got != tc.want {
			t.Errorf("joinAt(%q, %v) = %q, want %q", tc.join, tc.ml, got, tc.want)
		}
	}
	// A round corner under line-round-limit but past the miter limit is
	// bevelled.
	s := lineShape{join: "round", miterLimit: 1.2, roundLimit: 1.5}
	if got := s.joinAt(1.3); got != "bevel" {
		t.Errorf("round past both limits: %q, want bevel", got)
	}
	// A line-miter-limit under 1.05 bevels miter and round joins however
	// shallow the corner (GL's pictures, testdata/layers/line-joins.json):
	// the 1.05 exception is line-join bevel's only.
	for _, join := range []string{"miter", "round"} {
		s := lineShape{join: join, miterLimit: 1, roundLimit: 1.05}
		if got := s.joinAt(1.035); got != "bevel" {
			t.Errorf("%s, miter 1.035 past line-miter-limit 1: %q, want bevel", join, got)
		}
		s.miterLimit = 1.04
		if got := s.joinAt(1.035); got != "miter" {
			t.Errorf("%s, miter 1.035 within line-miter-limit 1.04: %q, want miter", join, got)
		}
	}
}

// TestFanTriangles pins the triangle count of round joins' fans to GL's,
// counted in its pictures of 80- and 160-pixel lines: a triangle more at
// turns of about 50.4, 71.1, 92.5 and 114.7 degrees (observed between
// 50.25 and 50.5, 71 and 71.25, 92.25 and 92.5, 114.5 and 114.75).
func TestFanTriangles(t *testing.T) {
	tests := []struct {
		deg  float64
		want float64
	}{
		{40, 2}, {45, 2}, {50, 2}, {50.25, 2}, {50.5, 3}, {55, 3}, {60, 3}, {65, 3},
		{70, 3}, {70.75, 3}, {71, 3}, {71.25, 4}, {75, 4}, {80, 4}, {85, 4}, {90, 4},
		{92.25, 4}, {92.75, 5}, {95, 5}, {100, 5}, {105, 5}, {110, 5}, {114.5, 5},
		{114.75, 6}, {115, 6}, {118, 6},
	}
	for _, tc := range tests {
		for _, sign := range []float64{1, -1} {
			turn := sign * tc.deg * math.Pi / 180
			nIn := vec{0, 1}
			nOut := nIn.turned(turn)
			if got := fanTriangles(nIn, nIn.turned(turn/2), nOut); got != tc.want {
				t.Errorf("turn %v degrees: %v triangles, want %v", sign*tc.deg, got, tc.want)
			}
		}
	}
}
