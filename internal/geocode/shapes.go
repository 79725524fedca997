package geocode

import (
	"math"

	"github.com/tesseramaps/tessera/internal/geo"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

func countryCenter(g orb.Geometry) (float64, float64) {
	var best orb.Polygon
	bestArea := -1.0
	switch g := g.(type) {
	case orb.Polygon:
		best = g
	case orb.MultiPolygon:
		for _, p := range g {
			if a := math.Abs(planar.Area(p)); a > bestArea {
				best, bestArea = p, a
			}
		}
	}
	if len(best) == 0 {
		c := g.Bound().Center()
		return c[0], c[1]
	}
	c, _ := planar.CentroidArea(best)
	return c[0], c[1]
}

func planarContains(g orb.Geometry, p orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return geo.PointInPolygon(p, g)
	case orb.MultiPolygon:
		return geo.PointInMultiPolygon(p, g)
	}
	return false
}

// Limits of the search index.
const (
	maxNameTokens = 24
	maxTokenRunes = 48
	maxFuzzyRunes = 32
	gridCell      = 0.5
	gridW         = int(360 / gridCell)
	gridH         = int(180 / gridCell)
	fineCell      = 0.01
	fineW         = int(360 / fineCell)
	fineH         = int(180 / fineCell)
	areaCell      = 1.0
	areaW         = int(360 / areaCell)
	areaH         = int(180 / areaCell)
)

// isAreaGeometry reports whether an encoded geometry is a (multi)polygon.
func isAreaGeometry(b []byte) bool {
	return len(b) > 0 && (b[0] == gPolygon || b[0] == gMultiPolygon)
}

// areaCells calls fn with every area grid cell a bbox overlaps.
func areaCells(w, s, e, n float64, fn func(int)) {
	x0 := max(0, min(areaW-1, int((w+180)/areaCell)))
	x1 := max(0, min(areaW-1, int((e+180)/areaCell)))
	y0 := max(0, min(areaH-1, int((s+90)/areaCell)))
	y1 := max(0, min(areaH-1, int((n+90)/areaCell)))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			fn(y*areaW + x)
		}
	}
}

// isPointType reports types kept in the coarse reverse-geocoding grid.
func isPointType(t PlaceType) bool {
	return t >= TypeMunicipality && !isFineType(t)
}

// isFineType reports the dense point types kept in the fine grid.
func isFineType(t PlaceType) bool {
	return t >= TypePostalCode
}

// fineCellOf is the fine grid cell of a point.
func fineCellOf(lon, lat float64) uint32 {
	x := max(0, min(fineW-1, int((lon+180)/fineCell)))
	y := max(0, min(fineH-1, int((lat+90)/fineCell)))
	return uint32(y*fineW + x)
}

func gridCellOf(lon, lat float64) int {
	x := int((lon + 180) / gridCell)
	y := int((lat + 90) / gridCell)
	x = max(0, min(gridW-1, x))
	y = max(0, min(gridH-1, y))
	return y*gridW + x
}
