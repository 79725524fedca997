package geo

import (
	"math"

	"github.com/paulmach/orb"
)

// Location is where a point lies relative to a polygon.
type Location int

// The locations.
const (
	Outside Location = iota
	Inside
	OnBoundary
)

// cross is the z component of (b-a) x (c-a): positive when a, b, c turn
// counter-clockwise (in a y-up plane), zero when they are collinear.
func cross(a, b, c orb.Point) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// OnSegment reports whether p lies on the closed segment ab, exactly.
func OnSegment(p, a, b orb.Point) bool {
	if cross(a, b, p) != 0 {
		return false
	}
	return (p[0]-a[0])*(p[0]-b[0]) <= 0 && (p[1]-a[1])*(p[1]-b[1]) <= 0
}

// SegmentsCross reports whether segments ab and cd cross at a single
// point inside both: each segment has the other's ends strictly on
// opposite sides. Touching, overlapping and collinear segments do not
// cross.
func SegmentsCross(a, b, c, d orb.Point) bool {
	opposite := func(u, v float64) bool { return u > 0 && v < 0 || u < 0 && v > 0 }
	return opposite(cross(c, d, a), cross(c, d, b)) && opposite(cross(a, b, c), cross(a, b, d))
}

// Locate tells where p lies relative to the polygon bounded by rings: on
// an edge of any ring, or inside or outside by the even-odd rule over all
// the rings (an outer ring and its holes). Each ring's closing edge is
// included whether or not the ring repeats its first point.
func Locate(p orb.Point, rings []orb.Ring) Location {
	inside := false
	for _, r := range rings {
		if len(r) == 0 {
			continue
		}
		a := r[len(r)-1]
		for _, b := range r {
			if OnSegment(p, a, b) {
				return OnBoundary
			}
			if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0]+(p[1]-a[1])*(b[0]-a[0])/(b[1]-a[1]) {
				inside = !inside
			}
			a = b
		}
	}
	if inside {
		return Inside
	}
	return Outside
}

// RingsCrossedBy reports whether segment ab crosses an edge of any ring
// (see SegmentsCross).
func RingsCrossedBy(a, b orb.Point, rings []orb.Ring) bool {
	for _, r := range rings {
		if len(r) == 0 {
			continue
		}
		c := r[len(r)-1]
		for _, d := range r {
			if SegmentsCross(a, b, c, d) {
				return true
			}
			c = d
		}
	}
	return false
}

// SegmentDist2 is the squared Euclidean distance from p to the closed
// segment a-b: p is projected onto the line through a and b, the projection
// parameter clamped to the segment, and the distance to that foot taken. A
// segment of zero length is its end point a.
func SegmentDist2(p, a, b orb.Point) float64 {
	ux, uy := b[0]-a[0], b[1]-a[1] // the segment's direction
	vx, vy := p[0]-a[0], p[1]-a[1] // from a to p
	// The foot's parameter along the segment, clamped to it; a segment of
	// zero length divides 0 by the smallest float, giving its end a.
	t := min(1, max(0, (vx*ux+vy*uy)/max(ux*ux+uy*uy, math.SmallestNonzeroFloat64)))
	dx, dy := vx-t*ux, vy-t*uy
	return dx*dx + dy*dy
}
