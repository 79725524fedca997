package tiler

import "slices"

// Clipping to axis-aligned strips k1 <= coordinate <= k2 along one axis
// (0 = x, 1 = y). A tile is cut by clipping on x, then on y.

func coord(p pt, axis int) float64 {
	if axis == 0 {
		return p.x
	}
	return p.y
}

// intersect returns the point of segment a-b whose axis coordinate is k.
func intersect(a, b pt, k float64, axis int) pt {
	if axis == 0 {
		t := (k - a.x) / (b.x - a.x)
		return pt{k, a.y + t*(b.y-a.y)}
	}
	t := (k - a.y) / (b.y - a.y)
	return pt{a.x + t*(b.x-a.x), k}
}

// clipItems clips every item to the strip, dropping those outside it and
// those whose zoom range ends before minZoom.
func clipItems(items []*item, k1, k2 float64, axis int, minZoom int) []*item {
	var out []*item
	for _, it := range items {
		if it.src.maxZoom < minZoom {
			continue
		}
		if c := clipItem(it, k1, k2, axis); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// clipItem returns the part of it inside the strip: it itself when it lies
// entirely inside, nil when nothing is left.
func clipItem(it *item, k1, k2 float64, axis int) *item {
	lo, hi := it.bbox.lo(axis), it.bbox.hi(axis)
	if lo >= k1 && hi <= k2 {
		return it
	}
	if hi < k1 || lo > k2 {
		return nil
	}
	c := &item{src: it.src, typ: it.typ}
	switch it.typ {
	case gPoint:
		for _, p := range it.pts {
			if v := coord(p, axis); v >= k1 && v <= k2 {
				c.pts = append(c.pts, p)
			}
		}
	case gLine:
		for _, l := range it.lines {
			c.lines = clipLine(c.lines, l, k1, k2, axis)
		}
	case gPoly:
		for _, pg := range it.polys {
			if cp := clipPolygon(pg, k1, k2, axis); cp != nil {
				c.polys = append(c.polys, cp)
			}
		}
	}
	if c.empty() {
		return nil
	}
	c.computeBox()
	return c
}

// clipLine appends to out the pieces of line inside the strip.
func clipLine(out [][]pt, line []pt, k1, k2 float64, axis int) [][]pt {
	var cur []pt
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 0; i+1 < len(line); i++ {
		a, b := line[i], line[i+1]
		ak, bk := coord(a, axis), coord(b, axis)
		// Parametric range [t0, t1] of the segment inside the strip.
		t0, t1 := 0.0, 1.0
		if ak == bk {
			if ak < k1 || ak > k2 {
				flush()
				continue
			}
		} else {
			ta, tb := (k1-ak)/(bk-ak), (k2-ak)/(bk-ak)
			if ta > tb {
				ta, tb = tb, ta
			}
			if ta > t0 {
				t0 = ta
			}
			if tb < t1 {
				t1 = tb
			}
			if t0 > t1 {
				flush()
				continue
			}
		}
		p0, p1 := a, b
		if t0 > 0 {
			p0 = lerpOnto(a, b, t0, ak, bk, k1, k2, axis)
		}
		if t1 < 1 {
			p1 = lerpOnto(a, b, t1, ak, bk, k1, k2, axis)
		}
		if t0 > 0 || len(cur) == 0 {
			flush()
			cur = append(cur, p0)
		}
		if p1 != cur[len(cur)-1] {
			cur = append(cur, p1)
		}
		if t1 < 1 {
			flush()
		}
	}
	flush()
	return out
}

// lerpOnto returns the point at parameter t of a-b, snapping the axis
// coordinate exactly onto the strip edge it crosses.
func lerpOnto(a, b pt, t, ak, bk, k1, k2 float64, axis int) pt {
	k := k1
	if d1, d2 := abs(ak+t*(bk-ak)-k1), abs(ak+t*(bk-ak)-k2); d2 < d1 {
		k = k2
	}
	return intersect(a, b, k, axis)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// clipPolygon clips each ring with Sutherland-Hodgman against both strip
// edges. It returns nil when the exterior ring vanishes; vanished holes are
// dropped.
func clipPolygon(pg [][]pt, k1, k2 float64, axis int) [][]pt {
	return eachRing(pg, func(ring []pt) []pt {
		if r := clipRing(ring, k1, axis, true); r != nil {
			return clipRing(r, k2, axis, false)
		}
		return nil
	})
}

// clipRing clips a closed ring to the half-plane coordinate >= k (keepAbove)
// or <= k. It returns a closed ring, or nil when fewer than three positions
// remain.
func clipRing(ring []pt, k float64, axis int, keepAbove bool) []pt {
	inside := func(p pt) bool {
		if keepAbove {
			return coord(p, axis) >= k
		}
		return coord(p, axis) <= k
	}
	n := len(ring) - 1 // ring is closed
	if n < 3 {
		return nil
	}
	lo, hi := coord(ring[0], axis), coord(ring[0], axis)
	for i := 1; i < n; i++ {
		v := coord(ring[i], axis)
		lo, hi = min(lo, v), max(hi, v)
	}
	if keepAbove && lo >= k || !keepAbove && hi <= k {
		return ring // entirely inside
	}
	if keepAbove && hi < k || !keepAbove && lo > k {
		return nil // entirely outside
	}
	out := make([]pt, 0, n+4)
	prev := ring[n-1]
	prevIn := inside(prev)
	for i := 0; i < n; i++ {
		cur := ring[i]
		curIn := inside(cur)
		if curIn != prevIn {
			out = append(out, intersect(prev, cur, k, axis))
		}
		if curIn {
			out = append(out, cur)
		}
		prev, prevIn = cur, curIn
	}
	// Remove consecutive duplicates created on the edge.
	out = slices.Compact(out)
	for len(out) > 1 && out[0] == out[len(out)-1] {
		out = out[:len(out)-1]
	}
	if len(out) < 3 {
		return nil
	}
	return append(out, out[0])
}
