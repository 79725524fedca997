package expr

import (
	"fmt"
	"math"
	"strings"
)

// literalNode is a constant.
type literalNode struct {
	nodeBase
	v Value
}

func (n *literalNode) eval(*EvalContext) (Value, error) { return n.v, nil }
func (n *literalNode) each(func(node))                  {}

func parseLiteral(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("'literal' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	v := jsonToValue(args[1])
	t := typeOfValue(v)
	if t.Kind == KindArray && t.N == 0 && c.want != nil && c.want.Kind == KindArray && (c.want.N < 0 || c.want.N == 0) {
		t = *c.want
	}
	return &literalNode{nodeBase: nodeBase{t: t}, v: v}
}

// semiliteralNode is an array whose array elements are expressions.
type semiliteralNode struct {
	nodeBase
	items []node
}

func (n *semiliteralNode) eval(c *EvalContext) (Value, error) {
	out := make([]Value, len(n.items))
	for i, it := range n.items {
		v, err := evalNode(c, it)
		if err != nil {
			return Value{}, err
		}
		out[i] = v
	}
	return Array(out), nil
}

func (n *semiliteralNode) each(fn func(node)) {
	for _, it := range n.items {
		fn(it)
	}
}

func parseSemiliteral(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("'semiliteral' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	arr, ok := args[1].([]any)
	if !ok {
		return parseLiteral(args, c)
	}
	sub := c.at(1)
	items := make([]node, len(arr))
	var it Type
	for i, el := range arr {
		var n node
		if _, isArr := el.([]any); isArr {
			n = sub.at(i).compile(el, convertAuto)
			if n == nil {
				return nil
			}
		} else {
			v := jsonToValue(el)
			n = &literalNode{nodeBase: nodeBase{t: typeOfValue(v)}, v: v}
		}
		items[i] = n
		t := n.base().t
		switch {
		case i == 0:
			it = t
		case t.Kind == KindArray || it.Kind == KindArray || t.Kind != it.Kind:
			it = ValueType
		}
	}
	if len(arr) == 0 {
		it = ValueType
	}
	return &semiliteralNode{nodeBase: nodeBase{t: ArrayOf(it, len(arr))}, items: items}
}

// assertionNode checks the runtime type of its first non-failing argument.
type assertionNode struct {
	nodeBase
	args []node
}

func (n *assertionNode) each(fn func(node)) {
	for _, a := range n.args {
		fn(a)
	}
}

func (n *assertionNode) eval(c *EvalContext) (Value, error) {
	if len(n.args) == 1 {
		// Fast path: an asserted feature property.
		if g, ok := n.args[0].(*compoundNode); ok && g.hasGetKey {
			v, found := c.property(g.getKey)
			if !found {
				v = Null()
			}
			if v.kind == n.t.Kind && n.t.Kind != KindArray {
				return v, nil
			}
		}
	}
	// The first argument of the type is the result; none is an error
	// naming the type of the last.
	var last Value
	for _, a := range n.args {
		v, err := evalNode(c, a)
		if err != nil {
			return Value{}, err
		}
		if valueMatches(n.t, v) {
			return v, nil
		}
		last = v
	}
	if len(n.args) == 0 {
		return Null(), nil
	}
	return Value{}, evalErr("Expected value to be of type %s, but found %s instead.", n.t.String(), typeOfValue(last).String())
}

// scalarAsserts are the types "string", "number", "boolean" and "object"
// assert.
var scalarAsserts = map[string]Type{"string": StringType, "number": NumberType, "boolean": BooleanType, "object": ObjectType}

// arrayItemTypes are the item types "array" may assert.
var arrayItemTypes = map[string]Type{"string": StringType, "number": NumberType, "boolean": BooleanType}

// parseScalarAssert reads ["string" | "number" | "boolean" | "object",
// value, ...]: the first value of the type is the result.
func parseScalarAssert(args []any, c *compiler) node {
	if len(args) < 2 {
		return c.fail("Expected at least one argument.")
	}
	return assertValues(c, scalarAsserts[args[0].(string)], args, 1)
}

// parseArrayAssert reads ["array", value], ["array", item, value] and
// ["array", item, length, value, ...]: how many arguments there are says
// how much of the header (item type, length) is given.
func parseArrayAssert(args []any, c *compiler) node {
	given := len(args) - 1
	if given < 1 {
		return c.fail("Expected at least one argument.")
	}
	header := min(given-1, 2)
	item, length := ValueType, -1
	if header >= 1 {
		name, _ := args[1].(string)
		t, ok := arrayItemTypes[name]
		if !ok {
			return c.fail(`The item type argument of "array" must be one of string, number, boolean`, 1)
		}
		item = t
	}
	if header == 2 {
		n, ok := arrayLength(args[2])
		if !ok {
			return c.fail(`The length argument to "array" must be a positive integer literal`, 2)
		}
		length = n
	}
	return assertValues(c, ArrayOf(item, length), args, 1+header)
}

// arrayLength reads the length argument of "array": a whole number from 0
// (at most 2^30), or null for any length.
func arrayLength(arg any) (int, bool) {
	if arg == nil {
		return -1, true
	}
	f, ok := arg.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > 1<<30 {
		return 0, false
	}
	return int(f), true
}

// assertValues compiles args[from:] as the values an assertion of t
// tries in order.
func assertValues(c *compiler, t Type, args []any, from int) node {
	values := make([]node, 0, len(args)-from)
	for i := from; i < len(args); i++ {
		v := c.compileArg(args[i], i, &ValueType)
		if v == nil {
			return nil
		}
		values = append(values, v)
	}
	return &assertionNode{nodeBase: nodeBase{t: t}, args: values}
}

// coercionNode converts its argument(s) to the node type.
type coercionNode struct {
	nodeBase
	args []node
}

func (n *coercionNode) each(fn func(node)) {
	for _, a := range n.args {
		fn(a)
	}
}

var coercionTypes = map[string]Type{"to-boolean": BooleanType, "to-color": ColorType, "to-number": NumberType, "to-string": StringType}

func parseCoercion(args []any, c *compiler) node {
	if len(args) < 2 {
		return c.fail("Expected at least one argument.")
	}
	name := args[0].(string)
	if (name == "to-boolean" || name == "to-string") && len(args) != 2 {
		return c.fail("Expected one argument.")
	}
	var parsed []node
	for i := 1; i < len(args); i++ {
		in := c.compileArg(args[i], i, &ValueType)
		if in == nil {
			return nil
		}
		parsed = append(parsed, in)
	}
	return &coercionNode{nodeBase: nodeBase{t: coercionTypes[name]}, args: parsed}
}

func quoteInput(v Value) string {
	if v.Kind() == KindString {
		return v.s
	}
	return toStringJSON(v)
}

func toStringJSON(v Value) string {
	b, _ := v.MarshalJSON()
	return string(b)
}

// eval converts the first argument that converts. Boolean, string,
// formatted and image conversions always succeed on their one argument;
// the others try their arguments in order and fail with the reason the
// last one gave, or with the target's "could not" message.
func (n *coercionNode) eval(c *EvalContext) (Value, error) {
	target := n.t.Kind
	var last Value
	var why string
	for _, a := range n.args {
		v, err := evalNode(c, a)
		if err != nil {
			return Value{}, err
		}
		out, ok, reason := convertValue(c, target, v)
		if ok {
			return out, nil
		}
		last, why = v, reason
	}
	switch {
	case why != "":
		return Value{}, evalMsg(why)
	case target == KindNumber:
		return Value{}, evalErr("Could not convert %s to number.", toStringJSON(last))
	case target == KindColor:
		return Value{}, evalErr("Could not parse color from value '%s'", quoteInput(last))
	}
	return Value{}, evalErr("Could not parse %s from value '%s'", n.t.String(), quoteInput(last))
}

// convertValue converts v to the target kind: the result, whether it
// converted, and for a failed color conversion of an array the reason.
func convertValue(c *EvalContext, target TypeKind, v Value) (Value, bool, string) {
	switch target {
	case KindBoolean:
		return Bool(truthy(v)), true, ""
	case KindNumber:
		if v.IsNull() {
			return Number(0), true, ""
		}
		f, ok := jsToNumber(v)
		return Number(f), ok, ""
	case KindColor:
		col, ok, why := toColor(v)
		return ColorValue(col), ok, why
	case KindFormatted:
		if v.Kind() == KindFormatted {
			return v, true, ""
		}
		return formattedValue(&Formatted{Sections: []FormattedSection{{Text: toStringValue(v)}}}), true, ""
	case KindResolvedImage:
		if v.Kind() == KindResolvedImage {
			return v, true, ""
		}
		name := toStringValue(v)
		if name == "" {
			return Null(), true, ""
		}
		return imageValue(&ResolvedImage{Name: name, Available: c.AvailableImages[name]}), true, ""
	case KindPadding, KindNumberArray, KindColorArray, KindVariableAnchorOffsetCollection, KindProjectionDefinition:
		out, ok := coerceSpecial(target, v)
		return out, ok, ""
	}
	return String(toStringValue(v)), true, ""
}

// toColor converts a string, color or [r,g,b(,a)] array to a color.
func toColor(v Value) (Color, bool, string) {
	switch v.Kind() {
	case KindColor:
		return v.Color(), true, ""
	case KindString:
		col, ok := ParseColor(v.s)
		return col, ok, ""
	case KindArray:
		items := v.Items()
		if len(items) < 3 || len(items) > 4 {
			return Color{}, false, fmt.Sprintf("Invalid rgba value %s: expected an array containing either three or four numeric values.", toStringJSON(v))
		}
		var f [4]float64
		f[3] = 1
		for i, it := range items {
			if it.Kind() != KindNumber {
				return Color{}, false, fmt.Sprintf("Invalid rgba value %s: expected an array containing either three or four numeric values.", toStringJSON(v))
			}
			f[i] = it.n
		}
		var ap *float64
		if len(items) == 4 {
			ap = &f[3]
		}
		if msg := validateRGBA(f[0], f[1], f[2], ap); msg != "" {
			return Color{}, false, msg
		}
		return Color{f[0] / 255, f[1] / 255, f[2] / 255, f[3]}, true, ""
	}
	return Color{}, false, ""
}

func coerceSpecial(k TypeKind, v Value) (Value, bool) {
	switch k {
	case KindPadding:
		if v.Kind() == KindPadding {
			return v, true
		}
		var f []float64
		switch v.Kind() {
		case KindNumber:
			f = []float64{v.n}
		case KindArray:
			for _, it := range v.Items() {
				if it.Kind() != KindNumber {
					return Value{}, false
				}
				f = append(f, it.n)
			}
		default:
			return Value{}, false
		}
		if len(f) == 0 || len(f) > 4 {
			return Value{}, false
		}
		// CSS shorthand: top, right, bottom, left; a missing side copies
		// its opposite, and a missing right copies the top.
		var sides [4]float64
		for side, from := range paddingShorthand[len(f)] {
			sides[side] = f[from]
		}
		return paddingValue(sides[:]), true
	case KindNumberArray:
		if v.Kind() == KindNumberArray {
			return v, true
		}
		switch v.Kind() {
		case KindNumber:
			return numberArrValue([]float64{v.n}), true
		case KindArray:
			f := []float64{}
			for _, it := range v.Items() {
				if it.Kind() != KindNumber {
					return Value{}, false
				}
				f = append(f, it.n)
			}
			return numberArrValue(f), true
		}
		return Value{}, false
	case KindColorArray:
		if v.Kind() == KindColorArray {
			return v, true
		}
		switch v.Kind() {
		case KindColor:
			return colorArrValue([]Color{v.Color()}), true
		case KindString:
			if col, ok := ParseColor(v.s); ok {
				return colorArrValue([]Color{col}), true
			}
		case KindArray:
			cs := []Color{}
			for _, it := range v.Items() {
				var col Color
				var ok bool
				switch it.Kind() {
				case KindColor:
					col, ok = it.Color(), true
				case KindString:
					col, ok = ParseColor(it.s)
				}
				if !ok {
					return Value{}, false
				}
				cs = append(cs, col)
			}
			return colorArrValue(cs), true
		}
		return Value{}, false
	case KindProjectionDefinition:
		switch v.Kind() {
		case KindProjectionDefinition, KindString:
			return v, true
		case KindArray:
			it := v.Items()
			if len(it) == 3 && it[0].Kind() == KindString && it[1].Kind() == KindString && it[2].Kind() == KindNumber {
				return v, true
			}
		case KindObject:
			o := v.Obj()
			from, ok1 := o.Get("from")
			to, ok2 := o.Get("to")
			tr, ok3 := o.Get("transition")
			if ok1 && ok2 && ok3 && from.Kind() == KindString && to.Kind() == KindString && tr.Kind() == KindNumber {
				return projValue(&ProjectionDefinition{From: from.s, To: to.s, Transition: tr.n}), true
			}
		}
		return Value{}, false
	case KindVariableAnchorOffsetCollection:
		if v.Kind() == KindVariableAnchorOffsetCollection {
			return v, true
		}
		items := v.Items()
		if v.Kind() != KindArray || len(items)%2 != 0 {
			return Value{}, false
		}
		out := &VariableAnchorOffsets{}
		for i := 0; i < len(items); i += 2 {
			a, off := items[i], items[i+1].Items()
			if a.Kind() != KindString || !validAnchor(a.s) || len(off) != 2 || off[0].Kind() != KindNumber || off[1].Kind() != KindNumber {
				return Value{}, false
			}
			out.Anchors = append(out.Anchors, a.s)
			out.Offsets = append(out.Offsets, [2]float64{off[0].n, off[1].n})
		}
		return Value{kind: KindVariableAnchorOffsetCollection, p: out}, true
	}
	return Value{}, false
}

// paddingShorthand is, by the number of values given, which value each
// side (top, right, bottom, left) takes.
var paddingShorthand = [5][4]int{1: {0, 0, 0, 0}, 2: {0, 1, 0, 1}, 3: {0, 1, 2, 1}, 4: {0, 1, 2, 3}}

func validAnchor(s string) bool {
	switch s {
	case "center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right":
		return true
	}
	return false
}

// letNode binds names for its body.
type letNode struct {
	nodeBase
	bindings []scopeBinding
	body     node
}

func (n *letNode) eval(c *EvalContext) (Value, error) { return evalNode(c, n.body) }
func (n *letNode) each(fn func(node)) {
	for _, b := range n.bindings {
		fn(b.n)
	}
	fn(n.body)
}

// validVarName reports whether name may name a "let" variable: ASCII
// letters, digits and underscores only (the empty name included).
func validVarName(name string) bool {
	return strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}) < 0
}

