package geo

import (
	"math"

	"github.com/paulmach/orb"
)

// MeanEarthRadius is the mean radius of the Earth (IUGG), in metres, used for
// great-circle distances.
const MeanEarthRadius = 6371008.8

// Distance returns the great-circle distance in metres between two points in
// degrees (longitude, latitude), by the haversine formula on a sphere of
// MeanEarthRadius.
func Distance(a, b orb.Point) float64 {
	const rad = math.Pi / 180
	dLat := (b[1] - a[1]) * rad
	dLon := (b[0] - a[0]) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(a[1]*rad)*math.Cos(b[1]*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * MeanEarthRadius * math.Asin(math.Sqrt(math.Min(1, h)))
}
