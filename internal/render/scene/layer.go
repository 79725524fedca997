package scene

import (
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Layer is one layer of a render: its style, its compiled filter
// and properties, the view and the canvas it draws on.
type Layer struct {
	Style  *style.Layer
	Canvas *raster.Canvas
	Mask   *raster.Mask
	Frame  Frame
	Zoom   float64

	Filter *expr.Expression
	Props  map[string]*expr.Expression // paint and layout properties
	slots  map[string]*Prop            // the properties asked for, by name
}

// Keeps reports whether the layer's filter keeps the feature of c (a
// layer without a filter keeps every feature).
func (lr *Layer) Keeps(c *expr.EvalContext) bool {
	if lr.Filter == nil {
		return true
	}
	v := lr.Filter.EvalOrDefault(c)
	return v.Kind() == expr.KindBoolean && v.Boolean()
}

// FeatureContext returns an evaluation context of the layer's zoom for
// feature f.
func (lr *Layer) FeatureContext(f expr.Feature) *expr.EvalContext {
	return &expr.EvalContext{Zoom: lr.Zoom, Feature: f}
}

// Prop is one of a layer's properties, looked up once per layer: its
// expression (nil when the layer has none) and, once evaluated, its value
// when it depends on no feature.
type Prop struct {
	Expr  *expr.Expression
	v     expr.Value
	known bool // v holds the feature-constant value at the layer's zoom
}

// Prop returns the named property, from one lookup a call.
func (lr *Layer) Prop(name string) *Prop {
	if p := lr.slots[name]; p != nil {
		return p
	}
	if lr.slots == nil {
		lr.slots = map[string]*Prop{}
	}
	p := &Prop{Expr: lr.Props[name]}
	lr.slots[name] = p
	return p
}

// Eval evaluates a property, nil when the layer has none. Values that
// depend on no feature are evaluated once for the layer's zoom.
func (lr *Layer) Eval(name string, c *expr.EvalContext) (expr.Value, bool) {
	p := lr.Prop(name)
	if p.Expr == nil {
		return expr.Value{}, false
	}
	if !p.Expr.IsFeatureConstant() || c.Zoom != lr.Zoom {
		return p.Expr.EvalOrDefault(c), true
	}
	if !p.known {
		p.v, p.known = p.Expr.EvalOrDefault(c), true
	}
	return p.v, true
}

// Num returns a number property, def when absent or not a number.
func (lr *Layer) Num(name string, c *expr.EvalContext, def float64) float64 {
	v, ok := lr.Eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindNumber {
		return def
	}
	return v.Num()
}

// Color returns a colour property, false when absent or not a colour.
func (lr *Layer) Color(name string, c *expr.EvalContext) (raster.Color, bool) {
	v, ok := lr.Eval(name, c)
	if !ok {
		return raster.Color{}, false
	}
	if v.Kind() != expr.KindColor {
		return raster.Color{}, false
	}
	col := v.Color()
	return raster.Color{R: col.R, G: col.G, B: col.B, A: col.A}, true
}

// Str returns a string property, def when absent or not a string.
func (lr *Layer) Str(name string, c *expr.EvalContext, def string) string {
	v, ok := lr.Eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindString {
		return def
	}
	return v.Str()
}

// Bool returns a boolean property, def when absent or not a boolean.
func (lr *Layer) Bool(name string, c *expr.EvalContext, def bool) bool {
	v, ok := lr.Eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindBoolean {
		return def
	}
	return v.Boolean()
}

// Numbers returns the numbers of a numeric array value (a numberArray,
// padding or plain array of numbers), nil for anything else.
func Numbers(v expr.Value) []float64 {
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

// Translate returns the layer's translation in device pixels.
func (lr *Layer) Translate(name string, c *expr.EvalContext) (float64, float64) {
	val, ok := lr.Eval(name, c)
	if !ok {
		return 0, 0
	}
	x, y, ok := NumberPair(val)
	if !ok {
		return 0, 0
	}
	dx, dy := x*lr.Frame.Ratio, y*lr.Frame.Ratio
	if lr.Str(AnchorProperty(name), c, "map") == "map" {
		// Anchored to the map: turns with it.
		return dx*lr.Frame.Cos - dy*lr.Frame.Sin, dx*lr.Frame.Sin + dy*lr.Frame.Cos
	}
	return dx, dy
}

// NumberPair returns the two numbers of a numeric array value of two, as
// numbers reads them; ok is false for anything else.
func NumberPair(v expr.Value) (x, y float64, ok bool) {
	if f := v.Floats(); f != nil {
		if len(f) != 2 {
			return 0, 0, false
		}
		return f[0], f[1], true
	}
	items := v.Items()
	if len(items) != 2 || items[0].Kind() != expr.KindNumber || items[1].Kind() != expr.KindNumber {
		return 0, 0, false
	}
	return items[0].Num(), items[1].Num(), true
}

// AnchorProperty returns the name of a translate property's anchor
// property, without building the string for the usual ones.
func AnchorProperty(translate string) string {
	switch translate {
	case "fill-translate":
		return "fill-translate-anchor"
	case "line-translate":
		return "line-translate-anchor"
	case "circle-translate":
		return "circle-translate-anchor"
	case "fill-extrusion-translate":
		return "fill-extrusion-translate-anchor"
	}
	return translate + "-anchor"
}
