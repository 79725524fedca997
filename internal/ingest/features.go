package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FeaturesPath is where the GeoJSON a tileset was made from is kept, in
// the datasets folder dir: <tileset id>.geojson (the id does not change
// when the tileset is renamed).
func FeaturesPath(dir, tilesetID string) string { return filepath.Join(dir, tilesetID+".geojson") }

// keepFeatures keeps the uploaded GeoJSON input (validated and bounded: it
// made the tileset) beside tileset id in dir, or, for another kind of
// upload, removes the GeoJSON an earlier upload of the same tileset left.
// dir "" keeps nothing.
func keepFeatures(ctx context.Context, dir, input, id string, k kind, share Share) error {
	if dir == "" {
		return nil
	}
	dst := FeaturesPath(dir, id)
	if k != kindGeoJSON {
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the features of tileset %s: %w", id, err)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make datasets folder: %w", err)
	}
	tmp := filepath.Join(dir, "."+id+".geojson.tmp")
	if err := copyFile(input, tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keep the features of tileset %s: %w", id, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keep the features of tileset %s: %w", id, err)
	}
	if err := share.share(ctx, dst); err != nil {
		return fmt.Errorf("share the features of tileset %s: %w", id, err)
	}
	return nil
}

// PruneFeatures removes the kept GeoJSON files of tilesets that no longer
// exist (exists tells) and temporary files a crash left, and returns how
// many it removed.
func PruneFeatures(dir string, exists func(id string) bool) (int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read datasets folder: %w", err)
	}
	n := 0
	for _, de := range ents {
		name := de.Name()
		id, ok := strings.CutSuffix(name, ".geojson")
		if ok && name[0] != '.' && exists(id) {
			continue
		}
		if ok || filepath.Ext(name) == ".tmp" {
			if err := os.Remove(filepath.Join(dir, name)); err == nil {
				n++
			}
		}
	}
	return n, nil
}
