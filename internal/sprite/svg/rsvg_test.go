package svg

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestAgainstRsvg renders testdata/render/*.svg and the martin sprite fixtures with this
// package and with librsvg's rsvg-convert, and compares the images: the mean absolute
// difference of premultiplied RGBA (0-255 scale) must stay small. Skipped when rsvg-convert
// is not installed, unless TESSERA_REQUIRE_TOOLS=1 (apt package librsvg2-bin).
func TestAgainstRsvg(t *testing.T) {
	tool, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatal("rsvg-convert not found (apt-get install librsvg2-bin)")
		}
		t.Skip("rsvg-convert not installed (apt-get install librsvg2-bin)")
	}
	files, err := filepath.Glob("testdata/render/*.svg")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test images: %v", err)
	}
	if shared := sharedDir(); shared != "" {
		for _, pattern := range []string{"*/*.svg", "*/*/*.svg"} {
			fixtures, _ := filepath.Glob(filepath.Join(shared, "fixtures", "martin", "tests", "fixtures", "sprites", pattern))
			files = append(files, fixtures...)
		}
	}
	const maxMAD = 1.5 // per image, 0-255 scale
	for _, f := range files {
		for _, scale := range []float64{1, 2} {
			name := filepath.Base(f) + "@" + strconv.FormatFloat(scale, 'f', -1, 64) + "x"
			t.Run(name, func(t *testing.T) {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				d, err := Parse(src)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Render(context.Background(), scale)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.CommandContext(t.Context(), tool, "-z", strconv.FormatFloat(scale, 'f', -1, 64), f).Output()
				if err != nil {
					t.Fatalf("rsvg-convert: %v", err)
				}
				ri, err := png.Decode(bytes.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				ref := image.NewNRGBA(ri.Bounds())
				draw.Draw(ref, ref.Bounds(), ri, ri.Bounds().Min, draw.Src)
				if ref.Bounds().Size() != got.Bounds().Size() {
					t.Fatalf("size %v, rsvg %v", got.Bounds().Size(), ref.Bounds().Size())
				}
				mad, worst := imageMAD(got, ref)
				t.Logf("mean abs diff %.3f, max %.0f", mad, worst)
				if mad > maxMAD {
					t.Errorf("differs from rsvg-convert: mean abs diff %.3f > %.1f", mad, maxMAD)
				}
			})
		}
	}
}

func imageMAD(a, b *image.NRGBA) (mean, worst float64) {
	sum := 0.0
	for i := 0; i < len(a.Pix); i += 4 {
		for c := 0; c < 4; c++ {
			va, vb := float64(a.Pix[i+c]), float64(b.Pix[i+c])
			if c < 3 {
				va *= float64(a.Pix[i+3]) / 255
				vb *= float64(b.Pix[i+3]) / 255
			}
			d := math.Abs(va - vb)
			sum += d
			worst = math.Max(worst, d)
		}
	}
	return sum / float64(len(a.Pix)), worst
}

// sharedDir returns ../shared next to the repository root (the folder holding go.mod), or ""
// when it is absent.
func sharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		return ""
	}
	return shared
}
