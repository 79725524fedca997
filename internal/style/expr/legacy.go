package expr

import (
	"errors"
	"fmt"
	"regexp"
)

// Conversion of legacy function objects ({"stops": ..., "property": ...,
// "base": ..., "type": ..., "default": ...}) into expressions, as the style
// specification describes.

func convertLiteral(v any) any {
	switch v.(type) {
	case []any, *jobj:
		return []any{"literal", v}
	}
	return v
}

var tokenRe = regexp.MustCompile(`{([^{}]+)}`)

// convertTokenString turns "a {b} c" into ["concat", "a ", ["get", "b"], " c"].
func convertTokenString(s string) any {
	res := []any{"concat"}
	pos := 0
	for _, m := range tokenRe.FindAllStringSubmatchIndex(s, -1) {
		if lit := s[pos:m[0]]; lit != "" {
			res = append(res, lit)
		}
		res = append(res, []any{"get", s[m[2]:m[3]]})
		pos = m[1]
	}
	if len(res) == 1 {
		return s
	}
	if pos < len(s) {
		res = append(res, s[pos:])
	} else if len(res) == 2 {
		return []any{"to-string", res[1]}
	}
	return res
}

func functionType(params *jobj, spec *PropertySpec) string {
	if t, ok := params.get("type"); ok {
		if s, ok := t.(string); ok {
			return s
		}
	}
	if spec != nil && spec.Expression != nil && spec.Expression.Interpolated {
		return "exponential"
	}
	return "interval"
}

func interpolateOperator(params *jobj) string {
	cs, _ := params.get("colorSpace")
	switch cs {
	case "hcl":
		return "interpolate-hcl"
	case "lab":
		return "interpolate-lab"
	}
	return "interpolate"
}

