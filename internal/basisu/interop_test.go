package basisu_test

import (
	"bytes"
	"image"
	"image/color"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/basisu"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

// TestInteropTranscoder encodes rendered map tiles (the shared fixtures'
// reference renderings, 512 pixels, as @2x tiles) and checks that the
// reference Basis Universal transcoder decodes them to within 25 dB PSNR of
// the original, in at most half the bytes of the tile as Tessera's PNG.
func TestInteropTranscoder(t *testing.T) {
	tr := fixtures.NewBasisTranscoder(t)
	refs := fixtures.Path(t, "fixtures/martin/tests/fixtures/rendering_references")
	for _, name := range []string{"maplibre_demo_0_0_0.png", "maplibre_demo_1_0_0.png", "maptiler_basic_0_0_0.png"} {
		t.Run(name, func(t *testing.T) {
			img := fixtures.NRGBA(fixtures.ReadPNG(t, filepath.Join(refs, name)))
			var pngBuf bytes.Buffer
			if err := imageenc.EncodePNG(&pngBuf, img); err != nil {
				t.Fatal(err)
			}
			ktx, err := basisu.EncodeBytes(img, basisu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := tr.Transcode(t, ktx)
			if got.Rect != img.Rect {
				t.Fatalf("transcoded %v, want %v", got.Rect, img.Rect)
			}
			p := fixtures.PSNR(img, got)
			t.Logf("%s: PNG %d bytes, KTX2 %d bytes (%.0f%%), PSNR %.2f dB", name, pngBuf.Len(), len(ktx), 100*float64(len(ktx))/float64(pngBuf.Len()), p)
			if p < 25 {
				t.Errorf("PSNR %.2f dB < 25", p)
			}
			if 2*len(ktx) > pngBuf.Len() {
				t.Errorf("KTX2 of %d bytes is more than half the PNG's %d", len(ktx), pngBuf.Len())
			}
		})
	}
}

// TestInteropTranscoderAlpha checks the alpha slice and partial blocks
// through the reference transcoder.
func TestInteropTranscoderAlpha(t *testing.T) {
	tr := fixtures.NewBasisTranscoder(t)
	cases := []struct {
		name string
		w, h int
	}{{"tile", 256, 256}, {"odd size", 37, 19}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := image.NewNRGBA(image.Rect(0, 0, c.w, c.h))
			for y := 0; y < c.h; y++ {
				for x := 0; x < c.w; x++ {
					col := color.NRGBA{200, 80, 40, 255}
					if (x/8+y/8)%2 == 0 {
						col = color.NRGBA{20, 90, 220, 255}
					}
					if x < c.w/2 {
						col.A = uint8(255 * y / c.h)
					}
					img.SetNRGBA(x, y, col)
				}
			}
			ktx, err := basisu.EncodeBytes(img, basisu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			info, err := basisu.Inspect(ktx)
			if err != nil {
				t.Fatal(err)
			}
			if info.AlphaSlice == 0 {
				t.Fatal("no alpha slice for a translucent image")
			}
			got := tr.Transcode(t, ktx)
			if p := fixtures.PSNR(img, got); p < 30 {
				t.Errorf("PSNR %.2f dB < 30", p)
			}
			// The transparent top rows stay transparent, the opaque half
			// opaque.
			if a := got.NRGBAAt(0, 0).A; a > 8 {
				t.Errorf("alpha at the top left %d, want about 0", a)
			}
			if a := got.NRGBAAt(c.w-1, 0).A; a != 255 {
				t.Errorf("alpha at the top right %d, want 255", a)
			}
		})
	}
}
