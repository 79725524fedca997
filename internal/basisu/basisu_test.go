package basisu

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

func TestBitWriter(t *testing.T) {
	type put struct {
		v uint32
		n uint
	}
	cases := []struct {
		name string
		puts []put
		want []byte
	}{
		{"empty", nil, nil},
		{"one bit", []put{{1, 1}}, []byte{0x01}},
		{"lsb first", []put{{1, 1}, {0, 1}, {3, 2}}, []byte{0x0d}},
		{"across bytes", []put{{0x1ff, 9}, {0, 3}}, []byte{0xff, 0x01}},
		{"masks high bits", []put{{0xff, 4}, {0, 4}}, []byte{0x0f}},
		{"32 bits", []put{{0xdeadbeef, 32}}, []byte{0xef, 0xbe, 0xad, 0xde}},
		{"zero length", []put{{5, 0}, {1, 1}}, []byte{0x01}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w bitWriter
			bits := 0
			for _, p := range c.puts {
				w.put(p.v, p.n)
				bits += int(p.n)
			}
			if got := w.bytes(); !bytes.Equal(got, c.want) {
				t.Errorf("bytes %x, want %x", got, c.want)
			}
			if w.bitLen() != bits {
				t.Errorf("bitLen %d, want %d", w.bitLen(), bits)
			}
			r := &bitReader{buf: w.bytes()}
			for _, p := range c.puts {
				if got := r.get(p.n); got != p.v&(1<<p.n-1) {
					t.Errorf("read %#x, want %#x", got, p.v&(1<<p.n-1))
				}
			}
		})
	}
}

func TestVLC(t *testing.T) {
	cases := []struct {
		v     uint32
		chunk uint
		bits  int
	}{{0, 4, 5}, {15, 4, 5}, {16, 4, 10}, {255, 4, 10}, {256, 4, 15}, {127, 7, 8}, {128, 7, 16}, {1 << 20, 7, 24}}
	for _, c := range cases {
		var w bitWriter
		w.putVLC(c.v, c.chunk)
		if w.bitLen() != c.bits {
			t.Errorf("vlc(%d, %d): %d bits, want %d", c.v, c.chunk, w.bitLen(), c.bits)
		}
		if got := readVLC(&bitReader{buf: w.bytes()}, c.chunk); got != int(c.v) {
			t.Errorf("vlc(%d, %d) read back as %d", c.v, c.chunk, got)
		}
	}
}

// kraft returns the Kraft sum of the lengths, times 2^16.
func kraft(lengths []uint8) int {
	s := 0
	for _, l := range lengths {
		if l > 0 {
			s += 1 << (16 - l)
		}
	}
	return s
}

func TestCodeLengths(t *testing.T) {
	fib := []int{1, 1}
	for len(fib) < 30 {
		fib = append(fib, fib[len(fib)-1]+fib[len(fib)-2])
	}
	cases := []struct {
		name   string
		freq   []int
		maxLen int
		want   []uint8 // nil: only check the invariants
	}{
		{"skewed", []int{1, 1, 2, 4}, 16, []uint8{3, 3, 2, 1}},
		{"equal", []int{5, 5, 5, 5}, 16, []uint8{2, 2, 2, 2}},
		{"unused symbols", []int{0, 7, 0, 7, 0}, 16, []uint8{0, 1, 0, 1, 0}},
		{"one used symbol gets a partner", []int{0, 0, 9}, 16, []uint8{1, 0, 1}},
		{"no used symbol", []int{0, 0, 0}, 16, []uint8{1, 1, 0}},
		{"fibonacci limited to 16", fib, 16, nil},
		{"fibonacci limited to 7", fib[:21], 7, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := codeLengths(c.freq, c.maxLen)
			if c.want != nil && !slices.Equal(got, c.want) {
				t.Fatalf("lengths %v, want %v", got, c.want)
			}
			if k := kraft(got); k != 1<<16 {
				t.Errorf("Kraft sum %d/65536: the code is not complete", k)
			}
			for s, l := range got {
				if int(l) > c.maxLen {
					t.Errorf("symbol %d: length %d > %d", s, l, c.maxLen)
				}
				if c.freq[s] > 0 && l == 0 {
					t.Errorf("used symbol %d has no code", s)
				}
			}
		})
	}
}