func parseLet(args []any, c *compiler) node {
	if len(args) < 4 {
		return c.fail(fmt.Sprintf("Expected at least 3 arguments, but found %d instead.", len(args)-1))
	}
	var bindings []scopeBinding
	for i := 1; i < len(args)-1; i += 2 {
		name, ok := args[i].(string)
		if !ok {
			return c.fail(fmt.Sprintf("Expected string, but found %s instead.", jsTypeof(args[i])), i)
		}
		if !validVarName(name) {
			return c.fail("Variable names must contain only alphanumeric characters or '_'.", i)
		}
		v := c.compileArg(args[i+1], i+1, nil)
		if v == nil {
			return nil
		}
		bindings = append(bindings, scopeBinding{name: name, n: v})
	}
	body := c.compileBody(args[len(args)-1], len(args)-1, c.want, bindings)
	if body == nil {
		return nil
	}
	return &letNode{nodeBase: nodeBase{t: body.base().t}, bindings: bindings, body: body}
}

// varNode refers to a let binding.
type varNode struct {
	nodeBase
	name  string
	bound node
}

func (n *varNode) eval(c *EvalContext) (Value, error) { return evalNode(c, n.bound) }
func (n *varNode) each(func(node))                    {}

func parseVar(args []any, c *compiler) node {
	name, ok := "", len(args) == 2
	if ok {
		name, ok = args[1].(string)
	}
	if !ok {
		return c.fail("'var' expression requires exactly one string literal argument.")
	}
	b, found := c.vars.get(name)
	if !found {
		return c.fail(fmt.Sprintf(`Unknown variable "%s". Make sure "%s" has been bound in an enclosing "let" expression before using it.`, name, name), 1)
	}
	return &varNode{nodeBase: nodeBase{t: b.base().t}, name: name, bound: b}
}
