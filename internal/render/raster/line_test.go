package raster

import (
	"image"
	"math"
	"math/rand/v2"
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
	m.Hairline([]Point{{1.5, 1.5}, {5.5, 1.5}, {5.5, 5.5}, {1.5, 5.5}}, nil, nil)
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
		m.Hairline([]Point{tc.a, tc.b}, func(i int) bool { return i == 1 }, nil)
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

func TestLinePatternPadded(t *testing.T) {
	// A 4x2 image whose columns have alphas 10, 20, 30, 40; a repeat of 6
	// CSS pixels shows the image with its padding: 6 texels, the last
	// column, the four, the first.
	img := NewCanvas(4, 2)
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			img.Pix[img.PixOffset(x, y)+3] = uint8(10 * (x + 1))
		}
	}
	p := &LinePattern{Img: img, Rect: img.Rect, Repeat: 6}
	tests := []struct {
		name      string
		along, ny float64
		want      float64
	}{
		{"padding column repeats the last", 0.5, 0, 40},
		{"first column", 1.5, 0, 10},
		{"middle of the repeat", 3, 0, 25},
		{"last column", 4.5, 0, 40},
		{"padding column repeats the first", 5.5, 0, 10},
		{"next repeat", 7.5, 0, 10},
		{"between the padding and the first column", 1, 0, 25},
		{"rows do not change the columns", 1.5, 0.9, 10},
	}
	for _, tc := range tests {
		if _, _, _, a := p.sample(tc.along, tc.ny); math.Abs(a-tc.want) > 1e-9 {
			t.Errorf("%s: alpha %v, want %v", tc.name, a, tc.want)
		}
	}
}

func TestLinePatternRows(t *testing.T) {
	// Across the line the padded image's rows span the normal's -1..1: a
	// 1x2 image with rows 0 and 100 has 4 rows padded (100, 0, 100, 0).
	img := NewCanvas(1, 2)
	img.Pix[img.PixOffset(0, 1)+3] = 100
	p := &LinePattern{Img: img, Rect: img.Rect, Repeat: 1}
	tests := []struct {
		ny, want float64
	}{
		{-0.75, 100}, // the top padding row, a copy of the bottom row
		{-0.25, 0},
		{0.25, 100},
		{0.75, 0}, // the bottom padding row, a copy of the top row
		{0, 50},
	}
	for _, tc := range tests {
		if _, _, _, a := p.sample(0.5, tc.ny); math.Abs(a-tc.want) > 1e-9 {
			t.Errorf("ny %v: alpha %v, want %v", tc.ny, a, tc.want)
		}
	}
}

func TestLineTriangleTiltedClip(t *testing.T) {
	// A tile much larger than the view reaches behind a tilted camera:
	// cut on the plane, its square still lets the triangle through.
	tilt := &Tilt{CX: 8, CY: 8, Dist: 24, Sin: math.Sqrt(3) / 2, Cos: 0.5}
	tri := [3]LineVertex{{X: -1000, Y: -1000}, {X: 1000, Y: -1000}, {X: 0, Y: 1000}}
	clip := []Point{{-5000, -5000}, {5000, -5000}, {5000, 5000}, {-5000, 5000}}
	cv := NewCanvas(16, 16)
	cv.LineTriangle(&tri, clip, &LinePaint{Outset: 1e6, Blur2: 1, Color: Color{A: 1}, Opacity: 1, Tilt: tilt})
	for _, q := range []Point{{8, 8}, {2, 14}, {14, 2}} {
		if a := cv.RGBAAt(int(q.X), int(q.Y)).A; a == 0 {
			t.Errorf("pixel %v not drawn", q)
		}
	}
}

func TestClipNear(t *testing.T) {
	tilt := &Tilt{CX: 0, CY: 0, Dist: 64, Sin: 1, Cos: 0}
	square := []Point{{-10, 0}, {10, 0}, {10, 100}, {-10, 100}}
	got := tilt.clipNear(square, make([]Point, 0, 16))
	limit := 64 * (1 - nearW)
	for _, q := range got {
		if q.Y > limit+1e-9 {
			t.Errorf("point %v kept past %v", q, limit)
		}
		if _, w := tilt.Project(q); w < nearW-1e-9 {
			t.Errorf("point %v at depth %v", q, w)
		}
	}
	if len(got) != 4 {
		t.Errorf("cut square has %d points, want 4: %v", len(got), got)
	}
}

