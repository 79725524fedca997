package sprite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
}

func fixtureIcons(t testing.TB, set string) []Icon {
	t.Helper()
	base := filepath.Join(sharedDir(t), "fixtures", "martin", "tests", "fixtures", "sprites")
	var dirs []string
	switch set {
	case "all":
		dirs = []string{"src1", "src2"}
	default:
		dirs = []string{set}
	}
	var icons []Icon
	for _, d := range dirs {
		root, err := os.OpenRoot(filepath.Join(base, d))
		if err != nil {
			t.Skipf("sprite fixtures absent: %v", err)
		}
		ics, skipped, err := LoadIcons(context.Background(), root.FS(), Options{})
		root.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) > 0 {
			t.Fatalf("fixture icons skipped: %v", skipped)
		}
		icons = append(icons, ics...)
	}
	return icons
}

// readSnap reads an insta snapshot: a YAML-ish header between "---" lines, then the body.
func readSnap(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	parts := bytes.SplitN(b, []byte("---\n"), 3)
	if len(parts) != 3 {
		t.Fatalf("%s: not an insta snapshot", p)
	}
	return parts[2]
}

func decodeNRGBA(t testing.TB, data []byte) *image.NRGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return fixtures.NRGBA(img)
}

func TestReferenceSheets(t *testing.T) {
	snaps := filepath.Join(sharedDir(t), "fixtures", "martin", "martin-core", "src", "resources", "sprites", "snapshots")
	outDir := os.Getenv("TESSERA_SPRITE_OUT") // set to keep the sheets for inspection
	// Bounds per icon, 0-255 scale, at the worst icon measured plus a margin
	// for floating point that rounds otherwise on other CPUs (the renderer is
	// deterministic: on one machine the figures repeat exactly). A missing
	// path, a wrong colour or an icon moved by a pixel or more breaks them
	// (nearMax alone tolerates the one-pixel move; the mean and the share of
	// pixels over the threshold do not).
	const overThreshold = 32
	type limits struct {
		mean    float64 // mean absolute difference
		over    float64 // share of pixels differing by more than overThreshold
		nearMax int     // largest difference within 1 px (see fixtures.ImageDiff)
	}
	// Colour, measured: mean 1.498 (bear @1x), 0.75% over 32 (3 edge pixels
	// of the 20x20 circle @1x), 40 within 1 px (the same circle).
	colourLimits := limits{mean: 1.498 + 0.25, over: 0.0075 + 0.0025, nearMax: 40 + 8}
	// SDF (alpha only), measured: mean 3.635 (circle @1x), none over 32, 27
	// within 1 px (bear @1x).
	sdfLimits := limits{mean: 3.635 + 0.25, over: 0.0025, nearMax: 27 + 8}
	for _, set := range []string{"src1", "src2", "all"} {
		for _, ratio := range []int{1, 2} {
			for _, sdf := range []bool{false, true} {
				name := fmt.Sprintf("%s_%d", set, ratio)
				if sdf {
					name += "_sdf"
				}
				t.Run(name, func(t *testing.T) {
					prefix := filepath.Join(snaps, "martin_core__resources__sprites__tests__"+name)
					var want map[string]Entry
					if err := json.Unmarshal(readSnap(t, prefix+".json.snap"), &want); err != nil {
						t.Fatal(err)
					}
					refPNG, err := os.ReadFile(prefix + ".snap.png")
					if err != nil {
						t.Fatal(err)
					}
					ref := decodeNRGBA(t, refPNG)

					sheet, err := BuildSheet(context.Background(), fixtureIcons(t, set), Options{PixelRatio: ratio, SDF: sdf})
					if err != nil {
						t.Fatal(err)
					}
					if len(sheet.Skipped) > 0 {
						t.Fatalf("skipped: %v", sheet.Skipped)
					}
					if outDir != "" {
						_ = os.WriteFile(filepath.Join(outDir, name+".png"), sheet.PNG, 0o644)
						_ = os.WriteFile(filepath.Join(outDir, name+".json"), sheet.Index, 0o644)
					}
					var got map[string]Entry
					if err := json.Unmarshal(sheet.Index, &got); err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("got %d icons, want %d", len(got), len(want))
					}
					img := decodeNRGBA(t, sheet.PNG)
					if img.Bounds().Dx() != sheet.Width || img.Bounds().Dy() != sheet.Height {
						t.Fatalf("PNG is %v, sheet says %dx%d", img.Bounds(), sheet.Width, sheet.Height)
					}
					rb := ref.Bounds()
					t.Logf("sheet %dx%d (%d px), reference %dx%d (%d px)", sheet.Width, sheet.Height,
						sheet.Width*sheet.Height, rb.Dx(), rb.Dy(), rb.Dx()*rb.Dy())
					if sheet.Width*sheet.Height > rb.Dx()*rb.Dy()*3/2 {
						t.Errorf("sheet area %d is more than 1.5× the reference's %d", sheet.Width*sheet.Height, rb.Dx()*rb.Dy())
					}
					for n, w := range want {
						g, ok := got[n]
						if !ok {
							t.Errorf("icon %q missing", n)
							continue
						}
						if g.Width != w.Width || g.Height != w.Height || g.PixelRatio != w.PixelRatio || g.SDF != w.SDF {
							t.Errorf("icon %q: got %+v, want %+v", n, g, w)
							continue
						}
						gr := image.Rect(g.X, g.Y, g.X+g.Width, g.Y+g.Height)
						wr := image.Rect(w.X, w.Y, w.X+w.Width, w.Y+w.Height)
						if !gr.In(img.Bounds()) {
							t.Fatalf("icon %q at %v outside the sheet %v", n, gr, img.Bounds())
						}
						// The reference draws SDF icons black, this package white;
						// GL clients read only the alpha of SDF icons.
						d := fixtures.CompareImages(img, gr, ref, wr, sdf, overThreshold)
						lim := colourLimits
						if sdf {
							lim = sdfLimits
						}
						t.Logf("%-16s at (%d,%d) ref (%d,%d): %v", n, g.X, g.Y, w.X, w.Y, d)
						if d.Mean > lim.mean {
							t.Errorf("icon %q differs from the reference: mean abs diff %.2f > %.2f", n, d.Mean, lim.mean)
						}
						if d.Over > lim.over {
							t.Errorf("icon %q differs from the reference: %.2f%% of pixels differ by more than %d, want at most %.2f%%", n, 100*d.Over, overThreshold, 100*lim.over)
						}
						if d.NearMax > lim.nearMax {
							t.Errorf("icon %q differs from the reference: a pixel differs by %d from every pixel within 1 px of it, want at most %d", n, d.NearMax, lim.nearMax)
						}
					}
					// Icons must not overlap.
					for a, ea := range got {
						for b, eb := range got {
							if a < b && image.Rect(ea.X, ea.Y, ea.X+ea.Width, ea.Y+ea.Height).Overlaps(image.Rect(eb.X, eb.Y, eb.X+eb.Width, eb.Y+eb.Height)) {
								t.Errorf("icons %q and %q overlap", a, b)
							}
						}
					}
					if !strings.HasPrefix(string(sheet.Index), "{") {
						t.Errorf("index is not a JSON object: %s", sheet.Index)
					}
				})
			}
		}
	}
}
