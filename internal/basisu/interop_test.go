package basisu_test

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

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

// TestInteropTranscoderTiles measures the PNG tiles of a folder named by
// TESSERA_BASIS_TILES (for example tiles fetched from a running demo server,
// as docs/benchmarks.md describes): each is encoded, decoded by the reference
// transcoder and compared. Every tile must reach 25 dB; every tile whose PNG
// is over 2 KB must take at most half its bytes (a one-colour tile's PNG of
// a few hundred bytes is smaller than the KTX 2.0 container and tables).
func TestInteropTranscoderTiles(t *testing.T) {
	dir := os.Getenv("TESSERA_BASIS_TILES")
	if dir == "" {
		t.Skip("TESSERA_BASIS_TILES names no folder of PNG tiles: skipping")
	}
	tr := fixtures.NewBasisTranscoder(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PNG tiles in %s (%v)", dir, err)
	}
	sort.Strings(files)
	var pngBytes, ktxBytes int
	minPSNR := math.Inf(1)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		img := fixtures.NRGBA(fixtures.ReadPNG(t, f))
		start := time.Now()
		ktx, err := basisu.EncodeBytes(img, basisu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		p := fixtures.PSNR(img, tr.Transcode(t, ktx))
		minPSNR = min(minPSNR, p)
		pngBytes += len(data)
		ktxBytes += len(ktx)
		t.Logf("%s: %dx%d PNG %d bytes, KTX2 %d bytes (%.1f%%), PSNR %.2f dB, encoded in %v", filepath.Base(f), img.Rect.Dx(), img.Rect.Dy(),
			len(data), len(ktx), 100*float64(len(ktx))/float64(len(data)), p, took.Round(time.Millisecond))
		if p < 25 {
			t.Errorf("%s: PSNR %.2f dB < 25", f, p)
		}
		if len(data) > 2048 && 2*len(ktx) > len(data) {
			t.Errorf("%s: KTX2 of %d bytes is more than half the PNG's %d", f, len(ktx), len(data))
		}
	}
	t.Logf("%d tiles: PNG %d bytes, KTX2 %d bytes (%.1f%%), lowest PSNR %.2f dB", len(files), pngBytes, ktxBytes, 100*float64(ktxBytes)/float64(pngBytes), minPSNR)
}

// BenchmarkEncode encodes the shared fixtures' 512-pixel map renderings;
// it reports the CPU time per encoding (all cores), the bytes of the KTX 2.0
// file and their share of Tessera's PNG.
func BenchmarkEncode(b *testing.B) {
	refs := fixtures.Path(b, "fixtures/martin/tests/fixtures/rendering_references")
	for _, name := range []string{"maplibre_demo_1_0_0.png", "maptiler_basic_0_0_0.png"} {
		img := fixtures.NRGBA(fixtures.ReadPNG(b, filepath.Join(refs, name)))
		var pngBuf bytes.Buffer
		if err := imageenc.EncodePNG(&pngBuf, img); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var n int
			cpu := fixtures.ProcessCPU()
			for b.Loop() {
				ktx, err := basisu.EncodeBytes(img, basisu.Options{})
				if err != nil {
					b.Fatal(err)
				}
				n = len(ktx)
			}
			fixtures.ReportCPUPerOp(b, cpu)
			b.ReportMetric(float64(n), "bytes")
			b.ReportMetric(float64(n)/float64(pngBuf.Len()), "of-png")
		})
	}
}
