package glyphs

import (
	"math"
	"testing"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// polygons turns contours given in pixels with y up into sfnt segments
// (26.6 fixed point, y down), as LoadGlyph returns them.
func polygons(contours ...[][2]float64) sfnt.Segments {
	var segs sfnt.Segments
	pt := func(p [2]float64) fixed.Point26_6 {
		return fixed.Point26_6{X: fixed.Int26_6(math.Round(p[0] * 64)), Y: fixed.Int26_6(math.Round(-p[1] * 64))}
	}
	for _, c := range contours {
		segs = append(segs, sfnt.Segment{Op: sfnt.SegmentOpMoveTo, Args: [3]fixed.Point26_6{pt(c[0])}})
		for _, p := range c[1:] {
			segs = append(segs, sfnt.Segment{Op: sfnt.SegmentOpLineTo, Args: [3]fixed.Point26_6{pt(p)}})
		}
	}
	return segs
}

func rect(x0, y0, x1, y1 float64, clockwise bool) [][2]float64 {
	if clockwise {
		return [][2]float64{{x0, y0}, {x0, y1}, {x1, y1}, {x1, y0}}
	}
	return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// boxDistance is the signed distance from p to the box, negative inside.
func boxDistance(px, py, x0, y0, x1, y1 float64) float64 {
	dx := max(x0-px, 0, px-x1)
	dy := max(y0-py, 0, py-y1)
	if dx == 0 && dy == 0 {
		return -min(px-x0, x1-px, py-y0, y1-py)
	}
	return math.Hypot(dx, dy)
}

// render flattens segs and renders the bitmap the way renderGlyph does,
// returning it with its size and the bitmap's top-left corner.
func render(t *testing.T, segs sfnt.Segments) (bm []byte, w, h int, x0, y0 float64) {
	t.Helper()
	var s scratch
	minX, minY, maxX, maxY, n := s.flatten(segs)
	if n == 0 {
		t.Fatal("no segments")
	}
	left, bottom, right, top := math.Round(minX), math.Round(minY), math.Round(maxX), math.Round(maxY)
	w, h = int(right-left)+2*buffer, int(top-bottom)+2*buffer
	x0, y0 = left-buffer, top+buffer
	return s.sdf(w, h, x0, y0), w, h, x0, y0
}

func TestEncodeDistance(t *testing.T) {
	tests := []struct {
		d    float64
		want byte
	}{
		{0, 191},     // on the outline: 255 - 64
		{1, 159},     // 255 - (32+64)
		{0.5, 175},   // 255 - 80
		{0.99, 160},  // 255 - trunc(95.68)
		{-1, 223},    // 255 - 32
		{-1.95, 254}, // 255 - trunc(1.6)
		{-1.99, 255}, // 255 - trunc(0.32)
		{-2, 255},    // 255 - 0
		{-7, 255},    // clamped
		{5.96, 1},    // 255 - trunc(254.72)
		{5.97, 0},    // 255 - 255 (clamped)
		{math.Inf(1), 0},
		{math.Inf(-1), 255},
	}
	for _, tc := range tests {
		if got := encodeDistance(tc.d); got != tc.want {
			t.Errorf("encodeDistance(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestSDFSquare(t *testing.T) {
	// A 10x8 px box: every byte must be the encoding of the exact distance
	// (allowing one step where float rounding meets truncation).
	const bx0, by0, bx1, by1 = 2, 1, 12, 9
	bm, w, h, x0, y0 := render(t, polygons(rect(bx0, by0, bx1, by1, false)))
	if w != 10+6 || h != 8+6 {
		t.Fatalf("bitmap %dx%d, want 16x14", w, h)
	}
	for j := range h {
		for i := range w {
			px, py := x0+float64(i)+0.5, y0-float64(j)-0.5
			want := int(encodeDistance(boxDistance(px, py, bx0, by0, bx1, by1)))
			if got := int(bm[j*w+i]); got < want-1 || got > want+1 {
				t.Fatalf("pixel (%d,%d): %d, want %d", i, j, got, want)
			}
		}
	}
	// The corners of the buffer are more than 3 px from the box: the
	// encoding of sqrt(2*2.5²) = 3.54 px is 255-177 = 78.
	if bm[0] != 78 {
		t.Errorf("top-left corner %d, want 78", bm[0])
	}
}

func TestSDFWindingRules(t *testing.T) {
	inside := func(t *testing.T, segs sfnt.Segments, px, py float64) bool {
		bm, w, _, x0, y0 := render(t, segs)
		i, j := int(px-x0), int(y0-py)
		return bm[j*w+i] > 191
	}
	// Two overlapping boxes wound the same way: the overlap is inside by the
	// nonzero rule (the even-odd rule would punch a hole there).
	overlap := polygons(rect(0, 0, 10, 10, false), rect(5, 0, 15, 10, false))
	if !inside(t, overlap, 7.5, 5.5) {
		t.Error("overlap of same-direction contours is outside")
	}
	// A box with an inner box wound the other way: the inner box is a hole.
	hole := polygons(rect(0, 0, 12, 12, false), rect(3, 3, 9, 9, true))
	if inside(t, hole, 6.5, 6.5) {
		t.Error("counter-wound inner contour is not a hole")
	}
	if !inside(t, hole, 1.5, 6.5) {
		t.Error("ring of the holed box is outside")
	}
}

func TestSDFCircle(t *testing.T) {
	// A circle of radius 8 px made of quadratic arcs (8 of 45°): after
	// flattening, distances must match the true circle within ~1 px-step.
	const cx, cy, r = 10.0, 10.0, 8.0
	var segs sfnt.Segments
	pt := func(x, y float64) fixed.Point26_6 {
		return fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(-y * 64))}
	}
	segs = append(segs, sfnt.Segment{Op: sfnt.SegmentOpMoveTo, Args: [3]fixed.Point26_6{pt(cx+r, cy)}})
	const n = 8
	for k := range n {
		a0, a1 := 2*math.Pi*float64(k)/n, 2*math.Pi*float64(k+1)/n
		am := (a0 + a1) / 2
		rc := r / math.Cos(math.Pi/n) // control point radius
		segs = append(segs, sfnt.Segment{Op: sfnt.SegmentOpQuadTo, Args: [3]fixed.Point26_6{
			pt(cx+rc*math.Cos(am), cy+rc*math.Sin(am)), pt(cx+r*math.Cos(a1), cy+r*math.Sin(a1)),
		}})
	}
	bm, w, h, x0, y0 := render(t, segs)
	if w != 16+6 || h != 16+6 {
		t.Fatalf("bitmap %dx%d, want 22x22", w, h)
	}
	worst := 0
	for j := range h {
		for i := range w {
			px, py := x0+float64(i)+0.5, y0-float64(j)-0.5
			// The quadratic arcs bulge past the circle by at most 0.03 px
			// at r=8 with 8 arcs, so compare with a 2-step tolerance.
			want := int(encodeDistance(math.Hypot(px-cx, py-cy) - r))
			d := int(bm[j*w+i]) - want
			worst = max(worst, d, -d)
		}
	}
	if worst > 2 {
		t.Errorf("largest byte difference from the true circle is %d", worst)
	}
}

func TestFlattenCubic(t *testing.T) {
	// A cubic from (0,0) to (10,0) with controls at (0,10) and (10,10)
	// peaks at y = 7.5; the flattened bounds must reach it.
	pt := func(x, y float64) fixed.Point26_6 {
		return fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(-y * 64)}
	}
	segs := sfnt.Segments{
		{Op: sfnt.SegmentOpMoveTo, Args: [3]fixed.Point26_6{pt(0, 0)}},
		{Op: sfnt.SegmentOpCubeTo, Args: [3]fixed.Point26_6{pt(0, 10), pt(10, 10), pt(10, 0)}},
	}
	var s scratch
	minX, minY, maxX, maxY, n := s.flatten(segs)
	if n < 4 || minX != 0 || maxX != 10 || minY != 0 || maxY > 7.5 || 7.5-maxY > flatTolerance {
		t.Fatalf("bounds (%v,%v)-(%v,%v) with %d chords", minX, minY, maxX, maxY, n)
	}
}