func appendStopPair(curve []any, input, output any, isStep bool) []any {
	if len(curve) > 3 && jsonEqual(input, curve[len(curve)-2]) {
		return curve
	}
	if !(isStep && len(curve) == 2) {
		curve = append(curve, input)
	}
	return append(curve, output)
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func fixupDegenerateStep(e []any) []any {
	if len(e) == 3 && e[0] == "step" {
		e = append(e, 0.0, e[2])
	}
	return e
}

func specDefault(spec *PropertySpec) any {
	if spec == nil || len(spec.Default) == 0 {
		return nil
	}
	v, err := decodeJSON(spec.Default)
	if err != nil {
		return nil
	}
	return v
}

type stop struct {
	in, out any
}

// convertFunction converts a legacy function object to an expression.
func convertFunction(params *jobj, spec *PropertySpec) (any, error) {
	rawStops, hasStops := params.get("stops")
	if !hasStops {
		return convertIdentityFunction(params, spec), nil
	}
	arr, ok := rawStops.([]any)
	if !ok || len(arr) == 0 {
		return nil, errors.New("function stops must be a non-empty array")
	}
	var stops []stop
	for _, s := range arr {
		pair, ok := s.([]any)
		if !ok || len(pair) != 2 {
			return nil, errors.New("function stops must be [input, output] pairs")
		}
		stops = append(stops, stop{pair[0], pair[1]})
	}
	_, zoomAndFeature := stops[0].in.(*jobj)
	_, hasProperty := params.get("property")
	featureDependent := zoomAndFeature || hasProperty
	zoomDependent := zoomAndFeature || !featureDependent
	for i := range stops {
		if s, isStr := stops[i].out.(string); !featureDependent && spec != nil && spec.Tokens && isStr {
			stops[i].out = convertTokenString(s)
		} else {
			stops[i].out = convertLiteral(stops[i].out)
		}
	}
	switch {
	case zoomAndFeature:
		return convertZoomAndPropertyFunction(params, spec, stops)
	case zoomDependent:
		return convertZoomFunction(params, spec, stops, []any{"zoom"})
	}
	return convertPropertyFunction(params, spec, stops)
}

func convertIdentityFunction(params *jobj, spec *PropertySpec) any {
	prop, _ := params.get("property")
	get := []any{"get", prop}
	def, hasDefault := params.get("default")
	typ := ""
	if spec != nil {
		typ = spec.Type
	}
	if !hasDefault {
		if typ == "string" {
			return []any{"string", get}
		}
		return get
	}
	if typ == "enum" {
		labels := make([]any, len(spec.Values))
		for i, v := range spec.Values {
			labels[i] = v
		}
		return []any{"match", get, labels, get, def}
	}
	op := typ
	if typ == "color" {
		op = "to-color"
	}
	e := []any{op, get, convertLiteral(def)}
	if typ == "array" {
		var n any
		if spec.Length > 0 {
			n = float64(spec.Length)
		}
		e = []any{op, spec.Value, n, get, convertLiteral(def)}
	}
	return e
}

func convertZoomFunction(params *jobj, spec *PropertySpec, stops []stop, input any) (any, error) {
	typ := functionType(params, spec)
	var e []any
	isStep := false
	switch typ {
	case "interval":
		e = []any{"step", input}
		isStep = true
	case "exponential":
		base := 1.0
		if b, ok := params.get("base"); ok {
			if f, ok := b.(float64); ok {
				base = f
			}
		}
		var interp any = []any{"linear"}
		if base != 1 {
			interp = []any{"exponential", base}
		}
		e = []any{interpolateOperator(params), interp, input}
	default:
		return nil, fmt.Errorf("unknown zoom function type %q", typ)
	}
	for _, s := range stops {
		e = appendStopPair(e, s.in, s.out, isStep)
	}
	return fixupDegenerateStep(e), nil
}

func fallback(params *jobj, spec *PropertySpec) any {
	if d, ok := params.get("default"); ok {
		return convertLiteral(d)
	}
	return convertLiteral(specDefault(spec))
}

func convertPropertyFunction(params *jobj, spec *PropertySpec, stops []stop) (any, error) {
	typ := functionType(params, spec)
	prop, _ := params.get("property")
	get := []any{"get", prop}
	def, hasDefault := params.get("default")
	withDefault := func(e []any) any {
		if !hasDefault {
			return e
		}
		return []any{"case", []any{"==", []any{"typeof", get}, "number"}, e, convertLiteral(def)}
	}
	switch typ {
	case "categorical":
		if _, isBool := stops[0].in.(bool); isBool {
			e := []any{"case"}
			for _, s := range stops {
				e = append(e, []any{"==", get, s.in}, s.out)
			}
			return append(e, fallback(params, spec)), nil
		}
		e := []any{"match", get}
		for _, s := range stops {
			e = appendStopPair(e, s.in, s.out, false)
		}
		return append(e, fallback(params, spec)), nil
	case "interval":
		e := []any{"step", []any{"number", get}}
		for _, s := range stops {
			e = appendStopPair(e, s.in, s.out, true)
		}
		return withDefault(fixupDegenerateStep(e)), nil
	case "exponential":
		base := 1.0
		if b, ok := params.get("base"); ok {
			if f, ok := b.(float64); ok {
				base = f
			}
		}
		var interp any = []any{"linear"}
		if base != 1 {
			interp = []any{"exponential", base}
		}
		e := []any{interpolateOperator(params), interp, []any{"number", get}}
		for _, s := range stops {
			e = appendStopPair(e, s.in, s.out, false)
		}
		return withDefault(e), nil
	case "identity":
		return convertIdentityFunction(params, spec), nil
	}
	return nil, fmt.Errorf("unknown property function type %q", typ)
}

func convertZoomAndPropertyFunction(params *jobj, spec *PropertySpec, stops []stop) (any, error) {
	type group struct {
		zoom  float64
		stops []stop
	}
	var groups []*group
	byZoom := map[float64]*group{}
	for _, s := range stops {
		in, ok := s.in.(*jobj)
		if !ok {
			return nil, errors.New("zoom-and-property function stops need {zoom, value} inputs")
		}
		zv, _ := in.get("zoom")
		z, ok := zv.(float64)
		if !ok {
			return nil, errors.New("zoom-and-property function stops need a numeric zoom")
		}
		val, _ := in.get("value")
		g, ok := byZoom[z]
		if !ok {
			g = &group{zoom: z}
			byZoom[z] = g
			groups = append(groups, g)
		}
		g.stops = append(g.stops, stop{val, s.out})
	}
	// The inner property functions use the function's type/property/default.
	inner := &jobj{}
	for _, k := range []string{"type", "property", "default"} {
		if v, ok := params.get(k); ok {
			inner.keys = append(inner.keys, k)
			inner.vals = append(inner.vals, v)
		}
	}
	interpolated := spec != nil && spec.Expression != nil && spec.Expression.Interpolated
	var e []any
	if interpolated {
		e = []any{interpolateOperator(params), []any{"linear"}, []any{"zoom"}}
	} else {
		e = []any{"step", []any{"zoom"}}
	}
	for _, g := range groups {
		out, err := convertPropertyFunction(inner, spec, g.stops)
		if err != nil {
			return nil, err
		}
		e = appendStopPair(e, g.zoom, out, !interpolated)
	}
	if !interpolated {
		e = fixupDegenerateStep(e)
	}
	return e, nil
}
