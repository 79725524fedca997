package spritesheet

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// testPNG describes a PNG written by encode, with a chosen filter for each
// row (image/png's encoder chooses its own).
type testPNG struct {
	w, h      int
	ct        int    // colour type
	depth     int    // bits a sample (8 unless set)
	interlace byte   // 1: Adam7 (only declared: the data is not interlaced)
	filters   []byte // cycled over the rows
	pal       []byte // PLTE body
	trns      []byte // tRNS body
	chunks    int    // IDAT chunks the stream is split into (1 unless set)
	extra     []byte // appended to the zlib stream
	seed      int
}

func chunk(out []byte, typ string, body []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// encode writes t's PNG, its pixels pseudo-random (with runs, so that every
// filter sees both flat and busy bytes).
func (t testPNG) encode() []byte {
	depth := t.depth
	if depth == 0 {
		depth = 8
	}
	channels := map[int]int{ctGrey: 1, ctRGB: 3, ctPalette: 1, ctGreyAlpha: 2, ctRGBA: 4}[t.ct]
	bitsPP := channels * depth
	rowBytes := (t.w*bitsPP + 7) / 8
	bpp := max(1, bitsPP/8)
	raw := make([][]byte, t.h)
	x := uint32(t.seed*7919 + 1)
	for y := range raw {
		raw[y] = make([]byte, rowBytes)
		for i := range raw[y] {
			x = x*1664525 + 1013904223
			if x>>28 < 5 && i > 0 {
				raw[y][i] = raw[y][i-1]
			} else {
				raw[y][i] = byte(x >> 24)
			}
		}
	}
	var filtered []byte
	prev := make([]byte, rowBytes)
	for y, row := range raw {
		f := byte(0)
		if len(t.filters) > 0 {
			f = t.filters[y%len(t.filters)]
		}
		filtered = append(filtered, f)
		for i, c := range row {
			var a, b, cc int
			if i >= bpp {
				a, cc = int(row[i-bpp]), int(prev[i-bpp])
			}
			b = int(prev[i])
			var p int
			switch f {
			case 1:
				p = a
			case 2:
				p = b
			case 3:
				p = (a + b) / 2
			case 4:
				p = paethRef(a, b, cc)
			}
			filtered = append(filtered, c-byte(p))
		}
		prev = row
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(filtered)
	zw.Close()
	stream := append(z.Bytes(), t.extra...)

	out := []byte("\x89PNG\r\n\x1a\n")
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(t.w))
	binary.BigEndian.PutUint32(hdr[4:], uint32(t.h))
	hdr[8], hdr[9], hdr[12] = byte(depth), byte(t.ct), t.interlace
	out = chunk(out, "IHDR", hdr[:])
	out = chunk(out, "tEXt", []byte("Comment\x00made by a test"))
	if t.pal != nil {
		out = chunk(out, "PLTE", t.pal)
	}
	if t.trns != nil {
		out = chunk(out, "tRNS", t.trns)
	}
	n := max(1, t.chunks)
	for i := range n {
		out = chunk(out, "IDAT", stream[i*len(stream)/n:(i+1)*len(stream)/n])
	}
	return chunk(out, "IEND", nil)
}

// paethRef is the Paeth predictor as the PNG specification writes it.
func paethRef(a, b, c int) int {
	p := a + b - c
	pa, pb, pc := absRef(p-a), absRef(p-b), absRef(p-c)
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func absRef(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// reference is image/png's image of data converted to premultiplied RGBA
// by image/draw, as the renderer converted icons before this package.
func reference(data []byte) (*image.RGBA, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	return rgba, nil
}

// checkCuts compares the sheet's cuts of r (and of a few rectangles
// within it) with the reference image.
func checkCuts(t *testing.T, name string, s *Sheet, ref *image.RGBA) {
	t.Helper()
	if s.Bounds() != ref.Rect {
		t.Fatalf("%s: bounds %v, image/png's %v", name, s.Bounds(), ref.Rect)
	}
	w, h := ref.Rect.Dx(), ref.Rect.Dy()
	// Small rectangles first: rows are unfiltered as cuts need them.
	rects := []image.Rectangle{image.Rect(w/3, h/2, w, h), image.Rect(w-1, 0, w, 1), image.Rect(0, h/4, (w+1)/2, h/4+1), ref.Rect}
	for _, r := range rects {
		if r.Empty() {
			continue
		}
		got := make([]uint8, r.Dx()*r.Dy()*4)
		for i := range got {
			got[i] = 0x5a // Cut writes every byte
		}
		s.Cut(got, r)
		want := ref.SubImage(r).(*image.RGBA)
		for y := 0; y < r.Dy(); y++ {
			o := want.PixOffset(r.Min.X, r.Min.Y+y)
			if g, w := got[y*4*r.Dx():(y+1)*4*r.Dx()], want.Pix[o:o+4*r.Dx()]; !bytes.Equal(g, w) {
				t.Fatalf("%s: cut %v, row %d: %v, want %v", name, r, y, g[:min(16, len(g))], w[:min(16, len(w))])
			}
		}
	}
}

func palette(n int) []byte {
	p := make([]byte, 3*n)
	for i := range p {
		p[i] = byte(i*37 + 11)
	}
	return p
}

func alphas(n int) []byte {
	a := make([]byte, n)
	for i := range a {
		a[i] = byte(255 - i*41)
	}
	return a
}

// generated lists images of every colour type this package decodes, each
// with every filter, the first row included, and split IDAT data.
func generated() map[string]testPNG {
	m := map[string]testPNG{}
	for _, ct := range []int{ctGrey, ctRGB, ctPalette, ctGreyAlpha, ctRGBA} {
		for _, f := range [][]byte{{0}, {1}, {2}, {3}, {4}, {4, 3, 2, 1, 0}, {1, 4, 0, 3, 2}} {
			for _, size := range [][2]int{{1, 1}, {1, 6}, {7, 5}, {33, 17}} {
				t := testPNG{w: size[0], h: size[1], ct: ct, filters: f, seed: len(m)}
				if ct == ctPalette {
					t.pal = palette(200)
					t.trns = alphas(7)
				}
				if size[1] > 5 {
					t.chunks = 3
				}
				m[fmt.Sprintf("ct%d-f%v-%dx%d", ct, f, size[0], size[1])] = t
			}
		}
	}
	// Palettes without tRNS, with a tRNS longer than the palette, with
	// indices past the palette.
	m["palette opaque"] = testPNG{w: 9, h: 9, ct: ctPalette, filters: []byte{4, 1}, pal: palette(256)}
	m["palette short"] = testPNG{w: 9, h: 9, ct: ctPalette, filters: []byte{4, 1}, pal: palette(3), trns: alphas(5)}
	m["palette full tRNS"] = testPNG{w: 20, h: 9, ct: ctPalette, filters: []byte{3}, pal: palette(256), trns: alphas(256)}
	return m
}

// fallbacks lists PNGs this package leaves to image/png.
func fallbacks() map[string]testPNG {
	return map[string]testPNG{
		"16-bit RGBA":        {w: 5, h: 4, ct: ctRGBA, depth: 16, filters: []byte{4}},
		"16-bit grey":        {w: 5, h: 4, ct: ctGrey, depth: 16, filters: []byte{1}},
		"4-bit palette":      {w: 5, h: 4, ct: ctPalette, depth: 4, filters: []byte{4}, pal: palette(16)},
		"1-bit grey":         {w: 13, h: 4, ct: ctGrey, depth: 1, filters: []byte{2}},
		"grey tRNS":          {w: 5, h: 4, ct: ctGrey, filters: []byte{1}, trns: []byte{0, 7}},
		"RGB tRNS":           {w: 5, h: 4, ct: ctRGB, filters: []byte{3}, trns: []byte{0, 7, 0, 8, 0, 9}},
		"RGB with a PLTE":    {w: 5, h: 4, ct: ctRGB, filters: []byte{3}, pal: palette(4)},
		"bytes after stream": {w: 5, h: 4, ct: ctRGBA, filters: []byte{4}, extra: []byte{1, 2}},
		"bad filter":         {w: 5, h: 4, ct: ctRGBA, filters: []byte{5}},
		"no palette":         {w: 5, h: 4, ct: ctPalette, filters: []byte{0}},
		"interlaced":         {w: 5, h: 4, ct: ctRGBA, interlace: 1, filters: []byte{0}},
	}
}

// TestDecode holds the decoder to image/png (and image/draw's conversion
// to premultiplied RGBA) on images of every colour type and filter.
func TestDecode(t *testing.T) {
	for name, tp := range generated() {
		data := tp.encode()
		ref, err := reference(data)
		if err != nil {
			t.Fatalf("%s: image/png: %v", name, err)
		}
		if _, ok := decodeRaw(data); !ok {
			t.Errorf("%s: left to image/png", name)
		}
		s, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkCuts(t, name, s, ref)
	}
}

// TestDecodeFallback holds what this package does not decode itself to
// image/png's pixels or error.
func TestDecodeFallback(t *testing.T) {
	for name, tp := range fallbacks() {
		data := tp.encode()
		if _, ok := decodeRaw(data); ok {
			t.Errorf("%s: decoded, not left to image/png", name)
		}
		ref, refErr := reference(data)
		s, err := Decode(data)
		if (err != nil) != (refErr != nil) || (err != nil && err.Error() != refErr.Error()) {
			t.Fatalf("%s: error %v, image/png's %v", name, err, refErr)
		}
		if err == nil {
			checkCuts(t, name, s, ref)
		}
	}
	// image/png's NRGBA images and its other types, offset from no origin.
	nrgba := image.NewNRGBA(image.Rect(0, 0, 256, 3))
	for x := range 256 {
		nrgba.SetNRGBA(x, 1, color.NRGBA{uint8(255 - x), uint8(x * 7), 99, uint8(x)})
	}
	s := &Sheet{w: 256, h: 3, img: nrgba}
	ref := image.NewRGBA(nrgba.Rect)
	draw.Draw(ref, ref.Rect, nrgba, image.Point{}, draw.Src)
	checkCuts(t, "nrgba", s, ref)
	gray := image.NewGray16(image.Rect(0, 0, 4, 4))
	gray.Pix[10] = 0x80
	ref = image.NewRGBA(gray.Rect)
	draw.Draw(ref, ref.Rect, gray, image.Point{}, draw.Src)
	checkCuts(t, "gray16", &Sheet{w: 4, h: 4, img: gray}, ref)
}

// TestCutConcurrent cuts rows of one sheet from several goroutines (for
// the race detector).
func TestCutConcurrent(t *testing.T) {
	data := testPNG{w: 20, h: 64, ct: ctRGBA, filters: []byte{4, 2, 3, 1, 0, 4, 4}}.encode()
	ref, err := reference(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r := image.Rect(i, 8*i, 20, 8*i+8)
			got := make([]uint8, r.Dx()*r.Dy()*4)
			s.Cut(got, r)
			want := ref.SubImage(r).(*image.RGBA)
			for y := range r.Dy() {
				o := want.PixOffset(r.Min.X, r.Min.Y+y)
				if !bytes.Equal(got[y*4*r.Dx():(y+1)*4*r.Dx()], want.Pix[o:o+4*r.Dx()]) {
					t.Errorf("cut %v, row %d differs", r, y)
				}
			}
		})
	}
	wg.Wait()
}

// TestDecodeBroken: a broken PNG is image/png's error, never a panic.
func TestDecodeBroken(t *testing.T) {
	good := testPNG{w: 6, h: 5, ct: ctRGBA, filters: []byte{4, 1}, chunks: 2}.encode()
	for cut := 0; cut < len(good); cut += 3 {
		for _, data := range [][]byte{good[:cut], flip(good, cut)} {
			_, refErr := reference(data)
			_, err := Decode(data)
			if (err != nil) != (refErr != nil) {
				t.Fatalf("at byte %d: error %v, image/png's %v", cut, err, refErr)
			}
		}
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x41
	return c
}

// TestDecodeSprites decodes the shared sprite sheets and images.
func TestDecodeSprites(t *testing.T) {
	dir := fixtures.SharedDir()
	if dir == "" {
		t.Skip("../shared is absent")
	}
	n := 0
	for _, sub := range []string{"render-tests/sprites", "fixtures"} {
		filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".png") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ref, refErr := reference(data)
			s, err := Decode(data)
			if (err != nil) != (refErr != nil) {
				t.Fatalf("%s: error %v, image/png's %v", path, err, refErr)
			}
			if err == nil {
				checkCuts(t, path, s, ref)
				n++
			}
			return nil
		})
	}
	if n == 0 {
		t.Fatal("no PNG found")
	}
}

