package tiler

import (
	"math"
	"testing"
)

func TestClipRingSquare(t *testing.T) {
	// A square from 0 to 10 clipped to x in [2, 5] keeps a 3x10 rectangle.
	sq := []pt{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	got := clipPolygon([][]pt{sq}, 2, 5, 0)
	if len(got) != 1 {
		t.Fatalf("got %v", got)
	}
	if a := math.Abs(ringArea2(got[0])) / 2; a != 30 {
		t.Errorf("area %v, want 30", a)
	}
	if got := clipPolygon([][]pt{sq}, 11, 12, 0); got != nil {
		t.Errorf("square outside the strip kept: %v", got)
	}
	// A hole outside the strip is dropped, the exterior kept.
	hole := []pt{{8, 2}, {9, 2}, {9, 3}, {8, 3}, {8, 2}}
	if got := clipPolygon([][]pt{sq, hole}, 0, 5, 0); len(got) != 1 {
		t.Errorf("want the hole dropped, got %d rings", len(got))
	}
	// Concave U shape clipped across both arms: area of the intersection.
	u := []pt{{0, 0}, {3, 0}, {3, 8}, {7, 8}, {7, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	got = clipPolygon([][]pt{u}, 0, 5, 1)
	if a := math.Abs(ringArea2(got[0])) / 2; a != 3*5+3*5 {
		t.Errorf("U clipped area %v, want 30", a)
	}
}

func TestClipLine(t *testing.T) {
	line := []pt{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	got := clipLine(nil, line, 2, 8, 0)
	// Enters at x=2 on the first segment, leaves at x=8; the vertical
	// segment at x=10 is outside; the last segment re-enters at 8 and
	// leaves at 2.
	want := [][]pt{{{2, 0}, {8, 0}}, {{8, 10}, {2, 10}}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
}

// FuzzClip clips fuzzer-made rings and lines and checks that the output
// stays inside the strip, rings stay closed and lines keep two positions.
func FuzzClip(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 10, 10, 0, 10}, uint8(2), uint8(5), false)
	f.Add([]byte{0, 0, 255, 3, 4, 200, 100, 100, 7, 9}, uint8(50), uint8(60), true)
	f.Fuzz(func(t *testing.T, data []byte, a, b uint8, yAxis bool) {
		var pts []pt
		for i := 0; i+1 < len(data) && len(pts) < 500; i += 2 {
			pts = append(pts, pt{float64(data[i]), float64(data[i+1])})
		}
		k1, k2 := float64(min(a, b)), float64(max(a, b))
		axis := 0
		if yAxis {
			axis = 1
		}
		inStrip := func(p pt) bool {
			v := coord(p, axis)
			return v >= k1-1e-9 && v <= k2+1e-9
		}
		for _, l := range clipLine(nil, pts, k1, k2, axis) {
			if len(l) < 2 {
				t.Fatalf("line piece with %d positions", len(l))
			}
			for _, p := range l {
				if !inStrip(p) {
					t.Fatalf("line position %v outside [%v,%v] on axis %d", p, k1, k2, axis)
				}
			}
		}
		if len(pts) < 3 {
			return
		}
		ring := append(append([]pt{}, pts...), pts[0])
		for _, r := range clipPolygon([][]pt{ring}, k1, k2, axis) {
			if len(r) < 4 || r[0] != r[len(r)-1] {
				t.Fatalf("ring open or short: %v", r)
			}
			for _, p := range r {
				if !inStrip(p) {
					t.Fatalf("ring position %v outside [%v,%v] on axis %d", p, k1, k2, axis)
				}
			}
		}
		// Simplification keeps the ends.
		s, _ := simplify(ring, 4, nil)
		if s[0] != ring[0] || s[len(s)-1] != ring[len(ring)-1] || len(s) > len(ring) {
			t.Fatalf("simplify broke the ring ends")
		}
	})
}
