package basisu_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/basisu"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

// transcoder returns node and the node_modules folder holding npm three's
// Basis Universal transcoder, skipping the test when either is absent
// (failing it under TESSERA_REQUIRE_TOOLS=1).
func transcoder(t *testing.T) (node, modules string) {
	t.Helper()
	node = fixtures.Tool(t, "node")
	modules = os.Getenv("TESSERA_NODE_PATH")
	if modules == "" {
		modules = os.Getenv("NODE_PATH")
	}
	if modules == "" {
		modules = filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules")
	}
	wasm := filepath.Join(modules, "three", "examples", "jsm", "libs", "basis", "basis_transcoder.wasm")
	if _, err := os.Stat(wasm); err != nil {
		if fixtures.RequireTools() {
			t.Fatalf("npm three's Basis transcoder is required (TESSERA_REQUIRE_TOOLS=1) but %s is absent", wasm)
		}
		t.Skipf("npm three's Basis transcoder not found at %s (scripts/test-tools-npm.sh installs it): skipping", wasm)
	}
	return node, modules
}

// Transcode decodes a KTX 2.0 file to RGBA with the reference transcoder.
func Transcode(t *testing.T, node, modules string, ktx []byte) *image.NRGBA {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ktx2"), filepath.Join(dir, "out.rgba")
	if err := os.WriteFile(in, ktx, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "transcode.js"), modules, in, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("the transcoder rejects the file: %v: %s", err, stderr.String())
	}
	var info struct{ Width, Height int }
	if err := json.Unmarshal(res, &info); err != nil {
		t.Fatalf("transcoder output %q: %v", res, err)
	}
	pix, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pix) != info.Width*info.Height*4 {
		t.Fatalf("%d bytes of pixels for %dx%d", len(pix), info.Width, info.Height)
	}
	return &image.NRGBA{Pix: pix, Stride: info.Width * 4, Rect: image.Rect(0, 0, info.Width, info.Height)}
}

// PSNR compares two images' straight RGBA channels; where both pixels are
// fully transparent their colour does not count.
func PSNR(a, b *image.NRGBA) float64 {
	var se float64
	n := 0
	for y := 0; y < a.Rect.Dy(); y++ {
		for x := 0; x < a.Rect.Dx(); x++ {
			p, q := a.Pix[y*a.Stride+4*x:], b.Pix[y*b.Stride+4*x:]
			chans := 4
			if p[3] == 0 && q[3] == 0 {
				chans = 0
			}
			for c := 0; c < chans; c++ {
				d := float64(p[c]) - float64(q[c])
				se += d * d
			}
			n += 4
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

func readPNG(t *testing.T, path string) *image.NRGBA {
	t.Helper()
	img := fixtures.ReadPNG(t, path)
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out
}

// TestInteropTranscoder encodes rendered map tiles (the shared fixtures'
// reference renderings, 512 pixels, as @2x tiles) and checks that the
// reference Basis Universal transcoder decodes them to within 25 dB PSNR of
// the original, in at most half the bytes of the tile as Tessera's PNG.
func TestInteropTranscoder(t *testing.T) {
	node, modules := transcoder(t)
	refs := fixtures.Path(t, "fixtures/martin/tests/fixtures/rendering_references")
	for _, name := range []string{"maplibre_demo_0_0_0.png", "maplibre_demo_1_0_0.png", "maptiler_basic_0_0_0.png"} {
		t.Run(name, func(t *testing.T) {
			img := readPNG(t, filepath.Join(refs, name))
			var pngBuf bytes.Buffer
			if err := imageenc.EncodePNG(&pngBuf, img); err != nil {
				t.Fatal(err)
			}
			ktx, err := basisu.EncodeBytes(img, basisu.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := Transcode(t, node, modules, ktx)
			if got.Rect != img.Rect {
				t.Fatalf("transcoded %v, want %v", got.Rect, img.Rect)
			}
			p := PSNR(img, got)
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
	node, modules := transcoder(t)
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
			got := Transcode(t, node, modules, ktx)
			if p := PSNR(img, got); p < 30 {
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