// FuzzDecode: what decodeRaw accepts, image/png decodes to the same
// pixels; nothing panics. Each input is tried as it is and with its chunks'
// checksums made right, so that mutations reach past them.
func FuzzDecode(f *testing.F) {
	for _, tp := range generated() {
		if tp.w*tp.h <= 64 {
			f.Add(tp.encode())
		}
	}
	for _, tp := range fallbacks() {
		f.Add(tp.encode())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compare(t, data)
		compare(t, fixCRCs(data))
	})
}

// FuzzDecodeRows builds a PNG of fuzzed size, colour type and rows (their
// filter bytes included), its checksums right.
func FuzzDecodeRows(f *testing.F) {
	f.Add(uint8(3), uint8(2), uint8(ctRGBA), uint8(8), uint8(0), uint8(1), []byte("\x04abcdefghijkl\x03abcdefghijkl"), []byte{}, []byte{})
	f.Add(uint8(2), uint8(2), uint8(ctPalette), uint8(8), uint8(0), uint8(2), []byte("\x01ab\x04cd"), []byte("abcdefghi"), []byte{7})
	f.Add(uint8(2), uint8(1), uint8(ctGreyAlpha), uint8(8), uint8(0), uint8(1), []byte("\x02abcd"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, w, h, ct, depth, interlace, chunks uint8, rows, pal, trns []byte) {
		var hdr [13]byte
		binary.BigEndian.PutUint32(hdr[0:], uint32(w))
		binary.BigEndian.PutUint32(hdr[4:], uint32(h))
		hdr[8], hdr[9], hdr[12] = depth, ct, interlace
		out := chunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", hdr[:])
		if len(pal) > 0 {
			out = chunk(out, "PLTE", pal)
		}
		if len(trns) > 0 {
			out = chunk(out, "tRNS", trns)
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(rows)
		zw.Close()
		n := int(chunks%4) + 1
		for i := range n {
			out = chunk(out, "IDAT", z.Bytes()[i*z.Len()/n:(i+1)*z.Len()/n])
		}
		compare(t, chunk(out, "IEND", nil))
	})
}

// compare fails if decodeRaw accepts data and image/png does not decode it
// to the same pixels.
func compare(t *testing.T, data []byte) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width*cfg.Height > 1<<16 {
		return // image/png would allocate the image before finding it short
	}
	raw, ok := decodeRaw(data)
	ref, refErr := reference(data)
	if !ok {
		return // Decode is image/png's
	}
	if refErr != nil {
		t.Fatalf("decoded what image/png rejects: %v", refErr)
	}
	checkCuts(t, "fuzz", &Sheet{w: raw.w, h: raw.h, raw: raw}, ref)
}

