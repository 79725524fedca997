package expr

import (
	"fmt"
	"math"
	"sort"
)

// stepNode: ["step", input, out0, stop1, out1, ...].
type stepNode struct {
	nodeBase
	input   node
	labels  []float64
	outputs []node
}

func (n *stepNode) each(fn func(node)) {
	fn(n.input)
	for _, o := range n.outputs {
		fn(o)
	}
}

func (n *stepNode) eval(c *EvalContext) (Value, error) {
	if len(n.labels) == 1 {
		return evalNode(c, n.outputs[0])
	}
	x, err := evalNum(c, n.input)
	if err != nil {
		return Value{}, err
	}
	if x < n.labels[1] {
		return evalNode(c, n.outputs[0])
	}
	last := len(n.labels) - 1
	if x >= n.labels[last] {
		return evalNode(c, n.outputs[last])
	}
	return evalNode(c, n.outputs[stopIndex(n.labels, x)])
}

// stopIndex returns the largest i with labels[i] <= x.
func stopIndex(labels []float64, x float64) int {
	i := sort.Search(len(labels), func(i int) bool { return labels[i] > x })
	if i == 0 {
		return 0
	}
	return i - 1
}

// parseStep reads ["step", input, output0, label1, output1, ...]: the
// first output holds below the first label.
func parseStep(args []any, c *compiler) node {
	if len(args)-1 < 4 {
		return c.fail(fmt.Sprintf("Expected at least 4 arguments, but found only %d.", len(args)-1))
	}
	if (len(args)-1)%2 != 0 {
		return c.fail("Expected an even number of arguments.")
	}
	input := c.compileArg(args[1], 1, &NumberType)
	if input == nil {
		return nil
	}
	st := stops{expr: "step", labels: []float64{math.Inf(-1)}, outs: newOutputSet(c)}
	if !st.outs.add(c, args[2], 2) || !st.read(c, args, 3) {
		return nil
	}
	return &stepNode{nodeBase: nodeBase{t: *st.outs.want}, input: input, labels: st.labels, outputs: st.outs.nodes}
}

// stops gathers the (label, output) pairs of a step or interpolate.
// Labels are number literals in strictly ascending order; the outputs are
// an outputSet.
type stops struct {
	expr   string // "step" or "interpolate", for the messages
	labels []float64
	outs   outputSet
}

// read adds the pairs of args from index from on.
func (st *stops) read(c *compiler, args []any, from int) bool {
	for i := from; i+1 < len(args); i += 2 {
		label, ok := args[i].(float64)
		if !ok {
			c.fail(fmt.Sprintf(`Input/output pairs for "%s" expressions must be defined using literal numeric values (not computed expressions) for the input values.`, st.expr), i)
			return false
		}
		if len(st.labels) > 0 && st.labels[len(st.labels)-1] >= label {
			c.fail(fmt.Sprintf(`Input/output pairs for "%s" expressions must be arranged with input values in strictly ascending order.`, st.expr), i)
			return false
		}
		if !st.outs.add(c, args[i+1], i+1) {
			return false
		}
		st.labels = append(st.labels, label)
	}
	return true
}

type interpKind uint8

const (
	interpLinear interpKind = iota
	interpExponential
	interpCubicBezier
)

type interpolation struct {
	kind interpKind
	base float64
	ease cubicEase
}

// interpolateNode: ["interpolate", type, input, stop, out, ...].
type interpolateNode struct {
	nodeBase
	op      string
	space   colorSpace
	interp  interpolation
	input   node
	labels  []float64
	outputs []node
	// numOuts holds the outputs when they are all number literals.
	numOuts []float64
}

func (n *interpolateNode) each(fn func(node)) {
	fn(n.input)
	for _, o := range n.outputs {
		fn(o)
	}
}

// rampPosition is how far x has come from stop lo towards stop hi, 0 at
// lo and 1 at hi, when the output grows by the factor base per unit of
// input (the spec's exponential interpolation): the share of the whole
// growth base^(hi-lo) - 1 reached at x, base^(x-lo) - 1. Base 1 is the
// straight line. Coincident stops give 0.
func rampPosition(x, lo, hi, base float64) float64 {
	span, run := hi-lo, x-lo
	if span == 0 {
		return 0
	}
	if base == 1 {
		return run / span
	}
	return (math.Pow(base, run) - 1) / (math.Pow(base, span) - 1)
}

// factor is the interpolation position of x between the stops lower and
// upper: linear, exponential with the curve's base, or linear eased by
// the cubic Bézier.
func (in interpolation) factor(x, lower, upper float64) float64 {
	if in.kind == interpExponential {
		return rampPosition(x, lower, upper, in.base)
	}
	t := rampPosition(x, lower, upper, 1)
	if in.kind == interpCubicBezier {
		t = in.ease.at(t)
	}
	return t
}

