package pyramid

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"
)

// straight returns a colour as straight 8-bit RGBA the way PNGRows gives
// it (16-bit samples keep their high byte).
func straight(c color.Color) [4]byte {
	switch v := c.(type) {
	case color.NRGBA:
		return [4]byte{v.R, v.G, v.B, v.A}
	case color.NRGBA64:
		return [4]byte{byte(v.R >> 8), byte(v.G >> 8), byte(v.B >> 8), byte(v.A >> 8)}
	case color.Gray:
		return [4]byte{v.Y, v.Y, v.Y, 255}
	case color.Gray16:
		return [4]byte{byte(v.Y >> 8), byte(v.Y >> 8), byte(v.Y >> 8), 255}
	case color.RGBA:
		if v.A == 255 {
			return [4]byte{v.R, v.G, v.B, 255}
		}
	case color.RGBA64:
		if v.A == 0xffff {
			return [4]byte{byte(v.R >> 8), byte(v.G >> 8), byte(v.B >> 8), 255}
		}
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return [4]byte{n.R, n.G, n.B, n.A}
}

// compareWithStdlib decodes data with PNGRows and with image/png: when
// image/png reads a non-interlaced picture, PNGRows gives the same pixels
// (alpha only where transparent); when PNGRows fails, image/png does too
// (PNGRows may refuse more: it checks every CRC, as image/png does).
func compareWithStdlib(t *testing.T, data []byte) {
	ref, refErr := png.Decode(bytes.NewReader(data))
	rows, err := NewPNGRows(bytes.NewReader(data))
	if errors.Is(err, ErrInterlaced) {
		return
	}
	var got [][]byte
	if err == nil {
		w, h := rows.Size()
		for y := 0; y < h; y++ {
			row := make([]byte, 4*w)
			if err = rows.Next(row); err != nil {
				break
			}
			got = append(got, row)
		}
		if err == nil {
			if e := rows.Next(make([]byte, 4*w)); e != io.EOF {
				t.Fatalf("after the last row: %v", e)
			}
		}
	}
	if err != nil && !errors.Is(err, ErrFormat) {
		t.Fatalf("an error that is not ErrFormat: %v", err)
	}
	if refErr != nil {
		return
	}
	if err != nil {
		// image/png stops reading at the last row and does not see what
		// follows; PNGRows does not read past it either, so a failure
		// here means a difference.
		t.Fatalf("image/png reads it, PNGRows fails: %v", err)
	}
	b := ref.Bounds()
	if w, h := rows.Size(); w != b.Dx() || h != b.Dy() {
		t.Fatalf("size %dx%d, image/png %v", w, h, b)
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			want := straight(ref.At(b.Min.X+x, b.Min.Y+y))
			var px [4]byte
			copy(px[:], got[y][4*x:])
			if want[3] == 0 && px[3] == 0 {
				continue
			}
			if px != want {
				t.Fatalf("pixel %d,%d: %v, image/png %v (%T)", x, y, px, want, ref.At(x, y))
			}
		}
	}
}

// samplePNGs are pictures of every colour type and depth Go's encoder
// writes, with every filter it picks.
func samplePNGs(t testing.TB) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	var out [][]byte
	enc := func(img image.Image) {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	for _, size := range [][2]int{{1, 1}, {3, 2}, {17, 9}, {64, 33}} {
		w, h := size[0], size[1]
		rect := image.Rect(0, 0, w, h)
		nrgba, nrgba64, gray, gray16, rgba := image.NewNRGBA(rect), image.NewNRGBA64(rect), image.NewGray(rect), image.NewGray16(rect), image.NewRGBA(rect)
		pal := make(color.Palette, 0, 200)
		for i := 0; i < 200; i++ {
			pal = append(pal, color.NRGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256))})
		}
		pal4 := pal[:4]
		paletted, paletted4 := image.NewPaletted(rect, pal), image.NewPaletted(rect, pal4)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := uint8(x*7 + y*13)
				nrgba.SetNRGBA(x, y, color.NRGBA{v, uint8(r.IntN(256)), uint8(y), uint8(r.IntN(256))})
				nrgba64.SetNRGBA64(x, y, color.NRGBA64{uint16(r.IntN(65536)), uint16(x * 999), uint16(y * 7), uint16(r.IntN(65536))})
				gray.SetGray(x, y, color.Gray{v})
				gray16.SetGray16(x, y, color.Gray16{uint16(r.IntN(65536))})
				rgba.SetRGBA(x, y, color.RGBA{v, v / 2, 255 - v, 255})
				paletted.SetColorIndex(x, y, uint8(r.IntN(200)))
				paletted4.SetColorIndex(x, y, uint8(r.IntN(4)))
			}
		}
		for _, img := range []image.Image{nrgba, nrgba64, gray, gray16, rgba, paletted, paletted4} {
			enc(img)
		}
	}
	return out
}

func TestPNGRowsMatchesStdlib(t *testing.T) {
	for i, data := range samplePNGs(t) {
		t.Run("", func(t *testing.T) {
			compareWithStdlib(t, data)
			_ = i
		})
	}
	// Sub-byte grey with tRNS, 16-bit RGB with tRNS: hand-made.
	for _, data := range [][]byte{greyPNG(t, 2, []byte{0x1b, 0xe4}, 4, 2, true), greyPNG(t, 1, []byte{0xa5}, 8, 1, false)} {
		compareWithStdlib(t, data)
	}
}

// greyPNG writes a grey PNG of the given depth with raw (unfiltered) rows
// and, with trns, the grey value 1 transparent.
func greyPNG(t testing.TB, depth int, raw []byte, w, h int, trns bool) []byte {
	var buf bytes.Buffer
	buf.Write(pngSignature)
	chunk := func(typ string, data []byte) {
		var b bytes.Buffer
		b.WriteString(typ)
		b.Write(data)
		l := []byte{byte(len(data) >> 24), byte(len(data) >> 16), byte(len(data) >> 8), byte(len(data))}
		buf.Write(l)
		buf.Write(b.Bytes())
		c := crc32IEEE(b.Bytes())
		buf.Write([]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)})
	}
	chunk("IHDR", []byte{0, 0, 0, byte(w), 0, 0, 0, byte(h), byte(depth), 0, 0, 0, 0})
	if trns {
		chunk("tRNS", []byte{0, 1})
	}
	stride := (w*depth + 7) / 8
	var rows []byte
	for y := 0; y < h; y++ {
		rows = append(rows, 0)
		rows = append(rows, raw[y*stride:(y+1)*stride]...)
	}
	chunk("IDAT", zlibBytes(t, rows))
	chunk("IEND", nil)
	return buf.Bytes()
}

func TestPNGRowsRefuses(t *testing.T) {
	good := samplePNGs(t)[3]
	for name, data := range map[string][]byte{
		"empty":     nil,
		"signature": []byte("GIF89a"),
		"cut":       good[:len(good)/2],
		"crc":       append(append([]byte{}, good[:20]...), append([]byte{good[20] ^ 1}, good[21:]...)...),
	} {
		rows, err := NewPNGRows(bytes.NewReader(data))
		if err == nil {
			w, h := rows.Size()
			for y := 0; y < h && err == nil; y++ {
				err = rows.Next(make([]byte, 4*w))
			}
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzPNGRows(f *testing.F) {
	for _, data := range samplePNGs(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width*cfg.Height > 1<<20 {
			return
		}
		compareWithStdlib(t, data)
	})
}
