package expr

import (
	"math"
	"testing"
)

func TestRampPosition(t *testing.T) {
	tests := []struct {
		x, lo, hi, base, want float64
	}{
		{5, 0, 10, 1, 0.5},
		{0, 0, 10, 1, 0},
		{10, 0, 10, 1, 1},
		{3, 3, 3, 2, 0},
		{1, 0, 2, 2, 1.0 / 3}, // (2^1 - 1) / (2^2 - 1)
		{1, 0, 2, 0.5, 2.0 / 3},
		{11, 10, 12, 3, 2.0 / 8}, // (3 - 1) / (9 - 1)
	}
	for _, tt := range tests {
		if got := rampPosition(tt.x, tt.lo, tt.hi, tt.base); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("rampPosition(%g, %g, %g, base %g) = %g, want %g", tt.x, tt.lo, tt.hi, tt.base, got, tt.want)
		}
	}
}

func TestRampCompileErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`["interpolate", ["exponential"], 1, 0, 1, 1, 2]`, `[1][1]: Exponential interpolation requires a numeric base.`},
		{`["interpolate", ["cubic-bezier", 0, 0, 1], 1, 0, 1, 1, 2]`, `[1]: Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.`},
		{`["interpolate", ["cubic-bezier", 0, 0, 1, 2], 1, 0, 1, 1, 2]`, `[1]: Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.`},
		{`["interpolate", ["smooth"], 1, 0, 1, 1, 2]`, `[1][0]: Unknown interpolation type smooth`},
		{`["interpolate", [], 1, 0, 1]`, `[1]: Expected an interpolation type expression.`},
		{`["interpolate", ["linear"], 1, 0, 1, 0, 2]`, `[5]: Input/output pairs for "interpolate" expressions must be arranged with input values in strictly ascending order.`},
		{`["interpolate-hcl", ["linear"], 1, 0, 1, 1, 2]`, `[4]: Expected color but found number instead.`},
		{`["step", ["get", "x"], 0, ["+", 1, 1], 1]`, `[3]: Input/output pairs for "step" expressions must be defined using literal numeric values (not computed expressions) for the input values.`},
		{`["step", ["get", "x"], 0, 2, 1, 2, 3]`, `[5]: Input/output pairs for "step" expressions must be arranged with input values in strictly ascending order.`},
		{`["step", ["get", "x"], "a", 2, 1]`, `[4]: Expected string but found number instead.`},
		{`["interpolate", ["linear"], 1, 0, "a", 1, "b"]`, `Type string is not interpolatable.`},
	}
	for _, tt := range tests {
		if got := firstError(tt.expr); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.expr, got, tt.want)
		}
	}
}
