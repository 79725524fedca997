package render

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

func near(a, b [4]float64, tol float64) bool { return rendertest.Near(a, b, tol) }

func TestRasterAligned(t *testing.T) {
	for _, tc := range []struct {
		name          string
		w, h          int
		ratio         float64
		bearing, zoom float64
	}{
		{"even", 512, 256, 1, 0, 16.3},
		{"odd", 511, 255, 1, 0, 3.7},
		{"retina", 256, 128, 2, 0, 16},
		{"quarter turn", 300, 201, 1, 90, 5.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := scene.NewFrame(View{Center: [2]float64{13.418056, 52.499167}, Zoom: tc.zoom, Bearing: tc.bearing, Width: tc.w, Height: tc.h, PixelRatio: tc.ratio})
			al := fr.RasterAligned()
			world := fr.Scale / fr.Ratio
			if d := math.Hypot(al.CX-fr.CX, al.CY-fr.CY) * world; d > 1 {
				t.Errorf("the center moved %.3f CSS px", d)
			}
			// Whole CSS pixels of the world land on whole device pixels.
			x, y := math.Round(al.CX*world)+3, math.Round(al.CY*world)-7
			p := al.ToScreen(x/world, y/world)
			if math.Abs(p.X-math.Round(p.X)) > 1e-6 || math.Abs(p.Y-math.Round(p.Y)) > 1e-6 {
				t.Errorf("world pixel lands at %v", p)
			}
			// toWorld inverts toScreen.
			wx, wy := al.ToWorld(p.X, p.Y)
			if math.Abs(wx*world-x) > 1e-6 || math.Abs(wy*world-y) > 1e-6 {
				t.Errorf("toWorld(toScreen) = %v, %v; want %v, %v", wx*world, wy*world, x, y)
			}
		})
	}
}

func pngTile(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			img.Set(x, y, c)
		}
	}
	return rendertest.EncodePNG(t, img)
}

// TestRenderRaster draws a zoom-1 raster source whose four tiles are flat
// colours: each quarter of the image shows its tile, a missing or corrupt
// tile leaves its quarter to the background, and tms flips the rows.
func TestRenderRaster(t *testing.T) {
	r := newRenderer(t)
	res := mapResources{
		"t/1/0/0": pngTile(t, color.NRGBA{255, 0, 0, 255}),
		"t/1/1/0": pngTile(t, color.NRGBA{0, 0, 255, 128}),
		"t/1/0/1": pngTile(t, color.NRGBA{0, 255, 0, 255}),
		"t/1/1/1": []byte("not an image"),
	}
	quarters := func(t *testing.T, scheme string) map[string][4]uint8 {
		t.Helper()
		st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 0,
			"sources": {"r": {"type": "raster", "tiles": ["t/{z}/{x}/{y}"], "tileSize": 256, "scheme": "`+scheme+`"}},
			"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
				{"id": "r", "type": "raster", "source": "r", "paint": {"raster-resampling": "nearest"}}]}`)
		img, err := r.Render(context.Background(), st, ViewOf(st, 512, 512, 1), res)
		if err != nil {
			t.Fatal(err)
		}
		at := func(x, y int) [4]uint8 {
			o := img.PixOffset(x, y)
			return [4]uint8(img.Pix[o : o+4])
		}
		return map[string][4]uint8{"nw": at(100, 100), "ne": at(400, 100), "sw": at(100, 400), "se": at(400, 400)}
	}
	got := quarters(t, "xyz")
	want := map[string][4]uint8{
		"nw": {255, 0, 0, 255},
		"ne": {127, 127, 255, 255}, // half-transparent blue over white
		"sw": {0, 255, 0, 255},
		"se": {255, 255, 255, 255}, // corrupt: skipped
	}
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("xyz %s = %v, want %v", k, g, w)
		}
	}
	got = quarters(t, "tms")
	if got["sw"] != want["nw"] || got["nw"] != want["sw"] {
		t.Errorf("tms did not flip the rows: %v", got)
	}
}
