package main

import (
	"context"
	"image/png"
	"io"
	"os"
	"path/filepath"
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
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
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
