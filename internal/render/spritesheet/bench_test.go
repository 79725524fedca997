package spritesheet

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// streetSheet reads the street view's sprite sheet (664x662 RGBA).
func streetSheet(b *testing.B) []byte {
	dir := fixtures.SharedDir()
	if dir == "" {
		b.Skip("../shared is absent")
	}
	data, err := os.ReadFile(filepath.Join(dir, "render-tests", "sprites", "sprite.png"))
	if err != nil {
		b.Skip(err)
	}
	return data
}

// BenchmarkDecode decodes the street view's sprite sheet, every row (a
// render unfilters only the rows of the icons it cuts).
func BenchmarkDecode(b *testing.B) {
	data := streetSheet(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		s.raw.unfilterRows(0, s.h)
	}
}

// BenchmarkDecodeImagePNG decodes the same sheet with image/png, for
// comparison.
func BenchmarkDecodeImagePNG(b *testing.B) {
	data := streetSheet(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnfilter unfilters the street view's sprite sheet's rows (all
// five filters, Paeth most).
func BenchmarkUnfilter(b *testing.B) {
	raw, ok := decodeRaw(streetSheet(b))
	if !ok {
		b.Fatal("not decoded")
	}
	filtered := bytes.Clone(raw.pix)
	b.SetBytes(int64(len(filtered)))
	for b.Loop() {
		copy(raw.pix, filtered)
		raw.done = make([]bool, raw.h)
		raw.unfilterRows(0, raw.h)
	}
}
