package tilesource

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// OpenFile opens a local tileset file by its extension.
func OpenFile(ctx context.Context, path string) (Source, error) {
	return OpenFileAs(ctx, path, filepath.Ext(path))
}

// OpenFileAs opens a local tileset file as the format its extension ext
// (".mbtiles" or ".pmtiles") names, whatever the file is called.
func OpenFileAs(ctx context.Context, path, ext string) (Source, error) {
	switch strings.ToLower(ext) {
	case ".mbtiles":
		return OpenMBTiles(ctx, path)
	case ".pmtiles":
		return OpenPMTilesFile(ctx, path)
	}
	return nil, fmt.Errorf("%s: not an .mbtiles or .pmtiles file", path)
}
