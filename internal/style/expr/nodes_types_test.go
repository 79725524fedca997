package expr

import "testing"

func TestCoercions(t *testing.T) {
	tests := []struct {
		expr, typ string
		want      string // the result as JSON, or the error message
	}{
		{`["to-number", null, "x"]`, "number", `0`},
		{`["to-number", "x", "12"]`, "number", `12`},
		{`["to-number", "x", true]`, "number", `1`},
		{`["to-number", ["literal", [1, 2]], "y"]`, "number", `Could not convert "y" to number.`},
		{`["to-color", "nope", "#00ff00"]`, "color", `{"r":0,"g":1,"b":0,"a":1}`},
		{`["to-color", "nope", 3]`, "color", `Could not parse color from value '3'`},
		{`["to-color", ["literal", [300, 0, 0]], "nope"]`, "color", `Could not parse color from value 'nope'`},
		{`["to-color", "nope", ["literal", [300, 0, 0]]]`, "color", `Invalid rgba value [300, 0, 0]: 'r', 'g', and 'b' must be between 0 and 255.`},
		{`["to-boolean", ""]`, "boolean", `false`},
		{`["to-string", ["literal", [1, "a"]]]`, "string", `"[1,\"a\"]"`},
		{`2`, "padding", `{"values":[2,2,2,2]}`},
		{`["literal", [1, 2]]`, "padding", `{"values":[1,2,1,2]}`},
		{`["literal", [1, 2, 3]]`, "padding", `{"values":[1,2,3,2]}`},
		{`["literal", [1, 2, 3, 4]]`, "padding", `{"values":[1,2,3,4]}`},
		{`["literal", [1, 2, 3, 4, 5]]`, "padding", `Could not parse padding from value '[1,2,3,4,5]'`},
	}
	for _, tt := range tests {
		e, got := compileAs(tt.expr, tt.typ)
		switch {
		case e == nil:
		default:
			v, err := e.Eval(&EvalContext{})
			if err != nil {
				got = err.(*EvalError).Message
			} else {
				got = toStringJSON(v)
			}
		}
		if got != tt.want {
			t.Errorf("%s as %s: %s, want %s", tt.expr, tt.typ, got, tt.want)
		}
	}
}

func TestAssertionArguments(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`["number", "a", 2, 3]`, `2`},
		{`["string", 1, true]`, `Expected value to be of type string, but found boolean instead.`},
		{`["array", "number", 2, ["literal", [1, 2]]]`, `[1,2]`},
		{`["array", "number", 2, ["literal", [1, 2, 3]]]`, `Expected value to be of type array<number, 2>, but found array<number, 3> instead.`},
	}
	for _, tt := range tests {
		// Constant arguments fold: a failing assertion fails the compilation.
		if got := outcomeOf(tt.expr); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.expr, got, tt.want)
		}
	}
}

// outcomeOf compiles expr without a property spec and evaluates it with no
// feature: the first compile error's message, the evaluation error's
// message or the value as JSON.
func outcomeOf(expr string) string {
	e, errs := Compile([]byte(expr), nil)
	if len(errs) > 0 {
		return errs[0].Message
	}
	v, err := e.Eval(&EvalContext{})
	if err != nil {
		return err.(*EvalError).Message
	}
	return toStringJSON(v)
}
