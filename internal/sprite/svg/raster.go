package svg

import (
	"math"
	"slices"
)

// subSamples is the number of sub-scanlines per pixel row. Horizontal coverage is exact
// (analytic span ends), vertical coverage is sampled.
const subSamples = 16

type edge struct {
	x0, y0, x1, y1 float64 // y0 < y1
	dxdy           float64
	dir            int8
}

// rasterizer accumulates edges in device space and computes anti-aliased coverage masks.
type rasterizer struct {
	w, h     int
	edges    []edge
	minX     float64
	maxX     float64
	minY     float64
	maxY     float64
	budget   *int // remaining edge budget shared across the render
	overflow bool
	work     int64 // crossings and pixels processed so far (a CPU cost measure)
}

func newRasterizer(w, h int, budget *int) *rasterizer {
	r := &rasterizer{w: w, h: h, budget: budget}
	r.reset()
	return r
}

func (r *rasterizer) reset() {
	r.edges = r.edges[:0]
	r.minX, r.minY = math.Inf(1), math.Inf(1)
	r.maxX, r.maxY = math.Inf(-1), math.Inf(-1)
}

func (r *rasterizer) addLine(a, b point) {
	if !a.finite() || !b.finite() || a.y == b.y {
		return
	}
	if *r.budget <= 0 {
		r.overflow = true
		return
	}
	*r.budget--
	dir := int8(1)
	if a.y > b.y {
		a, b = b, a
		dir = -1
	}
	r.edges = append(r.edges, edge{x0: a.x, y0: a.y, x1: b.x, y1: b.y, dxdy: (b.x - a.x) / (b.y - a.y), dir: dir})
	r.minX = math.Min(r.minX, math.Min(a.x, b.x))
	r.maxX = math.Max(r.maxX, math.Max(a.x, b.x))
	r.minY = math.Min(r.minY, a.y)
	r.maxY = math.Max(r.maxY, b.y)
}

// addPolygon adds a closed polygon (the closing edge is implied).
func (r *rasterizer) addPolygon(pts []point) {
	if len(pts) < 2 {
		return
	}
	for i := 1; i < len(pts); i++ {
		r.addLine(pts[i-1], pts[i])
	}
	r.addLine(pts[len(pts)-1], pts[0])
}

// mask is a coverage mask over the device rectangle [x0,x1)×[y0,y1).
type mask struct {
	x0, y0, x1, y1 int
	cov            []float32
}

func (m *mask) empty() bool { return m == nil || m.x1 <= m.x0 || m.y1 <= m.y0 }

func (m *mask) at(x, y int) float32 {
	if x < m.x0 || x >= m.x1 || y < m.y0 || y >= m.y1 {
		return 0
	}
	return m.cov[(y-m.y0)*(m.x1-m.x0)+(x-m.x0)]
}

// coverage rasterizes the accumulated edges with the given fill rule.
func (r *rasterizer) coverage(evenOdd bool) *mask {
	if len(r.edges) == 0 {
		return nil
	}
	x0 := clampInt(int(math.Floor(r.minX)), 0, r.w)
	x1 := clampInt(int(math.Ceil(r.maxX))+1, 0, r.w)
	y0 := clampInt(int(math.Floor(r.minY)), 0, r.h)
	y1 := clampInt(int(math.Ceil(r.maxY)), 0, r.h)
	if x1 <= x0 || y1 <= y0 {
		return nil
	}
	m := &mask{x0: x0, y0: y0, x1: x1, y1: y1}
	mw := x1 - x0
	m.cov = make([]float32, mw*(y1-y0))
	slices.SortFunc(r.edges, func(a, b edge) int {
		switch {
		case a.y0 < b.y0:
			return -1
		case a.y0 > b.y0:
			return 1
		}
		return 0
	})
	type crossing struct {
		x   float64
		dir int8
	}
	var active []int
	var xs []crossing
	acc := make([]float32, mw+2) // exact partial coverage plus a difference array for full pixels
	diff := make([]float32, mw+2)
	next := 0
	const w = float32(1) / subSamples
	fx0, fx1 := float64(x0), float64(x1)
	for y := y0; y < y1; y++ {
		clear(acc)
		clear(diff)
		for s := 0; s < subSamples; s++ {
			sy := float64(y) + (float64(s)+0.5)/subSamples
			for next < len(r.edges) && r.edges[next].y0 <= sy {
				active = append(active, next)
				next++
			}
			xs = xs[:0]
			k := 0
			for _, ei := range active {
				e := &r.edges[ei]
				if e.y1 <= sy {
					continue
				}
				active[k] = ei
				k++
				if e.y0 <= sy {
					xs = append(xs, crossing{x: e.x0 + (sy-e.y0)*e.dxdy, dir: e.dir})
				}
			}
			active = active[:k]
			r.work += int64(k)
			if len(xs) < 2 {
				continue
			}
			slices.SortFunc(xs, func(a, b crossing) int {
				switch {
				case a.x < b.x:
					return -1
				case a.x > b.x:
					return 1
				}
				return 0
			})
			wind := 0
			for i := 0; i < len(xs)-1; i++ {
				wind += int(xs[i].dir)
				inside := wind != 0
				if evenOdd {
					inside = wind&1 != 0
				}
				if !inside {
					continue
				}
				a := math.Max(xs[i].x, fx0)
				b := math.Min(xs[i+1].x, fx1)
				if b <= a {
					continue
				}
				a -= fx0
				b -= fx0
				ia, ib := int(a), int(b)
				if ia == ib {
					acc[ia] += float32(b-a) * w
					continue
				}
				acc[ia] += float32(float64(ia+1)-a) * w
				if ib < mw {
					acc[ib] += float32(b-float64(ib)) * w
				}
				if ib > ia+1 {
					diff[ia+1] += w
					diff[ib] -= w
				}
			}
		}
		r.work += int64(mw)
		row := m.cov[(y-y0)*mw : (y-y0+1)*mw]
		run := float32(0)
		for x := 0; x < mw; x++ {
			run += diff[x]
			v := run + acc[x]
			if v > 1 {
				v = 1
			} else if v < 0 {
				v = 0
			}
			row[x] = v
		}
	}
	return m
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
