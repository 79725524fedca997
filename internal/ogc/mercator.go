package ogc

import "github.com/tesseramaps/tessera/internal/geo"

// Web Mercator (EPSG:3857) facts, from package geo.
const (
	// EarthRadius is the WGS 84 semi-major axis used by EPSG:3857, in metres.
	EarthRadius = geo.EarthRadius
	// OriginShift is half the projected world width: pi * EarthRadius.
	OriginShift = geo.OriginShift
	// MaxLat is the latitude at which the Web Mercator square ends.
	MaxLat = geo.MaxLat
	// standardPixel is the 0.28 mm pixel of OGC scale denominators.
	standardPixel = 0.00028
)

// CellSize returns the size in metres of one pixel at zoom z for tiles of
// tileSize pixels on the WebMercatorQuad grid (2^z x 2^z tiles).
func CellSize(z, tileSize int) float64 { return geo.CellSize(z, tileSize) }

// ScaleDenominator returns the OGC scale denominator (0.28 mm pixels) at zoom
// z for tiles of tileSize pixels.
func ScaleDenominator(z, tileSize int) float64 {
	return CellSize(z, tileSize) / standardPixel
}

// lonLatToMercator projects degrees to EPSG:3857 metres; the latitude is
// clamped to +-MaxLat.
func lonLatToMercator(lon, lat float64) (x, y float64) { return geo.LonLatToMercator(lon, lat) }

// tileRange returns the XYZ tiles at zoom z that intersect bounds (w, s, e,
// n) with a non-empty area. Bounds must be normalised.
func tileRange(b [4]float64, z int) (minCol, maxCol, minRow, maxRow int) {
	return geo.TileRange(b[0], b[1], b[2], b[3], z)
}
