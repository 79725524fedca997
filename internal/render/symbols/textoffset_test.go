package symbols

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/text"
)

func TestTextOffsets(t *testing.T) {
	d := 36 / math.Sqrt2 // 1.5 em radially along a diagonal
	tests := []struct {
		anchor              string
		away, radial, paird [2]float64
	}{
		// text-offset [1, -0.5] em (24, -12 em px) and radial 1.5 em (36)
		// for each anchor; the pairs take the offset as given. Text set
		// below or above its point comes 7 em px nearer it (verticalInset,
		// as GL JS 6.17 draws it).
		{"center", [2]float64{0, 0}, [2]float64{0, 0}, [2]float64{24, -12}},
		{"left", [2]float64{24, 0}, [2]float64{36, 0}, [2]float64{24, -12}},
		{"right", [2]float64{-24, 0}, [2]float64{-36, 0}, [2]float64{24, -12}},
		{"top", [2]float64{0, 12 - 7}, [2]float64{0, 36 - 7}, [2]float64{24, -12 - 7}},
		{"bottom", [2]float64{0, -12 + 7}, [2]float64{0, -36 + 7}, [2]float64{24, -12 + 7}},
		{"top-left", [2]float64{24, 12 - 7}, [2]float64{d, d - 7}, [2]float64{24, -12 - 7}},
		{"bottom-right", [2]float64{-24, -12 + 7}, [2]float64{-d, -d + 7}, [2]float64{24, -12 + 7}},
	}
	near := func(a, b [2]float64) bool { return math.Abs(a[0]-b[0]) < 1e-9 && math.Abs(a[1]-b[1]) < 1e-9 }
	for _, tc := range tests {
		for _, got := range []struct {
			name   string
			choice anchorChoice
			want   [2]float64
		}{
			{"awayChoice", awayChoice(tc.anchor, [2]float64{24, -12}), tc.away},
			{"radialChoice", radialChoice(tc.anchor, 36), tc.radial},
			{"pairedChoice", pairedChoice(tc.anchor, [2]float64{24, -12}), tc.paird},
		} {
			if got.choice.anchor != tc.anchor || !near(got.choice.move, got.want) {
				t.Errorf("%s(%s) = %+v, want a move of %v", got.name, tc.anchor, got.choice, got.want)
			}
		}
	}
}

func TestTextSide(t *testing.T) {
	for anchor, want := range map[string][2]float64{
		"center": {0, 0}, "left": {1, 0}, "right": {-1, 0}, "top": {0, 1}, "bottom": {0, -1},
		"top-left": {1, 1}, "top-right": {-1, 1}, "bottom-left": {1, -1}, "bottom-right": {-1, -1},
		"bogus": {0, 0},
	} {
		if sx, sy := textSide(anchor); sx != want[0] || sy != want[1] {
			t.Errorf("textSide(%s) = %v, %v; want %v", anchor, sx, sy, want)
		}
	}
}

func TestTurnedBoxShift(t *testing.T) {
	// A centred box 40 wide and 20 tall.
	sh := text.Shaping{Left: -20, Top: -10, Right: 20, Bottom: 10}
	tests := []struct {
		name  string
		angle float64
		away  [2]float64
		dx    float64
		dy    float64
	}{
		{"unturned, text right of the point", 0, [2]float64{1, 0}, 20, 0},
		{"unturned, text above", 0, [2]float64{0, -1}, 0, -10},
		// Turned a quarter: 20 wide and 40 tall on screen.
		{"quarter turn, text right", math.Pi / 2, [2]float64{1, 0}, 10, 0},
		{"quarter turn, text below left", math.Pi / 2, [2]float64{-1, 1}, -10, 20},
		{"centred", math.Pi / 2, [2]float64{0, 0}, 0, 0},
	}
	for _, tc := range tests {
		dx, dy := turnedBoxShift(sh, tc.angle, tc.away)
		if math.Abs(dx-tc.dx) > 1e-9 || math.Abs(dy-tc.dy) > 1e-9 {
			t.Errorf("%s: shift %v, %v; want %v, %v", tc.name, dx, dy, tc.dx, tc.dy)
		}
	}
}
