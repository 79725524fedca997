package expr

import (
	"fmt"
	"math"
	"strings"
)

type evalFn func(c *EvalContext, args []node) (Value, error)

type overload struct {
	params  []Type
	varargs bool // params[0] repeated
	fn      evalFn
}

type compoundDef struct {
	t         Type
	overloads []overload
}

// compoundNode is a call of a fixed-signature function.
type compoundNode struct {
	nodeBase
	name string
	args []node
	fn   evalFn
	// getKey is the constant key of a one-argument "get" (fast path).
	getKey    string
	hasGetKey bool
}

func (n *compoundNode) each(fn func(node)) {
	for _, a := range n.args {
		fn(a)
	}
}

func (n *compoundNode) eval(c *EvalContext) (Value, error) {
	if n.hasGetKey {
		if v, ok := c.property(n.getKey); ok {
			return v, nil
		}
		return Null(), nil
	}
	return n.fn(c, n.args)
}

func sig(params ...Type) []Type { return params }

func fixed(t Type, params []Type, fn evalFn) compoundDef {
	return compoundDef{t: t, overloads: []overload{{params: params, fn: fn}}}
}

func varargs(t Type, param Type, fn evalFn) compoundDef {
	return compoundDef{t: t, overloads: []overload{{params: []Type{param}, varargs: true, fn: fn}}}
}

func stringifySignature(o overload) string {
	if o.varargs {
		return "(" + o.params[0].String() + "...)"
	}
	return "(" + joinTypes(o.params) + ")"
}

func evalNum(c *EvalContext, n node) (float64, error) {
	return evalNumberNode(c, n)
}

func evalStr(c *EvalContext, n node) (string, error) {
	v, err := evalNode(c, n)
	if err != nil {
		return "", err
	}
	return v.s, nil
}

func evalBool(c *EvalContext, n node) (bool, error) {
	return evalBoolNode(c, n)
}

func math1(f func(float64) float64) compoundDef {
	return fixed(NumberType, sig(NumberType), func(c *EvalContext, a []node) (Value, error) {
		x, err := evalNum(c, a[0])
		if err != nil {
			return Value{}, err
		}
		return Number(f(x)), nil
	})
}

func math2(f func(float64, float64) float64) compoundDef {
	return fixed(NumberType, sig(NumberType, NumberType), func(c *EvalContext, a []node) (Value, error) {
		x, err := evalNum(c, a[0])
		if err != nil {
			return Value{}, err
		}
		y, err := evalNum(c, a[1])
		if err != nil {
			return Value{}, err
		}
		return Number(f(x, y)), nil
	})
}

func constNum(f float64) compoundDef {
	return fixed(NumberType, sig(), func(*EvalContext, []node) (Value, error) { return Number(f), nil })
}

func rgbaFn(c *EvalContext, a []node) (Value, error) {
	var f [4]float64
	f[3] = 1
	for i, n := range a {
		x, err := evalNum(c, n)
		if err != nil {
			return Value{}, err
		}
		f[i] = x
	}
	if msg := validateRGBA(f[0], f[1], f[2], &f[3]); msg != "" {
		return Value{}, evalMsg(msg)
	}
	return ColorValue(Color{f[0] / 255, f[1] / 255, f[2] / 255, f[3]}), nil
}

func getFrom(key string, o *Object) Value {
	if v, ok := o.Get(key); ok {
		return v
	}
	return Null()
}

var compoundDefs map[string]compoundDef

