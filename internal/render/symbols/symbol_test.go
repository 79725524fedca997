package symbols

import (
	"image"
	"log/slog"
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/text"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func TestCollisionGrid(t *testing.T) {
	type step struct {
		b    collisionBox
		free bool
		mode overlapMode // never unless given
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"disjoint boxes", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapNever},
			{collisionBox{20, 0, 30, 10, false}, true, overlapNever},
		}},
		{"overlap", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapNever},
			{collisionBox{5, 5, 15, 15, false}, false, overlapNever},
		}},
		{"touching edges do not collide", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapNever},
			{collisionBox{10, 0, 20, 10, false}, true, overlapNever},
		}},
		{"across cells", []step{
			{collisionBox{60, 60, 200, 70, false}, true, overlapNever},
			{collisionBox{190, 65, 195, 66, false}, false, overlapNever},
			{collisionBox{-150, -150, -140, -140, false}, true, overlapNever}, // in the margin, clamped to the first cell
		}},
		{"always overlaps anything", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapNever},
			{collisionBox{5, 5, 15, 15, false}, true, overlapAlways},
		}},
		{"cooperative overlaps always and cooperative, not never", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapAlways},
			{collisionBox{5, 5, 15, 15, false}, true, overlapCooperative},
			{collisionBox{8, 8, 12, 12, false}, true, overlapCooperative},
			{collisionBox{50, 50, 60, 60, false}, true, overlapNever},
			{collisionBox{55, 55, 65, 65, false}, false, overlapCooperative},
		}},
		{"a circle misses a box's corner", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapNever},
			{circleBox(17, 17, 9), true, overlapNever}, // its bounds meet the box, the circle does not
			{circleBox(17, 5, 8), false, overlapNever}, // beside the box's edge, within its radius
		}},
		{"a box beside a circle", []step{
			{circleBox(50, 50, 10), true, overlapNever},
			{collisionBox{58, 58, 70, 70, false}, true, overlapNever}, // the corner is 11.3 from the centre
			{collisionBox{55, 35, 70, 45, false}, false, overlapNever},
		}},
		{"circles", []step{
			{circleBox(100, 100, 10), true, overlapNever},
			{circleBox(115, 115, 10), true, overlapNever}, // 21.2 apart
			{circleBox(100, 119, 10), false, overlapNever},
		}},
		{"never is hidden by a cooperative part", []step{
			{collisionBox{0, 0, 10, 10, false}, true, overlapCooperative},
			{collisionBox{5, 5, 15, 15, false}, false, overlapNever},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newCollisionGrid(256, 256, 100)
			for i, s := range tc.steps {
				if got := g.free(s.mode, s.b); got != s.free {
					t.Fatalf("step %d: free(%v) = %v, want %v", i, s.b, got, s.free)
				}
				if s.free {
					g.insert(s.mode, s.b)
				}
			}
		})
	}
}

