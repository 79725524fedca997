package elevation

import (
	"fmt"
	"image"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/geotiff"
)

// LoadGeoTIFF reads an operator's elevation model: a single-band GeoTIFF in
// EPSG:4326 with unsigned 8- or 16-bit samples in metres (what
// golang.org/x/image/tiff decodes; signed or floating-point models go in as
// NetCDF, `gdal_translate -of netCDF`). GDAL_NODATA marks missing values.
// Pixel centres are the grid's nodes.
func LoadGeoTIFF(path string) (*Grid, error) {
	fh, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	img, err := geotiff.Decode(fh, size, geotiff.Limits{MaxPixels: MaxGridValues})
	if err != nil {
		return nil, fmt.Errorf("elevation: %s: %w", path, err)
	}
	if img.EPSG != geotiff.EPSG4326 {
		return nil, fmt.Errorf("elevation: %s: %w: EPSG:%d, want EPSG:4326", path, ErrFormat, img.EPSG)
	}
	w, h := img.Width, img.Height
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("elevation: %s: %w: %dx%d pixels", path, ErrFormat, w, h)
	}
	g := &Grid{
		Name: filepath.Base(path), W: w, H: h,
		X0: img.OriginX + img.ScaleX/2, DX: img.ScaleX,
		Y0: img.OriginY - img.ScaleY/2, DY: -img.ScaleY,
		Data: make([]float32, w*h),
	}
	if img.NoData != nil {
		g.NoData, g.HasNoData = float32(*img.NoData), true
	}
	switch p := img.Image.(type) {
	case *image.Gray16:
		for y := 0; y < h; y++ {
			row := p.Pix[(y)*p.Stride:]
			for x := 0; x < w; x++ {
				g.Data[y*w+x] = float32(uint16(row[2*x])<<8 | uint16(row[2*x+1]))
			}
		}
	case *image.Gray:
		for y := 0; y < h; y++ {
			row := p.Pix[y*p.Stride:]
			for x := 0; x < w; x++ {
				g.Data[y*w+x] = float32(row[x])
			}
		}
	default:
		return nil, fmt.Errorf("elevation: %s: %w: %T pixels (want one band of unsigned 8 or 16 bit samples)", path, ErrFormat, img.Image)
	}
	return g, nil
}