func TestDashEdges(t *testing.T) {
	// Dash [1, 1] on a 50-pixel line: a 100-pixel repeat in 256 texels.
	// The dash starts at 0 and ends one texel past its 50 pixels, where
	// GL's sampled field crosses its middle value.
	d := NewDash([]float64{1, 1}, 50, 1, false)
	texel := 100.0 / 256
	tests := []struct {
		name  string
		along float64
		want  float64
	}{
		{"start", 0, 0.5},
		{"next start", 100, 0.5},
		{"end, a texel past the dash", 50 + texel, 0.5},
		{"before the end's ramp", 49.8, 1},
		{"past the end's ramp", 51, 0},
	}
	for _, tc := range tests {
		got := d.coverage(tc.along, 0)
		if tc.want == 0.5 && math.Abs(got-0.5) > 1e-6 || tc.want != 0.5 && got != tc.want {
			t.Errorf("%s: coverage(%v) = %v, want %v", tc.name, tc.along, got, tc.want)
		}
	}
}

func TestLineTriangleBesideCanvas(t *testing.T) {
	paint := &LinePaint{Outset: 100, Blur2: 1, Color: Color{A: 1}, Opacity: 1}
	tests := []struct {
		name string
		tri  [3]LineVertex
		want bool // whether anything is drawn
	}{
		{"left", [3]LineVertex{{X: -20, Y: 0}, {X: -1, Y: 0}, {X: -20, Y: 8}}, false},
		{"right", [3]LineVertex{{X: 17, Y: 0}, {X: 30, Y: 0}, {X: 17, Y: 8}}, false},
		{"above", [3]LineVertex{{X: 0, Y: -9}, {X: 16, Y: -9}, {X: 0, Y: -0.1}}, false},
		{"below", [3]LineVertex{{X: 0, Y: 9}, {X: 16, Y: 9}, {X: 0, Y: 20}}, false},
		{"over the left edge", [3]LineVertex{{X: -20, Y: 0}, {X: 2, Y: 0}, {X: -20, Y: 8}}, true},
		{"around the canvas", [3]LineVertex{{X: -40, Y: -40}, {X: 60, Y: -40}, {X: -40, Y: 60}}, true},
	}
	for _, tc := range tests {
		cv := NewCanvas(16, 8)
		cv.LineTriangle(&tc.tri, nil, paint)
		drawn := false
		for i := 3; i < len(cv.Pix); i += 4 {
			drawn = drawn || cv.Pix[i] > 0
		}
		if drawn != tc.want {
			t.Errorf("%s: drawn %v, want %v", tc.name, drawn, tc.want)
		}
	}
}

// TestLineRamp checks that the bounds of a line's coverage ramp give
// what the exact computation gives, at and around every edge.
func TestLineRamp(t *testing.T) {
	exact := func(p *LinePaint, d2 float64) float64 {
		dist := math.Sqrt(d2) * p.Outset
		a := min(dist-(p.Inset-p.Blur2), p.Outset-dist) * (1 / p.Blur2)
		if a > 0 {
			return min(a, 1)
		}
		return 0
	}
	paints := []struct {
		name  string
		paint LinePaint
	}{
		{"thin", LinePaint{Outset: 1, Blur2: 1}},
		{"road", LinePaint{Outset: 3.5, Blur2: 1}},
		{"blurred", LinePaint{Outset: 6, Blur2: 4.5}},
		{"with a gap", LinePaint{Outset: 9.5, Inset: 4.5, Blur2: 1}},
		{"gap inside the blur", LinePaint{Outset: 2, Inset: 0.5, Blur2: 1.5}},
		{"wide", LinePaint{Outset: 3e5, Blur2: 2}},
		{"blur past the width", LinePaint{Outset: 0.75, Blur2: 2}},
		{"no blur", LinePaint{Outset: 3, Blur2: 0}},
	}
	for _, tc := range paints {
		p := &tc.paint
		r := newLineRamp(p)
		// Squared lengths around the edges: where the coverage is 0 and 1
		// on either side, by ever smaller steps, and a sweep.
		var d2s []float64
		for _, dist := range []float64{0, p.Inset - p.Blur2, p.Inset, p.Outset - p.Blur2, p.Outset} {
			for _, k := range []float64{1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 0} {
				for _, d := range []float64{dist * (1 - k), dist * (1 + k), dist - k, dist + k} {
					if d >= 0 {
						s := d / p.Outset
						d2s = append(d2s, s*s, math.Nextafter(s*s, 0), math.Nextafter(s*s, 2))
					}
				}
			}
		}
		for i := 0; i <= 10000; i++ {
			d2s = append(d2s, 1.2*float64(i)/10000)
		}
		d2s = append(d2s, math.Inf(1), math.NaN())
		for _, d2 := range d2s {
			got, want := r.alpha(d2), exact(p, d2)
			if got > 0 != (want > 0) || got > 0 && got != want {
				t.Errorf("%s: alpha(%v) = %v, want %v", tc.name, d2, got, want)
			}
		}
	}
}

