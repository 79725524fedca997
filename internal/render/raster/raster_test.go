package raster

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFillBlendsLikeGL(t *testing.T) {
	cv := NewCanvas(2, 1)
	cv.Fill(Color{1, 0, 0, 1}, 0.5) // half-transparent red over nothing
	if p := cv.Pix[0:4]; p[0] != 128 || p[1] != 0 || p[3] != 128 {
		t.Errorf("first draw %v, want premultiplied 128,0,0,128", p)
	}
	cv.Fill(Color{0, 0, 1, 1}, 0.5) // half blue over it: src + dst*(1-a), rounded
	if p := cv.Pix[0:4]; p[0] != 64 || p[2] != 128 || p[3] != 192 {
		t.Errorf("second draw %v, want 64,0,128,192", p)
	}
}

func TestFillPolygonSamplesPixelCentres(t *testing.T) {
	m := NewMask(10, 10)
	// A square from 1.5 to 4.5: centres 1.5..4.0 -> pixels 1, 2, 3 (the
	// centre 4.5 is on the right edge: outside).
	m.FillPolygon([][]Point{{{1.5, 1.5}, {4.5, 1.5}, {4.5, 4.5}, {1.5, 4.5}}})
	for y := 0; y < 10; y++ {
		for x := 0; x < 10; x++ {
			want := x >= 1 && x <= 3 && y >= 1 && y <= 3
			if got := m.Cov[y*10+x] == 1; got != want {
				t.Errorf("pixel %d,%d covered %v, want %v", x, y, got, want)
			}
		}
	}
	// A hole (even-odd).
	m = NewMask(10, 10)
	m.FillPolygon([][]Point{{{0, 0}, {10, 0}, {10, 10}, {0, 10}}, {{3, 3}, {7, 3}, {7, 7}, {3, 7}}})
	if m.Cov[5*10+5] != 0 || m.Cov[1*10+1] != 1 {
		t.Error("hole not left out")
	}
	m.Reset()
	for _, v := range m.Cov {
		if v != 0 {
			t.Fatal("Reset left coverage")
		}
	}
}

func TestStrokeCoverage(t *testing.T) {
	m := NewMask(20, 10)
	m.Stroke([]Point{{2, 5}, {18, 5}}, 2, 0, ButtCap)
	// Across the line at x=10: the centre rows 4 and 5 (centres 4.5, 5.5
	// at distance 0.5) are fully covered; rows 3 and 6 (distance 1.5) get
	// (1 + 0.5 - 1.5) = 0.
	col := func(y int) float32 { return m.Cov[y*20+10] }
	if col(4) != 1 || col(5) != 1 || col(3) != 0 || col(6) != 0 {
		t.Errorf("coverage across: %v %v %v %v", col(3), col(4), col(5), col(6))
	}
	// A butt end is cut at the end point; a round one goes on.
	if m.Cov[5*20+1] != 0 {
		t.Error("butt cap drew before the start")
	}
	r := NewMask(20, 10)
	r.Stroke([]Point{{2, 5}, {18, 5}}, 2, 0, RoundCap)
	if r.Cov[5*20+1] == 0 || r.Cov[4*20+1] == 0 {
		t.Error("round cap missing")
	}
	// A 1-pixel line halfway between rows covers each by half.
	h := NewMask(10, 10)
	h.Stroke([]Point{{0, 5}, {10, 5}}, 1, 0, ButtCap)
	if v := h.Cov[4*10+5]; math.Abs(float64(v)-0.5) > 1e-6 {
		t.Errorf("half coverage %v", v)
	}
}

func TestDisc(t *testing.T) {
	m := NewMask(20, 20)
	m.Disc(Point{10, 10}, 5, 1)
	if m.Cov[10*20+10] != 1 || m.Cov[10*20+17] != 0 || m.Cov[0] != 0 {
		t.Error("disc coverage")
	}
	cv := NewCanvas(20, 20)
	cv.Composite(m, Color{0, 1, 0, 1}, 1)
	if p := cv.Pix[cv.PixOffset(10, 10):]; p[1] != 255 || p[3] != 255 {
		t.Errorf("composited %v", p[:4])
	}
}

