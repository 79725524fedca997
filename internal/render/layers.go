package render

import (
	"fmt"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// layerRender draws one layer.
type layerRender struct {
	r    *Renderer
	l    *style.Layer
	cv   *raster.Canvas
	mask *raster.Mask
	fr   frame
	zoom float64

	filter *expr.Expression
	props  map[string]*expr.Expression // paint and layout properties
}

// compile prepares the layer's filter and properties.
func (lr *layerRender) compile() error {
	lr.props = map[string]*expr.Expression{}
	if lr.l.Filter != nil {
		f, errs := expr.CompileFilter(lr.l.Filter)
		if len(errs) > 0 {
			return fmt.Errorf("filter: %s", errs[0].Message)
		}
		lr.filter = f
	}
	for _, kind := range []string{"paint", "layout"} {
		specs := lr.r.specs[kind+"_"+lr.l.Type]
		obj := lr.l.Paint
		if kind == "layout" {
			obj = lr.l.Layout
		}
		for name, spec := range specs {
			var e *expr.Expression
			var errs []expr.CompileError
			if obj != nil {
				if raw, ok := obj.Get(name); ok {
					e, errs = expr.CompileValue(raw, spec)
				}
			}
			if e == nil && len(errs) == 0 && len(spec.Default) > 0 {
				e, errs = expr.CompileValue(spec.Default, spec)
			}
			if len(errs) > 0 {
				// One broken property is left at nothing; the rest draws.
				lr.r.log.Warn("render: property skipped", "layer", lr.l.ID, "property", name, "err", errs[0].Message)
				continue
			}
			if e != nil {
				lr.props[name] = e
			}
		}
	}
	return nil
}

func (lr *layerRender) ctx(f *expr.MapFeature) *expr.EvalContext {
	c := &expr.EvalContext{Zoom: lr.zoom}
	if f != nil {
		c.Feature = f
	}
	return c
}

func (lr *layerRender) num(name string, c *expr.EvalContext, def float64) float64 {
	e := lr.props[name]
	if e == nil {
		return def
	}
	v := e.EvalOrDefault(c)
	if v.Kind() != expr.KindNumber {
		return def
	}
	return v.Num()
}

func (lr *layerRender) color(name string, c *expr.EvalContext) (raster.Color, bool) {
	e := lr.props[name]
	if e == nil {
		return raster.Color{}, false
	}
	v := e.EvalOrDefault(c)
	if v.Kind() != expr.KindColor {
		return raster.Color{}, false
	}
	col := v.Color()
	return raster.Color{R: col.R, G: col.G, B: col.B, A: col.A}, true
}

func (lr *layerRender) str(name string, c *expr.EvalContext, def string) string {
	e := lr.props[name]
	if e == nil {
		return def
	}
	v := e.EvalOrDefault(c)
	if v.Kind() != expr.KindString {
		return def
	}
	return v.Str()
}

func (lr *layerRender) boolean(name string, c *expr.EvalContext, def bool) bool {
	e := lr.props[name]
	if e == nil {
		return def
	}
	v := e.EvalOrDefault(c)
	if v.Kind() != expr.KindBoolean {
		return def
	}
	return v.Boolean()
}

// numbers returns the numbers of a numeric array value (a numberArray,
// padding or plain array of numbers), nil for anything else.
func numbers(v expr.Value) []float64 {
	if f := v.Floats(); f != nil {
		return f
	}
	items := v.Items()
	if items == nil {
		return nil
	}
	out := make([]float64, len(items))
	for i, it := range items {
		if it.Kind() != expr.KindNumber {
			return nil
		}
		out[i] = it.Num()
	}
	return out
}

// translate returns the layer's translation in device pixels.
func (lr *layerRender) translate(name string, c *expr.EvalContext) (float64, float64) {
	e := lr.props[name]
	if e == nil {
		return 0, 0
	}
	v := numbers(e.EvalOrDefault(c))
	if len(v) != 2 {
		return 0, 0
	}
	dx, dy := v[0]*lr.fr.ratio, v[1]*lr.fr.ratio
	if lr.str(name+"-anchor", c, "map") == "map" {
		// Anchored to the map: turns with it.
		return dx*lr.fr.cos - dy*lr.fr.sin, dx*lr.fr.sin + dy*lr.fr.cos
	}
	return dx, dy
}

func (lr *layerRender) background() {
	c := lr.ctx(nil)
	col, ok := lr.color("background-color", c)
	if !ok {
		return
	}
	lr.cv.Fill(col, lr.num("background-opacity", c, 1))
}

// draw draws the layer's features, each feature with its own properties.
func (lr *layerRender) draw(feats []sourceFeature) {
	for _, f := range feats {
		c := lr.ctx(f.feat)
		if lr.filter != nil {
			v := lr.filter.EvalOrDefault(c)
			if v.Kind() != expr.KindBoolean || !v.Boolean() {
				continue
			}
		}
		switch lr.l.Type {
		case "fill":
			lr.fill(f, c)
		case "line":
			lr.line(f, c)
		case "circle":
			lr.circle(f, c)
		}
	}
}

// project maps world points to device pixels, shifted by (dx, dy).
func (lr *layerRender) project(ps []orb.Point, dx, dy float64) []raster.Point {
	out := make([]raster.Point, len(ps))
	for i, p := range ps {
		q := lr.fr.toScreen(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}

func (lr *layerRender) fill(f sourceFeature, c *expr.EvalContext) {
	if f.kind != "Polygon" {
		return
	}
	col, ok := lr.color("fill-color", c)
	if !ok {
		return
	}
	opacity := lr.num("fill-opacity", c, 1)
	dx, dy := lr.translate("fill-translate", c)
	for _, poly := range f.polygons {
		rings := make([][]raster.Point, len(poly))
		for i, r := range poly {
			rings[i] = lr.project(r, dx, dy)
		}
		lr.mask.Reset()
		lr.mask.FillPolygon(rings)
		lr.cv.Composite(lr.mask, col, opacity)
		// GL draws fills without antialiasing, then a one-pixel outline
		// on top when fill-antialias is on.
		if lr.boolean("fill-antialias", c, true) {
			outline := col
			if oc, ok := lr.color("fill-outline-color", c); ok && lr.l.Paint != nil && lr.l.Paint.Has("fill-outline-color") {
				outline = oc
			}
			lr.mask.Reset()
			for k, r := range rings {
				lr.mask.Outline(r, f.cutEdge(poly[k]))
			}
			lr.cv.Composite(lr.mask, outline, opacity)
		}
	}
}

func (lr *layerRender) line(f sourceFeature, c *expr.EvalContext) {
	col, ok := lr.color("line-color", c)
	if !ok {
		return
	}
	ratio := lr.fr.ratio
	width := lr.num("line-width", c, 1) * ratio
	blur := lr.num("line-blur", c, 0) * ratio
	opacity := lr.num("line-opacity", c, 1)
	dx, dy := lr.translate("line-translate", c)
	capStyle := map[string]raster.Cap{"butt": raster.ButtCap, "round": raster.RoundCap, "square": raster.SquareCap}[lr.str("line-cap", c, "butt")]
	var lines [][]orb.Point
	switch f.kind {
	case "LineString":
		lines = f.parts
	case "Polygon":
		// A ring drawn as a line is closed, but the edges the tile square
		// cut are not the polygon's own: the line breaks there.
		for _, p := range f.polygons {
			for _, r := range p {
				lines = append(lines, splitAtCuts(closeRing(r), f.cutEdge(closeRing(r)))...)
			}
		}
	default:
		return
	}
	lr.mask.Reset()
	for _, l := range lines {
		lr.mask.Stroke(lr.project(l, dx, dy), width, blur, capStyle)
	}
	lr.cv.Composite(lr.mask, col, opacity)
}

func (lr *layerRender) circle(f sourceFeature, c *expr.EvalContext) {
	if f.kind != "Point" {
		return
	}
	ratio := lr.fr.ratio
	radius := lr.num("circle-radius", c, 5) * ratio
	blur := lr.num("circle-blur", c, 0)
	opacity := lr.num("circle-opacity", c, 1)
	stroke := lr.num("circle-stroke-width", c, 0) * ratio
	dx, dy := lr.translate("circle-translate", c)
	col, ok := lr.color("circle-color", c)
	if !ok {
		return
	}
	scol, _ := lr.color("circle-stroke-color", c)
	sop := lr.num("circle-stroke-opacity", c, 1)
	for _, part := range f.parts {
		for _, p := range lr.project(part, dx, dy) {
			lr.cv.Circle(p, radius, stroke, blur, col, scol, opacity, sop*opacity)
		}
	}
}
