package layers

import (
	"log/slog"
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func TestInsideTile(t *testing.T) {
	parts := [][]orb.Point{{{0.1, 0.1}, {0.6, 0.1}}, {{0.4, 0.4}, {0.5, 0.5}}}
	tests := []struct {
		name string
		b    *scene.Box
		want int
	}{
		{"no square keeps all", nil, 4},
		{"half open square", &scene.Box{X0: 0, Y0: 0, X1: 0.5, Y1: 0.5}, 2},
		{"outside", &scene.Box{X0: 0.7, Y0: 0.7, X1: 1, Y1: 1}, 0},
	}
	for _, tc := range tests {
		n := 0
		for _, p := range insideTile(parts, tc.b) {
			n += len(p)
		}
		if n != tc.want {
			t.Errorf("%s: %d points, want %d", tc.name, n, tc.want)
		}
	}
}

func TestByTileOrder(t *testing.T) {
	named := func(name string) expr.Feature {
		return &expr.MapFeature{Props: expr.ObjectOf([]string{"name"}, []expr.Value{expr.String(name)})}
	}
	top, bottom := scene.Box{X0: 0, Y0: 0, X1: 0.5, Y1: 0.5}, scene.Box{X0: 0, Y0: 0.5, X1: 0.5, Y1: 1}
	right := scene.Box{X0: 0.5, Y0: 0.5, X1: 1, Y1: 1}
	feats := []scene.Feature{
		{Kind: "Point", Clip: &top, Expr: named("a")},
		{Kind: "Point", Clip: &bottom, Expr: named("b")},
		{Kind: "Point", Clip: &right, Expr: named("c")},
		{Kind: "Point", Expr: named("geojson")},
	}
	tiles := func() []scene.Box { return []scene.Box{top, bottom} }
	var got []string
	for _, f := range byTileOrder(feats, tiles) {
		name, _ := f.Expr.Property("name")
		got = append(got, name.Str())
		if f.Clip == nil {
			t.Errorf("feature %s has no tile", name.Str())
		}
	}
	// Bottom row first, right to left; GeoJSON once a tile.
	want := []string{"c", "b", "geojson", "a", "geojson"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestTrianglesInside(t *testing.T) {
	tri := func(pts ...float64) [3]raster.LineVertex {
		return [3]raster.LineVertex{{X: pts[0], Y: pts[1]}, {X: pts[2], Y: pts[3]}, {X: pts[4], Y: pts[5]}}
	}
	square := []raster.Point{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 10}, {X: 0, Y: 10}}
	reversed := []raster.Point{{X: 0, Y: 0}, {X: 0, Y: 10}, {X: 10, Y: 10}, {X: 10, Y: 0}}
	diamond := []raster.Point{{X: 5, Y: 0}, {X: 10, Y: 5}, {X: 5, Y: 10}, {X: 0, Y: 5}}
	tests := []struct {
		name string
		tris [][3]raster.LineVertex
		clip []raster.Point
		want bool
	}{
		{"inside", [][3]raster.LineVertex{tri(1, 1, 9, 1, 5, 9)}, square, true},
		{"inside, clip wound the other way", [][3]raster.LineVertex{tri(1, 1, 9, 1, 5, 9)}, reversed, true},
		{"one vertex out", [][3]raster.LineVertex{tri(1, 1, 11, 1, 5, 9)}, square, false},
		{"second triangle out", [][3]raster.LineVertex{tri(1, 1, 2, 1, 2, 2), tri(5, 5, 6, 5, 6, -1)}, reversed, false},
		{"bounding box corner outside a diamond", [][3]raster.LineVertex{tri(5, 1, 9, 5, 5, 9)}, diamond, false},
		{"small triangle in a diamond", [][3]raster.LineVertex{tri(4, 4, 6, 4, 5, 6)}, diamond, true},
	}
	for _, tc := range tests {
		if got := trianglesInside(tc.tris, tc.clip); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSquareVisible(t *testing.T) {
	// A 512x512 view of zoom 1 centred on the world: the four zoom-1
	// squares fill it; a zoom-2 square beyond its edge does not reach it.
	v := scene.View{Zoom: 1, Width: 512, Height: 512, PixelRatio: 1}
	lr := &Painter{Layer: scene.Layer{Frame: scene.NewFrame(v)}}
	for _, tc := range []struct {
		b    scene.Box
		want bool
	}{
		{scene.Box{X0: 0, Y0: 0, X1: 0.5, Y1: 0.5}, true},
		{scene.Box{X0: 0.5, Y0: 0.5, X1: 1, Y1: 1}, true},
		{scene.Box{X0: 0.25, Y0: 0.25, X1: 0.5, Y1: 0.5}, true},
		{scene.Box{X0: 0.76, Y0: 0.45, X1: 0.8, Y1: 0.55}, false}, // right of the view
		{scene.Box{X0: -0.25, Y0: 0.5, X1: 0, Y1: 0.75}, false},
	} {
		if got := lr.squareVisible(&tc.b); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.b, got, tc.want)
		}
	}
	// Turned 45 degrees, the view's corner reaches that square.
	v.Bearing = 45
	lr = &Painter{Layer: scene.Layer{Frame: scene.NewFrame(v)}}
	if !lr.squareVisible(&scene.Box{X0: 0.76, Y0: 0.45, X1: 0.8, Y1: 0.55}) {
		t.Error("a square the turned view reaches is not drawn")
	}
}

func TestReaches(t *testing.T) {
	lr := &Painter{Layer: scene.Layer{Canvas: raster.NewCanvas(100, 50)}}
	ring := func(x0, y0, x1, y1 float64) []raster.Point {
		return []raster.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	tests := []struct {
		name  string
		rings [][]raster.Point
		want  bool
	}{
		{"inside", [][]raster.Point{ring(10, 10, 20, 20)}, true},
		{"around", [][]raster.Point{ring(-10, -10, 200, 200)}, true},
		{"left", [][]raster.Point{ring(-30, 10, -2, 20)}, false},
		{"left within the margin", [][]raster.Point{ring(-30, 10, -0.5, 20)}, true},
		{"right", [][]raster.Point{ring(102, 10, 120, 20)}, false},
		{"above", [][]raster.Point{ring(10, -20, 20, -1.5)}, false},
		{"below", [][]raster.Point{ring(10, 52, 20, 60)}, false},
		{"a hole's ring does not widen the box", [][]raster.Point{ring(-30, 10, -2, 20), ring(-20, 12, -10, 18)}, false},
		{"two rings either side", [][]raster.Point{ring(-30, 10, -2, 20), ring(110, 10, 120, 20)}, true},
		{"no points", nil, false},
		{"NaN counts as reaching", [][]raster.Point{{{X: math.NaN(), Y: 0}}}, true},
	}
	for _, tc := range tests {
		if got := lr.reaches(tc.rings, 1); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFeatureCull checks the bound a fill or line layer puts on its
// features: a feature it culls draws nothing, one just inside it is kept,
// and layers whose reach depends on the feature, or a tilted camera,
// cull nothing.
func TestFeatureCull(t *testing.T) {
	comp := scene.NewCompiler(slog.New(slog.DiscardHandler))
	tests := []struct {
		name, typ, paint, layout string
		pitch                    float64
		ok                       bool
	}{
		{"fill", "fill", `{"fill-color": "#000"}`, `{}`, 0, true},
		{"translated fill", "fill", `{"fill-color": "#000", "fill-translate": [-40, 0]}`, `{}`, 0, true},
		{"wide line", "line", `{"line-width": 30}`, `{}`, 0, true},
		{"offset line, long miters", "line", `{"line-width": 8, "line-offset": -12}`, `{"line-miter-limit": 6}`, 0, true},
		{"line width by feature", "line", `{"line-width": ["get", "w"]}`, `{}`, 0, false},
		{"tilted", "line", `{"line-width": 4}`, `{}`, 50, false},
	}
	for _, tc := range tests {
		doc := `{"version": 8, "sources": {}, "layers": [{"id": "l", "type": "` + tc.typ + `", "source": "x", "paint": ` + tc.paint + `, "layout": ` + tc.layout + `}]}`
		st, err := style.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v := scene.View{Zoom: 10, Width: 128, Height: 128, PixelRatio: 1, Pitch: tc.pitch}
		lr := &Painter{Layer: scene.Layer{Style: st.Layers[0], Frame: scene.NewFrame(v), Zoom: v.Zoom, Canvas: raster.NewCanvas(128, 128), Mask: raster.NewMask(128, 128)}}
		if err := comp.Compile(&lr.Layer); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := lr.FeatureContext(nil)
		cull := lr.featureCull(c)
		if cull.ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, cull.ok, tc.ok)
			continue
		}
		if !cull.ok {
			continue
		}
		// Squares and zigzags ever further right of the view, by a pixel.
		culled := 0
		for px := 100.0; px < 260; px++ {
			toWorld := func(x, y float64) orb.Point {
				return orb.Point{lr.Frame.CX + (x-64)/lr.Frame.Scale, lr.Frame.CY + (y-64)/lr.Frame.Scale}
			}
			f := scene.Feature{Expr: &expr.MapFeature{Props: expr.NewObject()}}
			if tc.typ == "fill" {
				f.Kind = "Polygon"
				f.Polygons = [][][]orb.Point{{{toWorld(px, 20), toWorld(px+10, 20), toWorld(px+10, 30), toWorld(px, 30), toWorld(px, 20)}}}
			} else {
				f.Kind = "LineString"
				f.Parts = [][]orb.Point{{toWorld(px, 20), toWorld(px+20, 21), toWorld(px, 22), toWorld(px+5, 60)}}
			}
			c.Feature = f.Expr
			lr.Canvas = raster.NewCanvas(128, 128)
			if tc.typ == "fill" {
				if fp, ok := lr.fill(f, c); ok {
					lr.fillOutline(f, &fp)
				}
			} else {
				lr.line(f, c)
			}
			drawn := slices.ContainsFunc(lr.Canvas.Pix, func(b uint8) bool { return b != 0 })
			if !lr.featureReaches(f, &cull) {
				culled++
				if drawn {
					t.Errorf("%s: a feature at %v px is culled but draws", tc.name, px)
				}
			}
		}
		if culled == 0 {
			t.Errorf("%s: nothing culled", tc.name)
		}
	}
}

// TestSurelyShown checks that the corners of the world box a layer takes
// as surely shown fall inside the canvas once translated.
func TestSurelyShown(t *testing.T) {
	tests := []struct {
		bearing, dx, dy float64
	}{{0, 0, 0}, {0, 30, -12}, {30, 0, 0}, {-120, -25, 40}, {180, 5, 5}}
	for _, tc := range tests {
		v := scene.View{Zoom: 12, Width: 200, Height: 120, PixelRatio: 1, Bearing: tc.bearing, Center: [2]float64{13.4, 52.5}}
		lr := &Painter{Layer: scene.Layer{Frame: scene.NewFrame(v), Canvas: raster.NewCanvas(200, 120)}}
		b := lr.surelyShown(tc.dx, tc.dy)
		if b.X1-b.X0 <= 0 || b.Y1-b.Y0 <= 0 {
			t.Errorf("bearing %v: an empty box", tc.bearing)
			continue
		}
		for _, c := range [][2]float64{{b.X0, b.Y0}, {b.X1, b.Y0}, {b.X0, b.Y1}, {b.X1, b.Y1}} {
			p := lr.Frame.ToPlane(c[0], c[1])
			x, y := p.X+tc.dx, p.Y+tc.dy
			if x < 0 || x > 200 || y < 0 || y > 120 {
				t.Errorf("bearing %v, translation %v,%v: corner at %.2f,%.2f, outside the canvas", tc.bearing, tc.dx, tc.dy, x, y)
			}
		}
		if tc.bearing == 0 {
			// Unturned, the box is the canvas less a pixel.
			p := lr.Frame.ToPlane(b.X0, b.Y0)
			if math.Abs(p.X+tc.dx-1) > 1e-6 || math.Abs(p.Y+tc.dy-1) > 1e-6 {
				t.Errorf("translation %v,%v: the box starts at %v,%v, want 1,1", tc.dx, tc.dy, p.X+tc.dx, p.Y+tc.dy)
			}
		}
	}
}

// TestLineStyleOf checks that a line layer keeps one style for all its
// features only when no property of it depends on the feature.
func TestLineStyleOf(t *testing.T) {
	comp := scene.NewCompiler(slog.New(slog.DiscardHandler))
	tests := []struct {
		name, paint string
		kept        bool
		widths      [2]float64 // outsets (device pixels) of features with w 2 and 6
	}{
		{"constant", `{"line-width": 4, "line-dasharray": [2, 1]}`, true, [2]float64{2.5, 2.5}},
		{"zoom only", `{"line-width": ["interpolate", ["linear"], ["zoom"], 9, 2, 11, 6]}`, true, [2]float64{2.5, 2.5}},
		{"by feature", `{"line-width": ["get", "w"]}`, false, [2]float64{1.5, 3.5}},
		{"colour by feature", `{"line-color": ["to-color", ["get", "c"]], "line-width": 2}`, false, [2]float64{1.5, 1.5}},
	}
	for _, tc := range tests {
		doc := `{"version": 8, "sources": {}, "layers": [{"id": "l", "type": "line", "source": "x", "paint": ` + tc.paint + `}]}`
		st, err := style.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v := scene.View{Zoom: 10, Width: 64, Height: 64, PixelRatio: 1}
		lr := &Painter{Layer: scene.Layer{Style: st.Layers[0], Frame: scene.NewFrame(v), Zoom: v.Zoom}}
		if err := comp.Compile(&lr.Layer); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, w := range []float64{2, 6} {
			props := expr.NewObject()
			props.Set("w", expr.Number(w))
			props.Set("c", expr.String("red"))
			c := &expr.EvalContext{Zoom: lr.Zoom, Feature: &expr.MapFeature{Props: props}}
			ls := lr.lineStyleOf(c)
			if !ls.draw || ls.paint.Outset != tc.widths[i] {
				t.Errorf("%s: feature %d: draw %v, outset %v, want %v", tc.name, i, ls.draw, ls.paint.Outset, tc.widths[i])
			}
		}
		if kept := lr.lineConst != nil; kept != tc.kept {
			t.Errorf("%s: style kept %v, want %v", tc.name, kept, tc.kept)
		}
	}
}
