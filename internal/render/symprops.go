package render

import (
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// symLayer is a symbol layer's properties with the values that do not
// depend on the feature evaluated once per zoom: a layer evaluates some
// thirty properties for each of thousands of labels.
type symLayer struct {
	*layerRender
	consts map[constKey]expr.Value
}

type constKey struct {
	name string
	zoom float64
}

// prop returns the compiled property, or nil.
func (lr *symLayer) prop(name string) *expr.Expression { return lr.props[name] }

// value evaluates a property (ok false when the layer has none).
func (lr *symLayer) value(name string, c *expr.EvalContext) (expr.Value, bool) {
	e := lr.props[name]
	if e == nil {
		return expr.Value{}, false
	}
	if !e.IsFeatureConstant() {
		return e.EvalOrDefault(c), true
	}
	k := constKey{name, c.Zoom}
	if v, ok := lr.consts[k]; ok {
		return v, true
	}
	if lr.consts == nil {
		lr.consts = map[constKey]expr.Value{}
	}
	v := e.EvalOrDefault(&expr.EvalContext{Zoom: c.Zoom})
	lr.consts[k] = v
	return v, true
}

func (lr *symLayer) num(name string, c *expr.EvalContext, def float64) float64 {
	v, ok := lr.value(name, c)
	if !ok || v.Kind() != expr.KindNumber {
		return def
	}
	return v.Num()
}

func (lr *symLayer) str(name string, c *expr.EvalContext, def string) string {
	v, ok := lr.value(name, c)
	if !ok || v.Kind() != expr.KindString {
		return def
	}
	return v.Str()
}

func (lr *symLayer) boolean(name string, c *expr.EvalContext, def bool) bool {
	v, ok := lr.value(name, c)
	if !ok || v.Kind() != expr.KindBoolean {
		return def
	}
	return v.Boolean()
}

func (lr *symLayer) color(name string, c *expr.EvalContext) (raster.Color, bool) {
	v, ok := lr.value(name, c)
	if !ok || v.Kind() != expr.KindColor {
		return raster.Color{}, false
	}
	col := v.Color()
	return raster.Color{R: col.R, G: col.G, B: col.B, A: col.A}, true
}

// iconsLinear reports whether the layer's icons are sampled linearly, as
// GL decides it for a layer: when icon-size is not the constant 1 or
// icon-rotate not the constant 0, even for the icons that are not turned.
func (lr *symLayer) iconsLinear() bool {
	constant := func(name string, want float64) bool {
		e := lr.props[name]
		if e == nil {
			return true
		}
		v, ok := e.Constant()
		return ok && v.Kind() == expr.KindNumber && v.Num() == want
	}
	return !constant("icon-size", 1) || !constant("icon-rotate", 0)
}
