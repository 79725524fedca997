package tiler

import (
	"math"
	"slices"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// Douglas-Peucker simplifies each ring on its own and the positions are then
// rounded to the tile grid: either can make a ring cross itself where two
// stretches of coast run close together (a narrow bay, an isthmus). A
// renderer triangulating such a ring draws slivers across the map (a wedge
// over north-east Siberia at z3 in the demo world came from three crossings
// in Russia's ring). So every polygon ring is untangled after rounding (see
// untangle), and small holes crossing another ring are dropped (see
// untanglePolygon).

// maxUntangle bounds the crossings removed from one ring (each removal
// inserts one rounded position, which can in rare cases cross again).
const maxUntangle = 1000

// segment is one edge of a ring: the ring's index, the index of the edge's
// first position and its ends ordered by x.
type segment struct {
	ring, i int
	a, b    mvt.XY
}

// edgeRef names an edge: ring index and index of its first position.
type edgeRef struct{ ring, i int }

// findCrossing returns two edges of the closed rings that cross properly
// (each passing strictly through the other; touching and collinear overlap
// are not crossings), with a.ring <= b.ring and a.i < b.i within one ring,
// among the pairs that accept allows (all when nil), or ok false. It sweeps
// the edges sorted by their smallest x.
func findCrossing(rings [][]mvt.XY, accept func(ra, rb int) bool) (a, b edgeRef, ok bool) {
	n := 0
	for _, r := range rings {
		n += max(len(r)-1, 0)
	}
	segs := make([]segment, 0, n)
	for ri, r := range rings {
		for k := 0; k+1 < len(r); k++ {
			p, q := r[k], r[k+1]
			if q.X < p.X {
				p, q = q, p
			}
			segs = append(segs, segment{ri, k, p, q})
		}
	}
	slices.SortFunc(segs, func(s, t segment) int { return int(s.a.X) - int(t.a.X) })
	for n, s := range segs {
		sy0, sy1 := min(s.a.Y, s.b.Y), max(s.a.Y, s.b.Y)
		for _, t := range segs[n+1:] {
			if t.a.X > s.b.X {
				break
			}
			if max(t.a.Y, t.b.Y) < sy0 || min(t.a.Y, t.b.Y) > sy1 {
				continue
			}
			if !properCross(s.a, s.b, t.a, t.b) {
				continue
			}
			ea, eb := edgeRef{s.ring, s.i}, edgeRef{t.ring, t.i}
			if eb.ring < ea.ring || eb.ring == ea.ring && eb.i < ea.i {
				ea, eb = eb, ea
			}
			if accept == nil || accept(ea.ring, eb.ring) {
				return ea, eb, true
			}
		}
	}
	return edgeRef{}, edgeRef{}, false
}

// orient is the sign of the turn o -> a -> b.
func orient(o, a, b mvt.XY) int {
	v := int64(a.X-o.X)*int64(b.Y-o.Y) - int64(a.Y-o.Y)*int64(b.X-o.X)
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// properCross reports whether segments a-b and c-d cross at one point inside
// both.
func properCross(a, b, c, d mvt.XY) bool {
	o1, o2 := orient(c, d, a), orient(c, d, b)
	o3, o4 := orient(a, b, c), orient(a, b, d)
	return o1*o2 < 0 && o3*o4 < 0
}

// crossPoint is the crossing of segments a-b and c-d rounded to the grid.
func crossPoint(a, b, c, d mvt.XY) mvt.XY {
	ax, ay := float64(a.X), float64(a.Y)
	rx, ry := float64(b.X)-ax, float64(b.Y)-ay
	sx, sy := float64(d.X-c.X), float64(d.Y-c.Y)
	t := ((float64(c.X)-ax)*sy - (float64(c.Y)-ay)*sx) / (rx*sy - ry*sx)
	return mvt.XY{X: int32(math.Round(ax + t*rx)), Y: int32(math.Round(ay + t*ry))}
}

// untangle removes the crossings of a closed ring: at each crossing the
// ring is cut in two loops through the crossing point and the smaller loop
// (by area) is dropped; that loop is the twisted half of a figure eight or
// the part of a bay that a simplified coast cut off, small next to the ring
// since crossings come from moving positions by under a pixel. Keeping one
// ring rather than loops touching at a point keeps the ocean polygon (whose
// holes are the land) and the land polygons in step, and a renderer's
// triangulation sound. A ring without crossings is returned as it is; nil
// when nothing with an area is left.
func untangle(ring []mvt.XY) []mvt.XY {
	r := ring
	for range maxUntangle {
		ea, eb, ok := findCrossing([][]mvt.XY{r}, nil)
		if !ok {
			break
		}
		i, j := ea.i, eb.i
		x := crossPoint(r[i], r[i+1], r[j], r[j+1])
		// The loop r[i+1..j] and the rest of the ring, both through x.
		loop := make([]mvt.XY, 0, j-i+2)
		loop = append(append(append(loop, x), r[i+1:j+1]...), x)
		rest := make([]mvt.XY, 0, len(r)-(j-i)+1)
		rest = append(append(append(rest, r[:i+1]...), x), r[j+1:]...)
		r = slices.Compact(rest)
		if absArea(loop) > absArea(rest) {
			r = slices.Compact(loop)
		}
	}
	if len(r) < 4 || mvt.RingArea(r) == 0 {
		return nil
	}
	return r
}

// absArea is the absolute doubled area of a closed ring.
func absArea(r []mvt.XY) int64 {
	a := mvt.RingArea(r)
	if a < 0 {
		return -a
	}
	return a
}

// untanglePolygon returns the polygon (exterior first) with its rings
// untangled and its small holes that cross another ring dropped, or nil when
// the exterior has no area left. A hole crossing another ring is most often
// a small island beside a continent, both holes of the ocean polygon, whose
// simplified coasts cross: the renderer's triangulation then draws a sliver
// across the sea. Holes of at most smallHole (doubled area, tile units) are
// dropped, which floods an island of a few pixels; larger crossing holes
// stay as they are (dropping them floods whole islands: Novaya Zemlya at z2).
func untanglePolygon(rings [][]mvt.XY, smallHole int64) [][]mvt.XY {
	out := eachRing(rings, untangle)
	if len(out) < 2 {
		return out
	}
	areas := make([]int64, len(out))
	for i, r := range out {
		areas[i] = absArea(r)
	}
	// smaller is the hole of the pair that may be dropped, or -1.
	smaller := func(ra, rb int) int {
		k := rb
		if ra > 0 && areas[ra] < areas[rb] {
			k = ra
		}
		if k == 0 || areas[k] > smallHole {
			return -1
		}
		return k
	}
	for range maxUntangle {
		ea, eb, ok := findCrossing(out, func(ra, rb int) bool { return ra != rb && smaller(ra, rb) > 0 })
		if !ok {
			break
		}
		k := smaller(ea.ring, eb.ring)
		out = slices.Delete(out, k, k+1)
		areas = slices.Delete(areas, k, k+1)
	}
	return out
}

// eachRing applies f to the rings of a polygon (exterior first): the result
// is nil when f leaves nothing of the exterior; holes it leaves nothing of
// are dropped.
func eachRing[R ~[]E, E any](rings []R, f func(R) R) []R {
	var out []R
	for i, r := range rings {
		u := f(r)
		if len(u) == 0 {
			if i == 0 {
				return nil
			}
			continue
		}
		out = append(out, u)
	}
	return out
}
