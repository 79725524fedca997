package tilesource

import (
	"context"
	"errors"
)

// OpenPMTilesFile opens a local PMTiles archive.
func OpenPMTilesFile(ctx context.Context, path string) (Source, error) {
	return nil, errors.New("PMTiles reading is not wired yet")
}
