package render

import "github.com/paulmach/orb"

// segmentDist2 is the squared Euclidean distance from p to the closed
// segment a-b: p is projected onto the line through a and b, the projection
// parameter clamped to the segment, and the distance to that foot taken. A
// segment of zero length is its end point a.
func segmentDist2(p, a, b orb.Point) float64 {
	ux, uy := b[0]-a[0], b[1]-a[1] // the segment's direction
	vx, vy := p[0]-a[0], p[1]-a[1] // from a to p
	if l2 := ux*ux + uy*uy; l2 > 0 {
		switch t := (vx*ux + vy*uy) / l2; {
		case t >= 1:
			vx, vy = p[0]-b[0], p[1]-b[1]
		case t > 0:
			vx, vy = vx-t*ux, vy-t*uy
		}
	}
	return vx*vx + vy*vy
}
