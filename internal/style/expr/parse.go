package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// CompileError is a parse or type error with the key path of the offending
// sub-expression, e.g. "[1][2]" ("" for the root).
type CompileError struct {
	Key     string
	Message string
}

func (e CompileError) Error() string {
	if e.Key == "" {
		return e.Message
	}
	return e.Key + ": " + e.Message
}

// EvalError is an evaluation error with the key path of the sub-expression
// that raised it.
type EvalError struct {
	Key     string
	Message string
	keyed   bool
}

func (e *EvalError) Error() string {
	if e.Key == "" {
		return e.Message
	}
	return e.Key + ": " + e.Message
}

func evalErr(format string, args ...any) error {
	if len(args) == 0 {
		return &EvalError{Message: format}
	}
	return &EvalError{Message: fmt.Sprintf(format, args...)}
}

// node is a compiled expression.
type node interface {
	base() *nodeBase
	eval(c *EvalContext) (Value, error)
	each(fn func(node))
}

type nodeBase struct {
	t     Type
	key   string
	keyed bool
}

func (b *nodeBase) base() *nodeBase { return b }

// evalNode evaluates a child and tags an error with the key of the innermost
// keyed expression it passed through.
func evalNode(c *EvalContext, n node) (Value, error) {
	v, err := n.eval(c)
	if err != nil {
		return v, tagError(err, n)
	}
	return v, nil
}

func tagError(err error, n node) error {
	if ee, ok := err.(*EvalError); ok && !ee.keyed {
		if b := n.base(); b.keyed {
			ee.Key = b.key
			ee.keyed = true
		}
	}
	return err
}

// scope is one variable binding; the chain of them is what "var" sees.
type scope struct {
	parent *scope
	name   string
	n      node
}

func (s *scope) get(name string) (node, bool) {
	for ; s != nil; s = s.parent {
		if s.name == name {
			return s.n, true
		}
	}
	return nil, false
}

type scopeBinding struct {
	name string
	n    node
}

// compileRun is the state shared by every sub-expression of one
// compilation: the errors found so far and the work spent.
type compileRun struct {
	errs    []CompileError
	work    int
	maxWork int
}

// parseWorkLimit bounds the compile steps of one compilation: trying the
// signatures of overloaded functions can otherwise grow exponentially with
// nesting. Legitimate expressions compile each JSON node a few times.
func parseWorkLimit(doc any) int {
	return 8*countJSON(doc, 0) + 1000
}

func countJSON(v any, depth int) int {
	if depth > maxJSONDepth {
		return 1
	}
	n := 1
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			n += countJSON(x, depth+1)
		}
	case *jobj:
		for _, x := range t.vals {
			n += countJSON(x, depth+1)
		}
	}
	return n
}

// compiler compiles one position of an expression: it knows the key path
// of that position (for error messages), the type its parent wants there
// (nil: any), the variables in scope and the run it belongs to.
type compiler struct {
	path  string
	depth int
	want  *Type
	vars  *scope
	run   *compileRun
}

// child is the compiler of argument i (i <= 0: this position) wanting
// type want.
func (c *compiler) child(i int, want *Type) *compiler {
	path := c.path
	if i > 0 {
		path = c.path + "[" + strconv.Itoa(i) + "]"
	}
	return &compiler{path: path, depth: c.depth + 1, want: want, vars: c.vars, run: c.run}
}

// at is the compiler of argument i with no type wanted, for reporting
// errors against that argument.
func (c *compiler) at(i int) *compiler { return c.child(i, nil) }

// fail records an error at this position (or at the argument path keys
// below it) and returns nil, the "no node" result of a failed compile.
func (c *compiler) fail(msg string, keys ...int) node {
	path := c.path
	for _, k := range keys {
		path += "[" + strconv.Itoa(k) + "]"
	}
	c.run.errs = append(c.run.errs, CompileError{Key: path, Message: msg})
	return nil
}

// requireSubtype records an error when got does not fit where want is
// wanted.
func (c *compiler) requireSubtype(want, got Type) bool {
	msg := subtypeError(want, got)
	if msg == "" {
		return true
	}
	c.fail(msg)
	return false
}

func typePtr(t Type) *Type { return &t }

// compileArg compiles argument i of the expression at this position.
func (c *compiler) compileArg(expr any, i int, want *Type) node {
	return c.child(i, want).compile(expr, convertAuto)
}

// compileArgAsIs compiles argument i without a run-time conversion to
// want: a value whose type may not fit is accepted as it is.
func (c *compiler) compileArgAsIs(expr any, i int, want *Type) node {
	return c.child(i, want).compile(expr, convertNever)
}

