package expr

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// atNode: ["at", index, array].
type atNode struct {
	nodeBase
	index, input node
}

func (n *atNode) each(fn func(node)) { fn(n.index); fn(n.input) }

func (n *atNode) eval(c *EvalContext) (Value, error) {
	idx, err := evalNum(c, n.index)
	if err != nil {
		return Value{}, err
	}
	arr, err := evalNode(c, n.input)
	if err != nil {
		return Value{}, err
	}
	items := arr.Items()
	if idx < 0 {
		return Value{}, evalErr("Array index out of bounds: %s < 0.", jsNumber(idx))
	}
	if idx >= float64(len(items)) {
		return Value{}, evalErr("Array index out of bounds: %s > %d.", jsNumber(idx), len(items)-1)
	}
	if idx != math.Floor(idx) {
		return Value{}, evalErr("Array index must be an integer, but found %s instead.", jsNumber(idx))
	}
	return items[int(idx)], nil
}

// inNode: ["in", needle, haystack].
type inNode struct {
	nodeBase
	needle, haystack node
}

func (n *inNode) each(fn func(node)) { fn(n.needle); fn(n.haystack) }

func (n *inNode) eval(c *EvalContext) (Value, error) {
	needle, err := evalNode(c, n.needle)
	if err != nil {
		return Value{}, err
	}
	hay, err := evalNode(c, n.haystack)
	if err != nil {
		return Value{}, err
	}
	if !truthy(hay) {
		return Bool(false), nil
	}
	if !needleKinds.has(needle.Kind()) {
		return Value{}, evalErr("Expected first argument to be of type %s, but found %s instead.", needleNames, typeOfValue(needle).String())
	}
	switch hay.Kind() {
	case KindString:
		return Bool(strings.Contains(hay.s, toJSString(needle))), nil
	case KindArray:
		for _, it := range hay.Items() {
			if strictEqual(it, needle) {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	}
	return Value{}, evalErr("Expected second argument to be of type %s, but found %s instead.", sequenceNames, typeOfValue(hay).String())
}

// toJSString implements String(x) for primitives.
func toJSString(v Value) string {
	if v.Kind() == KindNull {
		return "null"
	}
	return toStringValue(v)
}

// indexOfNode: ["index-of", needle, haystack, fromIndex?].
type indexOfNode struct {
	nodeBase
	needle, haystack, from node
}

func (n *indexOfNode) each(fn func(node)) {
	fn(n.needle)
	fn(n.haystack)
	if n.from != nil {
		fn(n.from)
	}
}

func (n *indexOfNode) eval(c *EvalContext) (Value, error) {
	needle, err := evalNode(c, n.needle)
	if err != nil {
		return Value{}, err
	}
	hay, err := evalNode(c, n.haystack)
	if err != nil {
		return Value{}, err
	}
	if !needleKinds.has(needle.Kind()) {
		return Value{}, evalErr("Expected first argument to be of type %s, but found %s instead.", needleNames, typeOfValue(needle).String())
	}
	from := 0.0
	hasFrom := false
	if n.from != nil {
		if from, err = evalNum(c, n.from); err != nil {
			return Value{}, err
		}
		hasFrom = true
	}
	switch hay.Kind() {
	case KindString:
		// The search starts at a position counted in UTF-16 units, as
		// JavaScript counts them (GL's style-spec: ["index-of", "b",
		// "😀ab", 3] is 2); the position found is counted in code points.
		runes := []rune(hay.s)
		start := 0
		if hasFrom {
			start = runeAtUnit(runes, clampIndex(from, utf16Len(runes), false))
		}
		sub := string(runes[start:])
		i := strings.Index(sub, toJSString(needle))
		if i < 0 {
			return Number(-1), nil
		}
		return Number(float64(start + utf8.RuneCountInString(sub[:i]))), nil
	case KindArray:
		items := hay.Items()
		start := 0
		if hasFrom {
			start = clampIndex(from, len(items), true)
		}
		for i := start; i < len(items); i++ {
			if strictEqual(items[i], needle) {
				return Number(float64(i)), nil
			}
		}
		return Number(-1), nil
	}
	return Value{}, evalErr("Expected second argument to be of type %s, but found %s instead.", sequenceNames, typeOfValue(hay).String())
}

// utf16Len is the length of runes in UTF-16 units.
func utf16Len(runes []rune) int {
	n := 0
	for _, r := range runes {
		n += utf16.RuneLen(r)
	}
	return n
}

// runeAtUnit returns the index of the first of runes that starts at or
// after UTF-16 unit u: the first place a search from u can match.
func runeAtUnit(runes []rune, u int) int {
	at := 0
	for i, r := range runes {
		if at >= u {
			return i
		}
		at += utf16.RuneLen(r)
	}
	return len(runes)
}

// clampIndex converts a JavaScript fromIndex into a start position.
func clampIndex(f float64, n int, negFromEnd bool) int {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 {
		if !negFromEnd {
			return 0
		}
		f += float64(n)
		if f < 0 {
			return 0
		}
	}
	if f > float64(n) {
		return n
	}
	return int(f)
}

// sliceNode: ["slice", input, begin, end?].
type sliceNode struct {
	nodeBase
	input, begin, end node
}

func (n *sliceNode) each(fn func(node)) {
	fn(n.input)
	fn(n.begin)
	if n.end != nil {
		fn(n.end)
	}
}

func sliceBounds(begin, end float64, hasEnd bool, n int) (int, int) {
	b := clampIndex(begin, n, true)
	e := n
	if hasEnd {
		e = clampIndex(end, n, true)
	}
	if e < b {
		e = b
	}
	return b, e
}

func (n *sliceNode) eval(c *EvalContext) (Value, error) {
	in, err := evalNode(c, n.input)
	if err != nil {
		return Value{}, err
	}
	begin, err := evalNum(c, n.begin)
	if err != nil {
		return Value{}, err
	}
	end, hasEnd := 0.0, n.end != nil
	if hasEnd {
		if end, err = evalNum(c, n.end); err != nil {
			return Value{}, err
		}
	}
	switch in.Kind() {
	case KindString:
		r := []rune(in.s)
		b, e := sliceBounds(begin, end, hasEnd, len(r))
		return String(string(r[b:e])), nil
	case KindArray:
		items := in.Items()
		b, e := sliceBounds(begin, end, hasEnd, len(items))
		return Array(append([]Value(nil), items[b:e]...)), nil
	}
	return Value{}, evalErr("Expected first argument to be of type %s, but found %s instead.", sequenceNames, typeOfValue(in).String())
}

// lengthNode: ["length", string|array].
type lengthNode struct {
	nodeBase
	input node
}

func (n *lengthNode) each(fn func(node)) { fn(n.input) }

func (n *lengthNode) eval(c *EvalContext) (Value, error) {
	v, err := evalNode(c, n.input)
	if err != nil {
		return Value{}, err
	}
	switch v.Kind() {
	case KindString:
		return Number(float64(runeLen(v.s))), nil
	case KindArray:
		return Number(float64(len(v.Items()))), nil
	}
	return Value{}, evalErr("Expected value to be of type string or array, but found %s instead.", typeOfValue(v).String())
}

func parseLength(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("Expected 1 argument, but found %d instead.", len(args)-1))
	}
	in := c.compileArg(args[1], 1, nil)
	if in == nil {
		return nil
	}
	k := in.base().t.Kind
	if k != KindArray && k != KindString && k != KindValue {
		return c.fail(fmt.Sprintf("Expected argument of type string or array, but found %s instead.", in.base().t.String()))
	}
	return &lengthNode{nodeBase: nodeBase{t: NumberType}, input: in}
}

