package imageenc

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/basisu"
	"github.com/tesseramaps/tessera/internal/fixtures"
	xwebp "golang.org/x/image/webp"
)

// mapLike draws flat areas, stripes and a gradient: more than 256 colours.
func mapLike(w, h int, alpha bool) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{0xaa, 0xd3, 0xdf, 0xff}
			switch {
			case (x/16+y/16)%3 == 0:
				c = color.RGBA{0xf2, 0xef, 0xe9, 0xff}
			case x > w/2:
				c = color.RGBA{byte(x), byte(y), byte(x + y), 0xff}
			}
			if alpha && y < h/4 {
				a := byte(x * 255 / w)
				c = color.RGBA{byte(uint16(c.R) * uint16(a) / 255), byte(uint16(c.G) * uint16(a) / 255), byte(uint16(c.B) * uint16(a) / 255), a}
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

func colorType(t *testing.T, b []byte) byte {
	t.Helper()
	if len(b) < 26 || !bytes.Equal(b[:8], pngSignature) {
		t.Fatalf("not a PNG")
	}
	return b[25]
}

// roundStraight un-premultiplies c, rounding to the nearest value (the
// standard library's colour model truncates instead).
func roundStraight(c color.RGBA) color.NRGBA {
	if c.A == 0 {
		return color.NRGBA{}
	}
	a := float64(c.A)
	f := func(v uint8) uint8 { return uint8(min(255, math.Round(float64(v)*255/a))) }
	return color.NRGBA{f(c.R), f(c.G), f(c.B), c.A}
}

// sameStraight compares a decoded image with the straight-alpha form of a
// premultiplied source, exactly.
func sameStraight(t *testing.T, got image.Image, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			w := roundStraight(want.RGBAAt(x, y))
			g := color.NRGBAModel.Convert(got.At(x-b.Min.X+got.Bounds().Min.X, y-b.Min.Y+got.Bounds().Min.Y)).(color.NRGBA)
			if w.A == 0 && g.A == 0 {
				continue
			}
			if w != g {
				t.Fatalf("pixel %d,%d: got %v, want %v", x, y, g, w)
			}
		}
	}
}

func TestEncodePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noise := image.NewRGBA(image.Rect(0, 0, 37, 23))
	for i := 0; i < len(noise.Pix); i += 4 {
		a := byte(rng.IntN(256))
		noise.Pix[i+3] = a
		for k := 0; k < 3; k++ {
			noise.Pix[i+k] = byte(rng.IntN(int(a) + 1)) // premultiplied: <= alpha
		}
	}
	few := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			switch {
			case x < 20:
				few.SetRGBA(x, y, color.RGBA{128, 0, 0, 128}) // half-transparent red
			case x < 40:
				few.SetRGBA(x, y, color.RGBA{0, 0, 0, 0})
			default:
				few.SetRGBA(x, y, color.RGBA{byte(y * 4), 50, 60, 255})
			}
		}
	}
	offset := mapLike(80, 60, true).SubImage(image.Rect(5, 7, 70, 50)).(*image.RGBA)
	tests := []struct {
		name string
		img  *image.RGBA
		want byte
	}{
		{"translucent noise", noise, pngTruecolorAlpha},
		{"opaque map", mapLike(300, 200, false), pngTruecolor},
		{"map with a translucent band", mapLike(300, 200, true), pngTruecolorAlpha},
		{"few colours with alpha", few, pngIndexed},
		{"one colour", image.NewRGBA(image.Rect(0, 0, 10, 1)), pngIndexed},
		{"sub-image", offset, pngTruecolorAlpha},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := EncodePNG(&buf, tc.img); err != nil {
				t.Fatal(err)
			}
			if ct := colorType(t, buf.Bytes()); ct != tc.want {
				t.Errorf("colour type %d, want %d", ct, tc.want)
			}
			got, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("the standard decoder refuses it: %v", err)
			}
			sameStraight(t, got, tc.img)
		})
	}
	// Premultiplied half-transparent red is stored as straight red.
	var buf bytes.Buffer
	if err := EncodePNG(&buf, few); err != nil {
		t.Fatal(err)
	}
	got, _ := png.Decode(&buf)
	if c := color.NRGBAModel.Convert(got.At(0, 0)).(color.NRGBA); c != (color.NRGBA{255, 0, 0, 128}) {
		t.Errorf("straight colour %v", c)
	}
	if err := EncodePNG(&buf, image.NewRGBA(image.Rect(0, 0, 0, 5))); err == nil {
		t.Error("an empty image was encoded")
	}
}

func TestEncodeFormats(t *testing.T) {
	img := mapLike(256, 256, false)
	sizes := map[string]int{}
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"jpg q30", Options{Format: JPEG, Quality: 30}},
		{"jpg q95", Options{Format: JPEG, Quality: 95}},
		{"webp q30", Options{Format: WebP, Quality: 30}},
		{"webp q95", Options{Format: WebP, Quality: 95}},
		{"webp lossless", Options{Format: WebP, Lossless: true}},
		{"png default", Options{}},
	} {
		var buf bytes.Buffer
		if err := Encode(&buf, img, tc.opt); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sizes[tc.name] = buf.Len()
		var got image.Image
		var err error
		switch tc.opt.Format {
		case JPEG:
			got, err = jpeg.Decode(&buf)
		case WebP:
			got, err = xwebp.Decode(&buf)
		default:
			got, err = png.Decode(&buf)
		}
		if err != nil {
			t.Fatalf("%s: decode: %v", tc.name, err)
		}
		if got.Bounds().Dx() != 256 || got.Bounds().Dy() != 256 {
			t.Fatalf("%s: size %v", tc.name, got.Bounds())
		}
		if tc.name == "webp lossless" || tc.name == "png default" {
			sameStraight(t, got, img)
		}
	}
	if sizes["jpg q30"] >= sizes["jpg q95"] || sizes["webp q30"] >= sizes["webp q95"] {
		t.Errorf("quality does not change the size: %v", sizes)
	}
}