// compileBody compiles argument i with extra variables in scope.
func (c *compiler) compileBody(expr any, i int, want *Type, vars []scopeBinding) node {
	sub := c.child(i, want)
	for _, b := range vars {
		sub.vars = &scope{parent: sub.vars, name: b.name, n: b.n}
	}
	return sub.compile(expr, convertAuto)
}

type parseFunc func(args []any, c *compiler) node

var registry map[string]parseFunc

func init() {
	registry = map[string]parseFunc{
		"let":             parseLet,
		"var":             parseVar,
		"literal":         parseLiteral,
		"semiliteral":     parseSemiliteral,
		"array":           parseArrayAssert,
		"boolean":         parseScalarAssert,
		"number":          parseScalarAssert,
		"string":          parseScalarAssert,
		"object":          parseScalarAssert,
		"to-boolean":      parseCoercion,
		"to-color":        parseCoercion,
		"to-number":       parseCoercion,
		"to-string":       parseCoercion,
		"at":              compileSeq,
		"in":              compileSeq,
		"index-of":        compileSeq,
		"slice":           compileSeq,
		"case":            parseCase,
		"match":           parseMatch,
		"coalesce":        parseCoalesce,
		"step":            parseStep,
		"interpolate":     parseInterpolate,
		"interpolate-hcl": parseInterpolate,
		"interpolate-lab": parseInterpolate,
		"==":              parseComparison,
		"!=":              parseComparison,
		"<":               parseComparison,
		"<=":              parseComparison,
		">":               parseComparison,
		">=":              parseComparison,
		"collator":        parseCollator,
		"format":          parseFormat,
		"image":           parseImage,
		"number-format":   parseNumberFormat,
		"length":          parseLength,
		"within":          parseWithin,
		"distance":        parseDistance,
		"global-state":    parseGlobalState,
	}
}

// conversion says how a sub-expression whose static type does not fit the
// wanted type may be made to fit at run time.
type conversion uint8

const (
	convertAuto   conversion = iota // as the wanted kind's rule says
	convertCoerce                   // by coercion wherever the rule allows any conversion
	convertNever                    // not at all: accept the node unconverted
)

// kindSet is a set of type kinds.
type kindSet uint32

func kinds(ks ...TypeKind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kindSet) has(k TypeKind) bool { return s&(1<<k) != 0 }

// fitRule is, for one wanted kind, which static kinds are brought to it
// at run time and how: by checking the value (an assertion that fails on
// a mismatch) or by converting it (a coercion).
type fitRule struct {
	from  kindSet
	check bool
}

// runtimeFit holds the rule of each wanted kind that has one; other kinds
// are only ever satisfied statically (subtyping).
var runtimeFit = func() [KindError + 1]fitRule {
	var r [KindError + 1]fitRule
	for _, k := range []TypeKind{KindString, KindNumber, KindBoolean, KindObject, KindArray} {
		r[k] = fitRule{from: kinds(KindValue), check: true}
	}
	for _, k := range []TypeKind{KindColor, KindFormatted, KindResolvedImage} {
		r[k] = fitRule{from: kinds(KindValue, KindString)}
	}
	for _, k := range []TypeKind{KindPadding, KindNumberArray} {
		r[k] = fitRule{from: kinds(KindValue, KindNumber, KindArray)}
	}
	r[KindColorArray] = fitRule{from: kinds(KindValue, KindColor, KindArray, KindString)}
	r[KindVariableAnchorOffsetCollection] = fitRule{from: kinds(KindValue, KindArray)}
	r[KindProjectionDefinition] = fitRule{from: kinds(KindValue, KindString, KindArray)}
	return r
}()

// compile turns one JSON value into a typed node fitted to c.want, folded
// to a literal when it is constant. It returns nil after recording errors.
func (c *compiler) compile(expr any, conv conversion) node {
	c.run.work++
	if c.run.work > c.run.maxWork {
		return c.fail("Expression is too complex.")
	}
	if c.depth > maxJSONDepth {
		return c.fail("Expression is nested too deeply.")
	}
	n := c.build(expr)
	if n == nil {
		return nil
	}
	c.tag(n)
	if c.want != nil {
		if n = c.fit(n, *c.want, conv); n == nil {
			return nil
		}
	}
	return c.fold(n)
}

