package expr

import "testing"

func TestLabelKindOf(t *testing.T) {
	tests := []struct {
		label any
		kind  TypeKind
		why   string
	}{
		{"a", KindString, ""},
		{3.0, KindNumber, ""},
		{-9007199254740991.0, KindNumber, ""},
		{9007199254740992.0, 0, "Branch labels must be integers no larger than 9007199254740991."},
		{1.5, 0, "Numeric branch labels must be integer values."},
		{true, 0, "Branch labels must be numbers or strings."},
		{nil, 0, "Branch labels must be numbers or strings."},
	}
	for _, tt := range tests {
		kind, why := labelKindOf(tt.label)
		if kind != tt.kind || why != tt.why {
			t.Errorf("labelKindOf(%v) = %v, %q; want %v, %q", tt.label, kind, why, tt.kind, tt.why)
		}
	}
}

func TestCanCompare(t *testing.T) {
	tests := []struct {
		op   string
		t    Type
		want bool
	}{
		{"==", BooleanType, true},
		{"!=", NullType, true},
		{"==", ColorType, false},
		{"<", BooleanType, false},
		{">=", StringType, true},
		{"<=", ValueType, true},
		{">", NullType, false},
	}
	for _, tt := range tests {
		if got := canCompare(tt.op, tt.t); got != tt.want {
			t.Errorf("canCompare(%s, %s) = %v, want %v", tt.op, tt.t, got, tt.want)
		}
	}
}

func TestMatchBranches(t *testing.T) {
	tests := []struct {
		expr string
		in   any
		want string
		err  string
	}{
		{`["match", ["get", "x"], [1, 2], "low", 3, "three", "other"]`, 2.0, "low", ""},
		{`["match", ["get", "x"], [1, 2], "low", 3, "three", "other"]`, 3.0, "three", ""},
		{`["match", ["get", "x"], [1, 2], "low", 3, "three", "other"]`, "3", "other", ""},
		{`["match", ["get", "x"], "a", "A", ["b", "c"], "BC", "other"]`, "c", "BC", ""},
		{`["match", ["get", "x"], "a", "A", 1, "one", "other"]`, nil, "", "[4]: Expected string but found number instead."},
		{`["match", ["get", "x"], [1, 1], "A", "other"]`, nil, "", "[2]: Branch labels must be unique."},
		{`["match", ["get", "x"], [], "A", "other"]`, nil, "", "[2]: Expected at least one branch label."},
		{`["match", ["to-string", 1], 1, "A", "other"]`, nil, "", "[1]: Expected number but found string instead."},
	}
	for _, tt := range tests {
		e, errs := Compile([]byte(tt.expr), nil)
		if tt.err != "" {
			if len(errs) == 0 || errs[0].Error() != tt.err {
				t.Errorf("%s: errors %v, want %q", tt.expr, errs, tt.err)
			}
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tt.expr, errs)
		}
		props := &Object{}
		v, _ := ValueFromGo(tt.in)
		props.Set("x", v)
		got, err := e.EvalString(&EvalContext{Feature: &MapFeature{Props: props}})
		if err != nil || got != tt.want {
			t.Errorf("%s with x=%v: %q, %v; want %q", tt.expr, tt.in, got, err, tt.want)
		}
	}
}

func TestCoalesceType(t *testing.T) {
	tests := []struct{ expr, typ, want string }{
		{`["coalesce", ["get", "a"], 1]`, "", "value"},
		{`["coalesce", 1, ["get", "a"]]`, "", "number"},
		{`["coalesce", ["get", "a"], "red"]`, "color", "color"}, // the coercion around a value-typed coalesce
		{`["coalesce", 1, 2]`, "number", "number"},
	}
	for _, tt := range tests {
		var spec *PropertySpec
		if tt.typ != "" {
			spec = &PropertySpec{Type: tt.typ, PropertyType: "data-driven", Expression: &ExpressionSupport{Parameters: []string{"zoom", "feature"}}}
		}
		e, errs := Compile([]byte(tt.expr), spec)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tt.expr, errs)
		}
		if got := e.Type().String(); got != tt.want {
			t.Errorf("%s as %q: type %s, want %s", tt.expr, tt.typ, got, tt.want)
		}
	}
	e := MustCompile([]byte(`["coalesce", ["get", "a"], "red"]`), &PropertySpec{Type: "color", PropertyType: "data-driven", Expression: &ExpressionSupport{Parameters: []string{"zoom", "feature"}}})
	if _, ok := e.root.(*coercionNode); !ok {
		t.Errorf("a value-typed coalesce for a color property is %T, want a coercion", e.root)
	}
}
