package tiler

import (
	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
)

// simplify applies Douglas-Peucker with squared tolerance tol2 and returns a
// new slice (or pts itself when nothing can be removed). The first and last
// positions are kept, so closed rings stay closed.
func simplify(pts []pt, tol2 float64, keep []bool) ([]pt, []bool) {
	n := len(pts)
	if n <= 2 || tol2 <= 0 {
		return pts, keep
	}
	if cap(keep) < n {
		keep = make([]bool, n)
	}
	keep = keep[:n]
	clear(keep)
	keep[0], keep[n-1] = true, true
	type span struct{ a, b int }
	stack := []span{{0, n - 1}}
	kept := 2
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		maxD, idx := -1.0, -1
		for i := s.a + 1; i < s.b; i++ {
			if d := geo.SegmentDist2(orb.Point{pts[i].x, pts[i].y}, orb.Point{pts[s.a].x, pts[s.a].y}, orb.Point{pts[s.b].x, pts[s.b].y}); d > maxD {
				maxD, idx = d, i
			}
		}
		if idx >= 0 && maxD > tol2 {
			keep[idx] = true
			kept++
			stack = append(stack, span{s.a, idx}, span{idx, s.b})
		}
	}
	if kept == n {
		return pts, keep
	}
	out := make([]pt, 0, kept)
	for i, k := range keep {
		if k {
			out = append(out, pts[i])
		}
	}
	return out, keep
}

// ringArea2 returns twice the signed area of a closed ring.
func ringArea2(r []pt) float64 {
	var a float64
	for i := 0; i+1 < len(r); i++ {
		a += r[i].x*r[i+1].y - r[i+1].x*r[i].y
	}
	return a
}
