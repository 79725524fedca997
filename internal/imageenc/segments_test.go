package imageenc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// straightAt is the straight-alpha colour a PNG of img must hold at x, y
// (relative to img's bounds): premultiplied pixels rounded to the nearest
// value, others as the colour model converts them.
func straightAt(img image.Image, x, y int) color.NRGBA {
	b := img.Bounds()
	if m, ok := img.(*image.RGBA); ok {
		return roundStraight(m.RGBAAt(b.Min.X+x, b.Min.Y+y))
	}
	return color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
}

// samePixels fails unless got holds every pixel of src (fully transparent
// pixels compare equal whatever their colour).
func samePixels(t *testing.T, got, src image.Image) {
	t.Helper()
	if got.Bounds().Size() != src.Bounds().Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), src.Bounds().Size())
	}
	gb := got.Bounds()
	for y := 0; y < gb.Dy(); y++ {
		for x := 0; x < gb.Dx(); x++ {
			w := straightAt(src, x, y)
			g := color.NRGBAModel.Convert(got.At(gb.Min.X+x, gb.Min.Y+y)).(color.NRGBA)
			if w.A == 0 && g.A == 0 {
				continue
			}
			if w != g {
				t.Fatalf("pixel %d,%d: got %v, want %v", x, y, g, w)
			}
		}
	}
}

// pngChunk is one chunk of a PNG file.
type pngChunk struct {
	typ  string
	data []byte
}

// readChunks splits a PNG file into its chunks, checking their CRCs.
func readChunks(t *testing.T, b []byte) []pngChunk {
	t.Helper()
	if !bytes.HasPrefix(b, pngSignature) {
		t.Fatal("no PNG signature")
	}
	b = b[len(pngSignature):]
	var out []pngChunk
	for len(b) > 0 {
		if len(b) < 12 {
			t.Fatalf("truncated chunk: %d bytes left", len(b))
		}
		n := int(binary.BigEndian.Uint32(b))
		if len(b) < 12+n {
			t.Fatalf("chunk of %d bytes in %d", n, len(b))
		}
		var cw chunkWriter
		var sink bytes.Buffer
		cw.w = &sink
		cw.chunk(string(b[4:8]), b[8:8+n])
		if !bytes.Equal(sink.Bytes(), b[:12+n]) {
			t.Fatalf("chunk %q: bad CRC", b[4:8])
		}
		out = append(out, pngChunk{string(b[4:8]), b[8 : 8+n]})
		b = b[12+n:]
	}
	return out
}

// inflateIDAT returns the number of IDAT chunks and the filtered scanlines
// of their zlib stream, which the standard reader checks against its
// Adler-32.
func inflateIDAT(t *testing.T, b []byte) (int, []byte) {
	t.Helper()
	var stream []byte
	n := 0
	for _, c := range readChunks(t, b) {
		if c.typ == "IDAT" {
			stream = append(stream, c.data...)
			n++
		}
	}
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("zlib stream: %v", err)
	}
	if err := zr.Close(); err != nil {
		t.Fatalf("zlib checksum: %v", err)
	}
	return n, data
}

// rowColours is an opaque w x h image whose row y has colour colour(y).
func rowColours(w, h int, colour func(y int) color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		c := colour(y)
		for x := 0; x < w; x++ {
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

// gradient is an opaque w x h image of distinct colours.
func gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.SetRGBA(x, y, color.RGBA{byte(x), byte(y), byte(x>>8 + 3*y), 255})
		}
	}
	return m
}

func TestEncodePNGSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	noise := image.NewRGBA(image.Rect(0, 0, 41, 29))
	for i := 0; i < len(noise.Pix); i += 4 {
		a := byte(rng.IntN(256))
		noise.Pix[i+3] = a
		for k := 0; k < 3; k++ {
			noise.Pix[i+k] = byte(rng.IntN(int(a) + 1))
		}
	}
	few := image.NewRGBA(image.Rect(0, 0, 61, 67))
	for y := 0; y < 67; y++ {
		for x := 0; x < 61; x++ {
			switch {
			case x < 20:
				few.SetRGBA(x, y, color.RGBA{128, 0, 0, 128})
			case x < 40:
				few.SetRGBA(x, y, color.RGBA{})
			default:
				few.SetRGBA(x, y, color.RGBA{byte(y * 3), 50, 60, 255})
			}
		}
	}
	straightNoise := image.NewNRGBA(image.Rect(0, 0, 23, 17))
	for i := range straightNoise.Pix {
		straightNoise.Pix[i] = byte(rng.IntN(256))
	}
	gray := image.NewGray(image.Rect(0, 0, 300, 9))
	for i := range gray.Pix {
		gray.Pix[i] = byte(i * 7)
	}
	tests := []struct {
		name string
		img  image.Image
		want byte
	}{
		{"opaque map, odd rows", mapLike(301, 203, false), pngTruecolor},
		{"translucent map", mapLike(257, 120, true), pngTruecolorAlpha},
		{"translucent noise", noise, pngTruecolorAlpha},
		{"paletted with alpha, odd rows", few, pngIndexed},
		// 300 colours, one a row: no segment of 2 or more has over 256,
		// the image has.
		{"colours over 256 only together", rowColours(3, 300, func(y int) color.RGBA {
			return color.RGBA{byte(y), byte(y / 256), 7, 255}
		}), pngTruecolor},
		{"256 colours spread over the segments", rowColours(2, 512, func(y int) color.RGBA {
			return color.RGBA{byte(y / 2), 9, byte(y / 2), 255}
		}), pngIndexed},
		{"one pixel", image.NewRGBA(image.Rect(0, 0, 1, 1)), pngIndexed},
		{"one row", gradient(700, 1), pngTruecolor},
		{"seven rows, fewer than the segments", mapLike(400, 7, true), pngTruecolorAlpha},
		{"one column", mapLike(1, 37, true), pngIndexed},
		{"one truecolor column", rowColours(1, 300, func(y int) color.RGBA {
			return color.RGBA{byte(y), byte(y / 256), 7, 255}
		}), pngTruecolor},
		{"one translucent column", rowColours(1, 301, func(y int) color.RGBA {
			return color.RGBA{byte(y % 128), byte(y / 128), 0, 128 + byte(y/3)}
		}), pngTruecolorAlpha},
		{"sub-image", mapLike(90, 70, true).SubImage(image.Rect(3, 5, 88, 66)), pngTruecolorAlpha},
		{"straight alpha input", straightNoise, pngTruecolorAlpha},
		{"other image type", gray, pngIndexed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var scanlines []byte
			for segs := 1; segs <= 8; segs++ {
				var buf bytes.Buffer
				if err := encodePNG(&buf, tc.img, segs); err != nil {
					t.Fatalf("%d segments: %v", segs, err)
				}
				if ct := colorType(t, buf.Bytes()); ct != tc.want {
					t.Errorf("%d segments: colour type %d, want %d", segs, ct, tc.want)
				}
				got, err := png.Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("%d segments: the standard decoder refuses it: %v", segs, err)
				}
				samePixels(t, got, tc.img)
				idats, data := inflateIDAT(t, buf.Bytes())
				if want := min(segs, tc.img.Bounds().Dy()); idats != want {
					t.Errorf("%d segments: %d IDAT chunks, want %d", segs, idats, want)
				}
				// The filtering is that of one pass whatever the cut.
				if segs == 1 {
					scanlines = data
				} else if !bytes.Equal(data, scanlines) {
					t.Errorf("%d segments: the filtered scanlines differ from one segment's", segs)
				}
			}
		})
	}
}

func TestAdler32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, size := range []int{0, 1, 2, 100, 5552, 65521, 65522, 300000} {
		data := make([]byte, size)
		for i := range data {
			// Mostly 0xff, which drives both sums past the modulus quickly.
			data[i] = 0xff
			if rng.IntN(4) == 0 {
				data[i] = byte(rng.IntN(256))
			}
		}
		want := adler32.Checksum(data)
		for trial := 0; trial < 20; trial++ {
			// Cut into up to 8 random pieces (empty ones allowed).
			cuts := []int{0, size}
			for k := rng.IntN(8); k > 0; k-- {
				cuts = append(cuts, rng.IntN(size+1))
			}
			sortInts(cuts)
			sum := uint32(1)
			for i := 1; i < len(cuts); i++ {
				piece := data[cuts[i-1]:cuts[i]]
				sum = adler32Combine(sum, adler32.Checksum(piece), len(piece))
			}
			if sum != want {
				t.Fatalf("size %d cut at %v: combined %08x, want %08x", size, cuts, sum, want)
			}
		}
	}
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestZlibHeader(t *testing.T) {
	if v := uint16(zlibHeader[0])<<8 | uint16(zlibHeader[1]); v%31 != 0 || zlibHeader[0]&0x0f != 8 || zlibHeader[1]&0x20 != 0 {
		t.Errorf("zlib header %x: not deflate, check bits wrong or a dictionary flagged", zlibHeader)
	}
}