// fixCRCs returns data with the checksum of each whole chunk after the
// signature made right.
func fixCRCs(data []byte) []byte {
	data = bytes.Clone(data)
	for p := 8; len(data)-p >= 12; {
		n := int(binary.BigEndian.Uint32(data[p:]))
		if n > len(data)-p-12 {
			break
		}
		binary.BigEndian.PutUint32(data[p+8+n:], crc32.ChecksumIEEE(data[p+4:p+8+n]))
		p += 12 + n
	}
	return data
}

// TestPaeth holds paeth to the specification's predictor on every input.
func TestPaeth(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			for c := range 256 {
				if got, want := paeth(a, b, c), paethRef(a, b, c); int(got) != want {
					t.Fatalf("paeth(%d, %d, %d) = %d, want %d", a, b, c, got, want)
				}
			}
		}
	}
}

// TestDecodeRefusesHugeSheets: a sheet whose header declares more than
// MaxSize pixels a side is refused from its header, before its pixels
// are allocated, whichever decoder would take it.
func TestDecodeRefusesHugeSheets(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]uint32{{20000, 20000}, {MaxSize + 1, 1}, {1, MaxSize + 1}} {
		data := bytes.Clone(buf.Bytes())
		// The IHDR chunk's body follows the signature and its length and
		// type; its checksum follows its 13 bytes.
		binary.BigEndian.PutUint32(data[16:], size[0])
		binary.BigEndian.PutUint32(data[20:], size[1])
		binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
		if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != int(size[0]) {
			t.Fatalf("the patched header reads %v, %v", cfg, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Decode(data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%dx%d sheet decoded", size[0], size[1])
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%dx%d: refusing it allocated %d bytes", size[0], size[1], grew)
		}
	}
}