// TestDashPart: the binary search finds the part a linear walk over the
// parts finds (the first that ends past the position, else the last), for
// arrays with empty parts, long arrays and positions past either end.
func TestDashPart(t *testing.T) {
	walk := func(parts []float64, pos float64) int {
		start := 0.0
		for i, p := range parts {
			if pos < start+p || i == len(parts)-1 {
				return i
			}
			start += p
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 64, 1000} {
		parts := make([]float64, n)
		for i := range parts {
			if rng.IntN(4) > 0 {
				parts[i] = rng.Float64() * 3
			}
		}
		d := NewDash(parts, 1, 1, false)
		if d == nil {
			continue
		}
		for range 2000 {
			pos := (rng.Float64()*1.2 - 0.1) * d.total
			if got, want := d.part(pos), walk(d.Parts, pos); got != want {
				t.Fatalf("%d parts, at %v: part %d, the walk finds %d", len(d.Parts), pos, got, want)
			}
		}
		if got, want := d.part(math.NaN()), len(d.Parts)-1; got != want {
			t.Errorf("NaN: part %d, want the last, %d", got, want)
		}
	}
}

func TestHairlineSnapsVertices(t *testing.T) {
	// GL's rasteriser snaps vertices to 1/16 pixel before it picks a
	// line's pixels; the fade is from the edge as given. Both edges
	// cross a column's centre within 0.001 pixel of a row boundary, on
	// the other side of it once their ends are snapped (an overzoomed
	// building of zoomed-fill/default; a GeoJSON fill cut at a tile's
	// side, whose point there GL does not have: it draws the edge on to
	// the tile's buffer).
	tests := []struct {
		name      string
		a, b      Point
		exact     func(i int) bool
		x, y, not int // pixel x, y takes the line, x, not does not
		cov       float32
	}{
		{"snapped ends", Point{391.0344, 218.9456}, Point{400.0344, 226.4456}, nil, 393, 220, 221, 0.67},
		{"cut point left as is", Point{200, 66.72035}, Point{29.3125, 121.4375}, func(i int) bool { return i == 0 }, 155, 80, 81, 0.556},
	}
	for _, tc := range tests {
		m := NewMask(420, 240)
		m.Hairline([]Point{tc.a, tc.b}, func(i int) bool { return i == 1 }, tc.exact)
		if got := m.Cov[tc.y*m.W+tc.x]; math.Abs(float64(got-tc.cov)) > 0.01 {
			t.Errorf("%s: coverage at %d,%d = %v, want %v", tc.name, tc.x, tc.y, got, tc.cov)
		}
		if got := m.Cov[tc.not*m.W+tc.x]; got != 0 {
			t.Errorf("%s: pixel %d,%d covered %v, want none", tc.name, tc.x, tc.not, got)
		}
	}
	if got := SnapVertex(Point{391.0344, 218.9456}); got != (Point{391.0625, 218.9375}) {
		t.Errorf("SnapVertex = %v, want {391.0625 218.9375}", got)
	}
}