func TestPNGSegments(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	tests := []struct {
		procs, w, h, want int
	}{
		{8, 256, 256, 1},                // 65,536 px: one segment
		{8, 320, 400, 2},                // 128,000 px: two
		{8, 362, 362, 2},                // 131,044 px: two
		{8, 512, 512, 4},                // a 512 tile: four
		{8, 2048, 1536, 8},              // a @2x static map: a core each
		{2, 2048, 1536, 2},              // no more than the cores
		{1, 2048, 1536, 1},              // one core: no goroutines
		{8, 1 << 20, 3, 3},              // never more than the rows
		{64, 4096, 4096, 64},            // many cores
		{64, 1024, 1024, 16},            // each segment has its pixels
		{8, 2 * minSegmentPixels, 1, 1}, // one row
	}
	for _, tc := range tests {
		runtime.GOMAXPROCS(tc.procs)
		if got := pngSegments(tc.w, tc.h); got != tc.want {
			t.Errorf("GOMAXPROCS %d, %dx%d: %d segments, want %d", tc.procs, tc.w, tc.h, got, tc.want)
		}
	}
}

// TestEncodePNGConcurrent encodes different images at once through the
// shared pool of states (meaningful under -race).
func TestEncodePNGConcurrent(t *testing.T) {
	imgs := []*image.RGBA{mapLike(300, 211, true), mapLike(170, 90, false), rowColours(5, 40, func(y int) color.RGBA {
		return color.RGBA{byte(y), 0, 0, 255}
	})}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	outs := make([][]byte, 12)
	for i := range errs {
		wg.Go(func() {
			var buf bytes.Buffer
			errs[i] = encodePNG(&buf, imgs[i%len(imgs)], 1+i%4)
			outs[i] = buf.Bytes()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(outs[i]))
		if err != nil {
			t.Fatalf("encoding %d: %v", i, err)
		}
		samePixels(t, got, imgs[i%len(imgs)])
	}
}

// FuzzEncodePNG encodes images made of the fuzzer's bytes in a number of
// segments of its choosing and checks that they decode to the same pixels.
func FuzzEncodePNG(f *testing.F) {
	f.Add(uint8(3), uint8(5), uint8(2), []byte{1, 2, 3, 255, 0, 0, 0, 0, 9, 9, 9, 128})
	f.Add(uint8(1), uint8(1), uint8(1), []byte{})
	f.Add(uint8(40), uint8(30), uint8(7), bytes.Repeat([]byte{10, 20, 30, 255, 10, 20, 31, 255}, 50))
	f.Fuzz(func(t *testing.T, w, h, segs uint8, data []byte) {
		if w == 0 || h == 0 {
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
		for i := range img.Pix {
			if len(data) > 0 {
				img.Pix[i] = data[i%len(data)]
			}
		}
		// Premultiplied: no colour above its alpha.
		for i := 0; i < len(img.Pix); i += 4 {
			a := img.Pix[i+3]
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = min(img.Pix[i], a), min(img.Pix[i+1], a), min(img.Pix[i+2], a)
		}
		var buf bytes.Buffer
		if err := encodePNG(&buf, img, int(segs%9)); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("the standard decoder refuses it: %v", err)
		}
		samePixels(t, got, img)
	})
}

// BenchmarkEncodePNGSegments encodes map-like images of a few sizes in a
// forced number of segments, to see where a second segment starts to pay.
func BenchmarkEncodePNGSegments(b *testing.B) {
	for _, size := range []image.Point{{256, 256}, {362, 362}, {512, 512}, {2048, 1536}} {
		img := mapLike(size.X, size.Y, false)
		for _, segs := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%dx%d/%d", size.X, size.Y, segs), func(b *testing.B) {
				var buf bytes.Buffer
				for b.Loop() {
					buf.Reset()
					if err := encodePNG(&buf, img, segs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(buf.Len()), "bytes")
			})
		}
	}
}

// TestSubBytes holds subBytes to a byte-by-byte subtraction, at every
// length around a word and for every pair of a byte's values.
func TestSubBytes(t *testing.T) {
	a, b := make([]byte, 256*256), make([]byte, 256*256)
	for i := range a {
		a[i], b[i] = byte(i), byte(i>>8)
	}
	for n := 0; n <= 19; n++ {
		for off := 0; off < 3; off++ {
			got := make([]byte, n)
			subBytes(got, a[off*7919:], b[off*7919:])
			for i := range got {
				if want := a[off*7919+i] - b[off*7919+i]; got[i] != want {
					t.Fatalf("n %d: byte %d is %d, want %d", n, i, got[i], want)
				}
			}
		}
	}
	got := make([]byte, len(a))
	subBytes(got, a, b)
	for i := range got {
		if want := a[i] - b[i]; got[i] != want {
			t.Fatalf("%d - %d: %d, want %d", a[i], b[i], got[i], want)
		}
	}
}
