package ogc

import "math"

// Web Mercator (EPSG:3857) facts, computed from the WGS 84 semi-major axis.
const (
	// EarthRadius is the WGS 84 semi-major axis used by EPSG:3857, in metres.
	EarthRadius = 6378137.0
	// OriginShift is half the projected world width: pi * EarthRadius.
	OriginShift = math.Pi * EarthRadius
	// MaxLat is the latitude at which the Web Mercator square ends:
	// atan(sinh(pi)) in degrees.
	MaxLat = 85.05112877980659
	// standardPixel is the 0.28 mm pixel of OGC scale denominators.
	standardPixel = 0.00028
)

// CellSize returns the size in metres of one pixel at zoom z for tiles of
// tileSize pixels on the WebMercatorQuad grid (2^z x 2^z tiles).
func CellSize(z, tileSize int) float64 {
	return 2 * OriginShift / float64(tileSize) / math.Exp2(float64(z))
}

// ScaleDenominator returns the OGC scale denominator (0.28 mm pixels) at zoom
// z for tiles of tileSize pixels.
func ScaleDenominator(z, tileSize int) float64 {
	return CellSize(z, tileSize) / standardPixel
}

// lonLatToMercator projects degrees to EPSG:3857 metres; the latitude is
// clamped to +-MaxLat.
func lonLatToMercator(lon, lat float64) (x, y float64) {
	x = lon * OriginShift / 180
	switch {
	case lat >= MaxLat:
		return x, OriginShift
	case lat <= -MaxLat:
		return x, -OriginShift
	}
	y = math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * EarthRadius
	return x, y
}

// tileRange returns the XYZ tiles at zoom z that intersect bounds (w, s, e,
// n) with a non-empty area. Bounds must be normalised.
func tileRange(b [4]float64, z int) (minCol, maxCol, minRow, maxRow int) {
	n := math.Exp2(float64(z))
	colOf := func(lon float64) float64 { return (lon + 180) / 360 * n }
	rowOf := func(lat float64) float64 {
		lat = math.Max(-MaxLat, math.Min(MaxLat, lat))
		r := lat * math.Pi / 180
		return (1 - math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi) / 2 * n
	}
	last := int(n) - 1
	clamp := func(v int) int { return max(0, min(last, v)) }
	// A bound that lies on a tile edge (up to float noise) does not pull in
	// the neighbouring tile, which it would only touch.
	const eps = 1e-9
	minCol = clamp(int(math.Floor(colOf(b[0]) + eps)))
	maxCol = clamp(int(math.Ceil(colOf(b[2])-eps)) - 1)
	minRow = clamp(int(math.Floor(rowOf(b[3]) + eps)))
	maxRow = clamp(int(math.Ceil(rowOf(b[1])-eps)) - 1)
	maxCol = max(maxCol, minCol)
	maxRow = max(maxRow, minRow)
	return minCol, maxCol, minRow, maxRow
}
