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

type annotation uint8

const (
	annotDefault annotation = iota
	annotAssert
	annotCoerce
	annotOmit
)

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

type parseState struct {
	errs   []CompileError
	budget int
	limit  int
}

// parseWorkLimit bounds the parse calls of one compilation: overload
// retries can otherwise grow exponentially with nesting. Legitimate
// expressions parse each JSON node a few times.
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

type pctx struct {
	key      string
	depth    int
	expected *Type
	scope    *scope
	st       *parseState
}

func (c *pctx) concat(index int, expected *Type, bindings []scopeBinding) *pctx {
	key := c.key
	if index >= 0 {
		key += "[" + strconv.Itoa(index) + "]"
	}
	s := c.scope
	for _, b := range bindings {
		s = &scope{parent: s, name: b.name, n: b.n}
	}
	return &pctx{key: key, depth: c.depth + 1, expected: expected, scope: s, st: c.st}
}

type scopeBinding struct {
	name string
	n    node
}

func (c *pctx) error(msg string, keys ...int) node {
	key := c.key
	for _, k := range keys {
		key += "[" + strconv.Itoa(k) + "]"
	}
	c.st.errs = append(c.st.errs, CompileError{Key: key, Message: msg})
	return nil
}

// checkSubtype records an error when t is not a subtype of expected.
func (c *pctx) checkSubtype(expected, t Type) bool {
	if msg := subtypeError(expected, t); msg != "" {
		c.error(msg)
		return false
	}
	return true
}

func typePtr(t Type) *Type { return &t }

// parse parses a child at the given argument index (index <= 0: this context).
func (c *pctx) parse(expr any, index int, expected *Type, annot annotation) node {
	if index > 0 {
		return c.concat(index, expected, nil).parseExpr(expr, annot)
	}
	return c.parseExpr(expr, annot)
}

func (c *pctx) parseWithBindings(expr any, index int, expected *Type, bindings []scopeBinding) node {
	return c.concat(index, expected, bindings).parseExpr(expr, annotDefault)
}

type parseFunc func(args []any, c *pctx) node

var registry map[string]parseFunc

