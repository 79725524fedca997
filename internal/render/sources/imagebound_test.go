package sources

import (
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

// TestImagePixelsOfARender: one render admits images up to its bound of
// pixels in all, each within its side.
func TestImagePixelsOfARender(t *testing.T) {
	tile := rendertest.PNGBomb(maxRasterTileSize, maxRasterTileSize)
	s := &Set{}
	n := maxRenderImagePixels / (maxRasterTileSize * maxRasterTileSize)
	for i := range n {
		if err := s.admitImage(tile, maxRasterTileSize); err != nil {
			t.Fatalf("image %d of %d refused: %v", i+1, n, err)
		}
	}
	if err := s.admitImage(tile, maxRasterTileSize); err == nil {
		t.Error("an image past the render's bound admitted")
	}
	if err := (&Set{}).admitImage(rendertest.PNGBomb(maxRasterTileSize+1, 1), maxRasterTileSize); err == nil {
		t.Error("an image wider than its bound admitted")
	}
	if err := (&Set{}).admitImage([]byte("no image"), maxRasterTileSize); err == nil {
		t.Error("no image admitted")
	}
}
