package geo

import (
	"math"

	"github.com/paulmach/orb"
)

// WGS 84 ellipsoid.
const (
	wgs84A  = 6378137.0
	wgs84F  = 1 / 298.257223563
	wgs84E2 = wgs84F * (2 - wgs84F) // first eccentricity squared
)

// LocalScale measures short distances near one latitude in metres: degree
// differences are scaled by the ellipsoid's radii of curvature at that
// latitude (the meridian radius for latitude, the prime-vertical radius
// times the cosine for longitude), which is accurate to a fraction of a
// per cent over hundreds of kilometres and much cheaper than geodesics.
// Longitude differences are taken the short way round the antimeridian.
type LocalScale struct {
	// MetresPerDegLon and MetresPerDegLat are the lengths of one degree.
	MetresPerDegLon, MetresPerDegLat float64
}

// NewLocalScale returns the scale at latitude lat (degrees).
func NewLocalScale(lat float64) LocalScale {
	phi := lat * math.Pi / 180
	sin, cos := math.Sincos(phi)
	w := 1 - wgs84E2*sin*sin
	primeVertical := wgs84A / math.Sqrt(w)                  // N
	meridian := wgs84A * (1 - wgs84E2) / (w * math.Sqrt(w)) // M
	const rad = math.Pi / 180
	return LocalScale{MetresPerDegLon: primeVertical * cos * rad, MetresPerDegLat: meridian * rad}
}

// wrapLon brings a longitude difference into [-180, 180].
func wrapLon(d float64) float64 {
	for d > 180 {
		d -= 360
	}
	for d < -180 {
		d += 360
	}
	return d
}

// offset returns b - a in metres (east, north).
func (s LocalScale) offset(a, b orb.Point) (x, y float64) {
	return wrapLon(b[0]-a[0]) * s.MetresPerDegLon, (b[1] - a[1]) * s.MetresPerDegLat
}

// Dist is the distance between two points in metres.
func (s LocalScale) Dist(a, b orb.Point) float64 {
	return math.Hypot(s.offset(a, b))
}

// PointSegment is the distance in metres from p to the closest point of
// segment ab.
func (s LocalScale) PointSegment(p, a, b orb.Point) float64 {
	bx, by := s.offset(a, b)
	px, py := s.offset(a, p)
	t := 0.0
	if l2 := bx*bx + by*by; l2 > 0 {
		t = math.Max(0, math.Min(1, (px*bx+py*by)/l2))
	}
	return math.Hypot(px-t*bx, py-t*by)
}

// SegmentSegment is the distance in metres between segments ab and cd: 0
// when they cross, otherwise the least distance from an end of one to the
// other.
func (s LocalScale) SegmentSegment(a, b, c, d orb.Point) float64 {
	if SegmentsCross(a, b, c, d) {
		return 0
	}
	return math.Min(math.Min(s.PointSegment(a, c, d), s.PointSegment(b, c, d)),
		math.Min(s.PointSegment(c, a, b), s.PointSegment(d, a, b)))
}

// Part is a set of points, or a polyline through them (Line).
type Part struct {
	Points []orb.Point
	Line   bool
}

// leafPoints is the size under which parts are compared element by
// element rather than split.
const leafPoints = 32

// PartDistance is the least distance in metres between two parts: between
// points, from points to a polyline's segments, or between two polylines'
// segments. Large parts are halved recursively; a half whose bounding box
// is already farther than the best distance found is skipped.
func (s LocalScale) PartDistance(a, b Part) float64 {
	best := math.Inf(1)
	s.partDistance(a, b, &best)
	return best
}

func (s LocalScale) partDistance(a, b Part, best *float64) {
	if len(a.Points) == 0 || len(b.Points) == 0 || *best == 0 {
		return
	}
	if len(a.Points) <= leafPoints && len(b.Points) <= leafPoints {
		*best = math.Min(*best, s.leafDistance(a, b))
		return
	}
	// Halve the larger part; a polyline's halves share the middle vertex.
	big, other := a, b
	if len(b.Points) > len(a.Points) {
		big, other = b, a
	}
	mid := len(big.Points) / 2
	first, second := Part{big.Points[:mid], big.Line}, Part{big.Points[mid:], big.Line}
	if big.Line {
		first.Points = big.Points[:mid+1]
	}
	ob := bounds(other.Points)
	d1, d2 := s.boxGap(bounds(first.Points), ob), s.boxGap(bounds(second.Points), ob)
	if d2 < d1 {
		first, second, d1, d2 = second, first, d2, d1
	}
	if d1 < *best {
		s.partDistance(first, other, best)
	}
	if d2 < *best {
		s.partDistance(second, other, best)
	}
}

