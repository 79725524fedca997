package geo

import "github.com/paulmach/orb"

// PointInRing reports whether p lies inside the closed ring r by the
// even-odd rule: a ray cast from p towards +x crosses the ring's edges an odd
// number of times. Points exactly on an edge may fall either way. The ring
// may or may not repeat its first point at the end.
func PointInRing(p orb.Point, r orb.Ring) bool {
	n := len(r)
	if n < 3 {
		return false
	}
	inside := false
	a := r[n-1]
	for _, b := range r {
		// Only edges that straddle the horizontal line through p count; the
		// half-open test (one end strictly above) counts a shared vertex once.
		if (a[1] > p[1]) != (b[1] > p[1]) {
			// x where the edge crosses that line.
			cx := a[0] + (p[1]-a[1])*(b[0]-a[0])/(b[1]-a[1])
			if p[0] < cx {
				inside = !inside
			}
		}
		a = b
	}
	return inside
}

// PointInPolygon reports whether p lies inside the polygon's outer ring and
// outside every hole.
func PointInPolygon(p orb.Point, poly orb.Polygon) bool {
	if len(poly) == 0 || !PointInRing(p, poly[0]) {
		return false
	}
	for _, hole := range poly[1:] {
		if PointInRing(p, hole) {
			return false
		}
	}
	return true
}

// PointInMultiPolygon reports whether p lies inside any of mp's polygons.
func PointInMultiPolygon(p orb.Point, mp orb.MultiPolygon) bool {
	for _, poly := range mp {
		if PointInPolygon(p, poly) {
			return true
		}
	}
	return false
}

// SignedArea returns the shoelace area of r in its own units: positive when
// the ring turns counter-clockwise in a y-up plane.
func SignedArea(r orb.Ring) float64 {
	n := len(r)
	if n < 3 {
		return 0
	}
	sum := 0.0
	a := r[n-1]
	for _, b := range r {
		sum += a[0]*b[1] - b[0]*a[1]
		a = b
	}
	return sum / 2
}
