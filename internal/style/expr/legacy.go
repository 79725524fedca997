package expr

import (
	"errors"
	"fmt"
	"strings"
)

// Legacy functions are the style specification's older way of making a
// property depend on zoom or on a feature property: an object with "stops"
// ([[input, output], ...]), "property", "base", "type" (identity,
// exponential, interval, categorical), "colorSpace" and "default". Each is
// rewritten here as the expression that means the same:
//
//	zoom function                  ["interpolate", curve, ["zoom"], z, out, ...]
//	                               or ["step", ["zoom"], out0, z1, out1, ...]
//	property function, numeric     the same over ["number", ["get", p]]
//	property function, categorical ["match", ["get", p], in, out, ..., fallback]
//	                               (["case", ["==", ...], out, ..., fallback] when
//	                               the inputs are not all strings or all integers)
//	identity function              ["get", p] under the assertion or coercion of
//	                               the property's type, the fallback as its last
//	                               argument where that is allowed
//	zoom-and-property function     a zoom curve whose outputs are property
//	                               curves, one per zoom level of the stops
//
// The fallback is the function's "default", else the property's default; a
// numeric property function with a fallback tests first that the value is a
// number. Without one, a missing or mistyped value is an evaluation error,
// which the renderer answers with the property's default.
//
// The shapes follow what the specification's expression conformance
// fixtures show (test/integration/expression/tests/legacy in
// maplibre-style-spec), including the error positions they expect.

// legacyKind is the "type" of a legacy function.
type legacyKind int

const (
	kindExponential legacyKind = iota
	kindInterval
	kindCategorical
	kindIdentity
)

// legacyFunc is a legacy function object, read and checked.
type legacyFunc struct {
	kind     legacyKind
	property string // "" for a zoom function
	base     float64
	space    string // "rgb", "lab" or "hcl"
	// fallback is the default ("default", else the property's), and
	// hasFallback whether there is one.
	fallback    any
	hasFallback bool
	spec        *PropertySpec
	// pairs are the stops in order, with duplicate inputs after the first
	// dropped. For a zoom-and-property function, levels holds them grouped
	// by zoom instead.
	pairs  []legacyPair
	levels []zoomLevel
}

type legacyPair struct{ in, out any }

// zoomLevel is the stops of a zoom-and-property function at one zoom.
type zoomLevel struct {
	zoom  float64
	pairs []legacyPair
}

// convertFunction rewrites a legacy function object as an expression for
// the property spec (which may be nil).
func convertFunction(obj *jobj, spec *PropertySpec) (any, error) {
	f, err := readLegacyFunc(obj, spec)
	if err != nil {
		return nil, err
	}
	switch {
	case f.kind == kindIdentity:
		return f.identity(), nil
	case f.levels != nil:
		return f.zoomAndProperty()
	case f.property == "":
		return f.zoomCurve(f.pairs, f.expandsTokens()), nil
	}
	return f.propertyCurve(f.pairs)
}

func readLegacyFunc(obj *jobj, spec *PropertySpec) (*legacyFunc, error) {
	f := &legacyFunc{base: 1, space: "rgb", spec: spec}
	if v, ok := obj.get("property"); ok {
		s, isStr := v.(string)
		if !isStr {
			return nil, errors.New("legacy function: property must be a string")
		}
		if s != "$zoom" {
			f.property = s
		}
	}
	if v, ok := obj.get("base"); ok {
		b, isNum := v.(float64)
		if !isNum || b < 0 {
			return nil, errors.New("legacy function: base must be a number of at least 0")
		}
		f.base = b
	}
	if v, ok := obj.get("colorSpace"); ok {
		s, _ := v.(string)
		if s != "rgb" && s != "lab" && s != "hcl" {
			return nil, fmt.Errorf("legacy function: unknown colorSpace %v", v)
		}
		f.space = s
	}
	if err := f.readKind(obj); err != nil {
		return nil, err
	}
	if v, ok := obj.get("default"); ok {
		f.fallback, f.hasFallback = v, true
	} else if spec != nil && len(spec.Default) > 0 {
		v, err := decodeJSON(spec.Default)
		if err != nil {
			return nil, fmt.Errorf("legacy function: the property's default: %w", err)
		}
		f.fallback, f.hasFallback = v, true
	}
	if f.kind == kindIdentity {
		if f.property == "" {
			return nil, errors.New("legacy function: an identity function needs a property")
		}
		return f, nil
	}
	return f, f.readStops(obj)
}

// readKind sets the kind from "type"; without one, exponential for
// properties that interpolate and interval for the others. An exponential
// function of a property that cannot interpolate steps instead.
func (f *legacyFunc) readKind(obj *jobj) error {
	interpolates := f.spec.supportsInterpolation()
	f.kind = kindExponential
	if v, ok := obj.get("type"); ok {
		switch v {
		case "exponential":
		case "interval":
			f.kind = kindInterval
		case "categorical":
			f.kind = kindCategorical
		case "identity":
			f.kind = kindIdentity
		default:
			return fmt.Errorf("legacy function: unknown type %v", v)
		}
	}
	if f.kind == kindExponential && !interpolates {
		f.kind = kindInterval
	}
	return nil
}