// caseNode: ["case", cond, out, ..., fallback].
type caseNode struct {
	nodeBase
	conds, outs []node
	otherwise   node
}

func (n *caseNode) each(fn func(node)) {
	for i := range n.conds {
		fn(n.conds[i])
		fn(n.outs[i])
	}
	fn(n.otherwise)
}

func (n *caseNode) eval(c *EvalContext) (Value, error) {
	for i, cond := range n.conds {
		b, err := evalBool(c, cond)
		if err != nil {
			return Value{}, err
		}
		if b {
			return evalNode(c, n.outs[i])
		}
	}
	return evalNode(c, n.otherwise)
}

// outputSet compiles the outputs of a branching expression (case, match,
// step, interpolate) under one rule: each output is compiled for the type
// the whole is wanted as, unless that is value or nothing; then the first
// output's type is wanted of the rest.
type outputSet struct {
	want  *Type // nil until known
	nodes []node
}

// newOutputSet starts the outputs of the expression c compiles.
func newOutputSet(c *compiler) outputSet {
	if c.want == nil || c.want.Kind == KindValue {
		return outputSet{}
	}
	return outputSet{want: typePtr(*c.want)}
}

// add compiles arg, argument i of c's expression, as the next output and
// reports whether it compiled.
func (o *outputSet) add(c *compiler, arg any, i int) bool {
	n := c.compileArg(arg, i, o.want)
	if n == nil {
		return false
	}
	if o.want == nil {
		o.want = typePtr(n.base().t)
	}
	o.nodes = append(o.nodes, n)
	return true
}