func TestLineCircleCentres(t *testing.T) {
	pt := func(x, y float64) raster.Point { return raster.Point{X: x, Y: y} }
	tests := []struct {
		name string
		path []raster.Point
		r    float64
		want []raster.Point
	}{
		{"one point", []raster.Point{pt(5, 5)}, 8, []raster.Point{pt(5, 5)}},
		{"shorter than half the radius: the middle", []raster.Point{pt(0, 0), pt(3, 0)}, 8, []raster.Point{pt(1.5, 0)}},
		// 100 long, radius 8: from 2 to 98, ceil(96/20)+1 = 6 circles 19.2 apart.
		{"straight", []raster.Point{pt(0, 0), pt(100, 0)}, 8,
			[]raster.Point{pt(2, 0), pt(21.2, 0), pt(40.4, 0), pt(59.6, 0), pt(78.8, 0), pt(98, 0)}},
		// Around a corner: distances along the path.
		{"bent", []raster.Point{pt(0, 0), pt(20, 0), pt(20, 20)}, 8,
			[]raster.Point{pt(2, 0), pt(20, 0), pt(20, 18)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := lineCircleCentres(tc.path, tc.r)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i].X-tc.want[i].X) > 1e-9 || math.Abs(got[i].Y-tc.want[i].Y) > 1e-9 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestBoxAround(t *testing.T) {
	b := boxAround(raster.Point{X: 100, Y: 50}, 0, 0, -10, -5, 10, 5, 2, 2, 0)
	if want := (collisionBox{76, 36, 124, 64, false}); b != want {
		t.Errorf("box = %v, want %v", b, want)
	}
	// A quarter turn swaps width and height.
	b = boxAround(raster.Point{}, 0, 0, -10, -5, 10, 5, 0, 1, math.Pi/2)
	if math.Abs(b.x0+5) > 1e-9 || math.Abs(b.y0+10) > 1e-9 {
		t.Errorf("rotated box = %v, want x0 -5, y0 -10", b)
	}
}

func TestPoleOfInaccessibility(t *testing.T) {
	tests := []struct {
		name  string
		rings [][]orb.Point
		want  orb.Point
		tol   float64
	}{
		{"square", [][]orb.Point{{{0, 0}, {100, 0}, {100, 100}, {0, 100}, {0, 0}}}, orb.Point{50, 50}, 1},
		// A sliver ends quickly, inside.
		{"sliver", [][]orb.Point{{{0, 0}, {1e6, 0}, {1e6, 1e-3}, {0, 1e-3}, {0, 0}}}, orb.Point{5e5, 5e-4}, 5e5},
		// An L: the pole lies in the corner where the arms meet, not at
		// the centroid.
		{"L shape", [][]orb.Point{{{0, 0}, {40, 0}, {40, 60}, {100, 60}, {100, 100}, {0, 100}, {0, 0}}}, orb.Point{23.4, 76.6}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := poleOfInaccessibility(tc.rings, 0.5)
			if !ok || math.Hypot(p[0]-tc.want[0], p[1]-tc.want[1]) > tc.tol {
				t.Errorf("pole = %v (%v), want %v", p, ok, tc.want)
			}
		})
	}
}

func TestSpacedAnchors(t *testing.T) {
	straight := []tilePoint{{0, 100}, {1000, 100}}
	bent := []tilePoint{{0, 100}, {500, 100}, {500, 600}}
	tests := []struct {
		name     string
		line     []tilePoint
		spacing  float64
		labelLen float64
		window   float64
		want     []tilePoint
	}{
		// Offset (label/2 + 48) = 98, then every 300, while the label fits.
		{"spaced", straight, 300, 100, 0, []tilePoint{{98, 100}, {398, 100}, {698, 100}}},
		{"longer label", straight, 300, 200, 0, []tilePoint{{148, 100}, {448, 100}, {748, 100}}},
		// A right angle under a text label fails the 45° check: the
		// anchor at 498 is dropped, those away from the corner stay.
		{"corner", bent, 200, 100, 60, []tilePoint{{98, 100}, {298, 100}, {500, 298}, {500, 498}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fit := testFit(tc.spacing, tc.labelLen, tc.window)
			got := fit.anchorsOn(tc.line, false, false)
			var ps []tilePoint
			for _, a := range got {
				ps = append(ps, a.p)
			}
			if len(ps) != len(tc.want) {
				t.Fatalf("anchors %v, want %v", ps, tc.want)
			}
			for i := range ps {
				if ps[i] != tc.want[i] {
					t.Fatalf("anchors %v, want %v", ps, tc.want)
				}
			}
		})
	}
}

func TestMergeLines(t *testing.T) {
	mk := func(txt string, pts ...orb.Point) *shapedSymbol {
		return &shapedSymbol{f: &scene.Feature{Kind: "LineString", Parts: [][]orb.Point{pts}, Tile: [3]int{0, 0, -1}},
			sections: []text.Section{{Text: txt}}}
	}
	a := mk("Main", orb.Point{0, 0}, orb.Point{1, 0})
	c := mk("Main", orb.Point{2, 0}, orb.Point{3, 0})
	b := mk("Main", orb.Point{1, 0}, orb.Point{2, 0}) // joins a and c
	other := mk("Side", orb.Point{3, 0}, orb.Point{4, 0})
	out := mergeLines([]*shapedSymbol{a, c, b, other})
	if len(out) != 2 {
		t.Fatalf("got %d features, want 2", len(out))
	}
	if got := out[0].lines[0]; len(got) != 4 || got[0] != (orb.Point{0, 0}) || got[3] != (orb.Point{3, 0}) {
		t.Errorf("merged line = %v, want (0,0)..(3,0) in 4 points", got)
	}
	if got := out[1].lines[0]; len(got) != 2 {
		t.Errorf("other text merged: %v", got)
	}
}

func TestLinePathWalk(t *testing.T) {
	// A line turning at (10, 0); the anchor lies on the first segment.
	pts := []raster.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}}
	tests := []struct {
		name      string
		at        raster.Point
		e         float64
		forward   bool
		want      raster.Point
		wantAngle float64 // degrees
	}{
		{"on the line at the anchor", raster.Point{X: 5}, 0, false, raster.Point{X: 5}, 0},
		{"ahead past the corner", raster.Point{X: 5}, 8, false, raster.Point{X: 10, Y: 3}, 90},
		{"behind", raster.Point{X: 5}, -2, false, raster.Point{X: 3}, 0},
		// An anchor rounded off the line: the piece from the vertex behind
		// to the anchor gives the direction, as GL turns an icon.
		{"anchor off the segment", raster.Point{X: 1, Y: 1}, 0, false, raster.Point{X: 1, Y: 1}, 45},
		{"anchor off the segment, forward", raster.Point{X: 9, Y: 1}, 0, true, raster.Point{X: 9, Y: 1}, -45},
		// At a vertex, a zero distance passes on to the segment behind.
		{"anchor on the vertex behind", raster.Point{X: 10}, 0, false, raster.Point{X: 10}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seg := 0
			if tc.at.X == 10 {
				seg = 1
			}
			lp := &linePath{pts: pts, seg: seg, at: tc.at}
			p, a, ok := lp.walk(tc.e, tc.forward)
			if !ok {
				t.Fatal("walk found no point")
			}
			if math.Abs(p.X-tc.want.X) > 1e-9 || math.Abs(p.Y-tc.want.Y) > 1e-9 {
				t.Errorf("point %v, want %v", p, tc.want)
			}
			if got := a * 180 / math.Pi; math.Abs(got-tc.wantAngle) > 1e-9 {
				t.Errorf("angle %.3f, want %.3f", got, tc.wantAngle)
			}
		})
	}
}