// leafDistance compares two small parts element by element.
func (s LocalScale) leafDistance(a, b Part) float64 {
	// A polyline of one point is a point.
	a.Line = a.Line && len(a.Points) > 1
	b.Line = b.Line && len(b.Points) > 1
	if a.Line && !b.Line {
		a, b = b, a // points against the polyline
	}
	d := math.Inf(1)
	switch {
	case !b.Line:
		for _, p := range a.Points {
			for _, q := range b.Points {
				d = math.Min(d, s.Dist(p, q))
			}
		}
	case !a.Line:
		for _, p := range a.Points {
			for j := 0; j+1 < len(b.Points); j++ {
				d = math.Min(d, s.PointSegment(p, b.Points[j], b.Points[j+1]))
			}
		}
	default:
		for i := 0; i+1 < len(a.Points); i++ {
			for j := 0; j+1 < len(b.Points); j++ {
				d = math.Min(d, s.SegmentSegment(a.Points[i], a.Points[i+1], b.Points[j], b.Points[j+1]))
				if d == 0 {
					return 0
				}
			}
		}
	}
	return d
}

// boxGap is a lower bound of the distance between anything in box a and
// anything in box b; 0 when the boxes together span more than half the
// world in longitude, where the short way round could be the other.
func (s LocalScale) boxGap(a, b orb.Bound) float64 {
	if math.Max(a.Max[0], b.Max[0])-math.Min(a.Min[0], b.Min[0]) > 180 {
		return 0
	}
	dx := math.Max(0, math.Max(a.Min[0]-b.Max[0], b.Min[0]-a.Max[0])) * s.MetresPerDegLon
	dy := math.Max(0, math.Max(a.Min[1]-b.Max[1], b.Min[1]-a.Max[1])) * s.MetresPerDegLat
	return math.Hypot(dx, dy)
}

func bounds(pts []orb.Point) orb.Bound {
	b := orb.Bound{Min: pts[0], Max: pts[0]}
	for _, p := range pts[1:] {
		b = b.Extend(p)
	}
	return b
}

// PolygonDistance is the least distance in metres from a part to the
// polygon bounded by rings: 0 when a point of the part lies inside the
// polygon or on its boundary, otherwise the distance to the nearest ring.
func (s LocalScale) PolygonDistance(p Part, rings []orb.Ring) float64 {
	for _, q := range p.Points {
		if Locate(q, rings) != Outside {
			return 0
		}
	}
	d := math.Inf(1)
	for _, r := range rings {
		d = math.Min(d, s.PartDistance(p, Part{Points: closed(r), Line: true}))
		if d == 0 {
			break
		}
	}
	return d
}

// PolygonsDistance is the least distance in metres between two polygons:
// 0 when a vertex of either lies in the other (or on its boundary) or
// their boundaries cross, otherwise the distance between their rings.
func (s LocalScale) PolygonsDistance(a, b []orb.Ring) float64 {
	for _, pair := range [2][2][]orb.Ring{{a, b}, {b, a}} {
		for _, r := range pair[0] {
			for _, q := range r {
				if Locate(q, pair[1]) != Outside {
					return 0
				}
			}
		}
	}
	d := math.Inf(1)
	for _, ra := range a {
		for _, rb := range b {
			d = math.Min(d, s.PartDistance(Part{closed(ra), true}, Part{closed(rb), true}))
			if d == 0 {
				return 0
			}
		}
	}
	return d
}

// closed returns r ending with its first point.
func closed(r orb.Ring) []orb.Point {
	if len(r) > 1 && r[0] != r[len(r)-1] {
		return append(append([]orb.Point(nil), r...), r[0])
	}
	return r
}
