package osm

import (
	"github.com/tesseramaps/tessera/internal/geo"
	"math"
	"sort"

	"github.com/paulmach/orb"
)

// joinChains joins segments (lists of node ids) end to end into chains,
// reversing segments where needed. Segments with fewer than two nodes are
// dropped. A chain whose first and last node are equal is closed; where
// several segments meet at a node, one that closes the chain is preferred.
// Each segment is used at most once.
func joinChains(segs [][]int64) [][]int64 {
	ends := make(map[int64][]int, 2*len(segs))
	for i, s := range segs {
		if len(s) < 2 {
			continue
		}
		ends[s[0]] = append(ends[s[0]], i)
		if s[len(s)-1] != s[0] {
			ends[s[len(s)-1]] = append(ends[s[len(s)-1]], i)
		}
	}
	used := make([]bool, len(segs))
	// take removes and returns an unused segment ending at node n, one
	// ending at prefer (the other end) when there is one.
	take := func(n, prefer int64) (int, bool) {
		list := ends[n]
		best := -1
		k := 0
		for _, i := range list {
			if used[i] {
				continue
			}
			list[k] = i
			k++
			s := segs[i]
			other := s[0]
			if other == n {
				other = s[len(s)-1]
			}
			if best < 0 || (other == prefer && segs[best][0] != prefer && segs[best][len(segs[best])-1] != prefer) {
				best = i
			}
		}
		ends[n] = list[:k]
		if best < 0 {
			return 0, false
		}
		used[best] = true
		return best, true
	}
	// extend appends segments at the end of chain until it closes or no
	// segment continues it.
	extend := func(chain []int64) []int64 {
		for chain[0] != chain[len(chain)-1] {
			last := chain[len(chain)-1]
			i, ok := take(last, chain[0])
			if !ok {
				break
			}
			s := segs[i]
			if s[0] == last {
				chain = append(chain, s[1:]...)
			} else {
				for j := len(s) - 2; j >= 0; j-- {
					chain = append(chain, s[j])
				}
			}
		}
		return chain
	}
	var out [][]int64
	for i, s := range segs {
		if used[i] || len(s) < 2 {
			continue
		}
		used[i] = true
		chain := extend(append([]int64(nil), s...))
		if chain[0] != chain[len(chain)-1] {
			// Stuck at the end: continue from the start.
			reverse(chain)
			chain = extend(chain)
		}
		out = append(out, chain)
	}
	return out
}

func reverse(s []int64) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// assembleRings joins segments into closed rings of node ids. A ring that
// passes a node twice is split there into simple rings; rings of fewer than
// three distinct nodes are dropped. open counts the chains that could not be
// closed (their segments are skipped).
func assembleRings(segs [][]int64) (rings [][]int64, open int) {
	for _, c := range joinChains(segs) {
		if c[0] != c[len(c)-1] {
			open++
			continue
		}
		rings = append(rings, splitAtRepeats(c)...)
	}
	return rings, open
}

// splitAtRepeats splits a closed ring at the nodes it passes twice, so that
// every returned ring is closed with distinct nodes otherwise and has at
// least four entries.
func splitAtRepeats(ring []int64) [][]int64 {
	var out [][]int64
	pos := make(map[int64]int, len(ring))
	stack := make([]int64, 0, len(ring))
	for _, n := range ring {
		p, seen := pos[n]
		if !seen {
			pos[n] = len(stack)
			stack = append(stack, n)
			continue
		}
		if len(stack)-p >= 3 {
			sub := make([]int64, 0, len(stack)-p+1)
			sub = append(sub, stack[p:]...)
			out = append(out, append(sub, n))
		}
		for _, m := range stack[p+1:] {
			delete(pos, m)
		}
		stack = stack[:p+1]
	}
	return out
}

// interiorPoint returns a point inside the polygon made of rings (outer
// first): the middle of the widest inside span of a horizontal line
// through the middle of the outer ring's bounds. ok is false for degenerate
// input.
func interiorPoint(rings []orb.Ring) (orb.Point, bool) {
	if len(rings) == 0 || len(rings[0]) < 4 {
		return orb.Point{}, false
	}
	b := rings[0].Bound()
	y := (b.Min[1] + b.Max[1]) / 2
	var xs []float64
	for _, r := range rings {
		for i := 0; i+1 < len(r); i++ {
			a, c := r[i], r[i+1]
			if (a[1] > y) != (c[1] > y) {
				xs = append(xs, a[0]+(y-a[1])*(c[0]-a[0])/(c[1]-a[1]))
			}
		}
	}
	sort.Float64s(xs)
	best, bestW := orb.Point{}, -1.0
	for i := 0; i+1 < len(xs); i += 2 {
		if w := xs[i+1] - xs[i]; w > bestW {
			best, bestW = orb.Point{(xs[i] + xs[i+1]) / 2, y}, w
		}
	}
	return best, bestW >= 0
}