func TestPitchAlignment(t *testing.T) {
	tests := []struct {
		layout string
		want   string
	}{
		{`{}`, "viewport"},
		{`{"icon-rotation-alignment": "map"}`, "map"},
		{`{"symbol-placement": "line"}`, "map"},
		{`{"symbol-placement": "line", "icon-pitch-alignment": "viewport"}`, "viewport"},
		{`{"icon-rotation-alignment": "viewport", "icon-pitch-alignment": "map"}`, "map"},
	}
	comp := scene.NewCompiler(slog.New(slog.DiscardHandler))
	for _, tc := range tests {
		doc := `{"version": 8, "sources": {}, "layers": [{"id": "s", "type": "symbol", "source": "x", "layout": ` + tc.layout + `}]}`
		st, err := style.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.layout, err)
		}
		lr := &symLayer{Layer: &scene.Layer{Style: st.Layers[0]}}
		if err := comp.Compile(lr.Layer); err != nil {
			t.Fatalf("%s: %v", tc.layout, err)
		}
		if got := lr.pitchAlignment(iconPart, &expr.EvalContext{Zoom: 10}); got != tc.want {
			t.Errorf("%s: icon pitch alignment %q, want %q", tc.layout, got, tc.want)
		}
	}
}

func TestPerspectiveRatio(t *testing.T) {
	tests := []struct {
		w            float64
		pitchWithMap bool
		want         float64
	}{
		{1, false, 1},
		{1, true, 1},
		{2, false, 0.5}, // far labels facing the viewer shrink as the map does
		{2, true, 1},    // labels on the map keep their size on it
		{0.5, false, 2},
		{0.1, false, 4}, // bounded near the camera
	}
	for _, tc := range tests {
		if got := perspectiveRatio(tc.w, tc.pitchWithMap); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("perspectiveRatio(%v, %v) = %v, want %v", tc.w, tc.pitchWithMap, got, tc.want)
		}
	}
}