func TestHairlineDepth(t *testing.T) {
	// A 40-pixel edge through pixel centres, from a point at the view's
	// centre depth (1) to one three times as far: the perspective-correct
	// position lags the pixel, and the outline fades out along the edge.
	edge := []Point{{0.5, 2.5}, {40.5, 2.5}}
	skipBack := func(i int) bool { return i == 1 }
	tests := []struct {
		name string
		w    []float64
		x    int
		want float32
	}{
		{"start", []float64{1, 3}, 0, 1},
		{"middle", []float64{1, 3}, 20, 0}, // 10 pixels apart
		{"flat middle", []float64{1, 1}, 20, 1},
		{"no depths", nil, 20, 1},
	}
	for _, tc := range tests {
		m := NewMask(48, 5)
		m.HairlineDepth(edge, tc.w, skipBack, nil)
		if got := m.Cov[2*m.W+tc.x]; got != tc.want {
			t.Errorf("%s: coverage at %d = %v, want %v", tc.name, tc.x, got, tc.want)
		}
	}
	// Near the start the lag is under a pixel: a partial coverage.
	m := NewMask(48, 5)
	m.HairlineDepth(edge, []float64{1, 3}, skipBack, nil)
	if got := m.Cov[2*m.W+1]; got <= 0 || got >= 1 {
		t.Errorf("coverage one pixel along = %v, want between 0 and 1", got)
	}
}

func TestGradientSample(t *testing.T) {
	// Two texels, black at progress 0 and white at 1, sampled as GL
	// samples a 2-texel texture: clamped outside the texel centres (1/4,
	// 3/4), linear between them.
	g := &Gradient{Texels: [][4]float64{{0, 0, 0, 255}, {255, 255, 255, 255}}}
	for _, tc := range []struct{ pr, want float64 }{{0, 0}, {0.25, 0}, {0.5, 127.5}, {0.75, 255}, {1, 255}} {
		if r, _, _, a := g.sample(tc.pr); math.Abs(r-tc.want) > 1e-9 || a != 255 {
			t.Errorf("linear at %v: r %v a %v, want r %v", tc.pr, r, a, tc.want)
		}
	}
	g.Nearest = true
	for _, tc := range []struct{ pr, want float64 }{{0.2, 0}, {0.49, 0}, {0.51, 255}, {1, 255}} {
		if r, _, _, _ := g.sample(tc.pr); r != tc.want {
			t.Errorf("nearest at %v: r %v, want %v", tc.pr, r, tc.want)
		}
	}
}

// TestCanvasFillPolygon checks that filling a polygon straight into the
// canvas gives the pixels of a mask composited over it.
func TestCanvasFillPolygon(t *testing.T) {
	star := []Point{{10, 1}, {13, 18}, {1, 7}, {19, 7}, {7, 18}}
	square := []Point{{-5, -5}, {15, -5}, {15, 15}, {-5, 15}}
	hole := []Point{{4, 4}, {8, 4}, {8, 8}, {4, 8}}
	tests := []struct {
		name    string
		rings   [][]Point
		c       Color
		opacity float64
	}{
		{"self-crossing star, opaque", [][]Point{star}, Color{1, 0.5, 0.25, 1}, 1},
		{"self-crossing star, translucent", [][]Point{star}, Color{0.2, 0.4, 0.6, 0.7}, 0.9},
		{"beyond the canvas, with a hole", [][]Point{square, hole}, Color{0, 1, 0, 1}, 0.5},
		{"invisible", [][]Point{square}, Color{1, 1, 1, 1}, 0},
		{"no rings", nil, Color{1, 1, 1, 1}, 1},
		{"a degenerate ring", [][]Point{{{3, 3}}}, Color{1, 1, 1, 1}, 1},
	}
	for _, tc := range tests {
		want, got := NewCanvas(20, 20), NewCanvas(20, 20)
		for _, cv := range []*Canvas{want, got} {
			cv.Fill(Color{0.3, 0.2, 0.1, 0.8}, 1)
		}
		m := NewMask(20, 20)
		m.FillPolygon(tc.rings)
		want.Composite(m, tc.c, tc.opacity)
		got.FillPolygon(tc.rings, tc.c, tc.opacity)
		for i := range want.Pix {
			if got.Pix[i] != want.Pix[i] {
				t.Errorf("%s: byte %d is %d, want %d", tc.name, i, got.Pix[i], want.Pix[i])
				break
			}
		}
	}
}

