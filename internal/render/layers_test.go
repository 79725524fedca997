package render

import (
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func TestNumbers(t *testing.T) {
	tests := []struct {
		name string
		v    expr.Value
		want []float64
	}{
		{"array of numbers", expr.Array([]expr.Value{expr.Number(5), expr.Number(-2)}), []float64{5, -2}},
		{"array with a string", expr.Array([]expr.Value{expr.Number(5), expr.String("x")}), nil},
		{"number", expr.Number(3), nil},
	}
	for _, tc := range tests {
		if got := numbers(tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: numbers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestViewOfBearing(t *testing.T) {
	tests := []struct {
		doc  string
		want float64
	}{
		{`{"version": 8, "sources": {}, "layers": [], "bearing": 90}`, 90},
		{`{"version": 8, "sources": {}, "layers": [], "bearing": -12.5}`, -12.5},
		{`{"version": 8, "sources": {}, "layers": []}`, 0},
	}
	for _, tc := range tests {
		if got := ViewOf(parse(t, tc.doc), 64, 64, 1).Bearing; got != tc.want {
			t.Errorf("%s: bearing %v, want %v", tc.doc, got, tc.want)
		}
	}
}

func TestInsideTile(t *testing.T) {
	parts := [][]orb.Point{{{0.1, 0.1}, {0.6, 0.1}}, {{0.4, 0.4}, {0.5, 0.5}}}
	tests := []struct {
		name string
		b    *box
		want int
	}{
		{"no square keeps all", nil, 4},
		{"half open square", &box{0, 0, 0.5, 0.5}, 2},
		{"outside", &box{0.7, 0.7, 1, 1}, 0},
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

func TestViewOfPitch(t *testing.T) {
	tests := []struct {
		doc  string
		want float64
	}{
		{`{"version": 8, "sources": {}, "layers": [], "pitch": 30}`, 30},
		{`{"version": 8, "sources": {}, "layers": [], "pitch": 90}`, maxPitch},
		{`{"version": 8, "sources": {}, "layers": [], "pitch": -5}`, 0},
		{`{"version": 8, "sources": {}, "layers": []}`, 0},
	}
	for _, tc := range tests {
		v := ViewOf(parse(t, tc.doc), 64, 64, 1)
		if v.Pitch != tc.want {
			t.Errorf("%s: pitch %v, want %v", tc.doc, v.Pitch, tc.want)
		}
		if fr := newFrame(v); (fr.tilt != nil) != (tc.want > 0) {
			t.Errorf("%s: tilted camera %v, want %v", tc.doc, fr.tilt != nil, tc.want > 0)
		}
	}
}

func TestByTileOrder(t *testing.T) {
	top, bottom := box{0, 0, 0.5, 0.5}, box{0, 0.5, 0.5, 1}
	right := box{0.5, 0.5, 1, 1}
	feats := []sourceFeature{
		{kind: "Point", clip: &top, layer: "a"},
		{kind: "Point", clip: &bottom, layer: "b"},
		{kind: "Point", clip: &right, layer: "c"},
		{kind: "Point", layer: "geojson"},
	}
	tiles := func() []box { return []box{top, bottom} }
	var got []string
	for _, f := range byTileOrder(feats, tiles) {
		got = append(got, f.layer)
		if f.clip == nil {
			t.Errorf("feature %s has no tile", f.layer)
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

func TestBalancedCut(t *testing.T) {
	tests := []struct {
		cost []float64
		want int
	}{
		{[]float64{1, 1}, 1},
		{[]float64{1, 1, 1, 1}, 2},
		{[]float64{1, 1, 1, 10}, 3}, // one heavy top layer runs alone
		{[]float64{10, 1, 1, 1}, 1},
		{[]float64{3, 1, 1, 1, 3}, 2},
		{[]float64{5}, 0},
		{nil, 0},
	}
	for _, tc := range tests {
		if got := balancedCut(tc.cost); got != tc.want {
			t.Errorf("balancedCut(%v) = %d, want %d", tc.cost, got, tc.want)
		}
	}
}

func TestSquareVisible(t *testing.T) {
	// A 512x512 view of zoom 1 centred on the world: the four zoom-1
	// squares fill it; a zoom-2 square beyond its edge does not reach it.
	v := View{Zoom: 1, Width: 512, Height: 512, PixelRatio: 1}
	lr := &layerRender{fr: newFrame(v)}
	for _, tc := range []struct {
		b    box
		want bool
	}{
		{box{0, 0, 0.5, 0.5}, true},
		{box{0.5, 0.5, 1, 1}, true},
		{box{0.25, 0.25, 0.5, 0.5}, true},
		{box{0.76, 0.45, 0.8, 0.55}, false}, // right of the view
		{box{-0.25, 0.5, 0, 0.75}, false},
	} {
		if got := lr.squareVisible(&tc.b); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.b, got, tc.want)
		}
	}
	// Turned 45 degrees, the view's corner reaches that square.
	v.Bearing = 45
	lr = &layerRender{fr: newFrame(v)}
	if !lr.squareVisible(&box{0.76, 0.45, 0.8, 0.55}) {
		t.Error("a square the turned view reaches is not drawn")
	}
}

func TestReaches(t *testing.T) {
	lr := &layerRender{cv: raster.NewCanvas(100, 50)}
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

func TestNumberPair(t *testing.T) {
	num := expr.Number
	tests := []struct {
		name string
		v    expr.Value
		ok   bool
	}{
		{"two numbers", expr.Array([]expr.Value{num(5), num(-2)}), true},
		{"three numbers", expr.Array([]expr.Value{num(5), num(-2), num(1)}), false},
		{"one number", expr.Array([]expr.Value{num(5)}), false},
		{"a string", expr.Array([]expr.Value{num(5), expr.String("x")}), false},
		{"empty", expr.Array(nil), false},
		{"number", num(3), false},
		{"null", expr.Null(), false},
	}
	for _, tc := range tests {
		x, y, ok := numberPair(tc.v)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		// It reads what numbers reads.
		if want := numbers(tc.v); ok && (x != want[0] || y != want[1]) {
			t.Errorf("%s: %v, %v, want %v", tc.name, x, y, want)
		}
	}
}

func TestAnchorProperty(t *testing.T) {
	for _, name := range []string{"fill-translate", "line-translate", "circle-translate", "fill-extrusion-translate", "text-translate"} {
		if got := anchorProperty(name); got != name+"-anchor" {
			t.Errorf("anchorProperty(%q) = %q", name, got)
		}
	}
}
