package render

import (
	"slices"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func TestNumbers(t *testing.T) {
	tests := []struct {
		name string
		v    expr.Value
		want []float64
	}{
		{"array of numbers", expr.Array([]expr.Value{expr.Number(5), expr.Number(-2)}), []float64{5, -2}},
		{"array with a string", expr.Array([]expr.Value{expr.Number(5), expr.String("x")}), nil},
		{"number", expr.Number(3), nil},
	}
	for _, tc := range tests {
		if got := scene.Numbers(tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: numbers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestViewOfBearing(t *testing.T) {
	tests := []struct {
		doc  string
		want float64
	}{
		{`{"version": 8, "sources": {}, "layers": [], "bearing": 90}`, 90},
		{`{"version": 8, "sources": {}, "layers": [], "bearing": -12.5}`, -12.5},
		{`{"version": 8, "sources": {}, "layers": []}`, 0},
	}
	for _, tc := range tests {
		if got := ViewOf(parse(t, tc.doc), 64, 64, 1).Bearing; got != tc.want {
			t.Errorf("%s: bearing %v, want %v", tc.doc, got, tc.want)
		}
	}
}

func TestViewOfPitch(t *testing.T) {
	tests := []struct {
		doc  string
		want float64
	}{
		{`{"version": 8, "sources": {}, "layers": [], "pitch": 30}`, 30},
		{`{"version": 8, "sources": {}, "layers": [], "pitch": 90}`, scene.MaxPitch},
		{`{"version": 8, "sources": {}, "layers": [], "pitch": -5}`, 0},
		{`{"version": 8, "sources": {}, "layers": []}`, 0},
	}
	for _, tc := range tests {
		v := ViewOf(parse(t, tc.doc), 64, 64, 1)
		if v.Pitch != tc.want {
			t.Errorf("%s: pitch %v, want %v", tc.doc, v.Pitch, tc.want)
		}
		if fr := scene.NewFrame(v); (fr.Tilt != nil) != (tc.want > 0) {
			t.Errorf("%s: tilted camera %v, want %v", tc.doc, fr.Tilt != nil, tc.want > 0)
		}
	}
}

func TestBalancedCut(t *testing.T) {
	tests := []struct {
		cost []float64
		want int
	}{
		{[]float64{1, 1}, 1},
		{[]float64{1, 1, 1, 1}, 2},
		{[]float64{1, 1, 1, 10}, 3}, // one heavy top layer runs alone
		{[]float64{10, 1, 1, 1}, 1},
		{[]float64{3, 1, 1, 1, 3}, 2},
		{[]float64{5}, 0},
		{nil, 0},
	}
	for _, tc := range tests {
		if got := balancedCut(tc.cost); got != tc.want {
			t.Errorf("balancedCut(%v) = %d, want %d", tc.cost, got, tc.want)
		}
	}
}

func TestNumberPair(t *testing.T) {
	num := expr.Number
	tests := []struct {
		name string
		v    expr.Value
		ok   bool
	}{
		{"two numbers", expr.Array([]expr.Value{num(5), num(-2)}), true},
		{"three numbers", expr.Array([]expr.Value{num(5), num(-2), num(1)}), false},
		{"one number", expr.Array([]expr.Value{num(5)}), false},
		{"a string", expr.Array([]expr.Value{num(5), expr.String("x")}), false},
		{"empty", expr.Array(nil), false},
		{"number", num(3), false},
		{"null", expr.Null(), false},
	}
	for _, tc := range tests {
		x, y, ok := scene.NumberPair(tc.v)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		// It reads what numbers reads.
		if want := scene.Numbers(tc.v); ok && (x != want[0] || y != want[1]) {
			t.Errorf("%s: %v, %v, want %v", tc.name, x, y, want)
		}
	}
}

func TestAnchorProperty(t *testing.T) {
	for _, name := range []string{"fill-translate", "line-translate", "circle-translate", "fill-extrusion-translate", "text-translate"} {
		if got := scene.AnchorProperty(name); got != name+"-anchor" {
			t.Errorf("anchorProperty(%q) = %q", name, got)
		}
	}
}
