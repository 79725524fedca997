package expr

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Expression is a compiled, type-checked expression. It is safe for
// concurrent use.
type Expression struct {
	root         node
	spec         *PropertySpec
	featureConst bool
	zoomConst    bool
	stateConst   bool
	zoomCurve    node
	defaultValue Value
	hasDefault   bool
}

// Compile parses and type-checks an expression for a property. raw is JSON
// text (json.RawMessage or []byte) or decoded JSON (nil, bool, float64,
// string, []any, map[string]any). A JSON object is a legacy function and is
// converted first. spec may be nil: no expected type and no restrictions.
func Compile(raw any, spec *PropertySpec) (*Expression, []CompileError) {
	doc, err := decodeInput(raw)
	if err != nil {
		return nil, []CompileError{{Message: fmt.Sprintf("invalid expression JSON: %v", err)}}
	}
	if obj, ok := doc.(*jobj); ok {
		conv, err := convertFunction(obj, spec)
		if err != nil {
			return nil, []CompileError{{Message: err.Error()}}
		}
		doc = conv
	}
	return compileDoc(doc, spec)
}

func compileDoc(doc any, spec *PropertySpec) (*Expression, []CompileError) {
	run := &compileRun{maxWork: parseWorkLimit(doc)}
	c := &compiler{want: spec.expectedType(), run: run}
	conv := convertAuto
	if spec != nil && spec.Type == "string" {
		// A string property converts whatever it is given.
		conv = convertCoerce
	}
	root := c.compile(doc, conv)
	if root == nil || len(run.errs) > 0 {
		if len(run.errs) == 0 {
			run.errs = append(run.errs, CompileError{Message: "invalid expression"})
		}
		return nil, run.errs
	}
	e := &Expression{root: root, spec: spec}
	reads := inputsOf(root)
	e.featureConst = reads&readsFeature == 0
	if !e.featureConst && !spec.supportsPropertyExpression() {
		return nil, []CompileError{{Message: "data expressions not supported"}}
	}
	e.zoomConst = reads&readsZoom == 0
	if !e.zoomConst && !spec.supportsZoomExpression() {
		return nil, []CompileError{{Message: "zoom expressions not supported"}}
	}
	var curve node
	var cerr *CompileError
	if spec != filterSpec {
		// Filters may use "zoom" anywhere: they are evaluated at one zoom
		// and never interpolated.
		curve, cerr = zoomCurveOf(root)
	}
	switch {
	case cerr != nil:
		return nil, []CompileError{*cerr}
	case curve == nil && !e.zoomConst && spec != filterSpec:
		return nil, []CompileError{{Message: msgZoomNotTopLevel}}
	}
	if _, isInterp := curve.(*interpolateNode); isInterp && !spec.supportsInterpolation() {
		return nil, []CompileError{{Message: `"interpolate" expressions cannot be used with this property`}}
	}
	e.zoomCurve = curve
	e.stateConst = reads&readsState == 0
	if spec != nil && len(spec.Default) > 0 {
		ds := *spec
		ds.Expression = &ExpressionSupport{}
		ds.PropertyType = "constant"
		ds.Default = nil
		if de, errs := CompileValue(json.RawMessage(spec.Default), &ds); len(errs) == 0 {
			if v, err := de.Eval(&EvalContext{}); err == nil {
				e.defaultValue, e.hasDefault = v, true
			}
		}
	}
	return e, nil
}

// MustCompile is Compile for known-good expressions; it panics on error.
func MustCompile(raw any, spec *PropertySpec) *Expression {
	e, errs := Compile(raw, spec)
	if len(errs) > 0 {
		panic(fmt.Sprintf("expr: %v", errs))
	}
	return e
}

// The style specification allows "zoom" only as the input of a step or
// interpolate expression at the top level of a property value, where the
// top level extends through the body of a "let" and the arguments of a
// "coalesce". There may be one such zoom curve.
const (
	msgZoomNotTopLevel = `"zoom" expression may only be used as input to a top-level "step" or "interpolate" expression.`
	msgZoomTwoCurves   = `Only one zoom-based "step" or "interpolate" subexpression may be used in an expression.`
)

// zoomUse is what a subtree shows of its use of zoom curves: the curve it
// offers at its top level, or the misuse found in it (at most one set).
type zoomUse struct {
	curve node
	fault string
}

// isZoomCurve reports whether n is a step or interpolate over ["zoom"]
// (a number, so never wrapped in an assertion).
func isZoomCurve(n node) bool {
	var in node
	switch t := n.(type) {
	case *stepNode:
		in = t.input
	case *interpolateNode:
		in = t.input
	default:
		return false
	}
	call, ok := in.(*compoundNode)
	return ok && call.name == "zoom"
}