func init() {
	registry = map[string]parseFunc{
		"let":             parseLet,
		"var":             parseVar,
		"literal":         parseLiteral,
		"semiliteral":     parseSemiliteral,
		"array":           parseAssertion,
		"boolean":         parseAssertion,
		"number":          parseAssertion,
		"string":          parseAssertion,
		"object":          parseAssertion,
		"to-boolean":      parseCoercion,
		"to-color":        parseCoercion,
		"to-number":       parseCoercion,
		"to-string":       parseCoercion,
		"at":              parseAt,
		"in":              parseIn,
		"index-of":        parseIndexOf,
		"slice":           parseSlice,
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

func (c *pctx) parseExpr(expr any, annot annotation) node {
	c.st.budget++
	if c.st.budget > c.st.limit {
		return c.error("Expression is too complex.")
	}
	if c.depth > maxJSONDepth {
		return c.error("Expression is nested too deeply.")
	}
	switch expr.(type) {
	case nil, string, bool, float64:
		expr = []any{"literal", expr}
	}
	switch e := expr.(type) {
	case []any:
		if len(e) == 0 {
			return c.error(`Expected an array with at least one element. If you wanted a literal array, use ["literal", []].`)
		}
		op, ok := e[0].(string)
		if !ok {
			return c.error(fmt.Sprintf(`Expression name must be a string, but found %s instead. If you wanted a literal array, use ["literal", [...]].`, jsTypeof(e[0])), 0)
		}
		pf, ok := registry[op]
		if !ok {
			if _, isCompound := compoundDefs[op]; isCompound {
				pf, ok = parseCompound, true
			}
		}
		if !ok {
			return c.error(fmt.Sprintf(`Unknown expression "%s". If you wanted a literal array, use ["literal", [...]].`, op), 0)
		}
		parsed := pf(e, c)
		if parsed == nil {
			return nil
		}
		c.tag(parsed)
		if c.expected != nil {
			expected := *c.expected
			actual := parsed.base().t
			ak := actual.Kind
			wrap := annotDefault
			switch expected.Kind {
			case KindString, KindNumber, KindBoolean, KindObject, KindArray:
				if ak == KindValue {
					wrap = annotAssert
				}
			case KindProjectionDefinition:
				if ak == KindString || ak == KindArray || ak == KindValue {
					wrap = annotCoerce
				}
			case KindColor, KindFormatted, KindResolvedImage:
				if ak == KindValue || ak == KindString {
					wrap = annotCoerce
				}
			case KindPadding, KindNumberArray:
				if ak == KindValue || ak == KindNumber || ak == KindArray {
					wrap = annotCoerce
				}
			case KindColorArray:
				if ak == KindValue || ak == KindColor || ak == KindArray || ak == KindString {
					wrap = annotCoerce
				}
			case KindVariableAnchorOffsetCollection:
				if ak == KindValue || ak == KindArray {
					wrap = annotCoerce
				}
			}
			if wrap != annotDefault {
				if annot != annotDefault {
					wrap = annot
				}
				switch wrap {
				case annotAssert:
					parsed = &assertionNode{nodeBase: nodeBase{t: expected}, args: []node{parsed}}
				case annotCoerce:
					parsed = &coercionNode{nodeBase: nodeBase{t: expected}, args: []node{parsed}}
				}
				c.tag(parsed)
			} else if !c.checkSubtype(expected, actual) {
				return nil
			}
		}
		if _, isLit := parsed.(*literalNode); !isLit && parsed.base().t.Kind != KindResolvedImage && isConstantNode(parsed) {
			v, err := parsed.eval(&EvalContext{})
			if err != nil {
				msg := err.Error()
				if ee, ok := err.(*EvalError); ok {
					msg = ee.Message
				}
				return c.error(msg)
			}
			lit := &literalNode{nodeBase: nodeBase{t: parsed.base().t}, v: v}
			c.tag(lit)
			return lit
		}
		return parsed
	case *jobj:
		return c.error(`Bare objects invalid. Use ["literal", {...}] instead.`)
	}
	return c.error(fmt.Sprintf("Expected an array, but found %s instead.", jsTypeof(expr)))
}

func (c *pctx) tag(n node) {
	b := n.base()
	b.key = c.key
	b.keyed = true
}

// Constness analysis.

func isConstantNode(n node) bool {
	switch t := n.(type) {
	case *varNode:
		return isConstantNode(t.bound)
	case *compoundNode:
		if t.name == "error" {
			return false
		}
	case *collatorNode, *withinNode, *distanceNode, *globalStateNode:
		return false
	}
	_, isAssert := n.(*assertionNode)
	_, isCoerce := n.(*coercionNode)
	annotation := isAssert || isCoerce
	ok := true
	n.each(func(ch node) {
		if !ok {
			return
		}
		if annotation {
			ok = isConstantNode(ch)
		} else {
			_, ok = ch.(*literalNode)
		}
	})
	if !ok {
		return false
	}
	return isFeatureConstant(n) && isGlobalPropertyConstant(n, globalProps)
}

var globalProps = []string{"zoom", "heatmap-density", "elevation", "line-progress", "accumulated", "is-supported-script"}

func isFeatureConstant(n node) bool {
	switch t := n.(type) {
	case *compoundNode:
		switch t.name {
		case "get", "has":
			if len(t.args) == 1 {
				return false
			}
		case "feature-state", "properties", "geometry-type", "id":
			return false
		}
		if strings.HasPrefix(t.name, "filter-") {
			return false
		}
	case *withinNode, *distanceNode:
		return false
	}
	ok := true
	n.each(func(ch node) {
		if ok && !isFeatureConstant(ch) {
			ok = false
		}
	})
	return ok
}

func isStateConstant(n node) bool {
	if t, ok := n.(*compoundNode); ok && t.name == "feature-state" {
		return false
	}
	ok := true
	n.each(func(ch node) {
		if ok && !isStateConstant(ch) {
			ok = false
		}
	})
	return ok
}

func isGlobalPropertyConstant(n node, props []string) bool {
	if t, ok := n.(*compoundNode); ok {
		for _, p := range props {
			if t.name == p {
				return false
			}
		}
	}
	ok := true
	n.each(func(ch node) {
		if ok && !isGlobalPropertyConstant(ch, props) {
			ok = false
		}
	})
	return ok
}

// isValidType reports whether t has the kind of one of the allowed types.
func isValidType(t Type, allowed ...Type) bool {
	for _, a := range allowed {
		if a.Kind == t.Kind {
			return true
		}
	}
	return false
}

func joinTypes(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func evalMsg(msg string) error { return &EvalError{Message: msg} }
