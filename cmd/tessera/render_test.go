package main

import (
	"context"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderVerb(t *testing.T) {
	dir := t.TempDir()
	stylePath := filepath.Join(dir, "style.json")
	os.WriteFile(filepath.Join(dir, "square.geojson"), []byte(`{"type":"Polygon","coordinates":[[[-30,-30],[30,-30],[30,30],[-30,30],[-30,-30]]]}`), 0o644)
	os.WriteFile(stylePath, []byte(`{"version": 8, "center": [0, 0], "zoom": 0,
		"sources": {"g": {"type": "geojson", "data": "file://`+filepath.Join(dir, "square.geojson")+`"}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#00f"}},
			{"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "#f00"}}]}`), 0o644)
	out := filepath.Join(dir, "map.png")
	if err := run(context.Background(), []string{"render", "--style", stylePath, "--width", "100", "--height", "80", "--pixel-ratio", "2", "-o", out}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, out)
	if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 160 {
		t.Fatalf("size %v", b)
	}
	if r, _, _, _ := img.At(100, 80).RGBA(); r>>8 != 255 {
		t.Errorf("centre not red: %v", img.At(100, 80))
	}
	if _, _, b, _ := img.At(2, 2).RGBA(); b>>8 != 255 {
		t.Errorf("corner not blue: %v", img.At(2, 2))
	}
	for _, bad := range [][]string{
		{"render", "-o", out},
		{"render", "--style", filepath.Join(dir, "missing.json"), "-o", out},
		{"render", "--style", stylePath, "-o", filepath.Join(dir, "x.gif")},
		{"render", "--style", stylePath, "--center", "abc", "-o", out},
	} {
		if err := run(context.Background(), bad, io.Discard, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestRenderVerbMaps(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "maps", "sq"), 0o755)
	os.WriteFile(filepath.Join(data, "maps", "sq", "style.json"), []byte(`{"version": 8, "name": "Square",
		"sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-30, -30], [30, -30], [30, 30], [-30, 30], [-30, -30]]]}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#00f"}},
			{"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "#f00"}}]}`), 0o644)
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "sq.mbtiles")
	var stdout strings.Builder
	if err := run(ctx, []string{"render", "--data", data, "--map", "sq", "--zooms", "0-3", "--bbox", "-40,-40,40,40", "-o", out}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), ": 13 tiles") {
		t.Errorf("output %q, want 13 tiles (1 + 4 + 4 + 4 in the box)", stdout.String())
	}
	tilePNG := filepath.Join(t.TempDir(), "tile.png")
	if err := run(ctx, []string{"render", "--data", data, "--map", "sq", "--tile", "1/1/1", "--tile-size", "256", "--pixel-ratio", "2", "-o", tilePNG}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, tilePNG)
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Errorf("tile size %v, want 512 (256 at 2x)", b)
	}
	// Tile 1/1/1 is the south-east quarter: red at its top-left corner.
	if r, _, _, _ := img.At(4, 4).RGBA(); r>>8 != 255 {
		t.Errorf("top-left of 1/1/1 = %v, want red", img.At(4, 4))
	}
	for _, bad := range [][]string{
		{"render", "--map", "sq", "-o", out},
		{"render", "--data", data, "--map", "nosuch", "--zooms", "0-1", "-o", out},
		{"render", "--data", data, "--map", "sq", "--zooms", "x", "-o", out},
		{"render", "--data", data, "--map", "sq", "--tile", "1/5/0", "-o", tilePNG},
		{"render", "--style", "a.json", "--map", "sq", "-o", out},
	} {
		if err := run(ctx, bad, io.Discard, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// readPNG decodes a PNG file the render verb wrote.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
