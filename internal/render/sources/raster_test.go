package sources

import (
	"image"
	"image/color"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

// ramp returns an opaque texture of w x h whose texel x, y is
// (step*x, step*y, 0, 255).
func ramp(w, h int, step uint8) *Texture {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x) * step, uint8(y) * step, 0, 255})
		}
	}
	return newTexture(w, h, img.Pix, img.Stride)
}

func TestTextureLevel(t *testing.T) {
	tex := ramp(8, 8, 10)
	tests := []struct {
		perPixel float64
		want     int // side of the level chosen
	}{
		{0.5, 8},  // magnified
		{1, 8},    // one to one
		{1.41, 8}, // lambda below 0.5: still the full image
		{1.42, 4}, // the nearest level is the half
		{2, 4},
		{4, 2},
		{8, 1},
		{100, 1}, // no level below 1 x 1
	}
	for _, tc := range tests {
		if got := tex.Level(tc.perPixel); got.W != tc.want || got.h != tc.want {
			t.Errorf("level(%v) is %dx%d, want side %d", tc.perPixel, got.W, got.h, tc.want)
		}
	}
	// The half averages each 2x2 block: texel 0, 0 of level 1 is the mean
	// of x 0..1 and y 0..1, (5, 5) rounded.
	if got := tex.Level(2).texel(0, 0); !rendertest.Near(got, [4]float64{5.0 / 255, 5.0 / 255, 0, 1}, 1e-9) {
		t.Errorf("level 1 texel 0, 0 = %v", got)
	}
	if odd := ramp(6, 6, 1); odd.Level(4) != odd {
		t.Error("a texture whose side is not a power of two has mipmaps")
	}
}

func TestRasterZoom(t *testing.T) {
	tests := []struct {
		zoom             float64
		size, minZ, maxZ int
		want             int
		ok               bool
	}{
		{16, 256, 0, 22, 17, true},   // 256 px tiles: one zoom deeper
		{16, 512, 0, 22, 16, true},   // the GL pyramid
		{15.5, 512, 0, 22, 16, true}, // rounded, halves up
		{15.49, 512, 0, 22, 15, true},
		{15, 256, 17, 17, 0, false}, // below minzoom: nothing
		{17, 256, 17, 17, 17, true}, // past maxzoom: the maxzoom tiles, scaled
		{0, 1024, 0, 22, 0, true},   // never below 0
	}
	for _, tc := range tests {
		z, ok := rasterZoom(tc.zoom, tc.size, tc.minZ, tc.maxZ)
		if z != tc.want || ok != tc.ok {
			t.Errorf("rasterZoom(%v, %d, %d, %d) = %d, %v; want %d, %v", tc.zoom, tc.size, tc.minZ, tc.maxZ, z, ok, tc.want, tc.ok)
		}
	}
}

func TestTileInBounds(t *testing.T) {
	b := []float64{0, 0, 90, 45} // from the equator north, 0° to 90°E
	tests := []struct {
		z, x, y int
		want    bool
	}{
		{0, 0, 0, true},
		{1, 1, 0, true},  // north-east tile
		{1, 0, 0, false}, // north-west
		{1, 1, 1, false}, // south-east: the bounds end on the equator
		{2, 2, 1, true},
		{2, 3, 1, false}, // east of 90°
	}
	for _, tc := range tests {
		if got := tileInBounds(b, tc.z, tc.x, tc.y); got != tc.want {
			t.Errorf("tileInBounds %d/%d/%d = %v, want %v", tc.z, tc.x, tc.y, got, tc.want)
		}
	}
	if !tileInBounds(nil, 3, 7, 7) {
		t.Error("no bounds excluded a tile")
	}
}

func TestSample(t *testing.T) {
	tex := ramp(4, 4, 10) // texel x, y = (10x, 10y, 0, 255)
	v := func(r, g float64) [4]float64 { return [4]float64{r / 255, g / 255, 0, 1} }
	tests := []struct {
		name    string
		nearest bool
		u, v    float64
		want    [4]float64
	}{
		{"linear at a texel centre", false, 1.5 / 4, 2.5 / 4, v(10, 20)},
		{"linear between four texels", false, 2.0 / 4, 2.0 / 4, v(15, 15)},
		{"linear a quarter of the way", false, 1.75 / 4, 0.5 / 4, v(12.5, 0)},
		{"linear clamps at the left edge", false, 0, 0.5 / 4, v(0, 0)},
		{"linear clamps at the right edge", false, 1, 3.5 / 4, v(30, 30)},
		{"nearest picks the texel under", true, 1.99 / 4, 3.01 / 4, v(10, 30)},
		{"nearest at a texel boundary takes the next", true, 2.0 / 4, 0, v(20, 0)},
		{"nearest clamps past the edge", true, 1.0, 1.0, v(30, 30)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got [4]float64
			if tc.nearest {
				got = tex.SampleNearest(tc.u, tc.v)
			} else {
				got = tex.SampleLinear(tc.u, tc.v)
			}
			if !rendertest.Near(got, tc.want, 1e-9) {
				t.Errorf("sample(%v, %v) = %v, want %v", tc.u, tc.v, got, tc.want)
			}
		})
	}
}