// readStops reads "stops" into pairs, or levels when the inputs are
// {"zoom", "value"} objects.
func (f *legacyFunc) readStops(obj *jobj) error {
	v, _ := obj.get("stops")
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return errors.New("legacy function: stops must be a non-empty array")
	}
	_, nested := firstStopInput(list).(*jobj)
	for i, s := range list {
		pair, ok := s.([]any)
		if !ok || len(pair) != 2 {
			return fmt.Errorf("legacy function: stop %d must be an [input, output] pair", i)
		}
		in, out := pair[0], pair[1]
		if o, isObj := in.(*jobj); isObj != nested {
			return fmt.Errorf("legacy function: stop %d: either every stop input is a {zoom, value} object or none is", i)
		} else if isObj {
			if err := f.addLevelStop(i, o, out); err != nil {
				return err
			}
			continue
		}
		if err := f.checkInput(i, in); err != nil {
			return err
		}
		f.pairs = appendPair(f.pairs, legacyPair{in, out})
	}
	if nested && f.property == "" {
		return errors.New("legacy function: {zoom, value} stops need a property")
	}
	return nil
}

func firstStopInput(list []any) any {
	if pair, ok := list[0].([]any); ok && len(pair) > 0 {
		return pair[0]
	}
	return nil
}

// checkInput checks the input of stop i of a zoom or property function.
func (f *legacyFunc) checkInput(i int, in any) error {
	switch in.(type) {
	case float64:
		return nil
	case string, bool:
		if f.kind == kindCategorical && f.property != "" {
			return nil
		}
	}
	return fmt.Errorf("legacy function: stop %d has an input of the wrong type", i)
}

func (f *legacyFunc) addLevelStop(i int, in *jobj, out any) error {
	z, _ := in.get("zoom")
	zoom, ok := z.(float64)
	value, hasValue := in.get("value")
	if !ok || !hasValue {
		return fmt.Errorf("legacy function: stop %d needs a numeric zoom and a value", i)
	}
	if err := f.checkInput(i, value); err != nil {
		return err
	}
	if n := len(f.levels); n == 0 || f.levels[n-1].zoom != zoom {
		f.levels = append(f.levels, zoomLevel{zoom: zoom})
	}
	l := &f.levels[len(f.levels)-1]
	l.pairs = appendPair(l.pairs, legacyPair{value, out})
	return nil
}

// appendPair appends p unless its input repeats the last one's: of stops
// with the same input the first counts.
func appendPair(pairs []legacyPair, p legacyPair) []legacyPair {
	if n := len(pairs); n > 0 && pairs[n-1].in == p.in { // scalars: checkInput
		return pairs
	}
	return append(pairs, p)
}

// expandsTokens reports whether the string outputs of a zoom function have
// their "{token}"s expanded: for properties that take tokens. (The
// conformance fixtures keep them literal in property functions.)
func (f *legacyFunc) expandsTokens() bool {
	return f.spec != nil && f.spec.Tokens
}

// output is a stop's output or the fallback as an expression.
func output(v any, tokens bool) any {
	switch t := v.(type) {
	case []any, *jobj:
		return []any{"literal", t}
	case string:
		if tokens {
			return tokenExpression(t)
		}
	}
	return v
}

// tokenExpression turns "a {b} c" into ["concat", "a ", ["get", "b"], " c"]
// (a lone "{b}" into ["to-string", ["get", "b"]]); text without a complete
// {name} is returned as it is.
func tokenExpression(s string) any {
	var parts []any
	text := 0 // start of the text not yet taken
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := strings.IndexAny(s[i+1:], "{}")
		if end <= 0 || s[i+1+end] != '}' {
			continue // no name, or another brace first
		}
		if text < i {
			parts = append(parts, s[text:i])
		}
		parts = append(parts, []any{"get", s[i+1 : i+1+end]})
		i += end + 1
		text = i + 1
	}
	switch {
	case parts == nil:
		return s
	case text < len(s):
		parts = append(parts, s[text:])
	}
	if len(parts) == 1 {
		return []any{"to-string", parts[0]}
	}
	return append([]any{"concat"}, parts...)
}

// curveHead is the start of an interpolate expression for the function.
func (f *legacyFunc) curveHead(input any) []any {
	op := "interpolate"
	if f.space != "rgb" {
		op += "-" + f.space
	}
	curve := []any{"linear"}
	if f.base != 1 {
		curve = []any{"exponential", f.base}
	}
	return []any{op, curve, input}
}

// zoomCurve is the curve of pairs over zoom.
func (f *legacyFunc) zoomCurve(pairs []legacyPair, tokens bool) any {
	outs := make([]any, len(pairs))
	for i, p := range pairs {
		outs[i] = output(p.out, tokens)
	}
	return f.curve([]any{"zoom"}, pairs, outs, f.kind == kindExponential)
}