func init() {
	compoundDefs = map[string]compoundDef{
		"error": fixed(ErrorType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return Value{}, evalMsg(s)
		}),
		"typeof": fixed(StringType, sig(ValueType), func(c *EvalContext, a []node) (Value, error) {
			v, err := evalNode(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return String(typeOfValue(v).String()), nil
		}),
		"to-rgba": fixed(ArrayOf(NumberType, 4), sig(ColorType), func(c *EvalContext, a []node) (Value, error) {
			v, err := evalNode(c, a[0])
			if err != nil {
				return Value{}, err
			}
			col := v.Color()
			return Array([]Value{Number(col.R * 255), Number(col.G * 255), Number(col.B * 255), Number(col.A)}), nil
		}),
		"rgb":  fixed(ColorType, sig(NumberType, NumberType, NumberType), rgbaFn),
		"rgba": fixed(ColorType, sig(NumberType, NumberType, NumberType, NumberType), rgbaFn),
		"has": {t: BooleanType, overloads: []overload{
			{params: sig(StringType), fn: func(c *EvalContext, a []node) (Value, error) {
				k, err := evalStr(c, a[0])
				if err != nil {
					return Value{}, err
				}
				_, ok := c.property(k)
				return Bool(ok), nil
			}},
			{params: sig(StringType, ObjectType), fn: func(c *EvalContext, a []node) (Value, error) {
				k, err := evalStr(c, a[0])
				if err != nil {
					return Value{}, err
				}
				o, err := evalNode(c, a[1])
				if err != nil {
					return Value{}, err
				}
				_, ok := o.Obj().Get(k)
				return Bool(ok), nil
			}},
		}},
		"get": {t: ValueType, overloads: []overload{
			{params: sig(StringType), fn: func(c *EvalContext, a []node) (Value, error) {
				k, err := evalStr(c, a[0])
				if err != nil {
					return Value{}, err
				}
				if v, ok := c.property(k); ok {
					return v, nil
				}
				return Null(), nil
			}},
			{params: sig(StringType, ObjectType), fn: func(c *EvalContext, a []node) (Value, error) {
				k, err := evalStr(c, a[0])
				if err != nil {
					return Value{}, err
				}
				o, err := evalNode(c, a[1])
				if err != nil {
					return Value{}, err
				}
				return getFrom(k, o.Obj()), nil
			}},
		}},
		"feature-state": fixed(ValueType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			k, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return getFrom(k, c.FeatureState), nil
		}),
		"properties": fixed(ObjectType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			return ObjectValue(c.properties()), nil
		}),
		"geometry-type": fixed(StringType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			t := c.geometryType()
			if t == "" {
				return Null(), nil
			}
			return String(t), nil
		}),
		"id": fixed(ValueType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			if c.Feature == nil {
				return Null(), nil
			}
			return c.Feature.ID(), nil
		}),
		"zoom":            fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.Zoom), nil }),
		"heatmap-density": fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.HeatmapDensity), nil }),
		"elevation":       fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.Elevation), nil }),
		"line-progress":   fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.LineProgress), nil }),
		"accumulated": fixed(ValueType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			if c.Accumulated == nil {
				return Null(), nil
			}
			return Number(*c.Accumulated), nil
		}),
		"+": varargs(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
			sum := 0.0
			for _, n := range a {
				x, err := evalNum(c, n)
				if err != nil {
					return Value{}, err
				}
				sum += x
			}
			return Number(sum), nil
		}),
		"*": varargs(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
			p := 1.0
			for _, n := range a {
				x, err := evalNum(c, n)
				if err != nil {
					return Value{}, err
				}
				p *= x
			}
			return Number(p), nil
		}),
		"-": {t: NumberType, overloads: []overload{
			{params: sig(NumberType, NumberType), fn: math2(func(x, y float64) float64 { return x - y }).overloads[0].fn},
			{params: sig(NumberType), fn: math1(func(x float64) float64 { return -x }).overloads[0].fn},
		}},
		"/":     math2(func(x, y float64) float64 { return x / y }),
		"%":     math2(math.Mod),
		"^":     math2(math.Pow),
		"ln2":   constNum(math.Ln2),
		"pi":    constNum(math.Pi),
		"e":     constNum(math.E),
		"sqrt":  math1(math.Sqrt),
		"log10": math1(math.Log10),
		"ln":    math1(math.Log),
		"log2":  math1(math.Log2),
		"sin":   math1(math.Sin),
		"cos":   math1(math.Cos),
		"tan":   math1(math.Tan),
		"asin":  math1(math.Asin),
		"acos":  math1(math.Acos),
		"atan":  math1(math.Atan),
		"min": varargs(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
			m := math.Inf(1)
			for _, n := range a {
				x, err := evalNum(c, n)
				if err != nil {
					return Value{}, err
				}
				m = math.Min(m, x)
			}
			return Number(m), nil
		}),
		"max": varargs(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
			m := math.Inf(-1)
			for _, n := range a {
				x, err := evalNum(c, n)
				if err != nil {
					return Value{}, err
				}
				m = math.Max(m, x)
			}
			return Number(m), nil
		}),
		"round": math1(func(x float64) float64 {
			if x < 0 {
				return -jsRound(-x)
			}
			return jsRound(x)
		}),
		"floor": math1(math.Floor),
		"ceil":  math1(math.Ceil),
		"abs":   math1(math.Abs),
		"all": {t: BooleanType, overloads: []overload{
			{params: sig(BooleanType, BooleanType), fn: allFn},
			{params: sig(BooleanType), varargs: true, fn: allFn},
		}},
		"any": {t: BooleanType, overloads: []overload{
			{params: sig(BooleanType, BooleanType), fn: anyFn},
			{params: sig(BooleanType), varargs: true, fn: anyFn},
		}},
		"!": fixed(BooleanType, sig(BooleanType), func(c *EvalContext, a []node) (Value, error) {
			b, err := evalBool(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return Bool(!b), nil
		}),
		"is-supported-script": fixed(BooleanType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			if c.IsSupportedScript != nil {
				return Bool(c.IsSupportedScript(s)), nil
			}
			return Bool(true), nil
		}),
		"upcase": fixed(StringType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return String(strings.ToUpper(s)), nil
		}),
		"downcase": fixed(StringType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return String(strings.ToLower(s)), nil
		}),
		"concat": varargs(StringType, ValueType, func(c *EvalContext, a []node) (Value, error) {
			var sb strings.Builder
			for _, n := range a {
				v, err := evalNode(c, n)
				if err != nil {
					return Value{}, err
				}
				sb.WriteString(toStringValue(v))
			}
			return String(sb.String()), nil
		}),
		"resolved-locale": fixed(StringType, sig(CollatorType), func(c *EvalContext, a []node) (Value, error) {
			v, err := evalNode(c, a[0])
			if err != nil {
				return Value{}, err
			}
			col, _ := v.p.(*Collator)
			if col == nil {
				return String(defaultLocale), nil
			}
			return String(col.ResolvedLocale()), nil
		}),
		"split": fixed(ArrayOf(StringType, -1), sig(StringType, StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			sep, err := evalStr(c, a[1])
			if err != nil {
				return Value{}, err
			}
			parts := strings.Split(s, sep)
			if s == "" && sep == "" {
				parts = nil
			}
			out := make([]Value, len(parts))
			for i, p := range parts {
				out[i] = String(p)
			}
			return Array(out), nil
		}),
		"join": fixed(StringType, sig(ArrayOf(StringType, -1), StringType), func(c *EvalContext, a []node) (Value, error) {
			arr, err := evalNode(c, a[0])
			if err != nil {
				return Value{}, err
			}
			sep, err := evalStr(c, a[1])
			if err != nil {
				return Value{}, err
			}
			items := arr.Items()
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = toStringValue(it)
			}
			return String(strings.Join(parts, sep)), nil
		}),
	}
	registerFilterOps()
}

