package style

import (
	"fmt"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// zoomCurveMessages are the errors the expression compiler raises for the
// placement of "zoom" in property expressions; the reference validator does
// not apply that rule outside properties (filters, cluster properties).
var zoomCurveMessages = map[string]bool{
	`"zoom" expression may only be used as input to a top-level "step" or "interpolate" expression.`: true,
	`Only one zoom-based "step" or "interpolate" subexpression may be used in an expression.`:        true,
	`"zoom" expressions cannot be used with this property`:                                           true,
}

// expression type-checks an expression with internal/style/expr. vs is the
// property spec (nil for none); ctx tells where the expression sits.
func (v *validator) expression(key string, val any, vs *Object, ctx *exprCtx) {
	if ctx == nil {
		ctx = &exprCtx{}
	}
	var ps *expr.PropertySpec
	if vs != nil {
		ps = v.sp.propertySpec(vs)
	}
	if ps != nil && ctx.kind != "property" {
		// The reference parses these with createExpression: the expected
		// type of the spec, and none of the property restrictions.
		cp := *ps
		cp.PropertyType = "data-driven"
		cp.Expression = &expr.ExpressionSupport{Interpolated: true, Parameters: []string{"zoom", "feature", "feature-state"}}
		ps = &cp
	}
	// The value goes to the compiler as it is: arrays, numbers and strings
	// read directly, objects through their JSON (writing the whole
	// expression as JSON to decode it again took half the time).
	e, errs := compileSafe(val, ps)
	zoomFiltered := false
	if ctx.kind != "property" {
		kept := errs[:0]
		for _, ce := range errs {
			if ce.Key == "" && zoomCurveMessages[ce.Message] {
				zoomFiltered = true
				continue
			}
			kept = append(kept, ce)
		}
		errs = kept
	}
	cluster := ctx.kind == "cluster-map" || ctx.kind == "cluster-reduce"
	if cluster && zoomFiltered && len(errs) == 0 {
		v.errorf(key, `"zoom" and "feature-state" expressions are not supported with cluster properties.`)
		return
	}
	for _, ce := range errs {
		v.errorf(key+ce.Key, "%s", ce.Message)
	}
	if len(errs) > 0 || e == nil {
		return
	}
	switch {
	case ctx.kind == "property" && ctx.propertyKey == "text-font" && !outputDefined(val):
		v.errorf(key, `Invalid data expression for "%s". Output values must be contained as literals within the expression.`, ctx.propertyKey)
	case ctx.kind == "property" && ctx.propertyType == "layout" && !e.IsStateConstant():
		v.errorf(key, `"feature-state" data expressions are not supported with layout properties.`)
	case ctx.kind == "filter" && !e.IsStateConstant():
		v.errorf(key, `"feature-state" data expressions are not supported with filters.`)
	case cluster:
		if !e.IsZoomConstant() || !e.IsStateConstant() {
			v.errorf(key, `"zoom" and "feature-state" expressions are not supported with cluster properties.`)
		}
	}
}

// compileSafe calls the expression compiler, turning a panic into an error
// so that no style can crash the validator.
func compileSafe(raw any, ps *expr.PropertySpec) (e *expr.Expression, errs []expr.CompileError) {
	defer func() {
		if r := recover(); r != nil {
			e, errs = nil, []expr.CompileError{{Message: fmt.Sprintf("invalid expression (%v)", r)}}
		}
	}()
	return expr.Compile(raw, ps)
}

// filter validates a layer filter: an expression, or the legacy syntax.
func (v *validator) filter(key string, val any) {
	if !expr.IsLegacyFilter(val) {
		v.expression(key, val, nil, &exprCtx{kind: "filter"})
		return
	}
	v.legacyFilter(key, val)
}

func index(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

func (v *validator) legacyFilter(key string, val any) {
	a, ok := val.([]any)
	if !ok {
		v.errorf(key, "array expected, %s found", jsType(val))
		return
	}
	if len(a) < 1 {
		v.errorf(key, "filter array must have at least 1 element")
		return
	}
	ops, _ := v.sp.doc.Get("filter_operator")
	opSpec, _ := ops.(*Object)
	v.enum(key+"[0]", a[0], opSpec)
	op, _ := a[0].(string)
	switch op {
	case "<", "<=", ">", ">=", "==", "!=", "in", "!in":
		if op == "<" || op == "<=" || op == ">" || op == ">=" {
			if len(a) >= 2 && a[1] == "$type" {
				v.errorf(key, `"$type" cannot be use with operator %q`, op)
			}
		}
		if op != "in" && op != "!in" && len(a) != 3 {
			v.errorf(key, "filter array for operator %q must have 3 elements", op)
		}
		if len(a) >= 2 {
			if t := jsType(a[1]); t != "string" {
				v.errorf(key+"[1]", "string expected, %s found", t)
			}
		}
		geom, _ := get(v.sp.doc, "geometry_type").(*Object)
		for i := 2; i < len(a); i++ {
			k := fmt.Sprintf("%s[%d]", key, i)
			if a[1] == "$type" {
				v.enum(k, a[i], geom)
			} else if t := jsType(a[i]); t != "string" && t != "number" && t != "boolean" {
				v.errorf(k, "string, number, or boolean expected, %s found", t)
			}
		}
	case "any", "all", "none":
		for i := 1; i < len(a); i++ {
			v.legacyFilter(fmt.Sprintf("%s[%d]", key, i), a[i])
		}
	case "has", "!has":
		if len(a) != 2 {
			v.errorf(key, "filter array for %q operator must have 2 elements", op)
		} else if t := jsType(a[1]); t != "string" {
			v.errorf(key+"[1]", "string expected, %s found", t)
		}
	}
}

// nonConstantOps are the operators whose value depends on the feature, the
// zoom level or the evaluation; an expression without them is folded into a
// literal by the reference parser.
var nonConstantOps = map[string]bool{
	"get": true, "has": true, "id": true, "geometry-type": true, "properties": true, "feature-state": true,
	"zoom": true, "heatmap-density": true, "line-progress": true, "accumulated": true, "global-state": true,
	"is-supported-script": true, "resolved-locale": true, "collator": true, "within": true, "distance": true,
	"elevation": true, "var": true, "error": true,
}

func isConstantExpr(val any) bool {
	a, ok := val.([]any)
	if !ok {
		return true
	}
	if op, ok := index(a, 0).(string); ok {
		if op == "literal" {
			return true
		}
		if nonConstantOps[op] {
			return false
		}
	}
	for _, e := range a {
		if !isConstantExpr(e) {
			return false
		}
	}
	return true
}

// outputDefined approximates the reference's Expression.outputDefined on the
// JSON form: whether every value the expression can produce is written as a
// literal in it (required of "text-font", whose fonts must be known up front).
func outputDefined(val any) bool {
	a, ok := val.([]any)
	if !ok || len(a) == 0 {
		return true
	}
	op, _ := a[0].(string)
	if isConstantExpr(val) {
		return true
	}
	all := func(idx ...int) bool {
		for _, i := range idx {
			if i < len(a) && !outputDefined(a[i]) {
				return false
			}
		}
		return true
	}
	every := func(from, step int) []int {
		var idx []int
		for i := from; i < len(a); i += step {
			idx = append(idx, i)
		}
		return idx
	}
	switch op {
	case "array", "boolean", "number", "string", "object", "to-boolean", "to-color", "to-number", "to-string", "coalesce":
		return all(every(1, 1)...)
	case "let":
		return all(len(a) - 1)
	case "in", "within", "distance", "==", "!=", "<", ">", "<=", ">=":
		return true
	case "match":
		return all(append(every(3, 2), len(a)-1)...)
	case "case":
		return all(append(every(2, 2), len(a)-1)...)
	case "step":
		return all(every(2, 2)...)
	case "interpolate", "interpolate-hcl", "interpolate-lab":
		return all(every(4, 2)...)
	}
	return false
}