func TestTiltedTexQuad(t *testing.T) {
	// A 10x10 texel quad of one pixel a texel on the plane, centred under
	// the camera and farther up the view: seen through a tilted camera its
	// texels map back to the plane.
	sp, cp := math.Sincos(45 * math.Pi / 180)
	tilt := &raster.Tilt{CX: 50, CY: 50, Dist: 150, Sin: sp, Cos: cp}
	for _, oy := range []float64{45, 10} {
		q := newTexQuad(raster.Point{X: 45, Y: oy}, 0, 0, 0, 0, 1, 1, 0, 10, 10)
		q.tilt = tilt
		x0, y0, x1, y1, det := q.span(image.Rect(0, 0, 100, 100))
		if det == 0 {
			t.Fatalf("quad at %v covers nothing", oy)
		}
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				s, tt, w, ok := q.texel(x, y, det)
				if !ok {
					continue
				}
				n++
				// The texel's plane point projects back onto the pixel.
				p, pw := tilt.Project(raster.Point{X: q.ox + s, Y: q.oy + tt})
				if math.Abs(p.X-float64(x)-0.5) > 1e-9 || math.Abs(p.Y-float64(y)-0.5) > 1e-9 || math.Abs(pw-w) > 1e-12 {
					t.Errorf("pixel (%d, %d): texel (%.3f, %.3f) projects to %v w %v (got w %v)", x, y, s, tt, p, pw, w)
				}
			}
		}
		// Farther from the camera the quad covers fewer pixels.
		if oy == 45 && (n < 50 || n > 100) {
			t.Errorf("quad at the centre covers %d pixels, want between 50 and 100", n)
		}
		if oy == 10 && n >= 50 {
			t.Errorf("far quad covers %d pixels, want fewer than 50", n)
		}
	}
}

