package expr

import (
	"encoding/json"
	"fmt"
	"sort"
)

// filterSpec is the property spec of layer filters.
var filterSpec = &PropertySpec{Type: "boolean", PropertyType: "data-driven", Default: json.RawMessage("false"),
	Expression: &ExpressionSupport{Interpolated: false, Parameters: []string{"zoom", "feature"}}}

// CompileFilter compiles a layer filter: an expression, or a legacy filter
// (["==", "class", "street"], ["in", "$type", ...], ["!has", "name"], ...)
// that is converted first. Evaluate it with EvalBool.
func CompileFilter(raw any) (*Expression, []CompileError) {
	doc, err := decodeInput(raw)
	if err != nil {
		return nil, []CompileError{{Message: fmt.Sprintf("invalid filter JSON: %v", err)}}
	}
	if doc == nil {
		doc = true
	}
	if IsLegacyFilter(doc) {
		doc = legacyToExpression(doc)
	}
	return compileDoc(doc, filterSpec)
}

// Legacy filters (the style specification's filter_operator): a term
// tests one key of the feature, where the keys "$type" (the geometry type)
// and "$id" (the feature id) stand for the feature itself; "all", "any"
// and "none" combine terms. Each term becomes a call of one of the
// operators below, named "legacy:" + subject + test, which are not
// specification names.

// legacySubject is what a legacy filter term reads.
type legacySubject struct {
	name string
	// keyed: the term passes the property key before its operands.
	keyed bool
	// item is the type of the compared values.
	item Type
	// read returns the subject's value and whether it is present.
	read func(c *EvalContext, key string) (Value, bool)
}

var (
	subjectProperty = legacySubject{name: "property", keyed: true, item: ValueType,
		read: func(c *EvalContext, key string) (Value, bool) { return c.property(key) }}
	subjectGeometry = legacySubject{name: "geometry-type", item: StringType,
		read: func(c *EvalContext, _ string) (Value, bool) { return String(c.geometryType()), true }}
	subjectID = legacySubject{name: "id", item: ValueType,
		read: func(c *EvalContext, _ string) (Value, bool) {
			if c.Feature == nil {
				return Null(), true
			}
			return c.Feature.ID(), true
		}}
)

// subjectOfKey names the subject a legacy filter key reads.
func subjectOfKey(key any) legacySubject {
	switch key {
	case "$type":
		return subjectGeometry
	case "$id":
		return subjectID
	}
	return subjectProperty
}

// legacyOp is the name of the internal operator for a test of a subject.
func legacyOp(s legacySubject, test string) string { return "legacy:" + s.name + test }

// legacyTerm builds the call of test on the subject key names, with the
// given (JSON) operands after the key for properties.
func legacyTerm(key any, test string, operands ...any) any {
	s := subjectOfKey(key)
	call := []any{legacyOp(s, test)}
	if s.keyed {
		call = append(call, key)
	}
	return append(call, operands...)
}

// legacyNegations maps each negated legacy operator to the one it negates.
var legacyNegations = map[string]string{"!=": "==", "!in": "in", "!has": "has"}

// IsLegacyFilter reports whether a decoded filter is written in the legacy
// syntax. Expression syntax is assumed unless the form can only be legacy:
// a key string (not an expression) compared to a value that is not an
// expression, "in" over a key string and bare values, "has" of "$type" or
// "$id", the legacy-only "!in", "!has" and "none", and "all"/"any" with a
// legacy part.
func IsLegacyFilter(f any) bool {
	if _, ok := f.(bool); ok {
		return false
	}
	term, ok := f.([]any)
	if !ok || len(term) == 0 {
		return true
	}
	isArr := func(x any) bool { _, ok := x.([]any); return ok }
	op, _ := term[0].(string)
	switch op {
	case "!in", "!has", "none":
		return true
	case "has":
		return len(term) < 2 || term[1] == "$type" || term[1] == "$id"
	case "in":
		if len(term) < 3 {
			return true
		}
		_, keyIsString := term[1].(string)
		return keyIsString && !isArr(term[2])
	case "==", "!=", "<", "<=", ">", ">=":
		return len(term) == 3 && !isArr(term[1]) && !isArr(term[2])
	case "all", "any":
		for _, part := range term[1:] {
			if IsLegacyFilter(part) {
				return true
			}
		}
	}
	return false
}

// legacyToExpression rewrites a legacy filter as an expression. What is
// not a legacy term passes everything; missing operands read as null.
func legacyToExpression(f any) any {
	term, ok := f.([]any)
	if !ok || len(term) == 0 {
		return true
	}
	op, _ := term[0].(string)
	if len(term) == 1 {
		// An empty disjunction is false; every other empty term is true.
		return op != "any"
	}
	if pos, negated := legacyNegations[op]; negated {
		return []any{"!", legacyToExpression(append([]any{pos}, term[1:]...))}
	}
	operand := func(i int) any {
		if i < len(term) {
			return term[i]
		}
		return nil
	}
	switch op {
	case "==", "<", ">", "<=", ">=":
		return legacyTerm(term[1], op, operand(2))
	case "in":
		if len(term) == 2 {
			return false
		}
		return legacyTerm(term[1], "-among", []any{"literal", append([]any(nil), term[2:]...)})
	case "has":
		switch subjectOfKey(term[1]).name {
		case subjectGeometry.name:
			return true // every feature has a geometry type
		case subjectID.name:
			return []any{legacyOp(subjectID, "-exists")}
		}
		return legacyTerm(term[1], "-exists")
	case "all", "any", "none":
		combined := []any{op}
		if op == "none" {
			combined[0] = "all"
		}
		for _, part := range term[1:] {
			part = legacyToExpression(part)
			if op == "none" {
				part = []any{"!", part}
			}
			combined = append(combined, part)
		}
		return combined
	}
	return true
}