func allFn(c *EvalContext, a []node) (Value, error) {
	for _, n := range a {
		b, err := evalBool(c, n)
		if err != nil {
			return Value{}, err
		}
		if !b {
			return Bool(false), nil
		}
	}
	return Bool(true), nil
}

func anyFn(c *EvalContext, a []node) (Value, error) {
	for _, n := range a {
		b, err := evalBool(c, n)
		if err != nil {
			return Value{}, err
		}
		if b {
			return Bool(true), nil
		}
	}
	return Bool(false), nil
}

func parseCompound(args []any, c *pctx) node {
	op := args[0].(string)
	def := compoundDefs[op]
	var cands []overload
	for _, o := range def.overloads {
		if o.varargs || len(o.params) == len(args)-1 {
			cands = append(cands, o)
		}
	}
	var sigState *parseState
	tried := map[string]bool{}
	for _, o := range cands {
		// Overloads expecting the same argument types fail the same way.
		// Built once per overload, in time linear in the arguments (a
		// string grown by += made a 50,000-term "all" quadratic: 8 s, 10 GB).
		var sb strings.Builder
		for i := 1; i < len(args); i++ {
			exp := o.params[0]
			if !o.varargs {
				exp = o.params[i-1]
			}
			sb.WriteString(exp.String())
			sb.WriteByte(',')
		}
		sigKey := sb.String()
		if tried[sigKey] {
			continue
		}
		tried[sigKey] = true
		sigState = &parseState{budget: c.st.budget, limit: c.st.limit}
		sc := &pctx{key: c.key, depth: c.depth, scope: c.scope, st: sigState}
		parsed := make([]node, 0, len(args)-1)
		failed := false
		for i := 1; i < len(args); i++ {
			exp := o.params[0]
			if !o.varargs {
				exp = o.params[i-1]
			}
			p := sc.parse(args[i], len(parsed)+1, &exp, annotDefault)
			if p == nil {
				failed = true
				break
			}
			parsed = append(parsed, p)
		}
		c.st.budget = sigState.budget
		if failed {
			continue
		}
		for i, p := range parsed {
			exp := o.params[0]
			if !o.varargs {
				exp = o.params[i]
			}
			sc.concat(i+1, nil, nil).checkSubtype(exp, p.base().t)
		}
		if len(sigState.errs) == 0 {
			n := &compoundNode{nodeBase: nodeBase{t: def.t}, name: op, args: parsed, fn: o.fn}
			if op == "get" && len(parsed) == 1 {
				if lit, ok := parsed[0].(*literalNode); ok && lit.v.Kind() == KindString {
					n.getKey, n.hasGetKey = lit.v.s, true
				}
			}
			return n
		}
	}
	if len(cands) == 1 {
		c.st.errs = append(c.st.errs, sigState.errs...)
		return nil
	}
	expected := cands
	if len(expected) == 0 {
		expected = def.overloads
	}
	sigs := make([]string, len(expected))
	for i, o := range expected {
		sigs[i] = stringifySignature(o)
	}
	var actual []string
	for i := 1; i < len(args); i++ {
		p := c.parse(args[i], len(actual)+1, nil, annotDefault)
		if p == nil {
			return nil
		}
		actual = append(actual, p.base().t.String())
	}
	return c.error(fmt.Sprintf("Expected arguments of type %s, but found (%s) instead.", strings.Join(sigs, " | "), strings.Join(actual, ", ")))
}
