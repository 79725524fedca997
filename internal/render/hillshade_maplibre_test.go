package render

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestHillshadeMapLibre draws the styles of testdata/hillshade (three
// hillshade methods over a synthetic Terrarium DEM of forty hills and a
// ridge, overzoomed in one, turned in two; and an image source warped
// onto a quadrilateral with raster paint; see gen.go) and compares them
// with MapLibre GL JS 6.17's pictures of them (made by
// testdata/maplibre-reference.mjs in headless Chromium, in
// testdata/hillshade: node ../maplibre-reference.mjs NAME.json 256 256
// NAME-maplibre.png), by the conformance suite's measure: a pixel differs
// when its YIQ distance passes pixelmatch's threshold.
//
// The allowance is 0.5% of the pixels: GL computes the slopes in 32-bit
// floats on the GPU before storing them in eight bits, where this
// renderer uses 64-bit floats, so a slope near a rounding boundary may
// land one level (1/32 of a unit of derivative) apart; that moves a
// colour by a level or two, well under the threshold, except where the
// tiles at the view's edge differ in which neighbours filled their
// borders (GL fills them from the tiles it shows only). The image's
// edges are antialiased by neither renderer but GL's rasteriser and this
// one's pixel-centre test may disagree on a pixel along them.
func TestHillshadeMapLibre(t *testing.T) {
	const allowed = 0.005
	r := newRenderer(t)
	dir := filepath.Join("testdata", "hillshade")
	for _, name := range []string{"standard", "multidirectional", "combined", "image"} {
		t.Run(name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join(dir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			st := parse(t, string(doc))
			img, err := r.Render(context.Background(), st, ViewOf(st, 256, 256, 1), localResources{Root: dir})
			if err != nil {
				t.Fatal(err)
			}
			want, err := rawNRGBA(filepath.Join(dir, name+"-maplibre.png"))
			if err != nil {
				t.Fatal(err)
			}
			// The background is opaque: premultiplied and straight
			// colours are the same.
			got := &image.NRGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
			if out := os.Getenv("TESSERA_RENDER_OUT"); out != "" {
				if f, err := os.Create(filepath.Join(out, "hillshade-"+name+".png")); err == nil {
					_ = png.Encode(f, got)
					f.Close()
				}
			}
			share := float64(differing(got, want)) / float64(256*256)
			t.Logf("%s: %.3f%% of pixels differ", name, 100*share)
			if share > allowed {
				t.Errorf("%s: %.3f%% of pixels differ from MapLibre's picture, allowed %.1f%%", name, 100*share, 100*allowed)
			}
		})
	}
}
