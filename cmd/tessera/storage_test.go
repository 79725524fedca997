package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestCommandsShareStorage: with storage_url, what tessera ingest and
// tessera image write into the data directory goes to the shared storage
// too (the tileset file, the GeoJSON kept beside it, the image's pyramid),
// where the other nodes find it.
func TestCommandsShareStorage(t *testing.T) {
	endpoint, root := fixtures.VersityGW(t, "TESSERACLI", "tessera-cli-secret")
	if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "TESSERACLI")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "tessera-cli-secret")
	t.Setenv("TESSERA_STORAGE_URL", "s3://shared/node?endpoint="+endpoint+"&region=us-east-1&path_style=true")
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "roads.geojson")
	os.WriteFile(src, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}`), 0o644)
	if err := run(context.Background(), []string{"ingest", "--data", dir, src}, io.Discard, io.Discard); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	pic := filepath.Join(t.TempDir(), "plan.png")
	var buf bytes.Buffer
	png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 300, 200)))
	os.WriteFile(pic, buf.Bytes(), 0o644)
	if err := run(context.Background(), []string{"image", "--data", dir, "--id", "plan", pic}, io.Discard, io.Discard); err != nil {
		t.Fatalf("image: %v", err)
	}
	for _, local := range []string{"tiles/roads.mbtiles", "images/plan.mbtiles"} {
		want, err := os.ReadFile(filepath.Join(dir, local))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, "shared", "node", local))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s in the storage: %v (%d bytes, %d here)", local, err, len(got), len(want))
		}
	}
	datasets, _ := filepath.Glob(filepath.Join(root, "shared", "node", "datasets", "*.geojson"))
	if len(datasets) != 1 {
		t.Errorf("the GeoJSON in the storage: %v", datasets)
	}
}