// parseCase reads ["case", cond1, out1, cond2, out2, ..., fallback].
func parseCase(args []any, c *compiler) node {
	if len(args) < 4 {
		return c.fail(fmt.Sprintf("Expected at least 3 arguments, but found only %d.", len(args)-1))
	}
	if len(args)%2 != 0 {
		return c.fail("Expected an odd number of arguments.")
	}
	outs := newOutputSet(c)
	var conds []node
	last := len(args) - 1
	for i := 1; i < last; i += 2 {
		cond := c.compileArg(args[i], i, &BooleanType)
		if cond == nil || !outs.add(c, args[i+1], i+1) {
			return nil
		}
		conds = append(conds, cond)
	}
	if !outs.add(c, args[last], last) {
		return nil
	}
	k := len(outs.nodes) - 1
	return &caseNode{nodeBase: nodeBase{t: *outs.want}, conds: conds, outs: outs.nodes[:k], otherwise: outs.nodes[k]}
}

// matchNode: ["match", input, labels, out, ..., fallback]. Labels are all
// numbers or all strings (labelKind); each names the index of its output.
type matchNode struct {
	nodeBase
	input     node
	labelKind TypeKind
	byNumber  map[float64]int
	byString  map[string]int
	outputs   []node
	fallback  node
}

func (n *matchNode) each(fn func(node)) {
	fn(n.input)
	for _, o := range n.outputs {
		fn(o)
	}
	fn(n.fallback)
}

func (n *matchNode) eval(c *EvalContext) (Value, error) {
	in, err := evalNode(c, n.input)
	if err != nil {
		return Value{}, err
	}
	var branch int
	var found bool
	switch in.kind {
	case KindString:
		branch, found = n.byString[in.s]
	case KindNumber:
		branch, found = n.byNumber[in.n]
	}
	if found {
		return evalNode(c, n.outputs[branch])
	}
	return evalNode(c, n.fallback)
}

// maxSafeInteger is the largest integer a label may be (2^53 - 1): beyond
// it, numbers stop being exact.
const maxSafeInteger = 1<<53 - 1

// labelKindOf checks one branch label: a whole number of at most
// maxSafeInteger in magnitude, or a string. It returns the label's kind or
// why it is refused.
func labelKindOf(label any) (TypeKind, string) {
	switch v := label.(type) {
	case string:
		return KindString, ""
	case float64:
		switch {
		case math.Abs(v) > maxSafeInteger:
			return 0, "Branch labels must be integers no larger than 9007199254740991."
		case math.Trunc(v) != v:
			return 0, "Numeric branch labels must be integer values."
		}
		return KindNumber, ""
	}
	return 0, "Branch labels must be numbers or strings."
}

