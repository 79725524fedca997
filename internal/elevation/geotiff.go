package elevation

import (
	"fmt"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/geotiff"
)

// LoadGeoTIFF reads an operator's elevation model: a single-band GeoTIFF in
// EPSG:4326 or EPSG:3857 of unsigned or signed integers (8, 16, 32 bits) or
// floats (32, 64 bits) in metres, uncompressed, LZW or Deflate (see
// geotiff.DecodeBand). GDAL_NODATA marks missing values (NaN too). Pixel
// centres are the grid's nodes; a web mercator model is sampled bilinearly
// in its own metres.
func LoadGeoTIFF(path string) (*Grid, error) {
	fh, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	band, err := geotiff.DecodeBand(fh, size, geotiff.Limits{MaxPixels: MaxGridValues})
	if err != nil {
		return nil, fmt.Errorf("elevation: %s: %w", path, err)
	}
	w, h := band.Width, band.Height
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("elevation: %s: %w: %dx%d pixels", path, ErrFormat, w, h)
	}
	g := &Grid{
		Name: filepath.Base(path), W: w, H: h,
		X0: band.OriginX + band.ScaleX/2, DX: band.ScaleX,
		Y0: band.OriginY - band.ScaleY/2, DY: -band.ScaleY,
		Data:     band.Data,
		Mercator: band.EPSG == geotiff.EPSG3857,
	}
	if band.NoData != nil {
		g.NoData, g.HasNoData = float32(*band.NoData), true
	}
	return g, nil
}
