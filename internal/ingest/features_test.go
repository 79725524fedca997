package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPruneFeatures: the kept GeoJSON of tilesets that are gone and
// temporary files are removed; the others stay.
func TestPruneFeatures(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.geojson", "b.geojson", ".c.geojson.tmp", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644)
	}
	n, err := PruneFeatures(dir, func(id string) bool { return id == "a" })
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"a.geojson", "notes.txt"}) {
		t.Errorf("left %v", left)
	}
	if n, err := PruneFeatures(filepath.Join(dir, "missing"), nil); n != 0 || err != nil {
		t.Errorf("missing folder: %d %v", n, err)
	}
}

// TestKeepFeatures: a GeoJSON upload is kept as it is; another kind of
// upload for the same tileset removes it; no folder keeps nothing.
func TestKeepFeatures(t *testing.T) {
	dir, in := t.TempDir(), filepath.Join(t.TempDir(), "up.part")
	os.WriteFile(in, []byte(`{"type":"FeatureCollection","features":[]}`), 0o644)
	if err := keepFeatures(context.Background(), filepath.Join(dir, "ds"), in, "t1", kindGeoJSON, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(FeaturesPath(filepath.Join(dir, "ds"), "t1")); err != nil || string(b) != `{"type":"FeatureCollection","features":[]}` {
		t.Fatalf("kept %q %v", b, err)
	}
	if err := keepFeatures(context.Background(), filepath.Join(dir, "ds"), in, "t1", kindMBTiles, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(FeaturesPath(filepath.Join(dir, "ds"), "t1")); !os.IsNotExist(err) {
		t.Errorf("still there: %v", err)
	}
	if err := keepFeatures(context.Background(), "", in, "t1", kindGeoJSON, nil); err != nil {
		t.Error(err)
	}
}
