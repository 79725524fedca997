package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/demo"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/ingest"
)

// TestDemoDataset: the demo's dataset is ingested once as an upload: a
// tileset "seas" and its GeoJSON kept as written; running again adds
// nothing.
func TestDemoDataset(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for range 2 {
		if err := demoDataset(ctx, dir, dir, log); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load("", dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, cat, closeDB, err := openIngest(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	e, ok := cat.Get(demo.SeasDataset)
	if !ok || len(cat.List()) != 1 {
		t.Fatalf("tilesets: %d, seas %v", len(cat.List()), ok)
	}
	want, _ := demo.SeasGeoJSON()
	got, err := os.ReadFile(ingest.FeaturesPath(filepath.Join(dir, server.DatasetsDir), e.ID))
	if err != nil || string(got) != string(want) {
		t.Errorf("features: %v, %d bytes, want %d", err, len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, "seas.geojson")); !os.IsNotExist(err) {
		t.Errorf("the written file is left: %v", err)
	}
}