// build dispatches a JSON value to the compile function of its operator.
func (c *compiler) build(expr any) node {
	var call []any
	switch e := expr.(type) {
	case nil, string, bool, float64:
		call = []any{"literal", e}
	case []any:
		call = e
	case *jobj:
		return c.fail(`Bare objects invalid. Use ["literal", {...}] instead.`)
	default:
		return c.fail(fmt.Sprintf("Expected an array, but found %s instead.", jsTypeof(expr)))
	}
	if len(call) == 0 {
		return c.fail(`Expected an array with at least one element. If you wanted a literal array, use ["literal", []].`)
	}
	op, isName := call[0].(string)
	if !isName {
		return c.fail(fmt.Sprintf(`Expression name must be a string, but found %s instead. If you wanted a literal array, use ["literal", [...]].`, jsTypeof(call[0])), 0)
	}
	if f, ok := registry[op]; ok {
		return f(call, c)
	}
	if _, ok := funcDefs[op]; ok {
		return compileCall(call, c)
	}
	return c.fail(fmt.Sprintf(`Unknown expression "%s". If you wanted a literal array, use ["literal", [...]].`, op), 0)
}

// fit makes n acceptable where want is wanted: unchanged when its type is
// a subtype, wrapped in a run-time check or conversion when want's rule
// covers n's kind, an error otherwise.
func (c *compiler) fit(n node, want Type, conv conversion) node {
	got := n.base().t
	rule := runtimeFit[want.Kind]
	if !rule.from.has(got.Kind) {
		if !c.requireSubtype(want, got) {
			return nil
		}
		return n
	}
	var wrapped node
	switch {
	case conv == convertNever:
		return n
	case rule.check && conv != convertCoerce:
		wrapped = &assertionNode{nodeBase: nodeBase{t: want}, args: []node{n}}
	default:
		wrapped = &coercionNode{nodeBase: nodeBase{t: want}, args: []node{n}}
	}
	c.tag(wrapped)
	return wrapped
}

// fold replaces a constant node by the literal of its value. Images stay
// nodes: their availability is only known when evaluating.
func (c *compiler) fold(n node) node {
	if _, isLit := n.(*literalNode); isLit || n.base().t.Kind == KindResolvedImage || !foldable(n) {
		return n
	}
	v, err := n.eval(&EvalContext{})
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*EvalError); ok {
			msg = ee.Message
		}
		return c.fail(msg)
	}
	lit := &literalNode{nodeBase: nodeBase{t: n.base().t}, v: v}
	c.tag(lit)
	return lit
}

func (c *compiler) tag(n node) {
	b := n.base()
	b.key = c.path
	b.keyed = true
}

// Dependency analysis.

// inputs is a set of things outside an expression its value may depend on.
type inputs uint8

const (
	// readsFeature: the feature's properties, geometry, id or state.
	readsFeature inputs = 1 << iota
	// readsState: the feature state.
	readsState
	// readsZoom: the zoom level.
	readsZoom
	// readsEnv: the other evaluation parameters (heatmap density,
	// elevation, line progress, cluster accumulation, script support).
	readsEnv
	// readsRuntime: nothing known at compile time stands for it (errors,
	// collators, global state), so it is never folded.
	readsRuntime
)

// ownInputs is what n itself reads, not counting its children.
func ownInputs(n node) inputs {
	switch t := n.(type) {
	case *compoundNode:
		return t.reads
	case *withinNode, *distanceNode:
		return readsFeature | readsRuntime
	case *collatorNode, *globalStateNode:
		return readsRuntime
	}
	return 0
}

// inputsOf is what the subtree of n reads. A "var" counts for nothing:
// its binding is a child of the "let" that declares it.
func inputsOf(n node) inputs {
	in := ownInputs(n)
	n.each(func(ch node) { in |= inputsOf(ch) })
	return in
}

// foldable reports whether n can be evaluated at compile time: it reads
// nothing, and its arguments are literals already (or, for the run-time
// checks and conversions wrapped around a node, foldable themselves).
func foldable(n node) bool {
	switch t := n.(type) {
	case *varNode:
		return foldable(t.bound)
	case *assertionNode, *coercionNode:
		ok := true
		n.each(func(ch node) { ok = ok && foldable(ch) })
		return ok && inputsOf(n)&(readsFeature|readsZoom|readsEnv) == 0
	}
	if ownInputs(n)&readsRuntime != 0 {
		return false
	}
	ok := true
	n.each(func(ch node) {
		_, lit := ch.(*literalNode)
		ok = ok && lit
	})
	return ok && inputsOf(n)&(readsFeature|readsZoom|readsEnv) == 0
}

func joinTypes(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func evalMsg(msg string) error { return &EvalError{Message: msg} }
