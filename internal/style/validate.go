package style

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// MaxValidationErrors bounds the errors Validate reports for one style.
const MaxValidationErrors = 10000

// ValidationError is one violation of the style specification. Path is the
// JSON path of the offending value as the reference validator writes it
// ("layers[3].paint.fill-color"; empty for the document itself; a few checks
// of the reference name a bare property, such as "exaggeration" inside
// "terrain", and this package does the same).
type ValidationError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error returns "path: message", or the message alone when the path is empty.
func (e ValidationError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Validate checks s against the specification (DefaultSpec when spec is
// nil) and returns the errors found, in document order. A nil result means
// the style is valid. The checks and messages follow gl-style-validate of
// @maplibre/maplibre-gl-style-spec; expressions are type-checked by
// internal/style/expr.
func Validate(s *Style, spec *Spec) []ValidationError {
	if spec == nil {
		spec = DefaultSpec()
	}
	if s == nil || s.doc == nil {
		return []ValidationError{{Message: "object expected, null found"}}
	}
	v := &validator{sp: spec, doc: s.doc}
	v.object("", s.doc, spec.entry("$root"), map[string]elemFunc{
		"glyphs": v.glyphsURL,
		"*":      noop,
	})
	if c, ok := s.doc.Get("constants"); truthy(c, ok) {
		v.errorf("constants", "constants have been deprecated as of v8")
	}
	return v.errs
}

type elemFunc func(key string, val any, spec *Object)

func noop(string, any, *Object) {}

// exprCtx tells where an expression sits, as the reference validator's
// expressionContext does.
type exprCtx struct {
	kind         string // "property", "filter", "cluster-map", "cluster-reduce" or ""
	propertyType string // "layout" or "paint"
	propertyKey  string
}

type validator struct {
	sp    *Spec
	doc   *Object
	errs  []ValidationError
	index int // index of the array element being validated (for layers)

	// Layer ids: the indexes of the layers with each id (keyed by idKey),
	// built once so that duplicate and ref checks stay linear.
	layers []any
	byID   map[string][]int
}

// idKey keys a layer id by JavaScript strict equality: only primitive ids
// can equal one another.
func idKey(id any) string {
	switch id.(type) {
	case string, bool, json.Number, float64:
		return jsType(id) + ":" + jsString(id)
	}
	return ""
}

func (v *validator) indexLayers() {
	if v.byID != nil {
		return
	}
	v.layers, _ = get(v.doc, "layers").([]any)
	v.byID = map[string][]int{}
	for i, l := range v.layers {
		lo, _ := l.(*Object)
		id, ok := lo.Get("id")
		if !ok {
			continue
		}
		k := idKey(id)
		if k == "" {
			continue
		}
		v.byID[k] = append(v.byID[k], i)
	}
}

func (v *validator) errorf(key, format string, args ...any) {
	if len(v.errs) >= MaxValidationErrors {
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	v.errs = append(v.errs, ValidationError{Path: key, Message: msg})
}

func childKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

func specStr(o *Object, k string) string { return strAt(o, k) }

// isExpression reports whether val is an expression: a non-empty array whose
// first element names an operator.
func (v *validator) isExpression(val any) bool {
	a, ok := val.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	op, ok := a[0].(string)
	return ok && v.sp.exprOps[op]
}

// value is the generic, spec-driven validation of one value.
func (v *validator) value(key string, val any, vs *Object, ctx *exprCtx) {
	if len(v.errs) >= MaxValidationErrors {
		return
	}
	if vs.Has("expression") {
		if o, ok := val.(*Object); ok {
			v.function(key, o, vs)
			return
		}
		if v.isExpression(val) {
			v.expression(key, val, vs, ctx)
			return
		}
	}
	t := specStr(vs, "type")
	switch t {
	case "*":
	case "array":
		v.array(key, val, vs, nil)
	case "boolean":
		v.typed(key, val, "boolean")
	case "string":
		v.typed(key, val, "string")
	case "number":
		v.number(key, val, vs)
	case "color":
		v.color(key, val)
	case "enum":
		v.enum(key, val, vs)
	case "filter":
		v.filter(key, val)
	case "layer":
		v.layer(key, val, v.index)
	case "object":
		v.object(key, val, vs, nil)
	case "source":
		v.source(key, val)
	case "light":
		v.bareObject("light", val, v.sp.entry("light"), true)
	case "sky":
		v.bareObject("sky", val, v.sp.entry("sky"), false)
	case "terrain":
		v.bareObject("terrain", val, v.sp.entry("terrain"), false)
	case "projection":
		v.bareObject("projection", val, v.sp.entry("projection"), false)
	case "projectionDefinition":
		v.projectionDefinition(key, val)
	case "formatted", "resolvedImage":
		if _, ok := val.(string); ok {
			return
		}
		v.expression(key, val, vs, ctx)
	case "padding":
		v.padding(key, val)
	case "numberArray":
		v.numberArray(key, val)
	case "colorArray":
		v.colorArray(key, val)
	case "variableAnchorOffsetCollection":
		v.vaoc(key, val)
	case "sprite":
		v.sprite(key, val)
	case "state":
		if _, ok := val.(*Object); !ok {
			v.errorf(key, "object expected, %s found", jsType(val))
		}
	case "fontFaces":
		v.fontFaces(key, val)
	case "function":
		if o, ok := val.(*Object); ok {
			v.function(key, o, vs)
		}
	case "":
		v.object(key, val, vs, nil)
	default:
		v.object(key, val, v.sp.entry(t), nil)
	}
}

// object validates the members of an object against element specs, with
// optional per-member validators ("*" for all unknown members).
func (v *validator) object(key string, val any, specs *Object, fns map[string]elemFunc) {
	o, ok := val.(*Object)
	if !ok {
		v.errorf(key, "object expected, %s found", jsType(val))
		return
	}
	for _, k := range o.keys {
		sk, _, _ := strings.Cut(k, ".")
		elem, hasElem := get(specs, sk).(*Object)
		if !hasElem {
			elem, _ = get(specs, "*").(*Object)
		}
		ck := childKey(key, k)
		switch {
		case fns[sk] != nil:
			fns[sk](ck, o.vals[k], elem)
		case hasElem:
			v.value(ck, o.vals[k], elem, nil)
		case fns["*"] != nil:
			fns["*"](ck, o.vals[k], elem)
		case specs.Has("*"):
			v.value(ck, o.vals[k], elem, nil)
		default:
			v.errorf(key, "unknown property %q", k)
		}
	}
	for _, sk := range specs.Keys() {
		if fns[sk] != nil {
			continue
		}
		es, ok := get(specs, sk).(*Object)
		if !ok {
			continue
		}
		if r, ok := es.Get("required"); truthy(r, ok) && !es.Has("default") && !o.Has(sk) {
			v.errorf(key, "missing required property %q", sk)
		}
	}
}

// bareObject validates light, sky, terrain and projection, whose members the
// reference reports by their bare names.
func (v *validator) bareObject(name string, val any, spec *Object, transitions bool) {
	o, ok := val.(*Object)
	if !ok {
		v.errorf(name, "object expected, %s found", jsType(val))
		return
	}
	for _, k := range o.keys {
		if transitions && strings.HasSuffix(k, "-transition") {
			if ps, ok := get(spec, strings.TrimSuffix(k, "-transition")).(*Object); ok {
				if t, ok := ps.Get("transition"); truthy(t, ok) {
					v.value(k, o.vals[k], v.sp.entry("transition"), nil)
					continue
				}
			}
		}
		if ps, ok := get(spec, k).(*Object); ok {
			v.value(k, o.vals[k], ps, nil)
			continue
		}
		v.errorf(k, "unknown property %q", k)
	}
}

func (v *validator) typed(key string, val any, want string) {
	if t := jsType(val); t != want {
		v.errorf(key, "%s expected, %s found", want, t)
	}
}

func (v *validator) array(key string, val any, vs *Object, elem func(key string, val any, spec *Object)) {
	a, ok := val.([]any)
	if !ok {
		v.errorf(key, "array expected, %s found", jsType(val))
		return
	}
	if n, ok := numAt(vs, "length"); ok && n != 0 && float64(len(a)) != n {
		v.errorf(key, "array length %s expected, length %d found", jsNumber(n), len(a))
		return
	}
	es, ok := get(vs, "value").(*Object)
	if !ok {
		es = NewObject()
		if t, ok := vs.Get("value"); ok {
			es.Set("type", t)
		}
		if vals, ok := vs.Get("values"); ok {
			es.Set("values", vals)
		}
	}
	for i, e := range a {
		k := fmt.Sprintf("%s[%d]", key, i)
		if elem != nil {
			elem(k, e, es)
			continue
		}
		saved := v.index
		v.index = i
		v.value(k, e, es, nil)
		v.index = saved
	}
}

func (v *validator) number(key string, val any, vs *Object) {
	f, ok := num(val)
	if !ok {
		v.errorf(key, "number expected, %s found", jsType(val))
		return
	}
	if m, ok := numAt(vs, "minimum"); ok && f < m {
		v.errorf(key, "%s is less than the minimum value %s", jsNumber(f), jsNumber(m))
		return
	}
	if m, ok := numAt(vs, "maximum"); ok && f > m {
		v.errorf(key, "%s is greater than the maximum value %s", jsNumber(f), jsNumber(m))
	}
}

func (v *validator) color(key string, val any) {
	s, ok := val.(string)
	if !ok {
		v.errorf(key, "color expected, %s found", jsType(val))
		return
	}
	if _, ok := parseColor(s); !ok {
		v.errorf(key, "color expected, %q found", s)
	}
}

// parseColor parses a CSS color string as GL renderers accept it.
func parseColor(s string) (expr.Color, bool) {
	defer func() { _ = recover() }()
	return expr.ParseColor(s)
}

// enumValues lists the allowed values of an enum spec: an array of values or
// the keys of an object.
func enumValues(vs *Object) ([]any, []string) {
	switch t := get(vs, "values").(type) {
	case []any:
		names := make([]string, len(t))
		for i, e := range t {
			names[i] = jsString(e)
		}
		return t, names
	case *Object:
		vals := make([]any, len(t.keys))
		for i, k := range t.keys {
			vals[i] = k
		}
		return vals, t.Keys()
	}
	return nil, nil
}

func (v *validator) enum(key string, val any, vs *Object) {
	vals, names := enumValues(vs)
	for _, e := range vals {
		if strictEqual(e, val) {
			return
		}
	}
	v.errorf(key, "expected one of [%s], %s found", strings.Join(names, ", "), stringify(val))
}

// strictEqual is JavaScript's === on primitive values.
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number, float64:
		if jsType(b) != "number" {
			return false
		}
		fx, _ := num(x)
		fy, _ := num(b)
		return fx == fy
	case nil:
		return b == nil
	}
	return false
}

func (v *validator) glyphsURL(key string, val any, _ *Object) {
	s, ok := val.(string)
	if !ok {
		v.errorf(key, "string expected, %s found", jsType(val))
		return
	}
	if !strings.Contains(s, "{fontstack}") {
		v.errorf(key, `"glyphs" url must include a "{fontstack}" token`)
	}
	if !strings.Contains(s, "{range}") {
		v.errorf(key, `"glyphs" url must include a "{range}" token`)
	}
}

func (v *validator) sprite(key string, val any) {
	a, ok := val.([]any)
	if !ok {
		v.typed(key, val, "string")
		return
	}
	pair := NewObject()
	for _, name := range []string{"id", "url"} {
		p := NewObject()
		p.Set("type", "string")
		p.Set("required", true)
		pair.Set(name, p)
	}
	var ids, urls []any
	for i, e := range a {
		o, _ := e.(*Object)
		id, hasID := o.Get("id")
		if truthy(id, hasID) && containsStrict(ids, id) {
			v.errorf(key, "all the sprites' ids must be unique, but %s is duplicated", jsString(id))
		}
		ids = append(ids, id)
		u, hasURL := o.Get("url")
		if truthy(u, hasURL) && containsStrict(urls, u) {
			v.errorf(key, "all the sprites' URLs must be unique, but %s is duplicated", jsString(u))
		}
		urls = append(urls, u)
		v.object(fmt.Sprintf("%s[%d]", key, i), e, pair, nil)
	}
}

func containsStrict(list []any, x any) bool {
	for _, e := range list {
		if strictEqual(e, x) {
			return true
		}
	}
	return false
}

func (v *validator) padding(key string, val any) {
	a, ok := val.([]any)
	if !ok {
		v.typed(key, val, "number")
		return
	}
	if len(a) < 1 || len(a) > 4 {
		v.errorf(key, "padding requires 1 to 4 values; %d values found", len(a))
		return
	}
	for i, e := range a {
		v.typed(fmt.Sprintf("%s[%d]", key, i), e, "number")
	}
}

func (v *validator) numberArray(key string, val any) {
	a, ok := val.([]any)
	if !ok {
		v.typed(key, val, "number")
		return
	}
	if len(a) < 1 {
		v.errorf(key, "array length at least 1 expected, length 0 found")
		return
	}
	for i, e := range a {
		v.typed(fmt.Sprintf("%s[%d]", key, i), e, "number")
	}
}

func (v *validator) colorArray(key string, val any) {
	a, ok := val.([]any)
	if !ok {
		v.color(key, val)
		return
	}
	if len(a) < 1 {
		v.errorf(key, "array length at least 1 expected, length 0 found")
		return
	}
	for i, e := range a {
		v.color(fmt.Sprintf("%s[%d]", key, i), e)
	}
}

func (v *validator) vaoc(key string, val any) {
	a, ok := val.([]any)
	if !ok || len(a) < 1 || len(a)%2 != 0 {
		v.errorf(key, "variableAnchorOffsetCollection requires a non-empty array of even length")
		return
	}
	anchor, _ := get(v.sp.entry("layout_symbol"), "text-anchor").(*Object)
	pairSpec := NewObject()
	pairSpec.Set("length", json.Number("2"))
	pairSpec.Set("value", "number")
	for i := 0; i < len(a); i += 2 {
		v.enum(fmt.Sprintf("%s[%d]", key, i), a[i], anchor)
		v.array(fmt.Sprintf("%s[%d]", key, i+1), a[i+1], pairSpec, nil)
	}
}

func (v *validator) projectionDefinition(key string, val any) {
	switch t := val.(type) {
	case string:
	case []any:
		isDef := len(t) == 3 && jsType(t[0]) == "string" && jsType(t[1]) == "string" && jsType(t[2]) == "number"
		isPV := false
		if len(t) > 0 {
			if op, ok := t[0].(string); ok && (op == "interpolate" || op == "step" || op == "literal") {
				isPV = true
			}
		}
		if !isDef && !isPV {
			v.errorf(key, "projection expected, invalid array %s found", stringify(val))
		}
	default:
		v.errorf(key, "projection expected, invalid type %q found", jsType(val))
	}
}

func (v *validator) fontFaces(key string, val any) {
	o, ok := val.(*Object)
	if !ok {
		v.errorf(key, "object expected, %s found", jsType(val))
		return
	}
	faceSpec := NewObject()
	urlSpec := NewObject()
	urlSpec.Set("type", "string")
	urlSpec.Set("required", true)
	faceSpec.Set("url", urlSpec)
	rangeSpec := NewObject()
	rangeSpec.Set("type", "array")
	rangeSpec.Set("value", "string")
	faceSpec.Set("unicode-range", rangeSpec)
	for _, name := range o.keys {
		fk := key + "." + name
		switch fv := o.vals[name].(type) {
		case string:
		case []any:
			for i, face := range fv {
				k := fmt.Sprintf("%s[%d]", fk, i)
				v.object(k, face, faceSpec, nil)
			}
		default:
			v.errorf(fk, "string or array expected, %s found", jsType(fv))
		}
	}
}

// source validates one entry of "sources".
func (v *validator) source(key string, val any) {
	o, _ := val.(*Object)
	t, hasType := o.Get("type")
	if !truthy(t, hasType) {
		v.errorf(key, `"type" is required`)
		return
	}
	promote := map[string]elemFunc{"promoteId": v.promoteID}
	typ, _ := t.(string)
	switch typ {
	case "vector", "raster":
		v.object(key, o, v.sp.entry("source_"+typ), promote)
	case "raster-dem":
		v.rasterDEM(key, o)
	case "geojson":
		v.object(key, o, v.sp.entry("source_geojson"), promote)
		if c, ok := o.Get("cluster"); truthy(c, ok) {
			props, _ := get(o, "clusterProperties").(*Object)
			for _, p := range props.Keys() {
				pair, _ := props.vals[p].([]any)
				var op, mapExpr any
				if len(pair) > 0 {
					op = pair[0]
				}
				if len(pair) > 1 {
					mapExpr = pair[1]
				}
				reduce := op
				if s, ok := op.(string); ok {
					reduce = []any{s, []any{"accumulated"}, []any{"get", p}}
				}
				v.expression(key+"."+p+".map", mapExpr, nil, &exprCtx{kind: "cluster-map"})
				v.expression(key+"."+p+".reduce", reduce, nil, &exprCtx{kind: "cluster-reduce"})
			}
		}
	case "video", "image":
		v.object(key, o, v.sp.entry("source_"+typ), nil)
	case "canvas":
		v.errorf(key, "Please use runtime APIs to add canvas sources, rather than including them in stylesheets.")
	default:
		es := NewObject()
		es.Set("values", []any{"vector", "raster", "raster-dem", "geojson", "video", "image"})
		v.enum(key+".type", t, es)
	}
}

func (v *validator) promoteID(key string, val any, _ *Object) {
	switch t := val.(type) {
	case string:
	case *Object:
		for _, k := range t.keys {
			v.typed(key+"."+k, t.vals[k], "string")
		}
	case []any:
		for i, e := range t {
			v.typed(fmt.Sprintf("%s.%d", key, i), e, "string")
		}
	}
}

func (v *validator) rasterDEM(name string, o *Object) {
	spec := v.sp.entry("source_raster_dem")
	enc := get(o, "encoding")
	custom := enc == "custom"
	encName := "Default"
	if e, ok := o.Get("encoding"); truthy(e, ok) {
		encName = `"` + jsString(e) + `"`
	}
	for _, k := range o.keys {
		switch {
		case !custom && (k == "redFactor" || k == "greenFactor" || k == "blueFactor" || k == "baseShift"):
			v.errorf(k, `In "%s": "%s" is only valid when "encoding" is set to "custom". %s encoding found`, name, k, encName)
		case spec.Has(k):
			ps, _ := get(spec, k).(*Object)
			v.value(k, o.vals[k], ps, nil)
		default:
			v.errorf(k, "unknown property %q", k)
		}
	}
}

// layer validates one entry of "layers"; index is its position.
func (v *validator) layer(key string, val any, index int) {
	o, ok := val.(*Object)
	if !ok {
		v.errorf(key, "object expected, %s found", jsType(val))
		return
	}
	typeV, hasType := o.Get("type")
	refV, hasRef := o.Get("ref")
	if !truthy(typeV, hasType) && !truthy(refV, hasRef) {
		v.errorf(key, `either "type" or "ref" is required`)
	}
	layerType := typeV
	v.indexLayers()
	if id, ok := o.Get("id"); truthy(id, ok) {
		for _, prev := range v.byID[idKey(id)] {
			if prev >= index || len(v.errs) >= MaxValidationErrors {
				break
			}
			v.errorf(key, "duplicate layer id %q, previously used at layers[%d]", jsString(id), prev)
		}
	}
	idStr := "undefined"
	if id, ok := o.Get("id"); ok {
		idStr = jsString(id)
	}
	if hasRef {
		for _, p := range []string{"type", "source", "source-layer", "filter", "layout"} {
			if o.Has(p) {
				v.errorf(key, "%q is prohibited for ref layers", p)
			}
		}
		var parent *Object
		if idx := v.byID[idKey(refV)]; len(idx) > 0 {
			parent, _ = v.layers[idx[len(idx)-1]].(*Object)
		}
		switch {
		case parent == nil:
			v.errorf(key, "ref layer %q not found", jsString(refV))
		case truthy(parent.Get("ref")):
			v.errorf(key, "ref cannot reference another ref layer")
		default:
			layerType = get(parent, "type")
		}
	} else if layerType != "background" {
		srcV, hasSrc := o.Get("source")
		if !truthy(srcV, hasSrc) {
			v.errorf(key, `missing required property "source"`)
		} else {
			sources, _ := get(v.doc, "sources").(*Object)
			srcAny, found := sources.Get(jsString(srcV))
			src, _ := srcAny.(*Object)
			var srcType any
			if src != nil {
				srcType = get(src, "type")
			}
			paint, _ := get(o, "paint").(*Object)
			switch {
			case !truthy(srcAny, found):
				v.errorf(key, "source %q not found", jsString(srcV))
			case srcType == "vector" && layerType == "raster":
				v.errorf(key, "layer %q requires a raster source", idStr)
			case srcType != "raster-dem" && layerType == "hillshade":
				v.errorf(key, "layer %q requires a raster-dem source", idStr)
			case srcType != "raster-dem" && layerType == "color-relief":
				v.errorf(key, "layer %q requires a raster-dem source", idStr)
			case srcType == "raster" && layerType != "raster":
				v.errorf(key, "layer %q requires a vector source", idStr)
			case srcType == "vector" && !truthy(o.Get("source-layer")):
				v.errorf(key, `layer %q must specify a "source-layer"`, idStr)
			case srcType == "raster-dem" && layerType != "hillshade" && layerType != "color-relief":
				v.errorf(key, "raster-dem source can only be used with layer type 'hillshade' or 'color-relief'.")
			case layerType == "line" && paint != nil && truthy(paint.Get("line-gradient")) &&
				(srcType != "geojson" || !truthy(src.Get("lineMetrics"))):
				v.errorf(key, "layer %q specifies a line-gradient, which requires a GeoJSON source with `lineMetrics` enabled.", idStr)
			}
		}
	}
	if layerType == "raster" {
		if paint, ok := get(o, "paint").(*Object); ok && truthy(paint.Get("resampling")) && truthy(paint.Get("raster-resampling")) {
			v.errorf(key, `layer %q redundantly specifies "resampling" and "raster-resampling" paint properties, but only one is allowed. It is advised to use "resampling".`, idStr)
		}
	}
	layerSpec := v.sp.entry("layer")
	props := func(kind string) elemFunc {
		return func(k string, val any, _ *Object) {
			v.object(k, val, nil, map[string]elemFunc{
				"*": func(pk string, pv any, _ *Object) {
					v.property(kind, layerType, pk, pv)
				},
			})
		}
	}
	v.object(key, o, layerSpec, map[string]elemFunc{
		"*": noop,
		"type": func(k string, val any, _ *Object) {
			ts, _ := get(layerSpec, "type").(*Object)
			v.value(k, val, ts, nil)
		},
		"filter": func(k string, val any, _ *Object) { v.filter(k, val) },
		"layout": props("layout"),
		"paint":  props("paint"),
	})
}

var tokenRE = regexp.MustCompile(`^{([^}]+)}$`)

// property validates one layout or paint property of a layer.
func (v *validator) property(kind string, layerType any, key string, val any) {
	lt, ok := layerType.(string)
	if !ok {
		return
	}
	layerSpec := v.sp.entry(kind + "_" + lt)
	if layerSpec == nil {
		return
	}
	propKey := key[strings.LastIndex(key, ".")+1:]
	if i := strings.Index(key, "."+kind+"."); i >= 0 {
		propKey = key[i+len(kind)+2:]
	}
	if kind == "paint" && strings.HasSuffix(propKey, "-transition") {
		if ps, ok := get(layerSpec, strings.TrimSuffix(propKey, "-transition")).(*Object); ok {
			if t, ok := ps.Get("transition"); truthy(t, ok) {
				v.value(key, val, v.sp.entry("transition"), nil)
				return
			}
		}
	}
	ps, ok := get(layerSpec, propKey).(*Object)
	if !ok {
		v.errorf(key, "unknown property %q", propKey)
		return
	}
	if s, ok := val.(string); ok && supportsPropertyExpression(ps) && !truthy(ps.Get("tokens")) {
		if m := tokenRE.FindStringSubmatch(s); m != nil {
			q, _ := json.Marshal(m[1])
			v.errorf(key, "%q does not support interpolation syntax\nUse an identity property function instead: `{ \"type\": \"identity\", \"property\": %s }`.", propKey, q)
			return
		}
	}
	if lt == "symbol" && propKey == "text-font" {
		if f, ok := val.(*Object); ok && get(f, "type") == "identity" {
			v.errorf(key, `"text-font" does not support identity functions`)
		}
	}
	v.value(key, val, ps, &exprCtx{kind: "property", propertyType: kind, propertyKey: propKey})
}

func supportsPropertyExpression(ps *Object) bool {
	pt := specStr(ps, "property-type")
	return pt == "data-driven" || pt == "cross-faded-data-driven"
}

func supportsZoomExpression(ps *Object) bool {
	e, ok := get(ps, "expression").(*Object)
	if !ok {
		return false
	}
	params, _ := get(e, "parameters").([]any)
	for _, p := range params {
		if p == "zoom" {
			return true
		}
	}
	return false
}

func supportsInterpolation(ps *Object) bool {
	e, ok := get(ps, "expression").(*Object)
	return ok && truthy(e.Get("interpolated"))
}

// function validates a legacy function object ({type, property, base,
// stops, default, colorSpace}) of the value spec valueSpec; see
// legacyFunction for the rules.
func (v *validator) function(key string, o *Object, valueSpec *Object) {
	fn := newLegacyFunction(o)
	stops := stopRules{v: v, fn: fn, valueSpec: valueSpec}
	v.object(key, o, v.sp.entry("function"), map[string]elemFunc{
		"stops": func(k string, val any, es *Object) {
			if fn.typ == "identity" {
				v.errorf(k, `identity function may not have a "stops" property`)
				return
			}
			v.array(k, val, es, stops.stop)
			if a, ok := val.([]any); ok && len(a) == 0 {
				v.errorf(k, "array must have at least one stop")
			}
		},
		"default": func(k string, val any, _ *Object) { v.value(k, val, valueSpec, nil) },
	})
	for _, rule := range fn.wholeRules(v.sp.version, valueSpec) {
		if rule.broken {
			v.errorf(key, "%s", rule.msg)
		}
	}
}

// legacyFunction is what the rules need to know of a legacy function.
// The style specification's function section defines its kinds: a zoom
// function (no "property"; its stop inputs are zooms), a property function
// (a "property" or the categorical type; inputs are property values), and
// a composite one (a property function whose stop inputs are {zoom,
// value} objects).
type legacyFunction struct {
	obj         *Object
	typ         any // "identity", "exponential", "interval", "categorical" or absent
	hasProperty bool
	byZoom      bool // a zoom function
	composite   bool // stop inputs are {zoom, value}
}

func newLegacyFunction(o *Object) legacyFunction {
	fn := legacyFunction{obj: o, typ: get(o, "type"), hasProperty: o.Has("property")}
	fn.byZoom = fn.typ != "categorical" && !fn.hasProperty
	if stops, _ := get(o, "stops").([]any); len(stops) > 0 {
		if first, ok := stops[0].([]any); ok && len(first) > 0 {
			_, fn.composite = first[0].(*Object)
		}
	}
	return fn
}

// functionRule is one rule about a function as a whole.
type functionRule struct {
	broken bool
	msg    string
}

// wholeRules are the rules checked after the members: what each type
// requires, and whether the property the function sets accepts it.
func (fn legacyFunction) wholeRules(specVersion int, valueSpec *Object) []functionRule {
	stops, stopsPresent := fn.obj.Get("stops")
	rules := []functionRule{
		{fn.typ == "identity" && fn.byZoom, `missing required property "property"`},
		{fn.typ != "identity" && !truthy(stops, stopsPresent), `missing required property "stops"`},
		{fn.typ == "exponential" && valueSpec.Has("expression") && !supportsInterpolation(valueSpec), "exponential functions not supported"},
	}
	if specVersion >= 8 {
		switch {
		case !fn.byZoom && !supportsPropertyExpression(valueSpec):
			rules = append(rules, functionRule{true, "property functions not supported"})
		case fn.byZoom && !supportsZoomExpression(valueSpec):
			rules = append(rules, functionRule{true, "zoom functions not supported"})
		}
	}
	rules = append(rules, functionRule{(fn.typ == "categorical" || fn.composite) && !fn.hasProperty, `"property" property is required`})
	return rules
}

// stopRules checks the stops of one function in order. Stop inputs must
// all have one type; numeric inputs of non-categorical functions ascend;
// categorical inputs are unique integers, strings or booleans. In a
// composite function these run per zoom level: each new zoom starts afresh.
type stopRules struct {
	v         *validator
	fn        legacyFunction
	valueSpec *Object

	inputType string          // the type of the first input seen
	lastInput *float64        // the last numeric input
	seen      map[string]bool // categorical inputs seen
	lastZoom  *float64        // composite: the zoom of the current level
}

// stop checks one [input, output] stop.
func (r *stopRules) stop(k string, val any, _ *Object) {
	v := r.v
	pair, ok := val.([]any)
	if !ok {
		v.errorf(k, "array expected, %s found", jsType(val))
		return
	}
	if len(pair) != 2 {
		v.errorf(k, "array length 2 expected, length %d found", len(pair))
		return
	}
	if r.fn.composite {
		if !r.compositeInput(k, pair[0]) {
			return
		}
	} else {
		r.input(k+"[0]", pair[0])
	}
	if v.isExpression(pair[1]) {
		v.errorf(k+"[1]", "expressions are not allowed in function stops.")
		return
	}
	v.value(k+"[1]", pair[1], r.valueSpec, nil)
}

// compositeInput checks a {zoom, value} stop input; false stops the
// checks of this stop.
func (r *stopRules) compositeInput(k string, in any) bool {
	v := r.v
	obj, ok := in.(*Object)
	if !ok {
		v.errorf(k, "object expected, %s found", jsType(in))
		return false
	}
	zoom, hasZoom := obj.Get("zoom")
	switch {
	case !hasZoom:
		v.errorf(k, "object stop key must have zoom")
		return false
	case !obj.Has("value"):
		v.errorf(k, "object stop key must have value")
		return false
	}
	z, numeric := num(zoom)
	// A zoom lower than the level before is out of order (a level at zoom
	// 0 orders nothing, as in the reference validator).
	if numeric && r.lastZoom != nil && *r.lastZoom != 0 && *r.lastZoom > z {
		v.errorf(k, "stop zoom values must appear in ascending order")
		return false
	}
	if !numeric || r.lastZoom == nil || z != *r.lastZoom {
		r.lastZoom = nil
		if numeric {
			r.lastZoom = &z
		}
		r.lastInput, r.seen = nil, nil // a new zoom level starts afresh
	}
	members := NewObject()
	members.Set("zoom", NewObject())
	v.object(k+"[0]", obj, members, map[string]elemFunc{
		"zoom":  func(zk string, zv any, _ *Object) { v.number(zk, zv, NewObject()) },
		"value": func(vk string, vv any, _ *Object) { r.input(vk, vv) },
	})
	return true
}

// input checks one stop input (a zoom, or a property value).
func (r *stopRules) input(k string, in any) {
	v := r.v
	typ := jsType(in)
	if r.inputType == "" {
		r.inputType = typ
	} else if typ != r.inputType {
		v.errorf(k, "%s stop domain type must match previous stop domain type %s", typ, r.inputType)
		return
	}
	categorical := r.fn.typ == "categorical"
	switch {
	case typ != "number" && typ != "string" && typ != "boolean":
		v.errorf(k, "stop domain value must be a number, string, or boolean")
		return
	case typ != "number" && !categorical:
		msg := fmt.Sprintf("number expected, %s found", typ)
		if supportsPropertyExpression(r.valueSpec) && !r.fn.obj.Has("type") {
			msg += "\nIf you intended to use a categorical function, specify `\"type\": \"categorical\"`."
		}
		v.errorf(k, "%s", msg)
		return
	}
	f, _ := num(in)
	if typ == "number" {
		if categorical && (math.IsInf(f, 0) || math.IsNaN(f) || math.Floor(f) != f) {
			v.errorf(k, "integer expected, found %s", jsNumber(f))
			return
		}
		if !categorical && r.lastInput != nil && f < *r.lastInput {
			v.errorf(k, "stop domain values must appear in ascending order")
			return
		}
		r.lastInput = &f
	}
	if categorical {
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		id := jsString(in)
		if r.seen[id] {
			v.errorf(k, "stop domain values must be unique")
			return
		}
		r.seen[id] = true
	}
}