// TestMaskRaiseList checks that a mask only Raise has written composites
// and clears through its list of pixels as a dense mask does through its
// box.
func TestMaskRaiseList(t *testing.T) {
	raises := []struct {
		x, y int
		v    float32
	}{{1, 1, 0.5}, {1, 1, 0.75}, {1, 1, 0.25}, {18, 2, 1}, {5, 17, 0.1}, {-1, 3, 1}, {20, 3, 1}, {7, 7, 0}}
	tests := []struct {
		name    string
		c       Color
		opacity float64
		dense   bool // a fill first makes the mask dense
	}{
		{"opaque", Color{1, 0, 0, 1}, 1, false},
		{"translucent", Color{0.2, 0.4, 0.8, 0.6}, 0.7, false},
		{"after a fill", Color{0.2, 0.4, 0.8, 0.6}, 0.7, true},
	}
	for _, tc := range tests {
		m := NewMask(20, 20)
		ref := make([]float32, 400) // the coverage the raises give
		if tc.dense {
			m.FillPolygon([][]Point{{{10, 10}, {14, 10}, {14, 14}}})
			copy(ref, m.Cov)
		}
		for _, r := range raises {
			m.Raise(r.x, r.y, r.v)
			if r.x >= 0 && r.x < 20 && r.v > ref[r.y*20+r.x] {
				ref[r.y*20+r.x] = r.v
			}
		}
		if m.dense != tc.dense {
			t.Errorf("%s: dense %v, want %v", tc.name, m.dense, tc.dense)
		}
		got, want := NewCanvas(20, 20), NewCanvas(20, 20)
		got.Fill(Color{0, 1, 0, 1}, 0.5)
		want.Fill(Color{0, 1, 0, 1}, 0.5)
		got.Composite(m, tc.c, tc.opacity)
		r, g, b, a := tc.c.premul(tc.opacity)
		for i, v := range ref {
			if v > 0 {
				blend(want.Pix[4*i:4*i+4], r*float64(v), g*float64(v), b*float64(v), a*float64(v))
			}
		}
		for i := range want.Pix {
			if got.Pix[i] != want.Pix[i] {
				t.Errorf("%s: byte %d is %d, want %d", tc.name, i, got.Pix[i], want.Pix[i])
				break
			}
		}
		m.Reset()
		for i, v := range m.Cov {
			if v != 0 {
				t.Errorf("%s: pixel %d keeps %v after Reset", tc.name, i, v)
				break
			}
		}
		if len(m.list) != 0 || m.dense {
			t.Errorf("%s: Reset leaves %d listed pixels, dense %v", tc.name, len(m.list), m.dense)
		}
	}
}

// TestHairRange checks that narrowing a hairline to the mask leaves out
// only pixels outside it: the mask is the same as with every pixel of the
// edge drawn, and an edge running far past the picture (as a tilted view's
// polygons do) is walked over the picture's width at most.
func TestHairRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 2000; i++ {
		w, h := 1+rng.IntN(40), 1+rng.IntN(40)
		u0, v0 := rng.Float64()*600-300, rng.Float64()*600-300
		u1 := rng.Float64()*600 - 300
		slope := rng.Float64()*6 - 3
		if i%5 == 0 {
			slope = 0
		}
		swap := i%2 == 1
		var c0, c1 int
		if u1 > u0 {
			c0, c1 = int(math.Ceil(u0-0.5)), int(math.Ceil(u1-0.5))
		} else {
			c0, c1 = int(math.Floor(u1-0.5))+1, int(math.Floor(u0-0.5))+1
		}
		all, narrow := NewMask(w, h), NewMask(w, h)
		e := &hairEdge{a: Point{X: u0, Y: v0}, nx: 0.6, ny: 0.8}
		all.hairPixels(c0, c1, u0, v0, slope, swap, e)
		n0, n1 := narrow.hairRange(c0, c1, u0, v0, slope, swap)
		narrow.hairPixels(n0, n1, u0, v0, slope, swap, e)
		if !slices.Equal(all.Cov, narrow.Cov) {
			t.Fatalf("case %d (%dx%d, u %v..%v, v0 %v, slope %v, swap %v): narrowed to [%d, %d) of [%d, %d) draws otherwise",
				i, w, h, u0, u1, v0, slope, swap, n0, n1, c0, c1)
		}
	}
	m := NewMask(64, 48)
	n0, n1 := m.hairRange(-5e8, 5e8, -5e8, 20, 1e-9, false)
	if n1-n0 > 64 {
		t.Errorf("an edge of a billion pixels across a 64-pixel mask is walked over %d pixels", n1-n0)
	}
}
