package spritesheet

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image/png"
	"io"
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

// BenchmarkDecode decodes the street view's sprite sheet.
func BenchmarkDecode(b *testing.B) {
	data := streetSheet(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
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
	// Filter the rows again, each with the filter it had.
	filtered := make([]byte, len(raw.pix))
	zr, _ := zlib.NewReader(bytes.NewReader(idatOf(streetSheet(b))))
	io.ReadFull(zr, filtered)
	buf := make([]byte, len(filtered))
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		copy(buf, filtered)
		var prev []byte
		for y := range raw.h {
			row := buf[y*raw.stride : (y+1)*raw.stride]
			unfilter(row[0], row[1:], prev, raw.bpp)
			prev = row[1:]
		}
	}
	if !bytes.Equal(buf, raw.pix) {
		b.Fatal("unfiltered differently")
	}
}

// idatOf concatenates a PNG's IDAT chunks' bodies.
func idatOf(data []byte) []byte {
	var out []byte
	for p := 8; p+12 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[p:]))
		if string(data[p+4:p+8]) == "IDAT" {
			out = append(out, data[p+8:p+8+n]...)
		}
		p += 12 + n
	}
	return out
}

// BenchmarkParseIndex parses the street view's sprite index (374 entries).
func BenchmarkParseIndex(b *testing.B) {
	dir := fixtures.SharedDir()
	if dir == "" {
		b.Skip("../shared is absent")
	}
	data, err := os.ReadFile(filepath.Join(dir, "render-tests", "sprites", "sprite.json"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, ok := parseIndex(data); !ok {
			b.Fatal("left to encoding/json")
		}
	}
}