// addLabels registers the labels of one branch (a label or an array of
// them) for output number out. The first
// label fixes the kind of all of them.
func (n *matchNode) addLabels(c *compiler, labels any, first bool, out int) bool {
	list, isList := labels.([]any)
	if !isList {
		list = []any{labels}
	}
	if len(list) == 0 {
		c.fail("Expected at least one branch label.")
		return false
	}
	for _, label := range list {
		kind, why := labelKindOf(label)
		if why != "" {
			c.fail(why)
			return false
		}
		if first {
			n.labelKind, first = kind, false
		} else if !c.requireSubtype(Type{Kind: n.labelKind, N: -1}, Type{Kind: kind, N: -1}) {
			return false
		}
		var seen bool
		if kind == KindNumber {
			_, seen = n.byNumber[label.(float64)]
			n.byNumber[label.(float64)] = out
		} else {
			_, seen = n.byString[label.(string)]
			n.byString[label.(string)] = out
		}
		if seen {
			c.fail("Branch labels must be unique.")
			return false
		}
	}
	return true
}

// parseMatch compiles the branches first (labels, then output; the first
// output fixes the result type when the parent wants none), then the
// input, then the fallback, and finally checks the input against the
// labels' kind.
func parseMatch(args []any, c *compiler) node {
	if len(args) < 5 {
		return c.fail(fmt.Sprintf("Expected at least 4 arguments, but found only %d.", len(args)-1))
	}
	if len(args)%2 != 1 {
		return c.fail("Expected an even number of arguments.")
	}
	n := &matchNode{byNumber: map[float64]int{}, byString: map[string]int{}}
	outs := newOutputSet(c)
	last := len(args) - 1
	for i := 2; i < last; i += 2 {
		if !n.addLabels(c.at(i), args[i], i == 2, len(outs.nodes)) || !outs.add(c, args[i+1], i+1) {
			return nil
		}
	}
	if n.input = c.compileArg(args[1], 1, &ValueType); n.input == nil {
		return nil
	}
	if !outs.add(c, args[last], last) {
		return nil
	}
	if got := n.input.base().t; got.Kind != KindValue && !c.at(1).requireSubtype(Type{Kind: n.labelKind, N: -1}, got) {
		return nil
	}
	k := len(outs.nodes) - 1
	n.outputs, n.fallback = outs.nodes[:k], outs.nodes[k]
	n.t = *outs.want
	return n
}

// coalesceNode returns its first non-null argument.
type coalesceNode struct {
	nodeBase
	args []node
}

func (n *coalesceNode) each(fn func(node)) {
	for _, a := range n.args {
		fn(a)
	}
}

func (n *coalesceNode) eval(c *EvalContext) (Value, error) {
	// The first argument that gives something: not null, and not an image
	// the style lacks.
	missing, lastMissing := "", false
	for _, a := range n.args {
		v, err := evalNode(c, a)
		if err != nil {
			return Value{}, err
		}
		img := v.Image()
		lastMissing = v.Kind() == KindResolvedImage && img != nil && !img.Available
		switch {
		case lastMissing && missing == "":
			missing = img.Name
		case !lastMissing && !v.IsNull():
			return v, nil
		}
	}
	// Nothing given: when the last argument was a missing image, the name
	// of the first missing image asked for (so that the renderer may
	// report it), else null.
	if lastMissing {
		return String(missing), nil
	}
	return Null(), nil
}

