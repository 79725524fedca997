package raster

import (
	"image"
	"math"
	"testing"
)

func TestLineTriangleShading(t *testing.T) {
	// A horizontal band: NY runs from -1 at y=0 to 1 at y=8, so the
	// centre is y=4 and the outset 4 pixels.
	quad := [2][3]LineVertex{
		{{X: 0, Y: 0, NY: -1}, {X: 16, Y: 0, NY: -1}, {X: 0, Y: 8, NY: 1}},
		{{X: 16, Y: 0, NY: -1}, {X: 16, Y: 8, NY: 1}, {X: 0, Y: 8, NY: 1}},
	}
	tests := []struct {
		name  string
		paint LinePaint
		y     int
		want  uint8 // alpha at (8, y)
	}{
		{"centre", LinePaint{Outset: 4, Blur2: 1, Color: Color{A: 1}, Opacity: 1}, 4, 255},
		{"edge ramp", LinePaint{Outset: 4, Blur2: 1, Color: Color{A: 1}, Opacity: 1}, 0, 128},
		{"opacity", LinePaint{Outset: 4, Blur2: 1, Color: Color{A: 1}, Opacity: 0.5}, 4, 128},
		{"gap hides the centre", LinePaint{Outset: 4, Inset: 2, Blur2: 1, Color: Color{A: 1}, Opacity: 1}, 4, 0},
	}
	for _, tc := range tests {
		cv := NewCanvas(16, 8)
		for i := range quad {
			cv.LineTriangle(&quad[i], nil, &tc.paint)
		}
		if got := cv.RGBAAt(8, tc.y).A; got != tc.want {
			t.Errorf("%s: alpha %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestLineTriangleClip(t *testing.T) {
	tri := [3]LineVertex{{X: 0, Y: 0}, {X: 16, Y: 0}, {X: 0, Y: 16}}
	cv := NewCanvas(16, 16)
	clip := []Point{{0, 0}, {4, 0}, {4, 4}, {0, 4}}
	cv.LineTriangle(&tri, clip, &LinePaint{Outset: 1, Blur2: 1, Color: Color{A: 1}, Opacity: 1})
	for _, c := range []struct {
		x, y int
		in   bool
	}{{1, 1, true}, {3, 3, true}, {5, 1, false}, {1, 5, false}} {
		if got := cv.RGBAAt(c.x, c.y).A > 0; got != c.in {
			t.Errorf("pixel %d,%d drawn %v, want %v", c.x, c.y, got, c.in)
		}
	}
}

func TestDashCoverage(t *testing.T) {
	d := NewDash([]float64{2, 1}, 4, 1, false) // 8 px dash, 4 px gap, line width 4
	tests := []struct {
		along, want float64
	}{
		{4, 1},  // inside the first dash
		{10, 0}, // in the gap
		{16, 1}, // the second repeat
	}
	for _, tc := range tests {
		if got := d.coverage(tc.along, 0); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("coverage(%v) = %v, want %v", tc.along, got, tc.want)
		}
	}
	if e := d.coverage(8, 0); e <= 0 || e >= 1 {
		t.Errorf("coverage at a dash's end = %v, want a ramp value", e)
	}
	if NewDash([]float64{0, 0}, 4, 1, false) != nil || NewDash([]float64{1, -1}, 4, 1, false) != nil {
		t.Error("empty or negative dash arrays should draw solid lines")
	}
	// An odd array alternates: dash 1, gap 1, dash 1, gap 1 ... in widths.
	if odd := NewDash([]float64{1}, 4, 1, false); odd.coverage(6, 0) != 0 || odd.coverage(10, 0) != 1 {
		t.Error("an odd dash array should alternate dashes and gaps")
	}
}

func TestHairline(t *testing.T) {
	m := NewMask(8, 8)
	// A square from 1.5 to 5.5: edges through pixel centres.
	m.Hairline([]Point{{1.5, 1.5}, {5.5, 1.5}, {5.5, 5.5}, {1.5, 5.5}}, nil)
	tests := []struct {
		x, y int
		want float32
	}{
		{1, 1, 1}, // the start of the top edge
		{4, 1, 1},
		{5, 1, 1}, // the start of the right edge
		{3, 3, 0}, // inside
		{6, 1, 0}, // past the end
	}
	for _, tc := range tests {
		if got := m.Cov[tc.y*m.W+tc.x]; got != tc.want {
			t.Errorf("coverage at %d,%d = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestPatternWraps(t *testing.T) {
	img := NewCanvas(4, 2)
	img.Pix[img.PixOffset(2, 0)+3] = 255 // one opaque texel at (2, 0) of a 2x2 image at (2, 0)
	p := &Pattern{Img: img, Rect: image.Rect(2, 0, 4, 2), XX: 1, YY: 1}
	tests := []struct {
		u, v float64
		want float64
	}{
		{0.5, 0.5, 255}, // the texel's centre
		{2.5, 0.5, 255}, // one repeat right
		{0.5, 2.5, 255}, // one repeat down
		{1.5, 0.5, 0},
		{1, 0.5, 127.5}, // half way, bilinear
	}
	for _, tc := range tests {
		if _, _, _, a := p.at(tc.u, tc.v); math.Abs(a-tc.want) > 1e-9 {
			t.Errorf("at(%v, %v) alpha %v, want %v", tc.u, tc.v, a, tc.want)
		}
	}
}

func TestHairlineTies(t *testing.T) {
	// Edges on pixel boundaries: GL takes the pixel below a horizontal
	// edge and left of a vertical one.
	tests := []struct {
		name       string
		a, b       Point
		x, y       int
		wantCovers bool
	}{
		{"horizontal, below", Point{0.5, 4}, Point{6.5, 4}, 2, 4, true},
		{"horizontal, not above", Point{0.5, 4}, Point{6.5, 4}, 2, 3, false},
		{"vertical, left", Point{4, 0.5}, Point{4, 6.5}, 3, 2, true},
		{"vertical, not right", Point{4, 0.5}, Point{4, 6.5}, 4, 2, false},
	}
	for _, tc := range tests {
		m := NewMask(8, 8)
		m.Hairline([]Point{tc.a, tc.b}, func(i int) bool { return i == 1 })
		if got := m.Cov[tc.y*m.W+tc.x] > 0; got != tc.wantCovers {
			t.Errorf("%s: pixel %d,%d covered %v, want %v", tc.name, tc.x, tc.y, got, tc.wantCovers)
		}
	}
}

func TestTiltRoundTrip(t *testing.T) {
	tilt := &Tilt{CX: 256, CY: 128, Dist: 384, Sin: 0.5, Cos: math.Sqrt(3) / 2}
	for _, p := range []Point{{256, 128}, {0, 0}, {500, 250}, {10, 200}} {
		q, w := tilt.Project(p)
		back := tilt.Unproject(q)
		if math.Abs(back.X-p.X) > 1e-9 || math.Abs(back.Y-p.Y) > 1e-9 {
			t.Errorf("round trip of %v gives %v", p, back)
		}
		if p.Y < 128 && w <= 1 || p.Y > 128 && w >= 1 {
			t.Errorf("point %v at depth %v: points above the centre should recede", p, w)
		}
	}
}