// curve builds the expression of outs at the inputs of pairs over input:
// an interpolation by the function's base when smooth, else a step.
func (f *legacyFunc) curve(input any, pairs []legacyPair, outs []any, smooth bool) any {
	if smooth {
		e := f.curveHead(input)
		for i, p := range pairs {
			e = append(e, p.in, outs[i])
		}
		return e
	}
	if len(pairs) == 1 {
		return outs[0] // a step needs a stop after its first output
	}
	e := []any{"step", input, outs[0]}
	for i, p := range pairs[1:] {
		e = append(e, p.in, outs[i+1])
	}
	return e
}

// propertyCurve is the expression of a property function with stops pairs.
func (f *legacyFunc) propertyCurve(pairs []legacyPair) (any, error) {
	get := []any{"get", f.property}
	if f.kind == kindCategorical {
		return f.categories(get, pairs), nil
	}
	for _, p := range pairs {
		if _, ok := p.in.(float64); !ok {
			return nil, errors.New("legacy function: the stop inputs of an exponential or interval function must be numbers")
		}
	}
	outs := make([]any, len(pairs))
	for i, p := range pairs {
		outs[i] = output(p.out, false)
	}
	e := f.curve([]any{"number", get}, pairs, outs, f.kind == kindExponential)
	if !f.hasFallback {
		return e, nil
	}
	isNumber := []any{"==", []any{"typeof", get}, "number"}
	return []any{"case", isNumber, e, output(f.fallback, false)}, nil
}

// categories picks the output whose input equals the property's value.
func (f *legacyFunc) categories(get any, pairs []legacyPair) any {
	var fallback any
	switch {
	case f.hasFallback:
		fallback = output(f.fallback, false)
	case f.spec != nil && (f.spec.Type == "string" || f.spec.Type == "formatted" || f.spec.Type == "resolvedImage"):
		// Text and images without a default (text-field, icon-image, the
		// patterns): an unmatched value shows nothing.
		fallback = ""
	}
	if matchable(pairs) {
		e := []any{"match", get}
		for _, p := range pairs {
			e = append(e, p.in, output(p.out, false))
		}
		return append(e, fallback)
	}
	e := []any{"case"}
	for _, p := range pairs {
		e = append(e, []any{"==", get, p.in}, output(p.out, false))
	}
	return append(e, fallback)
}

// matchable reports whether a match can take the inputs as labels: all
// strings or all integers, distinct.
func matchable(pairs []legacyPair) bool {
	seen := map[any]bool{}
	_, strs := pairs[0].in.(string)
	for _, p := range pairs {
		switch v := p.in.(type) {
		case string:
			if !strs {
				return false
			}
		case float64:
			if strs || v != float64(int64(v)) {
				return false
			}
		default:
			return false
		}
		if seen[p.in] {
			return false
		}
		seen[p.in] = true
	}
	return true
}

// zoomAndProperty is a curve over zoom of the property curves of the
// levels.
func (f *legacyFunc) zoomAndProperty() (any, error) {
	zooms := make([]legacyPair, len(f.levels))
	outs := make([]any, len(f.levels))
	for i, l := range f.levels {
		inner, err := f.propertyCurve(l.pairs)
		if err != nil {
			return nil, err
		}
		zooms[i], outs[i] = legacyPair{in: l.zoom}, inner
	}
	// Between its zoom levels the function is blended by its base, whatever
	// its type, where the property interpolates, and steps otherwise: what
	// GL's style-spec createFunction gives (a categorical number function
	// of base 2 with levels at zooms 0 and 10 is 0.30303 of the way at
	// zoom 5; the same of a string property steps).
	return f.curve([]any{"zoom"}, zooms, outs, f.spec.supportsInterpolation()), nil
}

// identity is the property's value taken as it is, checked against the
// property's type.
func (f *legacyFunc) identity() any {
	get := []any{"get", f.property}
	var typ, item string
	length := 0
	if f.spec != nil {
		typ, item, length = f.spec.Type, f.spec.Value, f.spec.Length
	}
	var fallback []any
	if f.hasFallback {
		fallback = []any{output(f.fallback, false)}
	}
	switch typ {
	case "number", "string", "boolean":
		return append([]any{typ, get}, fallback...)
	case "enum":
		if fallback == nil || f.spec == nil || len(f.spec.Values) == 0 {
			return append([]any{"string", get}, fallback...)
		}
		// With a fallback, a value outside the enumeration takes it.
		values := make([]any, len(f.spec.Values))
		for i, v := range f.spec.Values {
			values[i] = v
		}
		return []any{"match", get, values, []any{"string", get}, fallback[0]}
	case "color":
		return append([]any{"to-color", get}, fallback...)
	case "array":
		e := []any{"array", item}
		if length > 0 {
			e = append(e, float64(length))
		}
		e = append(e, get)
		if fallback == nil {
			return e
		}
		// An array assertion takes one value: test the type first.
		isArray := []any{"in", "array", []any{"typeof", get}}
		return []any{"case", isArray, e, fallback[0]}
	}
	if fallback != nil {
		return []any{"coalesce", get, fallback[0]}
	}
	return get
}
