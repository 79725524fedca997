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
