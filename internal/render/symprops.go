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
	entries map[string]*propEntry
}

// propEntry is a property with its values at the (at most two) zooms a
// render evaluates it at, when it does not depend on the feature.
type propEntry struct {
	e         *expr.Expression
	featConst bool
	n         int
	zoom      [2]float64
	v         [2]expr.Value
}

// prop returns the compiled property, or nil.
func (lr *symLayer) prop(name string) *expr.Expression { return lr.props[name] }

// value evaluates a property (ok false when the layer has none).
func (lr *symLayer) value(name string, c *expr.EvalContext) (expr.Value, bool) {
	pe, ok := lr.entries[name]
	if !ok {
		if lr.entries == nil {
			lr.entries = map[string]*propEntry{}
		}
		pe = &propEntry{e: lr.props[name]}
		if pe.e != nil {
			pe.featConst = pe.e.IsFeatureConstant()
		}
		lr.entries[name] = pe
	}
	if pe.e == nil {
		return expr.Value{}, false
	}
	if !pe.featConst {
		return pe.e.EvalOrDefault(c), true
	}
	for i := 0; i < pe.n; i++ {
		if pe.zoom[i] == c.Zoom {
			return pe.v[i], true
		}
	}
	v := pe.e.EvalOrDefault(&expr.EvalContext{Zoom: c.Zoom})
	if pe.n < len(pe.zoom) {
		pe.zoom[pe.n], pe.v[pe.n] = c.Zoom, v
		pe.n++
	}
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
