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
// drawBesideMapLibre draws dir/NAME.json at 256 x 256 and returns the
// picture with MapLibre's, dir/NAME-maplibre.png.
func drawBesideMapLibre(t *testing.T, r *Renderer, dir, name string) (got, want *image.NRGBA) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	st := parse(t, string(doc))
	img, err := r.Render(context.Background(), st, ViewOf(st, 256, 256, 1), localResources{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	want, err = rawNRGBA(filepath.Join(dir, name+"-maplibre.png"))
	if err != nil {
		t.Fatal(err)
	}
	// The backgrounds are opaque: premultiplied and straight colours are
	// the same.
	return &image.NRGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}, want
}

func TestHillshadeMapLibre(t *testing.T) {
	const allowed = 0.005
	r := newRenderer(t)
	dir := filepath.Join("testdata", "hillshade")
	for _, name := range []string{"standard", "multidirectional", "combined", "image"} {
		t.Run(name, func(t *testing.T) {
			got, want := drawBesideMapLibre(t, r, dir, name)
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

// TestHillshadeFlatGround draws flat ground (testdata/hillshade/flat: one
// Terrarium tile of 400 m served for every tile) with each hillshade
// method under several lights and compares it, channel by channel, with
// MapLibre GL JS 6.17's pictures of the same styles (node
// ../../maplibre-reference.mjs NAME.json 256 256 NAME-maplibre.png).
//
// GL's pictures show no faint shade on flat ground: where the lighting of
// level ground is nought (standard, combined, igor) they are the
// background exactly, so its slope texture reads flat ground back as a
// derivative of 0, as ours does (a read-back with a bias of 0.5, which
// would give about ±0.016, puts every case 1 to 7 levels off). Where
// level ground is lit (basic, multidirectional: the light's altitude
// alone) one case of each is a level apart, everywhere alike: rounding
// in the blend, not the slopes (basic at altitude 20 over grey 128 is
// 128 x (1 - (1 - 2 sin 20)) = 87.56; GL gives 88, Tessera 87).
func TestHillshadeFlatGround(t *testing.T) {
	r := newRenderer(t)
	dir := filepath.Join("testdata", "hillshade", "flat")
	tests := []struct {
		name   string
		levels int // largest difference allowed in a channel (0..255)
	}{
		{"standard", 0},
		{"standard-map", 0}, // illumination anchored to the map, direction 200
		{"standard-ex1", 0}, // exaggeration 1, a red accent colour
		{"basic", 0},
		{"basic-alt", 1}, // altitude 20, direction 90
		{"combined", 0},
		{"combined-alt", 0}, // altitude 70, anchored to the map
		{"igor", 0},
		{"igor-ex", 0}, // exaggeration 1, direction 45
		{"multidirectional", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, want := drawBesideMapLibre(t, r, dir, tc.name)
			if !got.Rect.Eq(want.Rect) {
				t.Fatalf("size %v, want %v", got.Rect, want.Rect)
			}
			worst := 0
			first := got.Pix[:4]
			uniform := true
			for y := 0; y < got.Rect.Dy(); y++ {
				for x := 0; x < got.Rect.Dx(); x++ {
					g, w := got.Pix[got.PixOffset(x, y):][:4], want.Pix[want.PixOffset(x, y):][:4]
					for c := 0; c < 3; c++ {
						worst = max(worst, abs(int(g[c])-int(w[c])))
					}
					uniform = uniform && g[0] == first[0] && g[1] == first[1] && g[2] == first[2]
				}
			}
			t.Logf("%s: %v, GL %v: at most %d levels apart", tc.name, first[:3], want.Pix[:3], worst)
			if worst > tc.levels {
				t.Errorf("a channel is %d levels from MapLibre's, allowed %d", worst, tc.levels)
			}
			if !uniform {
				t.Error("flat ground is not shaded uniformly")
			}
		})
	}
}