// ringCentroid is the area-weighted centroid of a ring, the mean of its
// vertices when its area is zero.
func ringCentroid(r orb.Ring) orb.Point {
	if len(r) == 0 {
		return orb.Point{}
	}
	// Relative to the first vertex, to keep the products small.
	o := r[0]
	var cx, cy, a float64
	for i := 0; i+1 < len(r); i++ {
		x0, y0, x1, y1 := r[i][0]-o[0], r[i][1]-o[1], r[i+1][0]-o[0], r[i+1][1]-o[1]
		cross := x0*y1 - x1*y0
		a += cross
		cx += (x0 + x1) * cross
		cy += (y0 + y1) * cross
	}
	if math.Abs(a) < 1e-18 {
		var sx, sy float64
		for _, p := range r {
			sx += p[0]
			sy += p[1]
		}
		n := float64(max(len(r), 1))
		return orb.Point{sx / n, sy / n}
	}
	return orb.Point{o[0] + cx/(3*a), o[1] + cy/(3*a)}
}

// buildPolygons nests rings into polygons by containment (roles are not
// trusted): a ring inside an odd number of larger rings is a hole of the
// smallest of them, otherwise an outer ring. Outer rings are oriented
// counter-clockwise and holes clockwise (RFC 7946). Rings of zero area are
// dropped and counted in bad.
func buildPolygons(rings []orb.Ring) (mp orb.MultiPolygon, bad int) {
	type rinfo struct {
		r     orb.Ring
		b     orb.Bound
		area  float64
		pt    orb.Point
		depth int
		poly  int // index in mp (outer rings)
	}
	var rs []rinfo
	for _, r := range rings {
		a := math.Abs(geo.SignedArea(r))
		if len(r) < 4 || a == 0 {
			bad++
			continue
		}
		pt, ok := interiorPoint([]orb.Ring{r})
		if !ok {
			bad++
			continue
		}
		rs = append(rs, rinfo{r: r, b: r.Bound(), area: a, pt: pt})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].area > rs[j].area })
	for i := range rs {
		container := -1
		for j := i - 1; j >= 0; j-- { // smallest containing ring first
			// Crossing rings (invalid data) must not nest: the container's
			// bounds must hold the whole ring.
			jb, ib := rs[j].b, rs[i].b
			if rs[j].area > rs[i].area && jb.Contains(ib.Min) && jb.Contains(ib.Max) && geo.PointInRing(rs[i].pt, rs[j].r) {
				container = j
				break
			}
		}
		if container >= 0 {
			rs[i].depth = rs[container].depth + 1
		}
		r := rs[i].r
		if rs[i].depth%2 == 0 {
			if geo.SignedArea(r) < 0 {
				r.Reverse()
			}
			rs[i].poly = len(mp)
			mp = append(mp, orb.Polygon{r})
			continue
		}
		if geo.SignedArea(r) > 0 {
			r.Reverse()
		}
		p := rs[container].poly
		mp[p] = append(mp[p], r)
	}
	return mp, bad
}

// segLength is the length of a segment in degrees of latitude (longitudes
// scaled by the cosine of the latitude).
func segLength(a, b orb.Point) float64 {
	k := math.Cos((a[1] + b[1]) / 2 * math.Pi / 180)
	dx, dy := (b[0]-a[0])*k, b[1]-a[1]
	return math.Hypot(dx, dy)
}

// alongMiddle returns the point halfway along the line.
func alongMiddle(ls orb.LineString) orb.Point {
	if len(ls) == 0 {
		return orb.Point{}
	}
	var total float64
	for i := 0; i+1 < len(ls); i++ {
		total += segLength(ls[i], ls[i+1])
	}
	half := total / 2
	for i := 0; i+1 < len(ls); i++ {
		l := segLength(ls[i], ls[i+1])
		if half <= l && l > 0 {
			t := half / l
			return orb.Point{ls[i][0] + t*(ls[i+1][0]-ls[i][0]), ls[i][1] + t*(ls[i+1][1]-ls[i][1])}
		}
		half -= l
	}
	return ls[len(ls)/2]
}

// lineLen is the length of ls as segLength measures it.
func lineLen(ls orb.LineString) float64 {
	var total float64
	for i := 0; i+1 < len(ls); i++ {
		total += segLength(ls[i], ls[i+1])
	}
	return total
}