// TestEncodeBasis: the basis format is a KTX 2.0 file of the image's size,
// with an alpha slice only when the image has transparency.
func TestEncodeBasis(t *testing.T) {
	for _, alpha := range []bool{false, true} {
		img := mapLike(64, 48, alpha)
		var buf bytes.Buffer
		if err := Encode(&buf, img, Options{Format: Basis}); err != nil {
			t.Fatal(err)
		}
		info, err := basisu.Inspect(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if info.Width != 64 || info.Height != 48 || (info.AlphaSlice > 0) != alpha {
			t.Errorf("alpha %v: %dx%d, alpha slice %d bytes", alpha, info.Width, info.Height, info.AlphaSlice)
		}
	}
}

func TestJPEGFlattensOverBackground(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16)) // fully transparent
	for _, tc := range []struct {
		bg   color.Color
		want uint8
	}{{nil, 255}, {color.Black, 0}} {
		var buf bytes.Buffer
		if err := Encode(&buf, img, Options{Format: JPEG, Background: tc.bg}); err != nil {
			t.Fatal(err)
		}
		got, err := jpeg.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		r, _, _, _ := got.At(8, 8).RGBA()
		if d := int(r>>8) - int(tc.want); d < -2 || d > 2 {
			t.Errorf("background %v: got red %d", tc.bg, r>>8)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"png": PNG, "PNG": PNG, "jpg": JPEG, "jpeg": JPEG, "webp": WebP, "basis": Basis, "BASIS": Basis} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, f, err)
		}
	}
	for _, bad := range []string{"", "gif", "png ", "ktx2"} {
		if _, err := ParseFormat(bad); err == nil {
			t.Errorf("ParseFormat(%q) accepted", bad)
		}
	}
	if WebP.MediaType() != "image/webp" || JPEG.MediaType() != "image/jpeg" || PNG.MediaType() != "image/png" || Basis.MediaType() != "image/ktx2" {
		t.Error("media types")
	}
}

func BenchmarkEncodePNG512(b *testing.B) {
	img := mapLike(512, 512, false)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := EncodePNG(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

// BenchmarkEncodePNG2048x1536 encodes a map-like image the size of a
// 1024x768 static map at @2x.
func BenchmarkEncodePNG2048x1536(b *testing.B) {
	img := mapLike(2048, 1536, false)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := EncodePNG(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

func BenchmarkStdlibPNG512(b *testing.B) {
	img := mapLike(512, 512, false)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	for b.Loop() {
		buf.Reset()
		if err := enc.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}

// BenchmarkEncodeReference encodes the reference renderer's picture of the
// shared street style (a real, dense map image) when it is present.
func BenchmarkEncodeReference(b *testing.B) {
	f, err := os.Open(filepath.Join(fixtures.RepoRoot(), "..", "shared", "bench", "street-maplibre.png"))
	if err != nil {
		b.Skip("../shared/bench/street-maplibre.png is absent: skipping")
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	for _, tc := range []struct {
		name string
		enc  func(*bytes.Buffer) error
	}{
		{"tessera", func(w *bytes.Buffer) error { return EncodePNG(w, img) }},
		{"stdlib-bestspeed", func(w *bytes.Buffer) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, img)
		}},
		{"stdlib-default", func(w *bytes.Buffer) error { return png.Encode(w, img) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := tc.enc(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

// TestUnpremultiplyRows holds the conversion to straight alpha, with its
// runs of opaque pixels copied whole, to the per-pixel rule: rows of every
// width from 0 to 9 pixels, opaque runs of every length and position,
// transparent and partly transparent pixels between them.
func TestUnpremultiplyRows(t *testing.T) {
	ref := func(p [4]byte) [4]byte {
		a := uint32(p[3])
		switch a {
		case 0:
			return [4]byte{}
		case 255:
			return p
		}
		f := func(c byte) byte { return byte(min(255, (uint32(c)*255+a/2)/a)) }
		return [4]byte{f(p[0]), f(p[1]), f(p[2]), p[3]}
	}
	kinds := [][4]byte{{10, 20, 30, 255}, {0, 0, 0, 0}, {40, 50, 60, 128}, {200, 1, 90, 255}, {3, 2, 1, 7}}
	for w := 0; w <= 9; w++ {
		// Every row of w pixels drawn from kinds, up to 3^w of them.
		n := 1
		for range w {
			n *= 3
		}
		for code := range min(n, 2000) {
			const stride = 4 * 12 // rows padded, as a sub-image's are
			src := make([]byte, 2*stride)
			var want []byte
			for y := range 2 {
				c := code + y
				for x := range w {
					p := kinds[(c%3+x*y)%len(kinds)]
					c /= 3
					copy(src[y*stride+4*x:], p[:])
					q := ref(p)
					want = append(want, q[:]...)
				}
			}
			dst := make([]byte, 2*4*w)
			unpremultiplyRows(dst, 4*w, src, stride, w, 2)
			if !bytes.Equal(dst, want) {
				t.Fatalf("width %d, rows %v: got %v, want %v", w, src, dst, want)
			}
		}
	}
}
