package symbols

import (
	"context"

	"github.com/tesseramaps/tessera/internal/glyphs"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/text"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// symProp names a property a symbol layer reads: symLayer keeps its
// entries in an array indexed by it, so that the thirty-odd properties
// read for each of thousands of labels cost no lookup by name.
type symProp uint8

const (
	pSymbolPlacement symProp = iota
	pSymbolSpacing
	pSymbolSortKey
	pSymbolZOrder
	pTextField
	pTextFont
	pTextSize
	pTextTransform
	pTextLineHeight
	pTextLetterSpacing
	pTextJustify
	pTextAnchor
	pTextMaxWidth
	pTextMaxAngle
	pTextOffset
	pTextRadialOffset
	pTextVariableAnchor
	pTextVariableAnchorOffset
	pTextWritingMode
	pTextRotate
	pTextPadding
	pTextKeepUpright
	pTextOptional
	pTextIgnorePlacement
	pTextAllowOverlap
	pTextOverlap
	pTextRotationAlignment
	pTextPitchAlignment
	pTextTranslate
	pTextTranslateAnchor
	pTextColor
	pTextOpacity
	pTextHaloColor
	pTextHaloWidth
	pTextHaloBlur
	pIconImage
	pIconSize
	pIconOffset
	pIconAnchor
	pIconRotate
	pIconPadding
	pIconKeepUpright
	pIconOptional
	pIconIgnorePlacement
	pIconAllowOverlap
	pIconOverlap
	pIconRotationAlignment
	pIconPitchAlignment
	pIconTranslate
	pIconTranslateAnchor
	pIconTextFit
	pIconTextFitPadding
	pIconColor
	pIconOpacity
	pIconHaloColor
	pIconHaloWidth
	pIconHaloBlur
	numSymProps
)

// symPropNames are the style names of the symProps.
var symPropNames = [numSymProps]string{
	pSymbolPlacement:          "symbol-placement",
	pSymbolSpacing:            "symbol-spacing",
	pSymbolSortKey:            "symbol-sort-key",
	pSymbolZOrder:             "symbol-z-order",
	pTextField:                "text-field",
	pTextFont:                 "text-font",
	pTextSize:                 "text-size",
	pTextTransform:            "text-transform",
	pTextLineHeight:           "text-line-height",
	pTextLetterSpacing:        "text-letter-spacing",
	pTextJustify:              "text-justify",
	pTextAnchor:               "text-anchor",
	pTextMaxWidth:             "text-max-width",
	pTextMaxAngle:             "text-max-angle",
	pTextOffset:               "text-offset",
	pTextRadialOffset:         "text-radial-offset",
	pTextVariableAnchor:       "text-variable-anchor",
	pTextVariableAnchorOffset: "text-variable-anchor-offset",
	pTextWritingMode:          "text-writing-mode",
	pTextRotate:               "text-rotate",
	pTextPadding:              "text-padding",
	pTextKeepUpright:          "text-keep-upright",
	pTextOptional:             "text-optional",
	pTextIgnorePlacement:      "text-ignore-placement",
	pTextAllowOverlap:         "text-allow-overlap",
	pTextOverlap:              "text-overlap",
	pTextRotationAlignment:    "text-rotation-alignment",
	pTextPitchAlignment:       "text-pitch-alignment",
	pTextTranslate:            "text-translate",
	pTextTranslateAnchor:      "text-translate-anchor",
	pTextColor:                "text-color",
	pTextOpacity:              "text-opacity",
	pTextHaloColor:            "text-halo-color",
	pTextHaloWidth:            "text-halo-width",
	pTextHaloBlur:             "text-halo-blur",
	pIconImage:                "icon-image",
	pIconSize:                 "icon-size",
	pIconOffset:               "icon-offset",
	pIconAnchor:               "icon-anchor",
	pIconRotate:               "icon-rotate",
	pIconPadding:              "icon-padding",
	pIconKeepUpright:          "icon-keep-upright",
	pIconOptional:             "icon-optional",
	pIconIgnorePlacement:      "icon-ignore-placement",
	pIconAllowOverlap:         "icon-allow-overlap",
	pIconOverlap:              "icon-overlap",
	pIconRotationAlignment:    "icon-rotation-alignment",
	pIconPitchAlignment:       "icon-pitch-alignment",
	pIconTranslate:            "icon-translate",
	pIconTranslateAnchor:      "icon-translate-anchor",
	pIconTextFit:              "icon-text-fit",
	pIconTextFitPadding:       "icon-text-fit-padding",
	pIconColor:                "icon-color",
	pIconOpacity:              "icon-opacity",
	pIconHaloColor:            "icon-halo-color",
	pIconHaloWidth:            "icon-halo-width",
	pIconHaloBlur:             "icon-halo-blur",
}

// symPart is the properties of the text or the icon of a symbol that
// the two parts share the form of ("text-opacity", "icon-opacity", ...).
type symPart struct {
	name                                           string // "text" or "icon"
	overlap, allowOverlap                          symProp
	rotationAlignment, pitchAlignment              symProp
	translate, translateAnchor                     symProp
	color, opacity, haloColor, haloWidth, haloBlur symProp
}

var (
	textPart = symPart{name: "text", overlap: pTextOverlap, allowOverlap: pTextAllowOverlap,
		rotationAlignment: pTextRotationAlignment, pitchAlignment: pTextPitchAlignment,
		translate: pTextTranslate, translateAnchor: pTextTranslateAnchor,
		color: pTextColor, opacity: pTextOpacity, haloColor: pTextHaloColor, haloWidth: pTextHaloWidth, haloBlur: pTextHaloBlur}
	iconPart = symPart{name: "icon", overlap: pIconOverlap, allowOverlap: pIconAllowOverlap,
		rotationAlignment: pIconRotationAlignment, pitchAlignment: pIconPitchAlignment,
		translate: pIconTranslate, translateAnchor: pIconTranslateAnchor,
		color: pIconColor, opacity: pIconOpacity, haloColor: pIconHaloColor, haloWidth: pIconHaloWidth, haloBlur: pIconHaloBlur}
)

// symLayer is a symbol layer's properties with the values that do not
// depend on the feature evaluated once per zoom: a layer evaluates some
// thirty properties for each of thousands of labels. It is used by one
// goroutine at a time.
type symLayer struct {
	*scene.Layer
	entries [numSymProps]propEntry
	shapes  shapeMemo
	// ctxs, shaped and syms hold the evaluation contexts, shaped symbols
	// and symbols of the layer's layout.
	ctxs   slab[expr.EvalContext]
	shaped slab[shapedSymbol]
	syms   slab[symbol]
	// rec notes what the layout being built reads from the glyphs and the
	// sprite (nil: none is recorded); hashes are the render's glyph
	// ranges' hashes, which kept layouts are checked against.
	rec    *layoutRecord
	hashes *glyphHashes
	// glyphs are the render's glyphs as the layer's layout has asked for
	// them; lookup adapts them to text.Shape (nil until first used).
	glyphs glyphMemo
	lookup text.Lookup
	// font is the font stack of text-font at fontZoom, when fontSet
	// (text-font does not depend on the feature; see fontStack).
	font     string
	fontZoom float64
	fontSet  bool
}

// newContext returns an evaluation context of the layer's layout at zoom
// for feature f.
func (lr *symLayer) newContext(zoom float64, f expr.Feature) *expr.EvalContext {
	c := lr.ctxs.new()
	c.Zoom, c.Feature = zoom, f
	return c
}

// propEntry is a property of a symbol layer, looked up on first use, with
// its values at the (at most three) zooms a render evaluates it at when it
// does not depend on the feature.
type propEntry struct {
	resolved  bool // the fields below are set
	e         *expr.Expression
	featConst bool
	tokenized bool // see tokenized
	set       bool // the style sets it in the layer's layout
	n         int
	consts    [3]constValue
}

// constValue is a feature-constant property's value at a zoom.
type constValue struct {
	zoom float64
	v    expr.Value
}

// entry returns the entry of a property, looking the property up on
// first use.
func (lr *symLayer) entry(p symProp) *propEntry {
	pe := &lr.entries[p]
	if !pe.resolved {
		lr.resolve(p, pe)
	}
	return pe
}

func (lr *symLayer) resolve(p symProp, pe *propEntry) {
	name := symPropNames[p]
	pe.resolved = true
	pe.e = lr.Props[name]
	if pe.e != nil {
		pe.featConst = pe.e.IsFeatureConstant()
	}
	pe.tokenized = tokenized(lr.Style, name)
	pe.set = lr.Style.Layout != nil && lr.Style.Layout.Has(name)
}

// tokenized reports whether a layout property is given as a plain value
// whose "{name}" tokens are resolved (see tokenized).
func (lr *symLayer) tokenized(p symProp) bool { return lr.entry(p).tokenized }

// hasLayout reports whether the style sets a layout property of the layer.
func (lr *symLayer) hasLayout(p symProp) bool { return lr.entry(p).set }

// prop returns the compiled property, or nil.
func (lr *symLayer) prop(p symProp) *expr.Expression { return lr.entry(p).e }

// at evaluates a property and returns its value, nil when the layer has
// none: the value kept for its zoom when it does not depend on the
// feature, else *tmp, set to the value.
func (lr *symLayer) at(p symProp, c *expr.EvalContext, tmp *expr.Value) *expr.Value {
	pe := lr.entry(p)
	if pe.e == nil {
		return nil
	}
	if !pe.featConst {
		*tmp = pe.e.EvalOrDefault(c)
		return tmp
	}
	for i := 0; i < pe.n; i++ {
		if pe.consts[i].zoom == c.Zoom {
			return &pe.consts[i].v
		}
	}
	*tmp = pe.e.EvalOrDefault(&expr.EvalContext{Zoom: c.Zoom})
	if pe.n < len(pe.consts) {
		pe.consts[pe.n] = constValue{zoom: c.Zoom, v: *tmp}
		pe.n++
	}
	return tmp
}

// value evaluates a property (ok false when the layer has none).
func (lr *symLayer) value(p symProp, c *expr.EvalContext) (expr.Value, bool) {
	var tmp expr.Value
	if v := lr.at(p, c, &tmp); v != nil {
		return *v, true
	}
	return expr.Value{}, false
}

func (lr *symLayer) num(p symProp, c *expr.EvalContext, def float64) float64 {
	var tmp expr.Value
	v := lr.at(p, c, &tmp)
	if v == nil || v.Kind() != expr.KindNumber {
		return def
	}
	return v.Num()
}

func (lr *symLayer) str(p symProp, c *expr.EvalContext, def string) string {
	var tmp expr.Value
	v := lr.at(p, c, &tmp)
	if v == nil || v.Kind() != expr.KindString {
		return def
	}
	return v.Str()
}

func (lr *symLayer) boolean(p symProp, c *expr.EvalContext, def bool) bool {
	var tmp expr.Value
	v := lr.at(p, c, &tmp)
	if v == nil || v.Kind() != expr.KindBoolean {
		return def
	}
	return v.Boolean()
}

func (lr *symLayer) color(p symProp, c *expr.EvalContext) (raster.Color, bool) {
	var tmp expr.Value
	v := lr.at(p, c, &tmp)
	if v == nil || v.Kind() != expr.KindColor {
		return raster.Color{}, false
	}
	col := v.Color()
	return raster.Color{R: col.R, G: col.G, B: col.B, A: col.A}, true
}

// iconsLinear reports whether the layer's icons are sampled linearly, as
// GL decides it for a layer: when icon-size is not the constant 1 or
// icon-rotate not the constant 0, even for the icons that are not turned.
func (lr *symLayer) iconsLinear() bool {
	constant := func(p symProp, want float64) bool {
		e := lr.prop(p)
		if e == nil {
			return true
		}
		v, ok := e.Constant()
		return ok && v.Kind() == expr.KindNumber && v.Num() == want
	}
	return !constant(pIconSize, 1) || !constant(pIconRotate, 0)
}

// textKey identifies the text of a label of one plain section (no image,
// no vertical-align) for shapeMemo.
type textKey struct {
	text  string
	scale float64
	tag   int
}

// shapeMemo remembers the shapings of one layer's layout in one render,
// where the glyph lookup does not change: many labels (house numbers,
// repeated names) have the same text and options. The shapings it returns
// share their glyphs, which no caller changes.
//
// The shapings are kept by options and font stack, then by text: a
// layer's labels mostly share their options and font stack, which are
// compared while they do, and hashed only when they change.
type shapeMemo struct {
	o     text.Options
	font  string
	texts map[textKey]text.Shaping // of options o and font stack font
	all   map[memoGroup]map[textKey]text.Shaping
}

// memoGroup is the options and font stack of a group of shapings.
type memoGroup struct {
	o    text.Options
	font string
}

// shape returns text.Shape(sections, lookup, o), shaping only the
// sections it has not seen with those options.
func (sm *shapeMemo) shape(sections []text.Section, lookup text.Lookup, o text.Options) text.Shaping {
	if len(sections) != 1 || sections[0].Image != nil || sections[0].VAlign != nil {
		return text.Shape(sections, lookup, o)
	}
	sec := &sections[0]
	if sm.texts == nil || o != sm.o || sec.FontStack != sm.font {
		if sm.all == nil {
			sm.all = map[memoGroup]map[textKey]text.Shaping{}
		}
		g := memoGroup{o, sec.FontStack}
		texts := sm.all[g]
		if texts == nil {
			texts = map[textKey]text.Shaping{}
			sm.all[g] = texts
		}
		sm.o, sm.font, sm.texts = o, sec.FontStack, texts
	}
	k := textKey{text: sec.Text, scale: sec.Scale, tag: sec.Tag}
	if sh, ok := sm.texts[k]; ok {
		return sh
	}
	sh := text.Shape(sections, lookup, o)
	sm.texts[k] = sh
	return sh
}

// slab hands out zeroed values of T carved from blocks, one allocation a
// block: a layer's layout makes a few small objects for each of thousands
// of labels, all of which live as long as the render.
type slab[T any] struct {
	block []T
	n     int // block[:n] are handed out
}

// slabBlock is the number of values a slab allocates at once.
const slabBlock = 64

// new returns a pointer to a zeroed T.
func (s *slab[T]) new() *T {
	if s.n == len(s.block) {
		s.block, s.n = make([]T, slabBlock), 0
	}
	p := &s.block[s.n]
	s.n++
	return p
}

// free takes back p, zeroed, to hand it out again when it is the last
// value new returned (else it is left alone). Nothing may use p after.
func (s *slab[T]) free(p *T) {
	if s.n > 0 && p == &s.block[s.n-1] {
		var zero T
		*p = zero
		s.n--
	}
}

// glyphMemo remembers the answers of a render's glyph set for one layer's
// layout: the set answers for a font stack and code point the same all
// render long, behind a lock and three lookups, one by the stack's name,
// for each glyph of thousands of labels. The memo keeps the code points of
// the stack last asked for at hand.
type glyphMemo struct {
	glyph  func(stack string, r rune) (*glyphs.Glyph, bool) // the set's answer
	stack  string
	runes  map[rune]*glyphs.Glyph // of stack; nil for a glyph it lacks
	stacks map[string]map[rune]*glyphs.Glyph
}

// get returns the glyph of r in a font stack, as glyph does.
func (gm *glyphMemo) get(stack string, r rune) (*glyphs.Glyph, bool) {
	if gm.runes == nil || stack != gm.stack {
		if gm.stacks == nil {
			gm.stacks = map[string]map[rune]*glyphs.Glyph{}
		}
		runes := gm.stacks[stack]
		if runes == nil {
			runes = map[rune]*glyphs.Glyph{}
			gm.stacks[stack] = runes
		}
		gm.stack, gm.runes = stack, runes
	}
	gl, seen := gm.runes[r]
	if !seen {
		var ok bool
		if gl, ok = gm.glyph(stack, r); !ok {
			gl = nil
		}
		gm.runes[r] = gl
	}
	return gl, gl != nil
}

// layerGlyph returns the glyph of r in a font stack for the layer's
// layout (see glyphMemo).
func (lr *symLayer) layerGlyph(ctx context.Context, gs *sources.Glyphs, stack string, r rune) (*glyphs.Glyph, bool) {
	if lr.glyphs.glyph == nil {
		lr.glyphs.glyph = func(stack string, r rune) (*glyphs.Glyph, bool) { return gs.Glyph(ctx, stack, r) }
	}
	return lr.glyphs.get(stack, r)
}

// shapeLookup returns the layer's glyph lookup for text.Shape.
func (lr *symLayer) shapeLookup(ctx context.Context, gs *sources.Glyphs) text.Lookup {
	if lr.lookup == nil {
		lr.lookup = func(stack string, r rune) (text.Metrics, bool) {
			if lr.rec != nil {
				lr.rec.glyph(stack, r)
			}
			gl, ok := lr.layerGlyph(ctx, gs, stack, r)
			if !ok {
				return text.Metrics{}, false
			}
			return text.Metrics{Width: int(gl.Width), Height: int(gl.Height), Left: int(gl.Left), Top: int(gl.Top), Advance: float64(gl.Advance)}, true
		}
	}
	return lr.lookup
}
