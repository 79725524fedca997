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
	if !isExpressionFilter(doc) {
		doc = convertFilter(doc)
	}
	return compileDoc(doc, filterSpec)
}

// isExpressionFilter reports whether a filter uses expression syntax.
func isExpressionFilter(f any) bool {
	if _, ok := f.(bool); ok {
		return true
	}
	arr, ok := f.([]any)
	if !ok || len(arr) == 0 {
		return false
	}
	op, _ := arr[0].(string)
	switch op {
	case "has":
		return len(arr) >= 2 && arr[1] != "$id" && arr[1] != "$type"
	case "in":
		if len(arr) < 3 {
			return false
		}
		_, isStr := arr[1].(string)
		_, isArr := arr[2].([]any)
		return !isStr || isArr
	case "!in", "!has", "none":
		return false
	case "==", "!=", ">", ">=", "<", "<=":
		if len(arr) != 3 {
			return true
		}
		_, a1 := arr[1].([]any)
		_, a2 := arr[2].([]any)
		return a1 || a2
	case "any", "all":
		for _, x := range arr[1:] {
			if _, isBool := x.(bool); !isExpressionFilter(x) && !isBool {
				return false
			}
		}
		return true
	}
	return true
}

func convertFilter(f any) any {
	arr, ok := f.([]any)
	if !ok || len(arr) == 0 {
		return true
	}
	op, _ := arr[0].(string)
	if len(arr) <= 1 {
		return op != "any"
	}
	neg := func(x any) any { return []any{"!", x} }
	at := func(i int) any {
		if i < len(arr) {
			return arr[i]
		}
		return nil
	}
	switch op {
	case "==", "<", ">", "<=", ">=":
		return convertComparisonOp(at(1), at(2), op)
	case "!=":
		return neg(convertComparisonOp(at(1), at(2), "=="))
	case "any":
		out := []any{"any"}
		for _, x := range arr[1:] {
			out = append(out, convertFilter(x))
		}
		return out
	case "all":
		out := []any{"all"}
		for _, x := range arr[1:] {
			out = append(out, convertFilter(x))
		}
		return out
	case "none":
		out := []any{"all"}
		for _, x := range arr[1:] {
			out = append(out, neg(convertFilter(x)))
		}
		return out
	case "in":
		return convertInOp(at(1), arr[2:])
	case "!in":
		return neg(convertInOp(at(1), arr[2:]))
	case "has":
		return convertHasOp(at(1))
	case "!has":
		return neg(convertHasOp(at(1)))
	}
	return true
}

func convertComparisonOp(property, value any, op string) any {
	switch property {
	case "$type":
		return []any{"filter-type-" + op, value}
	case "$id":
		return []any{"filter-id-" + op, value}
	}
	return []any{"filter-" + op, property, value}
}

func convertHasOp(property any) any {
	switch property {
	case "$type":
		return true
	case "$id":
		return []any{"filter-has-id"}
	}
	return []any{"filter-has", property}
}

func convertInOp(property any, values []any) any {
	if len(values) == 0 {
		return false
	}
	vals := append([]any(nil), values...)
	switch property {
	case "$type":
		return []any{"filter-type-in", []any{"literal", vals}}
	case "$id":
		return []any{"filter-id-in", []any{"literal", vals}}
	}
	return []any{"filter-in", property, []any{"literal", vals}}
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

// registerFilterOps adds the legacy filter operators to compoundDefs.
func registerFilterOps() {
	for _, op := range []string{"==", "<", ">", "<=", ">="} {
		op := op
		compoundDefs["filter-"+op] = fixed(BooleanType, sig(StringType, ValueType), func(c *EvalContext, a []node) (Value, error) {
			k, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			want, err := evalNode(c, a[1])
			if err != nil {
				return Value{}, err
			}
			got, found := c.property(k)
			return Bool(legacyCompare(op, got, found, want)), nil
		})
		compoundDefs["filter-id-"+op] = fixed(BooleanType, sig(ValueType), func(c *EvalContext, a []node) (Value, error) {
			want, err := evalNode(c, a[0])
			if err != nil {
				return Value{}, err
			}
			id := Null()
			if c.Feature != nil {
				id = c.Feature.ID()
			}
			return Bool(legacyCompare(op, id, true, want)), nil
		})
		compoundDefs["filter-type-"+op] = fixed(BooleanType, sig(StringType), func(c *EvalContext, a []node) (Value, error) {
			want, err := evalStr(c, a[0])
			if err != nil {
				return Value{}, err
			}
			return Bool(legacyCompare(op, String(c.geometryType()), true, String(want))), nil
		})
	}
	compoundDefs["filter-has"] = fixed(BooleanType, sig(ValueType), func(c *EvalContext, a []node) (Value, error) {
		k, err := evalNode(c, a[0])
		if err != nil {
			return Value{}, err
		}
		_, ok := c.property(toStringValue(k))
		return Bool(ok), nil
	})
	compoundDefs["filter-has-id"] = fixed(BooleanType, sig(), func(c *EvalContext, _ []node) (Value, error) {
		return Bool(c.Feature != nil && !c.Feature.ID().IsNull()), nil
	})
	compoundDefs["filter-type-in"] = fixed(BooleanType, sig(ArrayOf(StringType, -1)), func(c *EvalContext, a []node) (Value, error) {
		v, err := evalNode(c, a[0])
		if err != nil {
			return Value{}, err
		}
		t := c.geometryType()
		for _, it := range v.Items() {
			if it.s == t {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	})
	compoundDefs["filter-id-in"] = fixed(BooleanType, sig(ArrayOf(ValueType, -1)), func(c *EvalContext, a []node) (Value, error) {
		v, err := evalNode(c, a[0])
		if err != nil {
			return Value{}, err
		}
		if c.Feature == nil {
			return Bool(false), nil
		}
		id := c.Feature.ID()
		for _, it := range v.Items() {
			if strictEqual(it, id) {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	})
	compoundDefs["filter-in"] = fixed(BooleanType, sig(StringType, ArrayOf(ValueType, -1)), func(c *EvalContext, a []node) (Value, error) {
		k, err := evalStr(c, a[0])
		if err != nil {
			return Value{}, err
		}
		v, err := evalNode(c, a[1])
		if err != nil {
			return Value{}, err
		}
		got, found := c.property(k)
		if !found {
			return Bool(false), nil
		}
		for _, it := range v.Items() {
			if strictEqual(it, got) {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
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
