package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

func legacySpec(typ string, interpolated bool, def string) *PropertySpec {
	s := &PropertySpec{Type: typ, PropertyType: "data-driven",
		Expression: &ExpressionSupport{Interpolated: interpolated, Parameters: []string{"zoom", "feature"}}}
	if def != "" {
		s.Default = json.RawMessage(def)
	}
	return s
}

// TestConvertFunction checks the expression each kind of legacy function
// becomes.
func TestConvertFunction(t *testing.T) {
	num := legacySpec("number", true, "")
	str := legacySpec("string", false, "")
	tokens := legacySpec("string", false, "")
	tokens.Tokens = true
	enum := legacySpec("enum", false, "")
	enum.Values = []string{"a", "b"}
	arr := legacySpec("array", true, "")
	arr.Value, arr.Length = "number", 2
	tests := []struct {
		name string
		fn   string
		spec *PropertySpec
		want string
	}{
		{"zoom, linear", `{"stops": [[0, 1], [10, 5]]}`, num,
			`["interpolate",["linear"],["zoom"],0,1,10,5]`},
		{"zoom, base", `{"base": 1.5, "stops": [[0, 1], [10, 5]]}`, num,
			`["interpolate",["exponential",1.5],["zoom"],0,1,10,5]`},
		{"zoom, colour in lab", `{"colorSpace": "lab", "stops": [[0, "red"], [10, "blue"]]}`, legacySpec("color", true, ""),
			`["interpolate-lab",["linear"],["zoom"],0,"red",10,"blue"]`},
		{"zoom, interval drops the first input", `{"type": "interval", "stops": [[0, "a"], [5, "b"], [9, "c"]]}`, str,
			`["step",["zoom"],"a",5,"b",9,"c"]`},
		{"zoom, a property that cannot interpolate steps", `{"stops": [[0, "a"], [5, "b"]]}`, str,
			`["step",["zoom"],"a",5,"b"]`},
		{"zoom, one interval stop", `{"type": "interval", "stops": [[3, "a"]]}`, str, `"a"`},
		{"zoom, repeated input: the first counts", `{"stops": [[0, 1], [4, 2], [4, 3], [8, 4]]}`, num,
			`["interpolate",["linear"],["zoom"],0,1,4,2,8,4]`},
		{"zoom, array outputs are literals", `{"stops": [[0, [1, 2]], [5, [3, 4]]]}`, arr,
			`["interpolate",["linear"],["zoom"],0,["literal",[1,2]],5,["literal",[3,4]]]`},
		{"zoom, tokens", `{"type": "interval", "stops": [[0, "{name} ({ref})"], [5, "{name}"], [9, "plain {"]]}`, tokens,
			`["step",["zoom"],["concat",["get","name"]," (",["get","ref"],")"],5,["to-string",["get","name"]],9,"plain {"]`},
		{"property, exponential", `{"property": "p", "stops": [[0, 1], [10, 5]]}`, num,
			`["interpolate",["linear"],["number",["get","p"]],0,1,10,5]`},
		{"property, exponential with a default", `{"property": "p", "default": 7, "stops": [[0, 1], [10, 5]]}`, num,
			`["case",["==",["typeof",["get","p"]],"number"],["interpolate",["linear"],["number",["get","p"]],0,1,10,5],7]`},
		{"property, the property's default", `{"property": "p", "type": "interval", "stops": [[0, 1], [10, 5]]}`, legacySpec("number", true, "3"),
			`["case",["==",["typeof",["get","p"]],"number"],["step",["number",["get","p"]],1,10,5],3]`},
		{"property, tokens stay literal", `{"property": "p", "type": "interval", "stops": [[0, "{a}"], [1, "b"]]}`, tokens,
			`["step",["number",["get","p"]],"{a}",1,"b"]`},
		{"property, categorical strings", `{"property": "p", "type": "categorical", "default": "x", "stops": [["a", "A"], ["b", "B"]]}`, str,
			`["match",["get","p"],"a","A","b","B","x"]`},
		{"property, categorical without any default", `{"property": "p", "type": "categorical", "stops": [["a", "A"]]}`, str,
			`["match",["get","p"],"a","A",""]`},
		{"property, categorical booleans", `{"property": "p", "type": "categorical", "stops": [[true, 1], [false, 0]]}`, legacySpec("number", false, "5"),
			`["case",["==",["get","p"],true],1,["==",["get","p"],false],0,5]`},
		{"property, categorical fractions", `{"property": "p", "type": "categorical", "stops": [[0.5, 1], [1, 0]]}`, legacySpec("number", false, "5"),
			`["case",["==",["get","p"],0.5],1,["==",["get","p"],1],0,5]`},
		{"identity, number", `{"type": "identity", "property": "p"}`, num, `["number",["get","p"]]`},
		{"identity, colour with default", `{"type": "identity", "property": "p", "default": "red"}`, legacySpec("color", true, ""),
			`["to-color",["get","p"],"red"]`},
		{"identity, enum with default", `{"type": "identity", "property": "p", "default": "a"}`, enum,
			`["match",["get","p"],["a","b"],["string",["get","p"]],"a"]`},
		{"identity, array", `{"type": "identity", "property": "p"}`, arr, `["array","number",2,["get","p"]]`},
		{"identity, padding with default", `{"type": "identity", "property": "p", "default": 2}`, legacySpec("padding", true, ""),
			`["coalesce",["get","p"],2]`},
		{"zoom and property, exponential", `{"property": "p", "stops": [[{"zoom": 0, "value": 0}, 0], [{"zoom": 0, "value": 1}, 1], [{"zoom": 5, "value": 0}, 2]]}`, num,
			`["interpolate",["linear"],["zoom"],0,["interpolate",["linear"],["number",["get","p"]],0,0,1,1],5,["interpolate",["linear"],["number",["get","p"]],0,2]]`},
		{"zoom and property, categorical", `{"property": "p", "type": "categorical", "default": "z", "stops": [[{"zoom": 0, "value": "a"}, "A"], [{"zoom": 5, "value": "a"}, "B"]]}`, str,
			`["step",["zoom"],["match",["get","p"],"a","A","z"],5,["match",["get","p"],"a","B","z"]]`},
		// A property that interpolates is blended between the levels by
		// the function's base, whatever its type.
		{"zoom and property, categorical number", `{"property": "p", "type": "categorical", "base": 2, "stops": [[{"zoom": 0, "value": 1}, 0], [{"zoom": 10, "value": 1}, 10]]}`, legacySpec("number", true, "3"),
			`["interpolate",["exponential",2],["zoom"],0,["match",["get","p"],1,0,3],10,["match",["get","p"],1,10,3]]`},
		{"zoom and property, interval number", `{"property": "p", "type": "interval", "stops": [[{"zoom": 0, "value": 1}, 0], [{"zoom": 10, "value": 1}, 10]]}`, num,
			`["interpolate",["linear"],["zoom"],0,0,10,10]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := decodeJSON([]byte(tc.fn))
			if err != nil {
				t.Fatal(err)
			}
			got, err := convertFunction(doc.(*jobj), tc.spec)
			if err != nil {
				t.Fatalf("convertFunction: %v", err)
			}
			if s := jsonOf(t, got); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
			if _, errs := Compile([]byte(tc.fn), tc.spec); len(errs) > 0 {
				t.Errorf("the conversion does not compile: %v", errs)
			}
		})
	}
}

// TestZoomAndPropertyBlend evaluates zoom-and-property functions of a
// number property between their zoom levels 0 and 10 at zoom 5, as GL's
// style-spec createFunction gives them: blended by the base whatever the
// type (base 2: (2^5 - 1) / (2^10 - 1) of the way, 0.30303).
func TestZoomAndPropertyBlend(t *testing.T) {
	props := &Object{}
	props.Set("p", Number(1))
	for _, tc := range []struct {
		typ  string
		base float64
		want float64
	}{
		{"categorical", 2, 10 * 31.0 / 1023}, {"interval", 2, 10 * 31.0 / 1023}, {"exponential", 2, 10 * 31.0 / 1023},
		{"categorical", 1, 5}, {"interval", 1, 5},
	} {
		fn := fmt.Sprintf(`{"property": "p", "type": %q, "base": %g, "stops": [[{"zoom": 0, "value": 1}, 0], [{"zoom": 10, "value": 1}, 10]]}`, tc.typ, tc.base)
		e, errs := Compile([]byte(fn), legacySpec("number", true, "3"))
		if len(errs) > 0 {
			t.Fatalf("%s: %v", fn, errs)
		}
		got, err := e.EvalNumber(&EvalContext{Zoom: 5, Feature: &MapFeature{Props: props}})
		if err != nil || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s base %g at zoom 5 = %v (%v), want %v", tc.typ, tc.base, got, err, tc.want)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(jsonToGo(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonToGo turns the ordered JSON representation into values encoding/json
// writes.
func jsonToGo(v any) any {
	switch t := v.(type) {
	case *jobj:
		m := make(map[string]any, len(t.keys))
		for i, k := range t.keys {
			m[k] = jsonToGo(t.vals[i])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonToGo(x)
		}
		return out
	}
	return v
}

func TestConvertFunctionErrors(t *testing.T) {
	num := legacySpec("number", true, "")
	for _, fn := range []string{
		`{"stops": []}`,
		`{"stops": "no"}`,
		`{"stops": [[1, 2, 3]]}`,
		`{"type": "bogus", "stops": [[1, 2]]}`,
		`{"type": "identity"}`,
		`{"base": -1, "stops": [[1, 2]]}`,
		`{"colorSpace": "xyz", "stops": [[1, 2]]}`,
		`{"property": 3, "stops": [[1, 2]]}`,
		`{"stops": [["a", 2]]}`,
		`{"property": "p", "stops": [[{"zoom": 0, "value": 1}, 1], [2, 3]]}`,
		`{"property": "p", "stops": [[{"value": 1}, 1]]}`,
		`{"stops": [[{"zoom": 0, "value": 1}, 1]]}`,
		`{"property": "p", "type": "interval", "stops": [[true, 1]]}`,
	} {
		doc, err := decodeJSON([]byte(fn))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := convertFunction(doc.(*jobj), num); err == nil {
			t.Errorf("convertFunction(%s) = %s, want an error", fn, jsonOf(t, got))
		}
	}
}

func TestTokenExpression(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"{a}", `["to-string",["get","a"]]`},
		{"x{a}y{b}", `["concat","x",["get","a"],"y",["get","b"]]`},
		{"{}{a}", `["concat","{}",["get","a"]]`},
		{"{{a}}", `["concat","{",["get","a"],"}"]`},
		{"open {a", `"open {a"`},
	}
	for _, tc := range tests {
		if got := jsonOf(t, tokenExpression(tc.in)); got != tc.want {
			t.Errorf("tokenExpression(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
