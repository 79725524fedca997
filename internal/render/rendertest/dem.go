package rendertest

import (
	"image"
	"math"
	"testing"
)

// DEMPNG encodes a dim x dim DEM tile whose pixel x, y has elevation
// elev(x, y).
func DEMPNG(t testing.TB, enc string, dim int, elev func(x, y int) float64) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, dim, dim))
	for y := 0; y < dim; y++ {
		for x := 0; x < dim; x++ {
			c := EncodeElevation(t, enc, elev(x, y))
			o := img.PixOffset(x, y)
			copy(img.Pix[o:], []uint8{c[0], c[1], c[2], 255})
		}
	}
	return EncodePNG(t, img)
}

// EncodeElevation packs metres into red, green and blue by an encoding's
// own rule (the inverse of what the renderer decodes).
func EncodeElevation(t testing.TB, enc string, e float64) [3]uint8 {
	t.Helper()
	switch enc {
	case "mapbox":
		v := int(math.Round((e + 10000) * 10))
		return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
	case "terrarium":
		v := e + 32768
		return [3]uint8{uint8(int(v) / 256), uint8(int(v) % 256), uint8(math.Floor((v - math.Floor(v)) * 256))}
	case "custom":
		// The test's custom encoding: r*100 + g + b/100 - 500.
		v := e + 500
		r := math.Floor(v / 100)
		g := math.Floor(v - 100*r)
		b := math.Round((v - 100*r - g) * 100)
		return [3]uint8{uint8(r), uint8(g), uint8(b)}
	}
	t.Fatalf("no encoding %q", enc)
	return [3]uint8{}
}