func TestCanonicalCodes(t *testing.T) {
	// The example of RFC 1951 3.2.2: lengths (3,3,3,3,3,2,4,4) give
	// 010, 011, 100, 101, 110, 00, 1110, 1111.
	lengths := []uint8{3, 3, 3, 3, 3, 2, 4, 4}
	want := []string{"010", "011", "100", "101", "110", "00", "1110", "1111"}
	c := newHuffCode(lengths)
	for s, l := range lengths {
		// The code is stored reversed: its first bit is the low bit.
		got := ""
		for i := uint(0); i < uint(l); i++ {
			got += string(rune('0' + c.codes[s]>>i&1))
		}
		if got != want[s] {
			t.Errorf("symbol %d: code %s, want %s", s, got, want[s])
		}
	}
}

func TestHuffTableRoundTrip(t *testing.T) {
	long := make([]uint8, 300)
	for i := range long {
		if i%50 < 20 {
			long[i] = uint8(1 + i%7)
		}
	}
	repeats := make([]uint8, 400)
	for i := range repeats {
		repeats[i] = 9
	}
	cases := []struct {
		name    string
		lengths []uint8
	}{
		{"two", []uint8{1, 1}},
		{"short runs", []uint8{2, 0, 0, 0, 3, 3, 3, 3, 3, 0, 0, 4, 4}},
		{"mixed", long},
		{"long repeats", repeats},
		{"long zero runs", append(make([]uint8, 1000), 1, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w bitWriter
			writeHuffTable(&w, c.lengths)
			w.put(0x15, 5) // what follows must stay in place
			r := &bitReader{buf: w.bytes()}
			h, err := readHuffTable(r)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(h.lengths, c.lengths) {
				t.Fatalf("read %v, want %v", h.lengths, c.lengths)
			}
			if got := r.get(5); got != 0x15 {
				t.Errorf("trailing bits %#x, want 0x15", got)
			}
		})
	}
}

func TestCodebookRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 37, 500} {
		eps := make([]endpoint, n)
		sels := make([]selector, n)
		for i := range eps {
			eps[i] = endpoint{c: [3]uint8{uint8(rng.IntN(32)), uint8(rng.IntN(32)), uint8(rng.IntN(32))}, t: uint8(rng.IntN(8))}
			for j := range sels[i] {
				sels[i][j] = uint8(rng.IntN(4))
			}
		}
		gotE, err := decodeEndpoints(writeEndpoints(eps), n)
		if err != nil {
			t.Fatalf("%d endpoints: %v", n, err)
		}
		if !slices.Equal(gotE, eps) {
			t.Errorf("%d endpoints differ after the round trip", n)
		}
		gotS, err := decodeSelectors(writeSelectors(sels), n)
		if err != nil {
			t.Fatalf("%d selectors: %v", n, err)
		}
		if !slices.Equal(gotS, sels) {
			t.Errorf("%d selectors differ after the round trip", n)
		}
	}
}

func TestSliceRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name      string
		bw, bh    int
		nEP, nSel int
		fill      func(x, y int) (int, int)
	}{
		{"random", 8, 6, 40, 30, func(x, y int) (int, int) { return rng.IntN(40), rng.IntN(30) }},
		{"flat", 16, 16, 2, 2, func(x, y int) (int, int) { return 1, 1 }},
		{"odd sizes", 7, 5, 9, 9, func(x, y int) (int, int) { return (x + y) % 9, x % 9 }},
		{"long runs", 128, 64, 5, 70, func(x, y int) (int, int) {
			if y > 40 {
				return 4, 69
			}
			return x / 32, (x / 16) % 70
		}},
		{"stripes", 10, 10, 3, 3, func(x, y int) (int, int) { return y % 3, (x / 2) % 3 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep, sel := make([]int, c.bw*c.bh), make([]int, c.bw*c.bh)
			for y := 0; y < c.bh; y++ {
				for x := 0; x < c.bw; x++ {
					ep[y*c.bw+x], sel[y*c.bw+x] = c.fill(x, y)
				}
			}
			ops := sliceOps(ep, sel, c.bw, c.bh, c.nEP, c.nSel)
			codes, tables := sliceCodes([][]op{ops}, c.nEP, c.nSel)
			var w bitWriter
			writeOps(&w, ops, codes)
			tt, err := decodeTables(tables)
			if err != nil {
				t.Fatal(err)
			}
			if tt.histLen != selectorHistorySize {
				t.Errorf("history size %d", tt.histLen)
			}
			gotE, gotS, err := decodeSlice(w.bytes(), tt, c.bw, c.bh, c.nEP, c.nSel)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gotE, ep) || !slices.Equal(gotS, sel) {
				t.Errorf("indices differ after the round trip")
			}
		})
	}
}

func TestQuantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var blocks []block
	for i := 0; i < 600; i++ {
		var b block
		for p := range b {
			b[p] = [3]uint8{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))}
		}
		blocks = append(blocks, b)
	}
	for _, lim := range []struct{ ep, sel int }{{16, 16}, {64, 200}, {1000, 1000}} {
		cb := quantize(blocks, lim.ep, lim.sel)
		if len(cb.endpoints) > lim.ep || len(cb.selectors) > lim.sel {
			t.Errorf("limits %v: %d endpoints, %d selectors", lim, len(cb.endpoints), len(cb.selectors))
		}
		for i := range blocks {
			if cb.epIndex[i] >= len(cb.endpoints) || cb.selIndex[i] >= len(cb.selectors) {
				t.Fatalf("block %d: index out of range", i)
			}
		}
	}
	// Flat blocks of colours an endpoint reaches exactly come out exact.
	flat := []block{}
	for _, c := range [][3]uint8{{0, 0, 0}, {255, 255, 255}, {expand5b(10) + 2, expand5b(20) + 2, expand5b(3) + 2}} {
		var b block
		for p := range b {
			b[p] = c
		}
		flat = append(flat, b)
	}
	cb := quantize(flat, 8, 8)
	for i, b := range flat {
		e, s := cb.endpoints[cb.epIndex[i]], cb.selectors[cb.selIndex[i]]
		cols := e.colors()
		for p := range b {
			for ch := 0; ch < 3; ch++ {
				if cols[s[p]][ch] != int32(b[p][ch]) {
					t.Fatalf("flat block %d: pixel %d is %v, want %v", i, p, cols[s[p]], b[p])
				}
			}
		}
	}
}

func expand5b(c uint8) uint8 { return uint8(expand5(c)) }

// decodeImage decodes a file made by the encoder with the test decoder.
func decodeImage(t *testing.T, data []byte) (*image.NRGBA, Info) {
	t.Helper()
	info, err := Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	sgd := data[le.Uint64(data[64:]):]
	g := sgd[sgdHeaderSize+imageDescSize:]
	eps, err := decodeEndpoints(g[:info.EndpointBytes], info.Endpoints)
	if err != nil {
		t.Fatal(err)
	}
	g = g[info.EndpointBytes:]
	sels, err := decodeSelectors(g[:info.SelectorBytes], info.Selectors)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := decodeTables(g[info.SelectorBytes : info.SelectorBytes+info.TableBytes])
	if err != nil {
		t.Fatal(err)
	}
	level := data[info.LevelOffset : info.LevelOffset+info.LevelSize]
	bw, bh := (info.Width+3)/4, (info.Height+3)/4
	out := image.NewNRGBA(image.Rect(0, 0, info.Width, info.Height))
	paint := func(slice []byte, alpha bool) {
		ep, sel, err := decodeSlice(slice, tt, bw, bh, info.Endpoints, info.Selectors)
		if err != nil {
			t.Fatal(err)
		}
		for by := 0; by < bh; by++ {
			for bx := 0; bx < bw; bx++ {
				cols := eps[ep[by*bw+bx]].colors()
				s := sels[sel[by*bw+bx]]
				for p := 0; p < 16; p++ {
					x, y := bx*4+p%4, by*4+p/4
					if x >= info.Width || y >= info.Height {
						continue
					}
					c := cols[s[p]]
					o := out.PixOffset(x, y)
					if alpha {
						out.Pix[o+3] = uint8(c[1])
					} else {
						out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8(c[0]), uint8(c[1]), uint8(c[2]), 255
					}
				}
			}
		}
	}
	paint(level[:info.RGBSlice], false)
	if info.AlphaSlice > 0 {
		paint(level[info.RGBSlice:info.RGBSlice+info.AlphaSlice], true)
	}
	return out, info
}