func (n *interpolateNode) eval(c *EvalContext) (Value, error) {
	if len(n.labels) == 1 {
		return evalNode(c, n.outputs[0])
	}
	x, err := evalNum(c, n.input)
	if err != nil {
		return Value{}, err
	}
	if x <= n.labels[0] {
		return evalNode(c, n.outputs[0])
	}
	last := len(n.labels) - 1
	if x >= n.labels[last] {
		return evalNode(c, n.outputs[last])
	}
	i := stopIndex(n.labels, x)
	t := n.interp.factor(x, n.labels[i], n.labels[i+1])
	if n.numOuts != nil {
		return Number(lerp(n.numOuts[i], n.numOuts[i+1], t)), nil
	}
	lo, err := evalNode(c, n.outputs[i])
	if err != nil {
		return Value{}, err
	}
	hi, err := evalNode(c, n.outputs[i+1])
	if err != nil {
		return Value{}, err
	}
	return interpolateValues(n.t.Kind, lo, hi, t, n.space)
}

func interpolateValues(k TypeKind, lo, hi Value, t float64, space colorSpace) (Value, error) {
	switch k {
	case KindNumber:
		return Number(lerp(lo.n, hi.n, t)), nil
	case KindColor:
		return ColorValue(interpolateColor(lo.Color(), hi.Color(), t, space)), nil
	case KindArray:
		a, b := lo.Items(), hi.Items()
		out := make([]Value, len(a))
		for i := range a {
			if i < len(b) {
				out[i] = Number(lerp(a[i].n, b[i].n, t))
			}
		}
		return Array(out), nil
	case KindPadding, KindNumberArray:
		a, b := lo.Floats(), hi.Floats()
		if len(a) != len(b) {
			return Value{}, evalErr("Cannot interpolate values of different length. from: %s, to: %s", toStringJSON(lo), toStringJSON(hi))
		}
		out := make([]float64, len(a))
		for i := range a {
			out[i] = lerp(a[i], b[i], t)
		}
		return Value{kind: k, p: out}, nil
	case KindColorArray:
		a, b := lo.Colors(), hi.Colors()
		if len(a) != len(b) {
			return Value{}, evalErr("Cannot interpolate values of different length. from: %s, to: %s", toStringJSON(lo), toStringJSON(hi))
		}
		out := make([]Color, len(a))
		for i := range a {
			out[i] = interpolateColor(a[i], b[i], t, space)
		}
		return colorArrValue(out), nil
	case KindVariableAnchorOffsetCollection:
		a, _ := lo.p.(*VariableAnchorOffsets)
		b, _ := hi.p.(*VariableAnchorOffsets)
		if a == nil || b == nil || len(a.Anchors) != len(b.Anchors) {
			return Value{}, evalErr("Cannot interpolate values of different length. from: %s, to: %s", toStringJSON(lo), toStringJSON(hi))
		}
		out := &VariableAnchorOffsets{}
		for i := range a.Anchors {
			if a.Anchors[i] != b.Anchors[i] {
				return Value{}, evalErr("Cannot interpolate values containing mismatched anchors. from[%d]: %s, to[%d]: %s", i, a.Anchors[i], i, b.Anchors[i])
			}
			out.Anchors = append(out.Anchors, a.Anchors[i])
			out.Offsets = append(out.Offsets, [2]float64{lerp(a.Offsets[i][0], b.Offsets[i][0], t), lerp(a.Offsets[i][1], b.Offsets[i][1], t)})
		}
		return Value{kind: k, p: out}, nil
	case KindProjectionDefinition:
		return projValue(&ProjectionDefinition{From: projName(lo), To: projName(hi), Transition: t}), nil
	}
	return lo, nil
}

func projName(v Value) string {
	switch v.Kind() {
	case KindString:
		return v.s
	case KindProjectionDefinition:
		return v.Projection().To
	case KindArray:
		if it := v.Items(); len(it) > 1 {
			return it[1].s
		}
	}
	return ""
}

// interpolationSpaces is the color space of each interpolate operator.
var interpolationSpaces = map[string]colorSpace{"interpolate": spaceRGB, "interpolate-hcl": spaceHCL, "interpolate-lab": spaceLab}