// zoomCurveOf finds the zoom curve of an expression, or the misuse of
// zoom that keeps it from having one.
func zoomCurveOf(root node) (node, *CompileError) {
	u := zoomUseOf(root)
	if u.fault != "" {
		return nil, &CompileError{Message: u.fault}
	}
	return u.curve, nil
}

// zoomUseOf works bottom-up: a node's use is what it offers itself
// (zoomOffer), unless that is a fault, which stands; otherwise each
// child's use is merged into it in turn (zoomUse.merge).
func zoomUseOf(n node) zoomUse {
	var kids []zoomUse
	n.each(func(ch node) { kids = append(kids, zoomUseOf(ch)) })
	use := zoomOffer(n, kids)
	if use.fault != "" {
		return use
	}
	for _, k := range kids {
		use = use.merge(k)
	}
	return use
}

// zoomOffer is what a node offers at its top level, given its children's
// uses: a "let" its body's, a "coalesce" its first argument's that has a
// curve or a fault, a zoom curve itself, anything else nothing.
func zoomOffer(n node, kids []zoomUse) zoomUse {
	switch n.(type) {
	case *letNode:
		return kids[len(kids)-1]
	case *coalesceNode:
		for _, k := range kids {
			if k.curve != nil || k.fault != "" {
				return k
			}
		}
		return zoomUse{}
	}
	if isZoomCurve(n) {
		return zoomUse{curve: n}
	}
	return zoomUse{}
}

// zoomHeld is what a use holds: nothing, a curve or a fault.
type zoomHeld uint8

const (
	heldNothing zoomHeld = iota
	heldCurve
	heldFault
)

// zoomSeen is what a child's use shows against the use it merges into.
type zoomSeen uint8

const (
	seenNothing    zoomSeen = iota // no curve, no fault
	seenSameCurve                  // the curve the use holds
	seenOtherCurve                 // a curve the use does not hold
	seenFault
)

// zoomOutcome is the result of a merge.
type zoomOutcome uint8

const (
	keepUse     zoomOutcome = iota // the use stays as it is
	takeChild                      // the child's fault replaces it
	notTopLevel                    // msgZoomNotTopLevel
	secondCurve                    // msgZoomTwoCurves
)

// zoomMerges is the outcome of a merge by what the use holds and what the
// child shows.
var zoomMerges = [3][4]zoomOutcome{
	heldNothing: {
		seenNothing:    keepUse,
		seenOtherCurve: notTopLevel, // a curve below a node offering none
		seenFault:      takeChild,
	},
	heldCurve: {
		seenNothing:    keepUse,
		seenSameCurve:  keepUse,     // the curve the node offers itself
		seenOtherCurve: secondCurve, // beside or inside the offered one
		seenFault:      takeChild,
	},
	heldFault: {
		seenNothing:    keepUse,
		seenOtherCurve: secondCurve, // a curve after a fault
		seenFault:      takeChild,   // the later fault is reported
	},
}

// merge merges a child's use into u.
func (u zoomUse) merge(child zoomUse) zoomUse {
	held := heldNothing
	switch {
	case u.fault != "":
		held = heldFault
	case u.curve != nil:
		held = heldCurve
	}
	seen := seenNothing
	switch {
	case child.fault != "":
		seen = seenFault
	case child.curve != nil && child.curve == u.curve:
		seen = seenSameCurve
	case child.curve != nil:
		seen = seenOtherCurve
	}
	switch zoomMerges[held][seen] {
	case takeChild:
		return child
	case notTopLevel:
		return zoomUse{fault: msgZoomNotTopLevel}
	case secondCurve:
		return zoomUse{fault: msgZoomTwoCurves}
	}
	return u
}

// Type returns the result type of the expression.
func (e *Expression) Type() Type { return e.root.base().t }

// IsFeatureConstant reports whether the result does not depend on feature data.
func (e *Expression) IsFeatureConstant() bool { return e.featureConst }

// IsZoomConstant reports whether the result does not depend on the zoom level.
func (e *Expression) IsZoomConstant() bool { return e.zoomConst }

// IsStateConstant reports whether the result does not depend on feature state.
func (e *Expression) IsStateConstant() bool { return e.stateConst }

// Kind returns "constant", "source" (feature-dependent), "camera"
// (zoom-dependent) or "composite" (both).
func (e *Expression) Kind() string {
	switch {
	case e.featureConst && e.zoomConst:
		return "constant"
	case e.zoomConst:
		return "source"
	case e.featureConst:
		return "camera"
	}
	return "composite"
}