// legacyCompare compares like the legacy filters: only values of the same
// primitive type are ordered.
func legacyCompare(op string, a Value, found bool, b Value) bool {
	if !found {
		a = Value{kind: KindValue} // undefined: equal to nothing
		if op == "==" {
			return false
		}
	}
	if op == "==" {
		return strictEqual(a, b)
	}
	if a.Kind() != b.Kind() {
		return false
	}
	var cmp int
	switch a.Kind() {
	case KindNumber:
		switch {
		case a.n < b.n:
			cmp = -1
		case a.n > b.n:
			cmp = 1
		case a.n != b.n:
			return false
		}
	case KindString:
		cmp = jsStringCompare(a.s, b.s)
	default:
		return false
	}
	return compareResult(op, cmp)
}

// registerLegacyFilterOps adds the operators of converted legacy filters
// to funcDefs. They all read the feature.
func registerLegacyFilterOps() {
	define := func(s legacySubject, test string, params []Type, fn evalFn) {
		if s.keyed {
			params = append([]Type{StringType}, params...)
		}
		funcDefs[legacyOp(s, test)] = fixed(BooleanType, params, fn).reading(readsFeature)
	}
	// keyOf evaluates the property key of a keyed term: the operands
	// follow it.
	keyOf := func(c *EvalContext, s legacySubject, a []node) (string, []node, error) {
		if !s.keyed {
			return "", a, nil
		}
		k, err := evalStr(c, a[0])
		return k, a[1:], err
	}
	for _, s := range []legacySubject{subjectProperty, subjectGeometry, subjectID} {
		s := s
		for _, rel := range []string{"==", "<", ">", "<=", ">="} {
			rel := rel
			define(s, rel, sig(s.item), func(c *EvalContext, a []node) (Value, error) {
				key, rest, err := keyOf(c, s, a)
				if err != nil {
					return Value{}, err
				}
				want, err := evalNode(c, rest[0])
				if err != nil {
					return Value{}, err
				}
				got, found := s.read(c, key)
				return Bool(legacyCompare(rel, got, found, want)), nil
			})
		}
	}
	// Membership: the property must be present; a missing feature has no
	// id; null ids match null values.
	for _, s := range []legacySubject{subjectProperty, subjectGeometry, subjectID} {
		s := s
		define(s, "-among", sig(ArrayOf(s.item, -1)), func(c *EvalContext, a []node) (Value, error) {
			key, rest, err := keyOf(c, s, a)
			if err != nil {
				return Value{}, err
			}
			list, err := evalNode(c, rest[0])
			if err != nil {
				return Value{}, err
			}
			got, found := s.read(c, key)
			if !found || (s.name == subjectID.name && c.Feature == nil) {
				return Bool(false), nil
			}
			for _, it := range list.Items() {
				if strictEqual(it, got) {
					return Bool(true), nil
				}
			}
			return Bool(false), nil
		})
	}
	// Presence: a property key is evaluated as any value and written as a
	// string; an id must be present and not null.
	funcDefs[legacyOp(subjectProperty, "-exists")] = fixed(BooleanType, sig(ValueType), func(c *EvalContext, a []node) (Value, error) {
		k, err := evalNode(c, a[0])
		if err != nil {
			return Value{}, err
		}
		_, ok := c.property(toStringValue(k))
		return Bool(ok), nil
	}).reading(readsFeature)
	define(subjectID, "-exists", sig(), func(c *EvalContext, _ []node) (Value, error) {
		return Bool(c.Feature != nil && !c.Feature.ID().IsNull()), nil
	})
}

// PropertySpecs reads the layout and paint property specifications from
// the style specification (v8.json): section ("paint_line",
// "layout_symbol", ...) to property name to spec.
func PropertySpecs(v8 []byte) (map[string]map[string]*PropertySpec, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(v8, &root); err != nil {
		return nil, fmt.Errorf("decode style spec: %w", err)
	}
	out := map[string]map[string]*PropertySpec{}
	names := make([]string, 0, len(root))
	for k := range root {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, section := range names {
		if !(len(section) > 6 && section[:6] == "paint_") && !(len(section) > 7 && section[:7] == "layout_") {
			continue
		}
		var props map[string]*PropertySpec
		if err := json.Unmarshal(root[section], &props); err != nil {
			return nil, fmt.Errorf("decode style spec section %s: %w", section, err)
		}
		out[section] = props
	}
	return out, nil
}
