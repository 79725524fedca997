package expr

import "testing"

func TestDependencies(t *testing.T) {
	tests := []struct {
		expr                 string
		feature, zoom, state bool
		folded               bool
	}{
		{`["+", 1, 2]`, false, false, false, true},
		{`["get", "a"]`, true, false, false, false},
		{`["get", "a", ["literal", {"a": 1}]]`, false, false, false, true},
		{`["has", "a"]`, true, false, false, false},
		{`["feature-state", "a"]`, true, false, true, false},
		{`["step", ["zoom"], 0, 5, 1]`, false, true, false, false},
		{`["heatmap-density"]`, false, false, false, false},
		{`["let", "x", ["get", "a"], ["var", "x"]]`, true, false, false, false},
		{`["let", "x", 2, ["*", ["var", "x"], 3]]`, false, false, false, true},
		{`["number", ["literal", 3]]`, false, false, false, true},
		{`["to-string", ["number", 3]]`, false, false, false, true},
		{`["typeof", ["global-state", "g"]]`, false, false, false, false},
		{`["resolved-locale", ["collator", {}]]`, false, false, false, false},
		{`["step", ["zoom"], 0, 5, ["get", "a"]]`, true, true, false, false},
		{`["number", ["error", "x"]]`, false, false, false, false},
	}
	for _, tt := range tests {
		e, errs := Compile([]byte(tt.expr), nil)
		if len(errs) > 0 {
			t.Fatalf("Compile(%s): %v", tt.expr, errs)
		}
		if got := !e.IsFeatureConstant(); got != tt.feature {
			t.Errorf("%s: reads feature %v, want %v", tt.expr, got, tt.feature)
		}
		if got := !e.IsZoomConstant(); got != tt.zoom {
			t.Errorf("%s: reads zoom %v, want %v", tt.expr, got, tt.zoom)
		}
		if got := !e.IsStateConstant(); got != tt.state {
			t.Errorf("%s: reads state %v, want %v", tt.expr, got, tt.state)
		}
		if _, got := e.Constant(); got != tt.folded {
			t.Errorf("%s: folded %v, want %v", tt.expr, got, tt.folded)
		}
	}
}

func TestFitConversions(t *testing.T) {
	tests := []struct {
		expr, typ string
		want      string // "assert", "coerce", "as is" or an error message
	}{
		{`["get", "a"]`, "number", "assert"},
		{`["get", "a"]`, "color", "coerce"},
		{`["get", "a"]`, "string", "coerce"}, // string properties always coerce
		{`["concat", ["get", "a"]]`, "color", "coerce"},
		{`["get", "a"]`, "padding", "coerce"},
		{`["+", ["get", "a"], 1]`, "padding", "coerce"},
		{`["+", ["get", "a"], 1]`, "number", "as is"},
		{`["+", ["get", "a"], 1]`, "boolean", "Expected boolean but found number instead."},
	}
	for _, tt := range tests {
		e, got := compileAs(tt.expr, tt.typ)
		switch {
		case e == nil:
		default:
			switch e.root.(type) {
			case *assertionNode:
				got = "assert"
			case *coercionNode:
				got = "coerce"
			default:
				got = "as is"
			}
		}
		if got != tt.want {
			t.Errorf("%s as %s: %s, want %s", tt.expr, tt.typ, got, tt.want)
		}
	}
}

func TestCompileCallSignatures(t *testing.T) {
	tests := []struct{ expr, err string }{
		{`["all", true, false]`, ""},
		{`["all", true, false, true]`, ""},
		{`["all", 1, false]`, "Expected arguments of type (boolean, boolean) | (boolean...), but found (number, boolean) instead."},
		{`["-", 1]`, ""},
		{`["-", 1, 2, 3]`, "Expected arguments of type (number, number) | (number), but found (number, number, number) instead."},
		{`["get", 1]`, "[1]: Expected string but found number instead."},
		{`["upcase", ["+", 1, "a"]]`, `[1][2]: Expected number but found string instead.`},
	}
	for _, tt := range tests {
		if got := firstError(tt.expr); got != tt.err {
			t.Errorf("%s: %q, want %q", tt.expr, got, tt.err)
		}
	}
}

func TestZoomCurvePlacement(t *testing.T) {
	tests := []struct{ expr, err string }{
		{`["interpolate", ["linear"], ["zoom"], 0, 1, 10, 2]`, ""},
		{`["let", "a", 1, ["step", ["zoom"], 0, 5, ["var", "a"]]]`, ""},
		{`["coalesce", ["step", ["zoom"], 0, 5, 1], 3]`, ""},
		{`["+", 1, ["step", ["zoom"], 0, 5, 1]]`, msgZoomNotTopLevel},
		{`["+", ["zoom"], 1]`, msgZoomNotTopLevel},
		{`["coalesce", ["step", ["zoom"], 0, 5, 1], ["step", ["zoom"], 1, 5, 1]]`, msgZoomTwoCurves},
		{`["step", ["zoom"], 0, 5, ["step", ["zoom"], 1, 5, 2]]`, msgZoomTwoCurves},
		{`["step", ["zoom"], 0, 5, ["+", 1, ["step", ["zoom"], 1, 5, 2]]]`, msgZoomNotTopLevel},
		{`["let", "a", ["step", ["zoom"], 0, 5, 1], ["step", ["zoom"], 1, 5, 2]]`, msgZoomTwoCurves},
	}
	spec := &PropertySpec{Type: "number", PropertyType: "data-constant", Expression: &ExpressionSupport{Interpolated: true, Parameters: []string{"zoom"}}}
	for _, tt := range tests {
		_, errs := Compile([]byte(tt.expr), spec)
		got := ""
		if len(errs) > 0 {
			got = errs[0].Message
		}
		if got != tt.err {
			t.Errorf("%s: %q, want %q", tt.expr, got, tt.err)
		}
	}
}

// compileAs compiles expr for a data-driven property of type typ: the
// expression, or nil and the first error message.
func compileAs(expr, typ string) (*Expression, string) {
	spec := &PropertySpec{Type: typ, PropertyType: "data-driven", Expression: &ExpressionSupport{Parameters: []string{"zoom", "feature"}}}
	e, errs := Compile([]byte(expr), spec)
	if len(errs) > 0 {
		return nil, errs[0].Message
	}
	return e, ""
}

// firstError compiles expr without a property spec: the first error with
// its key, or "".
func firstError(expr string) string {
	if _, errs := Compile([]byte(expr), nil); len(errs) > 0 {
		return errs[0].Error()
	}
	return ""
}
