package symbols

import (
	"fmt"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/text"
)

// testFit is the lineFit of a tile at its own zoom for a label labelLen
// long (glyph pixels as tile units), as lineSpots makes it.
func testFit(spacing, labelLen, window float64) lineFit {
	pitch := labelPitch(spacing, labelLen)
	return lineFit{pitch: pitch, labelLen: labelLen, leadIn: labelLen/2 + 2*text.OneEm, edgeIn: pitch / 2, window: window, maxAngle: math.Pi / 4}
}

func TestSpacedAnchorsTable(t *testing.T) {
	straight := []tilePoint{{0, 100}, {1000, 100}}
	tests := []struct {
		name              string
		line              []tilePoint
		spacing, labelLen float64
		bounded           bool
		want              []float64 // x of each anchor (y stays 100)
	}{
		// The first label past half its length and two ems (48): 98.
		{"every spacing while the label fits", straight, 300, 100, false, []float64{98, 398, 698}},
		// Starting on the tile's edge: half a spacing in.
		{"continued from the next tile", straight, 300, 100, true, []float64{150, 450, 750}},
		// A 200 label with spacing 100 leaves a quarter (25) free: 225.
		{"label wider than the spacing", straight, 100, 200, false, []float64{148, 373, 598, 823}},
		// 98 + 50 runs past 120: the label goes to the middle instead.
		{"short line: the middle", []tilePoint{{0, 100}, {120, 100}}, 300, 100, false, []float64{60}},
		{"short line continued: none", []tilePoint{{0, 100}, {120, 100}}, 300, 100, true, nil},
		{"too short for the label", []tilePoint{{0, 100}, {80, 100}}, 300, 100, false, nil},
		// Anchors left of the square are dropped.
		{"outside the tile", []tilePoint{{-500, 100}, {500, 100}}, 300, 100, true, []float64{198}},
		{"outside the tile, unbounded", []tilePoint{{-500, 100}, {500, 100}}, 300, 100, false, []float64{-402, -102, 198}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fit := testFit(tc.spacing, tc.labelLen, 0)
			got := fit.anchorsOn(tc.line, false, tc.bounded)
			if len(got) != len(tc.want) {
				t.Fatalf("anchors %v, want x %v", got, tc.want)
			}
			for i, a := range got {
				if a.p.x != tc.want[i] || a.p.y != 100 {
					t.Fatalf("anchors %v, want x %v", got, tc.want)
				}
				if l := tc.line; a.seg != 0 || len(l) != 2 {
					t.Errorf("anchor %v on segment %d", a.p, a.seg)
				}
			}
		})
	}
}

// TestAnchorsOnCenter: line-center takes the middle of a line when a
// label fits there and, for a tile's piece, when the middle lies in the
// tile.
func TestAnchorsOnCenter(t *testing.T) {
	tests := []struct {
		name    string
		line    []tilePoint
		window  float64 // 0: an icon alone
		bounded bool
		want    []float64 // x of each anchor (y stays 100)
	}{
		{"the middle", []tilePoint{{0, 100}, {1000, 100}}, 30, true, []float64{500}},
		{"middle left of the tile", []tilePoint{{-700, 100}, {300, 100}}, 30, true, nil},
		{"middle left of the tile, unbounded", []tilePoint{{-700, 100}, {300, 100}}, 30, false, []float64{-200}},
		{"too short for the label", []tilePoint{{0, 100}, {80, 100}}, 30, false, nil},
		{"an icon alone, whatever its length", []tilePoint{{0, 100}, {80, 100}}, 0, false, []float64{40}},
	}
	for _, tc := range tests {
		fit := testFit(300, 100, tc.window)
		got := fit.anchorsOn(tc.line, true, tc.bounded)
		var xs []float64
		for _, a := range got {
			if a.p.y != 100 {
				t.Errorf("%s: anchor %v off the line", tc.name, a.p)
			}
			xs = append(xs, a.p.x)
		}
		if fmt.Sprint(xs) != fmt.Sprint(tc.want) {
			t.Errorf("%s: anchors at x %v, want %v", tc.name, xs, tc.want)
		}
	}
}

func TestLabelMaxAngle(t *testing.T) {
	// bends returns a line of 1000 units whose middle (500) is a vertex,
	// turning there by the first angle and 20 units on by the second
	// (degrees, positive to the left).
	bends := func(first, second float64) []tilePoint {
		r := math.Pi / 180
		a := tilePoint{500, 0}
		b := tilePoint{a.x + 20*math.Cos(first*r), a.y + 20*math.Sin(first*r)}
		c := tilePoint{b.x + 480*math.Cos((first+second)*r), b.y + 480*math.Sin((first+second)*r)}
		return []tilePoint{{0, 0}, a, b, c}
	}
	tests := []struct {
		name     string
		line     []tilePoint
		labelLen float64
		window   float64
		ok       bool
	}{
		{"straight", []tilePoint{{0, 0}, {1000, 0}}, 200, 60, true},
		{"one turn under the limit", bends(40, 0), 200, 60, true},
		{"one turn over the limit", bends(50, 0), 200, 60, false},
		{"two turns in one window add up", bends(30, 30), 200, 60, false},
		{"turns either way add up too", bends(30, -60), 200, 60, false},
		{"two turns in different windows", bends(30, 30), 200, 10, true},
		// The label covers 490 to 510: the second bend (520) is not under it.
		{"a turn past the label's end", bends(30, 30), 20, 60, true},
		{"label longer than the line", []tilePoint{{0, 0}, {100, 0}}, 200, 60, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := centerAnchor(tc.line, tc.labelLen, tc.window, math.Pi/4)
			if ok != tc.ok {
				t.Fatalf("centerAnchor ok %v (%v), want %v", ok, a, tc.ok)
			}
			if ok && (a.p != tilePoint{500, 0}) {
				t.Errorf("anchor %v, want the middle (500, 0)", a.p)
			}
		})
	}
}

func TestCenterAnchorRounds(t *testing.T) {
	a, ok := centerAnchor([]tilePoint{{0, 0}, {101, 0}}, 10, 0, math.Pi/4)
	if !ok || a.p != (tilePoint{51, 0}) || a.seg != 0 {
		t.Errorf("anchor %v (%v), want (51, 0) on segment 0", a, ok)
	}
	// A line with a repeated point: the anchor lies on a segment of
	// non-zero length.
	a, ok = centerAnchor([]tilePoint{{0, 0}, {50, 0}, {50, 0}, {100, 0}}, 10, 5, math.Pi/4)
	if !ok || a.p != (tilePoint{50, 0}) || a.seg != 2 {
		t.Errorf("anchor %v (%v), want (50, 0) on segment 2", a, ok)
	}
}

func TestCenterAnchorWithoutText(t *testing.T) {
	// An icon alone (no text: window 0) longer than its line still goes
	// to the line's middle; a text label that long does not.
	line := []tilePoint{{0, 0}, {100, 0}}
	if a, ok := centerAnchor(line, 200, 0, math.Pi/4); !ok || a.p != (tilePoint{50, 0}) {
		t.Errorf("icon: anchor %v (%v), want (50, 0)", a, ok)
	}
	if a, ok := centerAnchor(line, 200, 10, math.Pi/4); ok {
		t.Errorf("text: anchor %v, want none", a)
	}
}
