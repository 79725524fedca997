package sources

import (
	"bytes"
	"fmt"
	"image"
)

// Bounds on the images a render decodes. A PNG of a few kilobytes may
// declare 20000x20000 pixels, gigabytes once decoded: every image's size
// is read from its header (image.DecodeConfig) and checked before a pixel
// of it is decoded.
const (
	// maxRasterTileSize bounds the side of a raster tile, in pixels (GL's
	// tiles are 256 or 512, 1024 for a 512 tile on a high-density screen).
	maxRasterTileSize = 2048
	// maxDEMSize bounds the side of a DEM tile, in pixels (they are 256 or
	// 512 in practice).
	maxDEMSize = 1024
	// maxImageSize bounds the side of an image source's picture, in pixels
	// (a common GL texture limit).
	maxImageSize = 4096
	// maxRenderImagePixels bounds the pixels of all the raster tiles, DEM
	// tiles and image sources one render decodes (256 MB as RGBA): a view
	// reads up to maxTiles tiles of each source, and a style may have many.
	maxRenderImagePixels = 64 << 20
)

// checkImageSize reads an image's header and returns its size, failing
// when either side is longer than limit (or not above 0), before any pixel
// is decoded.
func checkImageSize(data []byte, limit int) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, err
	}
	if cfg.Width > limit || cfg.Height > limit {
		return 0, 0, fmt.Errorf("%dx%d image larger than %d pixels a side", cfg.Width, cfg.Height, limit)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, fmt.Errorf("%dx%d image is empty", cfg.Width, cfg.Height)
	}
	return cfg.Width, cfg.Height, nil
}

// admitImage checks an image the render is about to decode: each side at
// most side pixels, and its pixels within what is left of the render's
// maxRenderImagePixels, which it takes. Safe for concurrent use.
func (s *Set) admitImage(data []byte, side int) error {
	w, h, err := checkImageSize(data, side)
	if err != nil {
		return err
	}
	if total := s.imagePixels.Add(int64(w) * int64(h)); total > maxRenderImagePixels {
		return fmt.Errorf("the render's images pass %d pixels", maxRenderImagePixels)
	}
	return nil
}
