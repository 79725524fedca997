package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderVerbTerrain draws a hillshade over raster-dem tiles and an
// image source with the render verb: the picture is MapLibre's reference
// of the same style (internal/render/testdata/hillshade), within a level
// or two of colour.
func TestRenderVerbTerrain(t *testing.T) {
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "internal", "render", "testdata", "hillshade"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"standard", "image"} {
		doc, err := os.ReadFile(filepath.Join(fixtures, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		stylePath := filepath.Join(dir, name+".json")
		if err := os.WriteFile(stylePath, []byte(strings.ReplaceAll(string(doc), "local://", "file://"+fixtures+"/")), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name+".png")
		if err := run(context.Background(), []string{"render", "--style", stylePath, "--width", "256", "--height", "256", "-o", out}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		got, want := readPNG(t, out), readPNG(t, filepath.Join(fixtures, name+"-maplibre.png"))
		far := 0
		for y := 0; y < 256; y += 4 {
			for x := 0; x < 256; x += 4 {
				r1, g1, b1, _ := got.At(x, y).RGBA()
				r2, g2, b2, _ := want.At(x, y).RGBA()
				for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
					if d > 3 || d < -3 {
						far++
					}
				}
			}
		}
		// The image's edges may fall on other pixels: a few of the 4096
		// samples.
		if far > 20 {
			t.Errorf("%s: %d colour channels of 4096 samples differ from MapLibre's picture by more than 3", name, far)
		}
	}
}