// parseCurve reads an interpolation type (["linear"], ["exponential",
// base], ["cubic-bezier", x1, y1, x2, y2]); on failure it returns the
// message and the key path below the type where it applies.
func parseCurve(curve []any) (interpolation, string, []int) {
	switch curve[0] {
	case "linear":
		return interpolation{kind: interpLinear}, "", nil
	case "exponential":
		if len(curve) > 1 {
			if base, ok := curve[1].(float64); ok {
				return interpolation{kind: interpExponential, base: base}, "", nil
			}
		}
		return interpolation{}, "Exponential interpolation requires a numeric base.", []int{1}
	case "cubic-bezier":
		var p [4]float64
		ok := len(curve) == 5
		for i := 0; ok && i < 4; i++ {
			p[i], ok = curve[i+1].(float64)
			ok = ok && p[i] >= 0 && p[i] <= 1
		}
		if !ok {
			return interpolation{}, "Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.", nil
		}
		return interpolation{kind: interpCubicBezier, ease: cubicEase{p[0], p[1], p[2], p[3]}}, "", nil
	}
	return interpolation{}, fmt.Sprintf("Unknown interpolation type %s", toStringValue(jsonToValue(curve[0]))), []int{0}
}

// parseInterpolate reads [op, curve, input, label0, output0, ...]. The
// Lab and HCL variants interpolate colors (or color arrays when wanted).
func parseInterpolate(args []any, c *compiler) node {
	op := args[0].(string)
	// The interpolation type is read before the arguments are counted,
	// as GL's style-spec does: ["interpolate"] reports the missing type.
	var curve []any
	if len(args) > 1 {
		curve, _ = args[1].([]any)
	}
	if len(curve) == 0 {
		return c.fail("Expected an interpolation type expression.", 1)
	}
	in, why, keys := parseCurve(curve)
	if why != "" {
		return c.fail(why, append([]int{1}, keys...)...)
	}
	if len(args)-1 < 4 {
		return c.fail(fmt.Sprintf("Expected at least 4 arguments, but found only %d.", len(args)-1))
	}
	if (len(args)-1)%2 != 0 {
		return c.fail("Expected an even number of arguments.")
	}
	input := c.compileArg(args[2], 2, &NumberType)
	if input == nil {
		return nil
	}
	space := interpolationSpaces[op]
	st := stops{expr: "interpolate", outs: newOutputSet(c)}
	if space != spaceRGB && (c.want == nil || c.want.Kind != KindColorArray) {
		st.outs.want = typePtr(ColorType)
	}
	if !st.read(c, args, 3) {
		return nil
	}
	n := &interpolateNode{op: op, interp: in, input: input, space: space, labels: st.labels, outputs: st.outs.nodes}
	t := *st.outs.want
	ok := false
	switch t.Kind {
	case KindNumber, KindColor, KindPadding, KindNumberArray, KindColorArray, KindVariableAnchorOffsetCollection, KindProjectionDefinition:
		ok = true
	case KindArray:
		ok = t.item().Kind == KindNumber && t.N >= 0
	}
	if !ok {
		return c.fail(fmt.Sprintf("Type %s is not interpolatable.", t.String()))
	}
	n.t = t
	if t.Kind == KindNumber {
		outs := make([]float64, len(n.outputs))
		for i, o := range n.outputs {
			lit, ok := o.(*literalNode)
			if !ok || lit.v.Kind() != KindNumber {
				outs = nil
				break
			}
			outs[i] = lit.v.n
		}
		n.numOuts = outs
	}
	return n
}

// cubicEase is the easing curve of a CSS cubic-bezier(x1, y1, x2, y2):
// the cubic Bézier curve from (0, 0) to (1, 1) with control points
// (x1, y1) and (x2, y2), read as y as a function of x.
type cubicEase struct{ x1, y1, x2, y2 float64 }

// bezierCoord is one coordinate of a cubic Bézier from 0 to 1 with inner
// control values p1 and p2, at parameter t (Bernstein form).
func bezierCoord(p1, p2, t float64) float64 {
	u := 1 - t
	return 3*u*u*t*p1 + 3*u*t*t*p2 + t*t*t
}

// bezierSlope is the derivative of bezierCoord in t.
func bezierSlope(p1, p2, t float64) float64 {
	u := 1 - t
	return 3*u*u*p1 + 6*u*t*(p2-p1) + 3*t*t*(1-p2)
}

// at returns y where the curve's x equals x (clamped to 0..1): the
// parameter is found by Newton's method kept inside a bracket that
// bisection narrows whenever a Newton step would leave it.
func (c cubicEase) at(x float64) float64 {
	x = math.Max(0, math.Min(1, x))
	lo, hi, t := 0.0, 1.0, x
	for i := 0; i < 64; i++ {
		dx := bezierCoord(c.x1, c.x2, t) - x
		if math.Abs(dx) < 1e-12 {
			break
		}
		if dx > 0 {
			hi = t
		} else {
			lo = t
		}
		next := (lo + hi) / 2
		if d := bezierSlope(c.x1, c.x2, t); d != 0 {
			if n := t - dx/d; n > lo && n < hi {
				next = n
			}
		}
		t = next
	}
	return bezierCoord(c.y1, c.y2, t)
}