// parseCoalesce compiles the arguments for the wanted type (or, without
// one, for the first argument's type) but without run-time conversions:
// if one does not fit statically, the result is typed value and the
// parent converts whichever argument is chosen.
func parseCoalesce(args []any, c *compiler) node {
	if len(args) < 2 {
		return c.fail("Expected at least one argument.")
	}
	var each *Type
	if c.want != nil && c.want.Kind != KindValue {
		each = typePtr(*c.want)
	}
	n := &coalesceNode{}
	for i := 1; i < len(args); i++ {
		a := c.compileArgAsIs(args[i], i, each)
		if a == nil {
			return nil
		}
		if each == nil {
			each = typePtr(a.base().t)
		}
		n.args = append(n.args, a)
	}
	n.t = *each
	if c.want != nil {
		for _, a := range n.args {
			if !isSubtype(*c.want, a.base().t) {
				n.t = ValueType
				break
			}
		}
	}
	return n
}

// comparisonNode: == != < <= > >= with an optional collator, evaluated
// by the mode its operands' static types decide.
type comparisonNode struct {
	nodeBase
	op       string
	lhs, rhs node
	collator node
	mode     compareMode
}

// compareMode is how a comparison is evaluated, decided when it is
// compiled.
type compareMode uint8

const (
	// comparePlain: strict equality, or the order of two numbers or two
	// strings (by UTF-16 units).
	comparePlain compareMode = iota
	// compareCheckedOrder: the order of two operands typed only value:
	// both must turn out numbers or both strings.
	compareCheckedOrder
	// compareCollated: by the collator.
	compareCollated
	// compareCheckedCollated: the order of two value operands by the
	// collator, their kinds checked as for compareCheckedOrder.
	compareCheckedCollated
	// compareCollatedStrings: equality with a value operand and a
	// collator: by the collator when both are strings, else strict.
	compareCollatedStrings
)

func (n *comparisonNode) each(fn func(node)) {
	fn(n.lhs)
	fn(n.rhs)
	if n.collator != nil {
		fn(n.collator)
	}
}

func compareResult(op string, cmp int) bool {
	switch op {
	case "==":
		return cmp == 0
	case "!=":
		return cmp != 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	}
	return cmp >= 0
}

