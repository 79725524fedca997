package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

type evalFn func(c *EvalContext, args []node) (Value, error)

// signature is one way of calling a fixed-signature function: its
// parameter types (with repeat, any number of arguments of params[0]),
// what the call reads besides its arguments, and its implementation.
type signature struct {
	params []Type
	repeat bool
	reads  inputs
	fn     evalFn
}

// param is the type wanted for argument i (0-based).
func (s signature) param(i int) Type {
	if s.repeat {
		return s.params[0]
	}
	return s.params[i]
}

// accepts reports whether the signature takes n arguments.
func (s signature) accepts(n int) bool { return s.repeat || len(s.params) == n }

// String writes the signature as the error messages show it.
func (s signature) String() string {
	if s.repeat {
		return "(" + s.params[0].String() + "...)"
	}
	return "(" + joinTypes(s.params) + ")"
}

// funcDef is a fixed-signature function: its result type and signatures,
// tried in order.
type funcDef struct {
	t    Type
	sigs []signature
}

// reading marks every signature of d as reading in.
func (d funcDef) reading(in inputs) funcDef {
	sigs := make([]signature, len(d.sigs))
	for i, s := range d.sigs {
		s.reads |= in
		sigs[i] = s
	}
	d.sigs = sigs
	return d
}

// compoundNode is a call of a fixed-signature function.
type compoundNode struct {
	nodeBase
	name  string
	args  []node
	fn    evalFn
	reads inputs
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

// fixed defines a function with one signature.
func fixed(t Type, params []Type, fn evalFn) funcDef {
	return funcDef{t: t, sigs: []signature{{params: params, fn: fn}}}
}

// variadic defines a function taking any number of arguments of one type.
func variadic(t Type, param Type, fn evalFn) funcDef {
	return funcDef{t: t, sigs: []signature{{params: []Type{param}, repeat: true, fn: fn}}}
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

func math1(f func(float64) float64) funcDef {
	return fixed(NumberType, sig(NumberType), func(c *EvalContext, a []node) (Value, error) {
		x, err := evalNum(c, a[0])
		if err != nil {
			return Value{}, err
		}
		return Number(f(x)), nil
	})
}

func math2(f func(float64, float64) float64) funcDef {
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

func constNum(f float64) funcDef {
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

var funcDefs map[string]funcDef

func init() {
	funcDefs = map[string]funcDef{
		"error": fixed(ErrorType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			s, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return Value{}, evalMsg(s)
		}).reading(readsRuntime),
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
		"has": {t: BooleanType, sigs: []signature{
			{params: sig(StringType), reads: readsFeature, fn: func(c *EvalContext, a []node) (Value, error) {
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
		"get": {t: ValueType, sigs: []signature{
			{params: sig(StringType), reads: readsFeature, fn: func(c *EvalContext, a []node) (Value, error) {
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
		}).reading(readsFeature | readsState),
		"properties": fixed(ObjectType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			return ObjectValue(c.properties()), nil
		}).reading(readsFeature),
		"geometry-type": fixed(StringType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			t := c.geometryType()
			if t == "" {
				return Null(), nil
			}
			return String(t), nil
		}).reading(readsFeature),
		"id": fixed(ValueType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			if c.Feature == nil {
				return Null(), nil
			}
			return c.Feature.ID(), nil
		}).reading(readsFeature),
		"zoom":            fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.Zoom), nil }).reading(readsZoom),
		"heatmap-density": fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.HeatmapDensity), nil }).reading(readsEnv),
		"elevation":       fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.Elevation), nil }).reading(readsEnv),
		"line-progress":   fixed(NumberType, sig(), func(c *EvalContext, _ []node) (Value, error) { return Number(c.LineProgress), nil }).reading(readsEnv),
		"accumulated": fixed(ValueType, sig(), func(c *EvalContext, _ []node) (Value, error) {
			if c.Accumulated == nil {
				return Null(), nil
			}
			return Number(*c.Accumulated), nil
		}).reading(readsEnv),
		"+": variadic(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
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
		"*": variadic(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
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
		"-": {t: NumberType, sigs: []signature{
			{params: sig(NumberType, NumberType), fn: math2(func(x, y float64) float64 { return x - y }).sigs[0].fn},
			{params: sig(NumberType), fn: math1(func(x float64) float64 { return -x }).sigs[0].fn},
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
		"min": variadic(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
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
		"max": variadic(NumberType, NumberType, func(c *EvalContext, a []node) (Value, error) {
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
		"all": {t: BooleanType, sigs: []signature{
			{params: sig(BooleanType, BooleanType), fn: allFn},
			{params: sig(BooleanType), repeat: true, fn: allFn},
		}},
		"any": {t: BooleanType, sigs: []signature{
			{params: sig(BooleanType, BooleanType), fn: anyFn},
			{params: sig(BooleanType), repeat: true, fn: anyFn},
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
		}).reading(readsEnv),
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
		"concat": variadic(StringType, ValueType, func(c *EvalContext, a []node) (Value, error) {
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
	registerLegacyFilterOps()
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

// argFit is argument i compiled for one wanted type: the node, or nil,
// and the errors its compilation recorded.
type argFit struct {
	n    node
	errs []CompileError
}

// compileCall compiles a call of a fixed-signature function. The
// signatures taking the number of arguments given are scored in order by
// how many leading arguments compile cleanly for them; the first with a
// full score wins. Each argument is compiled once per distinct type
// wanted in its place, so signatures agreeing on a position share the
// work.
func compileCall(call []any, c *compiler) node {
	name := call[0].(string)
	def := funcDefs[name]
	args := call[1:]
	var cands []signature
	for _, s := range def.sigs {
		if s.accepts(len(args)) {
			cands = append(cands, s)
		}
	}
	fits := map[string]*argFit{}
	fitOf := func(s signature, i int) *argFit {
		want := s.param(i)
		key := strconv.Itoa(i) + ":" + want.String()
		if f, ok := fits[key]; ok {
			return f
		}
		run := &compileRun{work: c.run.work, maxWork: c.run.maxWork}
		sub := &compiler{path: c.path, depth: c.depth, vars: c.vars, run: run}
		f := &argFit{n: sub.compileArg(args[i], i+1, &want)}
		c.run.work = run.work
		f.errs = run.errs
		fits[key] = f
		return f
	}
	// score counts the leading arguments that fit s, with the errors met
	// on the way (those of the first misfit included).
	score := func(s signature) (int, []CompileError) {
		var errs []CompileError
		for i := range args {
			f := fitOf(s, i)
			errs = append(errs, f.errs...)
			if f.n == nil || len(f.errs) > 0 {
				return i, errs
			}
			if msg := subtypeError(s.param(i), f.n.base().t); msg != "" {
				return i, append(errs, CompileError{Key: c.at(i + 1).path, Message: msg})
			}
		}
		return len(args), errs
	}
	var lastErrs []CompileError
	for _, s := range cands {
		n, errs := score(s)
		if n < len(args) || len(errs) > 0 {
			lastErrs = errs
			continue
		}
		nodes := make([]node, len(args))
		for i := range args {
			nodes[i] = fitOf(s, i).n
		}
		call := &compoundNode{nodeBase: nodeBase{t: def.t}, name: name, args: nodes, fn: s.fn, reads: s.reads}
		if name == "get" && len(nodes) == 1 {
			if lit, ok := nodes[0].(*literalNode); ok && lit.v.Kind() == KindString {
				call.getKey, call.hasGetKey = lit.v.s, true
			}
		}
		return call
	}
	if len(cands) == 1 {
		c.run.errs = append(c.run.errs, lastErrs...)
		return nil
	}
	listed := cands
	if len(listed) == 0 {
		listed = def.sigs
	}
	sigs := make([]string, len(listed))
	for i, s := range listed {
		sigs[i] = s.String()
	}
	found := make([]string, len(args))
	for i, a := range args {
		n := c.compileArg(a, i+1, nil)
		if n == nil {
			return nil
		}
		found[i] = n.base().t.String()
	}
	return c.fail(fmt.Sprintf("Expected arguments of type %s, but found (%s) instead.", strings.Join(sigs, " | "), strings.Join(found, ", ")))
}
