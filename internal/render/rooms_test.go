package render

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestRoomsImports keeps the renderer's rooms a DAG in the order
// docs/rendering.md gives (architecture): each room imports only the
// rooms listed for it, so that none reaches back up (a layer into the
// symbols, the shared scene into a source, ...).
func TestRoomsImports(t *testing.T) {
	const prefix = "github.com/tesseramaps/tessera/internal/render/"
	allowed := map[string][]string{
		"raster":      nil,
		"text":        nil,
		"spritesheet": nil,
		"lru":         nil,
		"scene":       {"raster"},
		"sources":     {"lru", "raster", "scene", "spritesheet", "text"},
		"layers":      {"raster", "scene", "sources"},
		"symbols":     {"lru", "raster", "scene", "sources", "text"},
	}
	for room, may := range allowed {
		pkg, err := build.ImportDir(room, 0)
		if err != nil {
			t.Fatalf("%s: %v", room, err)
		}
		for _, imp := range pkg.Imports {
			rest, ok := strings.CutPrefix(imp, prefix)
			if !ok {
				if imp == strings.TrimSuffix(prefix, "/") {
					t.Errorf("%s imports the render entry", room)
				}
				continue
			}
			if !slices.Contains(may, rest) {
				t.Errorf("%s imports %s, outside the rooms it may use (%v)", room, rest, may)
			}
		}
	}
}