// ZoomStops returns the zoom levels of the top-level zoom curve, if any.
func (e *Expression) ZoomStops() []float64 {
	switch t := e.zoomCurve.(type) {
	case *stepNode:
		return t.labels
	case *interpolateNode:
		return t.labels
	}
	return nil
}

// Constant returns the value of a constant expression.
func (e *Expression) Constant() (Value, bool) {
	if lit, ok := e.root.(*literalNode); ok {
		return lit.v, true
	}
	return Value{}, false
}

// Eval evaluates the expression. Errors are *EvalError with the key of the
// failing sub-expression.
func (e *Expression) Eval(c *EvalContext) (Value, error) {
	if c == nil {
		c = &EvalContext{}
	}
	v, err := evalNode(c, e.root)
	if err != nil {
		var ee *EvalError
		if errors.As(err, &ee) && !ee.keyed {
			ee.keyed = true
		}
		return Value{}, err
	}
	return v, nil
}

// EvalOrDefault evaluates the expression and falls back to the property
// default (or null) when evaluation fails.
func (e *Expression) EvalOrDefault(c *EvalContext) Value {
	v, err := e.Eval(c)
	if err != nil {
		if e.hasDefault {
			return e.defaultValue
		}
		return Null()
	}
	return v
}

var errWrongType = errors.New("expression result has a different type")

// EvalNumber evaluates a number-typed expression without allocating.
func (e *Expression) EvalNumber(c *EvalContext) (float64, error) {
	if e.root.base().t.Kind == KindNumber {
		return evalNumberNode(c, e.root)
	}
	v, err := evalNode(c, e.root)
	if err != nil {
		return 0, err
	}
	if v.kind != KindNumber {
		return 0, errWrongType
	}
	return v.n, nil
}

// EvalColor evaluates a color-typed expression without allocating.
func (e *Expression) EvalColor(c *EvalContext) (Color, error) {
	v, err := evalNode(c, e.root)
	if err != nil {
		return Color{}, err
	}
	if v.kind != KindColor {
		return Color{}, errWrongType
	}
	return v.Color(), nil
}

// EvalBool evaluates a boolean-typed expression (e.g. a filter) without allocating.
func (e *Expression) EvalBool(c *EvalContext) (bool, error) {
	if e.root.base().t.Kind == KindBoolean {
		return evalBoolNode(c, e.root)
	}
	v, err := evalNode(c, e.root)
	if err != nil {
		return false, err
	}
	if v.kind != KindBoolean {
		return false, errWrongType
	}
	return v.b, nil
}

// EvalString evaluates a string-typed expression.
func (e *Expression) EvalString(c *EvalContext) (string, error) {
	v, err := evalNode(c, e.root)
	if err != nil {
		return "", err
	}
	if v.kind != KindString {
		return "", errWrongType
	}
	return v.s, nil
}

// IsExpression reports whether a decoded style value is an expression: an
// array whose first element names a known operator.
func IsExpression(doc any) bool {
	arr, ok := doc.([]any)
	if !ok || len(arr) == 0 {
		return false
	}
	op, ok := arr[0].(string)
	if !ok {
		return false
	}
	if _, ok := registry[op]; ok {
		return true
	}
	_, ok = funcDefs[op]
	return ok
}

// CompileValue compiles a style property value as found in a style
// document: an expression, a legacy function object, or a constant (such
// as "red", [0, 0] or ["Open Sans Regular"]), which is taken literally and
// coerced to the property type.
func CompileValue(raw any, spec *PropertySpec) (*Expression, []CompileError) {
	doc, err := decodeInput(raw)
	if err != nil {
		return nil, []CompileError{{Message: fmt.Sprintf("invalid value JSON: %v", err)}}
	}
	switch d := doc.(type) {
	case *jobj:
		conv, err := convertFunction(d, spec)
		if err != nil {
			return nil, []CompileError{{Message: err.Error()}}
		}
		return compileDoc(conv, spec)
	case []any:
		if IsExpression(d) {
			return compileDoc(d, spec)
		}
	}
	return compileDoc([]any{"literal", doc}, spec)
}

// decodeInput reads what Compile, CompileValue and CompileFilter take: JSON
// text (json.RawMessage or []byte) or already decoded JSON.
func decodeInput(raw any) (any, error) {
	switch r := raw.(type) {
	case json.RawMessage:
		return decodeJSON(r)
	case []byte:
		return decodeJSON(r)
	}
	return normalizeJSON(raw, 0)
}
