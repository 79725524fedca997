package geo

import "math"

// Web Mercator (EPSG:3857) constants, from the WGS 84 semi-major axis.
const (
	// EarthRadius is the WGS 84 semi-major axis used by EPSG:3857, in metres.
	EarthRadius = 6378137.0
	// OriginShift is half the projected world width, pi * EarthRadius: the
	// projected square spans [-OriginShift, OriginShift] on both axes.
	OriginShift = math.Pi * EarthRadius
	// MaxLat is the latitude where the Web Mercator square ends,
	// atan(sinh(pi)) in degrees.
	MaxLat = 85.05112877980659
)

// ClampLat limits lat to the Web Mercator square, [-MaxLat, MaxLat].
func ClampLat(lat float64) float64 {
	return math.Max(-MaxLat, math.Min(MaxLat, lat))
}

// LonLatToMercator projects degrees to EPSG:3857 metres. Latitudes beyond
// ±MaxLat are clamped to the edge of the square.
func LonLatToMercator(lon, lat float64) (x, y float64) {
	wx, wy := LonLatToWorld(lon, lat)
	return (wx - 0.5) * 2 * OriginShift, (0.5 - wy) * 2 * OriginShift
}

// MercatorToLonLat is the inverse of LonLatToMercator.
func MercatorToLonLat(x, y float64) (lon, lat float64) {
	return WorldToLonLat(x/(2*OriginShift)+0.5, 0.5-y/(2*OriginShift))
}

// LonLatToWorld projects degrees to the unit world square: x grows east from
// 0 at -180° to 1 at 180°, y grows south from 0 at MaxLat to 1 at -MaxLat
// (the orientation of tile rows). Latitudes are clamped to ±MaxLat.
func LonLatToWorld(lon, lat float64) (x, y float64) {
	x = (lon + 180) / 360
	switch {
	case lat >= MaxLat:
		return x, 0
	case lat <= -MaxLat:
		return x, 1
	}
	s := math.Sin(lat * math.Pi / 180)
	// ln(tan(pi/4 + phi/2)) written with the sine: 0.5 ln((1+s)/(1-s)).
	y = 0.5 - math.Log((1+s)/(1-s))/(4*math.Pi)
	return x, y
}

// WorldToLonLat is the inverse of LonLatToWorld.
func WorldToLonLat(x, y float64) (lon, lat float64) {
	lon = x*360 - 180
	lat = math.Atan(math.Sinh((0.5-y)*2*math.Pi)) * 180 / math.Pi
	return lon, lat
}

// CellSize returns the size in metres of one pixel at zoom z on the
// WebMercatorQuad grid with tiles of tileSize pixels.
func CellSize(z, tileSize int) float64 {
	return 2 * OriginShift / float64(tileSize) / math.Exp2(float64(z))
}

// TileRange returns the tiles at zoom z (inclusive column and row ranges)
// that intersect the bounds w, s, e, n in degrees with a non-empty area. A
// bound lying on a tile edge does not pull in the neighbour it only touches.
// The bounds must have w <= e and s <= n.
func TileRange(w, s, e, n float64, z int) (minCol, maxCol, minRow, maxRow int) {
	size := math.Exp2(float64(z))
	x0, y0 := LonLatToWorld(w, n)
	x1, y1 := LonLatToWorld(e, s)
	last := int(size) - 1
	clamp := func(v int) int { return max(0, min(last, v)) }
	const eps = 1e-9
	minCol = clamp(int(math.Floor(x0*size + eps)))
	maxCol = clamp(int(math.Ceil(x1*size-eps)) - 1)
	minRow = clamp(int(math.Floor(y0*size + eps)))
	maxRow = clamp(int(math.Ceil(y1*size-eps)) - 1)
	return minCol, max(maxCol, minCol), minRow, max(maxRow, minRow)
}

// TileBounds returns the bounds in degrees (w, s, e, n) of tile x, y at z.
func TileBounds(z, x, y int) (w, s, e, n float64) {
	size := math.Exp2(float64(z))
	w, n = WorldToLonLat(float64(x)/size, float64(y)/size)
	e, s = WorldToLonLat(float64(x+1)/size, float64(y+1)/size)
	return w, s, e, n
}