// psnr compares the RGBA channels of two images of the same size.
func psnr(a, b *image.NRGBA) float64 {
	var se float64
	n := 0
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx()*4; x++ {
			d := float64(a.Pix[y*a.Stride+x]) - float64(b.Pix[y*b.Stride+x])
			se += d * d
			n++
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// testImage draws a small map-like picture: flat areas, roads, a gradient
// and, when alpha is set, a transparent corner.
func testImage(w, h int, alpha bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{0xf2, 0xef, 0xe9, 255}
			switch {
			case (x-w/3)*(x-w/3)+(y-h/2)*(y-h/2) < w*h/16:
				c = color.NRGBA{0xaa, 0xd3, 0xdf, 255}
			case x%37 < 3 || y%29 < 2:
				c = color.NRGBA{0xff, 0xff, 0xff, 255}
			case x > 2*w/3:
				c = color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 90, 255}
			}
			if alpha && x < w/4 && y < h/4 {
				c.A = uint8((x + y) * 255 / (w/4 + h/4))
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestEncode(t *testing.T) {
	cases := []struct {
		name     string
		img      *image.NRGBA
		alpha    bool
		minPSNR  float64
		channels []int
	}{
		{"tile", testImage(256, 256, false), false, 30, []int{channelETC1SRGB}},
		{"with alpha", testImage(128, 96, true), true, 28, []int{channelETC1SRGB, channelETC1SAAA}},
		{"odd size", testImage(5, 3, false), false, 25, []int{channelETC1SRGB}},
		{"one pixel", testImage(1, 1, false), false, 40, []int{channelETC1SRGB}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := EncodeBytes(c.img, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data[:12], Identifier[:]) {
				t.Fatalf("identifier % x", data[:12])
			}
			got, info := decodeImage(t, data)
			if info.Width != c.img.Rect.Dx() || info.Height != c.img.Rect.Dy() || info.Levels != 1 {
				t.Errorf("size %dx%d levels %d", info.Width, info.Height, info.Levels)
			}
			if info.ColorModel != modelETC1S || info.TransferFunction != transferSRGB || !slices.Equal(info.Channels, c.channels) {
				t.Errorf("dfd: model %d transfer %d channels %v", info.ColorModel, info.TransferFunction, info.Channels)
			}
			if (info.AlphaSlice > 0) != c.alpha {
				t.Errorf("alpha slice of %d bytes, want alpha %v", info.AlphaSlice, c.alpha)
			}
			sgdOff := binary.LittleEndian.Uint64(data[64:])
			if sgdOff%8 != 0 {
				t.Errorf("global data at %d, not 8-byte aligned", sgdOff)
			}
			if p := psnr(c.img, got); p < c.minPSNR {
				t.Errorf("PSNR %.1f dB < %.0f", p, c.minPSNR)
			}
			again, _ := EncodeBytes(c.img, Options{})
			if !bytes.Equal(again, data) {
				t.Errorf("two encodings of one image differ")
			}
		})
	}
}

// TestPremultipliedInput: a premultiplied picture (as the renderer makes),
// at an offset, is converted to straight alpha as image/draw does (to within
// one level of rounding).
func TestPremultipliedInput(t *testing.T) {
	src := testImage(40, 24, true)
	pre := image.NewRGBA(src.Rect.Add(image.Pt(3, 5)))
	draw.Draw(pre, pre.Rect, src, image.Point{}, draw.Src)
	want := image.NewNRGBA(image.Rect(0, 0, 40, 24))
	draw.Draw(want, want.Rect, pre, pre.Rect.Min, draw.Src)
	got := toNRGBA(pre)
	if got.Rect != want.Rect {
		t.Fatalf("bounds %v, want %v", got.Rect, want.Rect)
	}
	for i := range want.Pix {
		if d := int(got.Pix[i]) - int(want.Pix[i]); d < -1 || d > 1 {
			t.Fatalf("byte %d (pixel %d): %d, image/draw gives %d", i, i/4, got.Pix[i], want.Pix[i])
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 0, 10), image.Rect(0, 0, 1<<14+1, 1)} {
		if _, err := EncodeBytes(image.NewNRGBA(r), Options{}); err == nil {
			t.Errorf("%v: no error", r)
		}
	}
}

func TestCodebookLimits(t *testing.T) {
	img := testImage(256, 256, false)
	small, err := EncodeBytes(img, Options{Endpoints: 16, Selectors: 16})
	if err != nil {
		t.Fatal(err)
	}
	info, err := Inspect(small)
	if err != nil {
		t.Fatal(err)
	}
	if info.Endpoints > 16 || info.Selectors > 16 {
		t.Errorf("%d endpoints, %d selectors with limits of 16", info.Endpoints, info.Selectors)
	}
	tiny, err := EncodeBytes(img, Options{Endpoints: 1, Selectors: 1})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := Inspect(tiny); err != nil || info.Endpoints > 2 || info.Selectors > 4 {
		t.Errorf("limits 1/1: %+v, %v (want at most 2 endpoints and 4 selectors)", info, err)
	}
	decodeImage(t, tiny)
	big, _ := EncodeBytes(img, Options{})
	gs, _ := decodeImage(t, small)
	gb, _ := decodeImage(t, big)
	if ps, pb := psnr(img, gs), psnr(img, gb); pb <= ps {
		t.Errorf("larger codebooks do not raise the PSNR: %.1f vs %.1f dB", pb, ps)
	}
}

// TestDecoderAgreesWithTranscoder: the reference transcoder and the
// decoder of these tests, written from the specification, read the same
// pixels from our files, for small and default codebooks, a one-colour
// picture, partial blocks and an alpha slice.
func TestDecoderAgreesWithTranscoder(t *testing.T) {
	tr := fixtures.NewBasisTranscoder(t)
	flat := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for i := range flat.Pix {
		flat.Pix[i] = []uint8{0x12, 0x9a, 0xe0, 0xff}[i%4]
	}
	cases := []struct {
		name string
		img  *image.NRGBA
		opt  Options
	}{
		{"default", testImage(128, 128, false), Options{}},
		{"smallest codebooks", testImage(64, 64, false), Options{Endpoints: 1, Selectors: 1}},
		{"one colour", flat, Options{}},
		{"alpha, odd size", testImage(45, 21, true), Options{Endpoints: 32, Selectors: 32}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := EncodeBytes(c.img, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			ours, info := decodeImage(t, data)
			ref := tr.Transcode(t, data)
			if ref.Rect != ours.Rect {
				t.Fatalf("transcoder %v, ours %v", ref.Rect, ours.Rect)
			}
			for i := range ours.Pix {
				if info.AlphaSlice == 0 && i%4 == 3 {
					continue
				}
				if ours.Pix[i] != ref.Pix[i] {
					t.Fatalf("pixel %d channel %d: ours %d, transcoder %d", i/4, i%4, ours.Pix[i], ref.Pix[i])
				}
			}
		})
	}
}
