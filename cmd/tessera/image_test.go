package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/pyramid"
)

// TestImageCmd: tessera image cuts a PNG into DATA/images/<id>.mbtiles,
// which the image library reads back with the picture's size; a bad id
// and a file that is no picture are refused.
func TestImageCmd(t *testing.T) {
	dir := t.TempDir()
	src := image.NewNRGBA(image.Rect(0, 0, 700, 260))
	for i := range src.Pix {
		src.Pix[i] = uint8(i)
	}
	file := filepath.Join(dir, "floor plan.png")
	var buf bytes.Buffer
	png.Encode(&buf, src)
	os.WriteFile(file, buf.Bytes(), 0o644)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"image", "--data", dir, "--id", "plan", "--attribution", "Tests", file}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `image "plan": zooms 0..2`) {
		t.Errorf("output %q", out.String())
	}
	lib := &pyramid.Library{Dir: filepath.Join(dir, server.ImagesDir)}
	defer lib.Close()
	img, err := lib.Get(context.Background(), "plan")
	if err != nil || img.Width != 700 || img.Height != 260 || img.Attribution != "Tests" || img.MaxZoom != 2 {
		t.Fatalf("%+v %v", img, err)
	}
	tile, err := img.Tile(context.Background(), 2, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(tile))
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(got.At(5, 7)); c != src.NRGBAAt(5, 7) {
		t.Errorf("pixel %v, want %v", c, src.NRGBAAt(5, 7))
	}
	// The default id is the file name: "floor plan" is not an id.
	if err := run(context.Background(), []string{"image", "--data", dir, file}, io.Discard, io.Discard); err == nil {
		t.Error("a file name with a space made an id")
	}
	os.WriteFile(filepath.Join(dir, "x.png"), []byte("not a picture"), 0o644)
	if err := run(context.Background(), []string{"image", "--data", dir, filepath.Join(dir, "x.png")}, io.Discard, io.Discard); err == nil {
		t.Error("not a picture: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, server.ImagesDir, "x.mbtiles")); !os.IsNotExist(err) {
		t.Errorf("a refused picture left a file: %v", err)
	}
}
