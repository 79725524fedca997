package symbols

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
)

// The pole of inaccessibility of a polygon is its interior point farthest
// from the boundary: the centre of the largest inscribed circle, where a
// label of a fill is placed. It is found by a best-first search over squares:
//
//   - f(x, y) is the signed distance from a point to the polygon's boundary
//     (positive inside). f is 1-Lipschitz, so over a square of half side r
//     centred at c no point beats f(c) + r*sqrt(2): that is the square's
//     bound.
//   - The bounding box is tiled with squares whose side is its shorter
//     extent (or a 256th of its longer one, if that is more); the best
//     point so far starts as the outer ring's centroid and improves with
//     every square centre evaluated.
//   - The square of the highest bound is split into four quarters until that
//     bound exceeds the best distance by no more than the precision: then no
//     square can hold a point better by more than it, and the search ends.

// maxPoleSquares bounds the squares one search evaluates (a polygon of many
// narrow parts could otherwise split squares for long); past it the best
// point found so far is returned.
const maxPoleSquares = 1 << 12

// maxPoleSeeds bounds the seed squares along the longer side of the box.
const maxPoleSeeds = 256

// poleSquare is a square of the search: its centre, half its side, the
// signed distance of its centre to the boundary and the bound of the
// distance over the square.
type poleSquare struct {
	cx, cy, half float64
	dist, bound  float64
}

// squareQueue is a max-heap of squares by bound.
type squareQueue []poleSquare

func (q *squareQueue) push(s poleSquare) {
	*q = append(*q, s)
	h := *q
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if h[up].bound >= h[i].bound {
			break
		}
		h[up], h[i] = h[i], h[up]
		i = up
	}
}

func (q *squareQueue) pop() poleSquare {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		big := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].bound > h[big].bound {
				big = c
			}
		}
		if big == i {
			break
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
	*q = h
	return top
}

// poleOfInaccessibility returns the point of a polygon (outer ring first,
// then holes; rings closed or not) farthest from its edges, to within
// precision. It reports false for a polygon without interior: fewer than
// three points in the outer ring, or a bounding box of no width or height.
func poleOfInaccessibility(rings [][]orb.Point, precision float64) (orb.Point, bool) {
	if len(rings) == 0 || len(rings[0]) < 3 {
		return orb.Point{}, false
	}
	box := orb.LineString(rings[0]).Bound()
	w, h := box.Max[0]-box.Min[0], box.Max[1]-box.Min[1]
	side := math.Min(w, h)
	if !(side > 0) || math.IsInf(side, 0) {
		return orb.Point{}, false
	}
	// A sliver would take too many seed squares; a coarser seed grid only
	// takes more splits.
	side = math.Max(side, math.Max(w, h)/maxPoleSeeds)

	asRings := polygonRings(rings)
	square := func(cx, cy, half float64) poleSquare {
		d := signedBoundaryDist(orb.Point{cx, cy}, asRings)
		return poleSquare{cx: cx, cy: cy, half: half, dist: d, bound: d + half*math.Sqrt2}
	}
	// The first guess is the outer ring's centroid (the box's centre for
	// a ring of no area); every square centre evaluated may beat it.
	c, ok := ringCentroid(rings[0])
	if !ok {
		c = box.Center()
	}
	best := square(c[0], c[1], 0)

	var queue squareQueue
	evaluated := 0
	consider := func(s poleSquare) {
		evaluated++
		if s.dist > best.dist {
			best = s
		}
		queue.push(s)
	}
	half := side / 2
	for y := box.Min[1]; y < box.Max[1]; y += side {
		for x := box.Min[0]; x < box.Max[0]; x += side {
			consider(square(x+half, y+half, half))
		}
	}
	for len(queue) > 0 && evaluated < maxPoleSquares {
		s := queue.pop()
		if s.bound-best.dist <= precision {
			break // the queue's highest bound: nothing left can do better
		}
		q := s.half / 2
		// The four quarters, by the bits of k: bit 0 east, bit 1 south.
		for k := range 4 {
			sx, sy := float64(k&1*2-1), float64(k&2-1)
			consider(square(s.cx+sx*q, s.cy+sy*q, q))
		}
	}
	return orb.Point{best.cx, best.cy}, true
}

// signedBoundaryDist is the distance from p to the nearest edge of the
// rings, positive when p is inside the polygon (even-odd over all the
// rings), negative outside.
func signedBoundaryDist(p orb.Point, rings []orb.Ring) float64 {
	nearest := math.Inf(1)
	for _, r := range rings {
		if len(r) == 0 {
			continue
		}
		prev := r[len(r)-1]
		for _, q := range r {
			nearest = math.Min(nearest, geo.SegmentDist2(p, prev, q))
			prev = q
		}
	}
	d := math.Sqrt(nearest)
	if geo.Locate(p, rings) == geo.Outside {
		d = -d
	}
	return d
}

// polygonRings returns a polygon's rings as geo.Locate takes them.
func polygonRings(rings [][]orb.Point) []orb.Ring {
	out := make([]orb.Ring, len(rings))
	for i, r := range rings {
		out[i] = r
	}
	return out
}

// ringCentroid returns the centroid of the area a ring encloses, false when
// it encloses none.
func ringCentroid(r []orb.Point) (orb.Point, bool) {
	var twiceArea, sx, sy float64
	for i, a := range r {
		b := r[(i+1)%len(r)]
		cross := a[0]*b[1] - b[0]*a[1]
		twiceArea += cross
		sx += (a[0] + b[0]) * cross
		sy += (a[1] + b[1]) * cross
	}
	if twiceArea == 0 {
		return orb.Point{}, false
	}
	return orb.Point{sx / (3 * twiceArea), sy / (3 * twiceArea)}, true
}
