package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

// quadrantsPNG is a w x h picture whose quarters are red (top left), green
// (top right), blue (bottom left) and yellow (bottom right).
func quadrantsPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{255, 0, 0, 255}
			switch {
			case x >= w/2 && y < h/2:
				c = color.NRGBA{0, 255, 0, 255}
			case x < w/2 && y >= h/2:
				c = color.NRGBA{0, 0, 255, 255}
			case x >= w/2 && y >= h/2:
				c = color.NRGBA{255, 255, 0, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return rendertest.EncodePNG(t, img)
}

// TestRenderImageSource draws an image source of four coloured quarters
// pinned at ±10° and checks that each quarter lands on its corner of the
// map, that nothing is drawn outside, and that raster paint applies.
func TestRenderImageSource(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{"img.png": quadrantsPNG(t, 8, 8)}
	const zoom = 3.0
	// screen returns the pixel of a longitude and latitude in the 384 x
	// 384 view centred on 0, 0.
	screen := func(lon, lat float64) (int, int) {
		x, y := geo.LonLatToWorld(lon, lat)
		s := 512 * math.Exp2(zoom)
		return int(192 + (x-0.5)*s), int(192 + (y-0.5)*s)
	}
	tests := []struct {
		name  string
		paint string
		coord string
		want  map[[2]float64][4]uint8 // by lon, lat
	}{
		{"a square on its corners", `"raster-resampling": "nearest"`, `[[-10, 10], [10, 10], [10, -10], [-10, -10]]`,
			map[[2]float64][4]uint8{
				{-5, 5}: {255, 0, 0, 255}, {5, 5}: {0, 255, 0, 255}, {-5, -5}: {0, 0, 255, 255}, {5, -5}: {255, 255, 0, 255},
				{-9.5, 9.5}: {255, 0, 0, 255}, {9.5, -9.5}: {255, 255, 0, 255},
				{-12, 0}: {255, 255, 255, 255}, {0, 12}: {255, 255, 255, 255}, {12, -12}: {255, 255, 255, 255},
			}},
		{"turned upside down", `"raster-resampling": "nearest"`, `[[10, -10], [-10, -10], [-10, 10], [10, 10]]`,
			map[[2]float64][4]uint8{
				{5, -5}: {255, 0, 0, 255}, {-5, -5}: {0, 255, 0, 255}, {5, 5}: {0, 0, 255, 255}, {-5, 5}: {255, 255, 0, 255},
			}},
		{"raster paint: half opacity over white", `"raster-resampling": "nearest", "raster-opacity": 0.5`, `[[-10, 10], [10, 10], [10, -10], [-10, -10]]`,
			map[[2]float64][4]uint8{{-5, 5}: {255, 128, 128, 255}, {5, -5}: {255, 255, 128, 255}}},
		{"raster paint: saturation -1 greys", `"raster-resampling": "nearest", "raster-saturation": -1`, `[[-10, 10], [10, 10], [10, -10], [-10, -10]]`,
			map[[2]float64][4]uint8{{-5, 5}: {85, 85, 85, 255}, {5, -5}: {170, 170, 170, 255}}},
		{"a trapezoid narrow at the top", `"raster-resampling": "nearest"`, `[[-5, 10], [5, 10], [15, -10], [-15, -10]]`,
			map[[2]float64][4]uint8{
				{-2, 9}: {255, 0, 0, 255}, {2, 9}: {0, 255, 0, 255}, {-12, -9}: {0, 0, 255, 255}, {12, -9}: {255, 255, 0, 255},
				{-8, 9}: {255, 255, 255, 255}, {8, 9}: {255, 255, 255, 255},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, fmt.Sprintf(`{"version": 8, "center": [0, 0], "zoom": %g,
				"sources": {"i": {"type": "image", "url": "img.png", "coordinates": %s}},
				"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
					{"id": "r", "type": "raster", "source": "i", "paint": {%s}}]}`, zoom, tc.coord, tc.paint))
			img, err := r.Render(context.Background(), st, ViewOf(st, 384, 384, 1), res)
			if err != nil {
				t.Fatal(err)
			}
			for ll, want := range tc.want {
				x, y := screen(ll[0], ll[1])
				o := img.PixOffset(x, y)
				if got := [4]uint8(img.Pix[o : o+4]); !nearBytes(got, want, 1) {
					t.Errorf("at %v (pixel %d,%d) = %v, want %v", ll, x, y, got, want)
				}
			}
		})
	}
	// A missing picture draws nothing and does not fail the render.
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 3,
		"sources": {"i": {"type": "image", "url": "none.png", "coordinates": [[-10, 10], [10, 10], [10, -10], [-10, -10]]}},
		"layers": [{"id": "r", "type": "raster", "source": "i"}]}`)
	img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), res)
	if err != nil {
		t.Fatal(err)
	}
	if p := [4]uint8(img.Pix[img.PixOffset(32, 32):][:4]); p != ([4]uint8{}) {
		t.Errorf("missing picture drew %v", p)
	}
}