// jsStringCompare compares strings by UTF-16 code units, as JavaScript does.
func jsStringCompare(a, b string) int {
	ascii := true
	for i := 0; i < len(a) && ascii; i++ {
		ascii = a[i] < 0x80
	}
	for i := 0; i < len(b) && ascii; i++ {
		ascii = b[i] < 0x80
	}
	if ascii {
		return strings.Compare(a, b)
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			if ua[i] < ub[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(ua) < len(ub):
		return -1
	case len(ua) > len(ub):
		return 1
	}
	return 0
}

func (n *comparisonNode) eval(c *EvalContext) (Value, error) {
	l, err := evalNode(c, n.lhs)
	if err != nil {
		return Value{}, err
	}
	r, err := evalNode(c, n.rhs)
	if err != nil {
		return Value{}, err
	}
	switch n.mode {
	case comparePlain:
		return Bool(basicCompare(n.op, l, r)), nil
	case compareCheckedOrder:
		if err := orderable(n.op, l, r); err != nil {
			return Value{}, err
		}
		return Bool(basicCompare(n.op, l, r)), nil
	case compareCheckedCollated:
		if err := orderable(n.op, l, r); err != nil {
			return Value{}, err
		}
	case compareCollatedStrings:
		if l.Kind() != KindString || r.Kind() != KindString {
			return Bool(basicCompare(n.op, l, r)), nil
		}
	}
	cv, err := evalNode(c, n.collator)
	if err != nil {
		return Value{}, err
	}
	// Two numbers ordered by a collator are collated as they read, as in
	// GL's style-spec (["<", 10, 9] with a collator holds).
	col, _ := cv.p.(*Collator)
	return Bool(compareResult(n.op, col.Compare(toJSString(l), toJSString(r)))), nil
}

// orderable checks that two values may be ordered: two numbers or two
// strings.
func orderable(op string, l, r Value) error {
	if lk := l.Kind(); lk != r.Kind() || lk != KindString && lk != KindNumber {
		return evalErr(`Expected arguments for "%s" to be (string, string) or (number, number), but found (%s, %s) instead.`, op, typeOfValue(l).Kind.String(), typeOfValue(r).Kind.String())
	}
	return nil
}

func basicCompare(op string, l, r Value) bool {
	switch op {
	case "==":
		return strictEqual(l, r)
	case "!=":
		return !strictEqual(l, r)
	}
	if l.Kind() == KindString && r.Kind() == KindString {
		return compareResult(op, jsStringCompare(l.s, r.s))
	}
	if l.Kind() == KindNumber && r.Kind() == KindNumber {
		switch op {
		case "<":
			return l.n < r.n
		case "<=":
			return l.n <= r.n
		case ">":
			return l.n > r.n
		case ">=":
			return l.n >= r.n
		}
	}
	return false
}

// comparableKinds is, for equality and for ordering, the static kinds a
// comparison operand may have.
var comparableKinds = struct{ equality, ordering kindSet }{
	equality: kinds(KindValue, KindNull, KindBoolean, KindNumber, KindString),
	ordering: kinds(KindValue, KindNumber, KindString),
}

// canCompare reports whether op accepts an operand of type t.
func canCompare(op string, t Type) bool {
	if op == "==" || op == "!=" {
		return comparableKinds.equality.has(t.Kind)
	}
	return comparableKinds.ordering.has(t.Kind)
}

// parseComparison reads [op, left, right] and [op, left, right,
// collator]. Each operand is checked as soon as it is compiled, the left
// first; then whether the two can be compared at all.
func parseComparison(args []any, c *compiler) node {
	op := args[0].(string)
	if len(args) != 3 && len(args) != 4 {
		return c.fail("Expected two or three arguments.")
	}
	var sides [2]node
	for i := range sides {
		if sides[i] = c.compileArg(args[i+1], i+1, &ValueType); sides[i] == nil {
			return nil
		}
		if t := sides[i].base().t; !canCompare(op, t) {
			return c.at(i + 1).fail(fmt.Sprintf(`"%s" comparisons are not supported for type '%s'.`, op, t.String()))
		}
	}
	lt, rt := sides[0].base().t, sides[1].base().t
	lValue, rValue := lt.Kind == KindValue, rt.Kind == KindValue
	if lt.Kind != rt.Kind && !lValue && !rValue {
		return c.fail(fmt.Sprintf("Cannot compare types '%s' and '%s'.", lt.String(), rt.String()))
	}
	ordering := op != "==" && op != "!="
	if ordering && lValue != rValue {
		// A value ordered against a typed operand must have its type.
		if lValue {
			sides[0] = &assertionNode{nodeBase: nodeBase{t: rt}, args: []node{sides[0]}}
		} else {
			sides[1] = &assertionNode{nodeBase: nodeBase{t: lt}, args: []node{sides[1]}}
		}
	}
	n := &comparisonNode{nodeBase: nodeBase{t: BooleanType}, op: op, lhs: sides[0], rhs: sides[1]}
	bothValues := lValue && rValue
	if len(args) == 3 {
		if ordering && bothValues {
			n.mode = compareCheckedOrder
		}
		return n
	}
	// The operands' types as compared (a value ordered against a typed
	// operand has taken its type): one must be a string or a value.
	if lk, rk := sides[0].base().t.Kind, sides[1].base().t.Kind; lk != KindString && rk != KindString && lk != KindValue && rk != KindValue {
		return c.fail("Cannot use collator to compare non-string types.")
	}
	if n.collator = c.compileArg(args[3], 3, &CollatorType); n.collator == nil {
		return nil
	}
	switch {
	case ordering && bothValues:
		n.mode = compareCheckedCollated
	case !ordering && (lValue || rValue):
		n.mode = compareCollatedStrings
	default:
		n.mode = compareCollated
	}
	return n
}