func TestSpanBoxCentres(t *testing.T) {
	tests := []struct {
		name string
		path []raster.Point
		side float64
		want []raster.Point
	}{
		{"straight", []raster.Point{{X: 0, Y: 0}, {X: 20, Y: 0}}, 8,
			[]raster.Point{{X: 4, Y: 0}, {X: 8, Y: 0}, {X: 12, Y: 0}, {X: 16, Y: 0}, {X: 20, Y: 0}}},
		{"bent", []raster.Point{{X: 0, Y: 0}, {X: 6, Y: 0}, {X: 6, Y: 6}}, 8,
			[]raster.Point{{X: 4, Y: 0}, {X: 6, Y: 2}, {X: 6, Y: 6}}},
		{"shorter than a box", []raster.Point{{X: 0, Y: 0}, {X: 2, Y: 0}}, 8,
			[]raster.Point{{X: 2, Y: 0}}}, // kept on the path
	}
	for _, tc := range tests {
		got := spanBoxCentres(tc.path, tc.side)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d boxes %v, want %d", tc.name, len(got), got, len(tc.want))
			continue
		}
		for i := range got {
			if math.Abs(got[i].X-tc.want[i].X) > 1e-9 || math.Abs(got[i].Y-tc.want[i].Y) > 1e-9 {
				t.Errorf("%s: box %d at %v, want %v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

func TestPolygonAnchorWholeUnits(t *testing.T) {
	// Polygons of a z14 tile whose poles fall between tile units: the
	// anchor keeps whole units of the tile's 8192, the fraction cut off.
	n := math.Exp2(14) * symbolExtent
	tx, ty := 8802.0, 5374.0
	world := func(x, y float64) orb.Point {
		return orb.Point{(tx*symbolExtent + x) / n, (ty*symbolExtent + y) / n}
	}
	tests := []struct {
		name string
		ring []orb.Point
	}{
		{"square", []orb.Point{world(1001, 2001), world(1400, 2001), world(1400, 2400), world(1001, 2400), world(1001, 2001)}},
		{"wide", []orb.Point{world(3, 5), world(2000, 5), world(2000, 101), world(3, 101), world(3, 5)}},
	}
	for _, tc := range tests {
		f := scene.Feature{Kind: "Polygon", Tile: [3]int{int(ty), int(tx), 14},
			Polygons: [][][]orb.Point{{tc.ring}}, WholePolygons: [][][]orb.Point{{tc.ring}}}
		s := &Pass{Set: &sources.Set{View: scene.View{Zoom: 18}}}
		got := s.anchors(&f, nil)
		if len(got) != 1 {
			t.Fatalf("%s: %d anchors, want 1", tc.name, len(got))
		}
		x, y := got[0][0]*n-tx*symbolExtent, got[0][1]*n-ty*symbolExtent
		if math.Abs(x-math.Round(x)) > 1e-6 || math.Abs(y-math.Round(y)) > 1e-6 {
			t.Errorf("%s: anchor at %.4f, %.4f tile units, want whole units", tc.name, x, y)
		}
		if x < tc.ring[0][0]*n-tx*symbolExtent || y < tc.ring[0][1]*n-ty*symbolExtent {
			t.Errorf("%s: anchor at %.1f, %.1f outside the polygon", tc.name, x, y)
		}
	}
}

func TestSlicedPieces(t *testing.T) {
	// A horizontal line across the middle of z14 tile 8802/5374, viewed
	// at the tile's centre.
	const tx, ty = 8802.0, 5374.0
	n14 := math.Exp2(14)
	y := (ty + 0.5) / n14
	line := []orb.Point{{(tx + 0.01) / n14, y}, {(tx + 0.99) / n14, y}}
	lon := (tx+0.5)/n14*360 - 180
	lat := math.Atan(math.Sinh(math.Pi*(1-2*(ty+0.5)/n14))) * 180 / math.Pi
	tests := []struct {
		name  string
		zoom  float64
		pitch float64
		ok    bool
		z     int // zoom of the pieces' tiles
	}{
		{"source zoom", 14, 0, false, 0},
		{"overzoomed", 17, 0, true, 17},
		{"fractional", 16.5, 0, true, 16},
		{"past the sliced zooms", 20, 0, true, 18},
		{"tilted", 17, 30, false, 0},
	}
	for _, tc := range tests {
		v := scene.View{Center: [2]float64{lon, lat}, Zoom: tc.zoom, Pitch: tc.pitch, Width: 512, Height: 512, PixelRatio: 1}
		s := NewPass(&sources.Set{View: v, Frame: scene.NewFrame(v)}, nil, nil)
		pieces, ok := s.slicedPieces([3]int{int(ty), int(tx), 14}, [][]orb.Point{line})
		if ok != tc.ok {
			t.Fatalf("%s: ok %v, want %v", tc.name, ok, tc.ok)
		}
		if !ok {
			continue
		}
		if len(pieces) < 2 {
			t.Fatalf("%s: %d pieces, want the line cut in at least two tiles", tc.name, len(pieces))
		}
		for _, pc := range pieces {
			if pc.tile[2] != tc.z || !pc.bounded {
				t.Errorf("%s: piece of tile %v (bounded %v), want zoom %d", tc.name, pc.tile, pc.bounded, tc.z)
			}
			nz := math.Exp2(float64(pc.tile[2]))
			for _, l := range pc.lines {
				for _, p := range l {
					x, yy := p[0]*nz-float64(pc.tile[1]), p[1]*nz-float64(pc.tile[0])
					if x < -1e-9 || x > 1+1e-9 || yy < -1e-9 || yy > 1+1e-9 {
						t.Errorf("%s: point %.4f, %.4f outside tile %v", tc.name, x, yy, pc.tile)
					}
				}
				// A piece that does not hold the line's own start begins
				// on its tile's edge: GL takes it as a continued line.
				if x := l[0][0]*nz - float64(pc.tile[1]); l[0] != line[0] && math.Abs(x) > 1e-9 {
					t.Errorf("%s: piece of tile %v starts at %.6f, want the tile's edge", tc.name, pc.tile, x)
				}
			}
		}
	}
}

func TestAnchorOffset(t *testing.T) {
	// text-variable-anchor-offset's offsets are used as given (right and
	// down positive, ems turned to em pixels by the caller), the text
	// set below or above its point 7 em pixels nearer it.
	for _, tc := range []struct {
		anchor string
		x, y   float64
		want   [2]float64
	}{
		{"top", 0, 19.2, [2]float64{0, 12.2}},
		{"bottom", 0, -19.2, [2]float64{0, -12.2}},
		{"left", 16.8, 0, [2]float64{16.8, 0}},
		{"right", -16.8, 3, [2]float64{-16.8, 3}},
		{"top-left", 5, 10, [2]float64{5, 3}},
		{"bottom-right", -5, -10, [2]float64{-5, -3}},
		{"center", 2, 2, [2]float64{2, 2}},
	} {
		if got := pairedChoice(tc.anchor, [2]float64{tc.x, tc.y}).move; math.Abs(got[0]-tc.want[0]) > 1e-9 || math.Abs(got[1]-tc.want[1]) > 1e-9 {
			t.Errorf("%s (%v, %v): %v, want %v", tc.anchor, tc.x, tc.y, got, tc.want)
		}
	}
}

// TestTiltedTileInView checks which tiles a tilted, turned view lays
// symbols out from: every tile under a point of the screen (taken back
// onto the map) is in view, and a tile wholly off the screen is not, at
// any bearing. The tiles' corners behind the camera once put them on the
// wrong side of the screen: at bearing 90 and pitch 30 no tile of the
// suite's street view was in view, and no label was drawn.
func TestTiltedTileInView(t *testing.T) {
	const z = 14
	n := math.Exp2(z)
	for _, pitch := range []float64{10, 30, 60} {
		for _, bearing := range []float64{0, 45, 90, 135, 180, 270, -90} {
			v := scene.View{Center: [2]float64{13.418056, 52.499167}, Zoom: 16, Pitch: pitch, Bearing: bearing, Width: 512, Height: 256, PixelRatio: 1}
			s := NewPass(&sources.Set{View: v, Frame: scene.NewFrame(v)}, nil, nil)
			shown := map[[3]int]bool{}
			for sy := 0.5; sy < 256; sy += 8 {
				for sx := 0.5; sx < 512; sx += 8 {
					p := s.Frame.Tilt.Unproject(raster.Point{X: sx, Y: sy})
					// The plane point back in world units.
					dx, dy := p.X-s.Frame.W/2, p.Y-s.Frame.H/2
					wx := s.Frame.CX + (dx*s.Frame.Cos+dy*s.Frame.Sin)/s.Frame.Scale
					wy := s.Frame.CY + (-dx*s.Frame.Sin+dy*s.Frame.Cos)/s.Frame.Scale
					if q := s.Frame.ToScreen(wx, wy); math.Abs(q.X-sx) > 1e-6 || math.Abs(q.Y-sy) > 1e-6 {
						t.Fatalf("pitch %g bearing %g: screen %g,%g came back at %v", pitch, bearing, sx, sy, q)
					}
					shown[[3]int{int(math.Floor(wy * n)), int(math.Floor(wx * n)), z}] = true
				}
			}
			for tile := range shown {
				if !s.tileInView(tile) {
					t.Errorf("pitch %g bearing %g: tile %v shows on screen, not in view", pitch, bearing, tile)
				}
			}
			// The tile 40 tiles away in each direction is off the screen.
			cx, cy := int(math.Floor(s.Frame.CX*n)), int(math.Floor(s.Frame.CY*n))
			for _, d := range [][2]int{{40, 0}, {-40, 0}, {0, 40}, {0, -40}} {
				if tile := [3]int{cy + d[1], cx + d[0], z}; s.tileInView(tile) {
					t.Errorf("pitch %g bearing %g: tile %v far off the screen is in view", pitch, bearing, tile)
				}
			}
		}
	}
}

// TestTileInViewEdges checks the tiles that only touch a view's edge: the
// one left of it is laid out, as MapLibre GL JS 6.17 shows its labels, the
// one right of it is not (extent/1024-symbol: the world at zoom 0, exactly
// 512 pixels wide; and a zoom-1 view whose right edge is a tile side).
func TestTileInViewEdges(t *testing.T) {
	tests := []struct {
		center [2]float64
		zoom   float64
		tile   [3]int // [y, x, z]
		want   bool
	}{
		{[2]float64{0, 0}, 0, [3]int{0, 0, 0}, true},
		{[2]float64{0, 0}, 0, [3]int{0, -1, 0}, true}, // the copy left of the world
		{[2]float64{0, 0}, 0, [3]int{0, 1, 0}, false}, // the copy right of it
		{[2]float64{-90, 0}, 1, [3]int{0, -1, 1}, true},
		{[2]float64{-90, 0}, 1, [3]int{0, 1, 1}, false},
		{[2]float64{-90, 0}, 1, [3]int{0, -2, 1}, false}, // a tile away
	}
	for _, tc := range tests {
		v := scene.View{Center: tc.center, Zoom: tc.zoom, Width: 512, Height: 512, PixelRatio: 1}
		s := NewPass(&sources.Set{View: v, Frame: scene.NewFrame(v)}, nil, nil)
		if got := s.tileInView(tc.tile); got != tc.want {
			t.Errorf("center %v zoom %g: tile %v in view %v, want %v", tc.center, tc.zoom, tc.tile, got, tc.want)
		}
	}
}

// TestPlaceTextIconDependency checks how text-optional and icon-optional
// tie a label's text and icon together when one of them collides.
func TestPlaceTextIconDependency(t *testing.T) {
	textBox := collisionBox{0, 0, 40, 10, false}
	iconBox := collisionBox{100, 0, 110, 10, false}
	tests := []struct {
		name                  string
		textOptional, iconOpt bool
		blockText, blockIcon  bool
		wantText, wantIcon    bool
		noText, noIcon        bool
	}{
		{name: "both fit", wantText: true, wantIcon: true},
		{name: "text blocked hides both", blockText: true},
		{name: "icon blocked hides both", blockIcon: true},
		{name: "text optional: icon alone", textOptional: true, blockText: true, wantIcon: true},
		{name: "text optional: icon blocked hides text", textOptional: true, blockIcon: true},
		{name: "icon optional: text alone", iconOpt: true, blockIcon: true, wantText: true},
		{name: "icon optional: text blocked hides icon", iconOpt: true, blockText: true},
		{name: "both optional: text alone", textOptional: true, iconOpt: true, blockIcon: true, wantText: true},
		{name: "both optional: icon alone", textOptional: true, iconOpt: true, blockText: true, wantIcon: true},
		{name: "no text: icon needs nothing", noText: true, wantIcon: true},
		{name: "no icon: text needs nothing", noIcon: true, wantText: true},
		{name: "no icon, text blocked", noIcon: true, blockText: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			grid := newCollisionGrid(256, 256, 100)
			if tc.blockText {
				grid.insert(overlapNever, textBox)
			}
			if tc.blockIcon {
				grid.insert(overlapNever, iconBox)
			}
			sym := &symbol{hasText: !tc.noText, hasIcon: !tc.noIcon, textBoxes: []collisionBox{textBox}, iconBox: iconBox,
				text: []glyphQuad{{}}, icon: &iconQuad{}}
			sl := symbolLayout{textOptional: tc.textOptional, iconOptional: tc.iconOpt}
			placed := placeAll(t.Context(), []*symbol{sym}, sl, grid)
			gotText := len(placed) == 1 && placed[0].hasText && placed[0].text != nil
			gotIcon := len(placed) == 1 && placed[0].hasIcon && placed[0].icon != nil
			if gotText != tc.wantText || gotIcon != tc.wantIcon {
				t.Fatalf("placed text %v icon %v, want text %v icon %v", gotText, gotIcon, tc.wantText, tc.wantIcon)
			}
			// What was placed now blocks: the other part's box stays free.
			if grid.free(overlapNever, textBox) == (tc.wantText || tc.blockText) {
				t.Errorf("text box free = %v after placing text %v", !(tc.wantText || tc.blockText), tc.wantText)
			}
		})
	}
}

// TestIconFrame checks icon-text-fit's box about a shaped text.
func TestIconFrame(t *testing.T) {
	sh := text.Shaping{Left: -10, Right: 10, Top: -4, Bottom: 4}
	pad := [4]float64{1, 2, 3, 4} // top, right, bottom, left
	off := [2]float64{5, -5}
	tests := []struct {
		fit  string
		want [4]float64
	}{
		{"none", [4]float64{5 - 8, -5 - 3, 5 + 8, -5 + 3}},
		{"width", [4]float64{5 - 20 - 4, -5 - 3, 5 + 20 + 2, -5 + 3}},
		{"height", [4]float64{5 - 8, -5 - 8 - 1, 5 + 8, -5 + 8 + 3}},
		{"both", [4]float64{5 - 20 - 4, -5 - 8 - 1, 5 + 20 + 2, -5 + 8 + 3}},
	}
	for _, tc := range tests {
		l, tp, r, b := iconFrame(tc.fit, pad, off, sh, 2, 16, 6)
		if got := [4]float64{l, tp, r, b}; got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.fit, got, tc.want)
		}
	}
}

// TestNearestTexel checks the texel coordinate an upright icon is sampled
// at: the share of the snapped quad's side, with pixel centres exactly on
// a texel edge taking the texel after it when the share is a binary
// fraction and the one before it otherwise (symbol-placement/point: a
// 24-pixel quad from 288.5, one column in three after the edge).
func TestNearestTexel(t *testing.T) {
	tests := []struct {
		p, a, b float64
		n       int
		want    float64
	}{
		{291.5, 288.5, 312.5, 24, 3.5},    // 3/24 = 1/8: after the edge
		{290.5, 288.5, 312.5, 24, 1.5},    // 2/24 = 1/12: before it
		{292.5, 288.5, 312.5, 24, 3.5},    // 4/24 = 1/6: before it
		{300.5, 288.5, 312.5, 24, 12.5},   // 12/24 = 1/2: after it
		{291.5, 288.25, 312.25, 24, 3.25}, // no tie
		{25.5, 20.5, 40.5, 20, 5.5},       // 5/20 = 1/4: after it
		{26.5, 20.5, 40.5, 20, 5.5},       // 6/20 = 3/10: before it
	}
	for _, tc := range tests {
		if got := nearestTexel(tc.p, tc.a, tc.b, tc.n); got != tc.want {
			t.Errorf("nearestTexel(%v, %v, %v, %d) = %v, want %v", tc.p, tc.a, tc.b, tc.n, got, tc.want)
		}
	}
}
