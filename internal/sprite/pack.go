package sprite

import (
	"math"
	"slices"
	"strings"
)

// Packing: a skyline bottom-left packer. Rectangles are placed tallest first (ties: wider
// first, then by name), with no gap between them, like the reference sheets. Several bin
// widths are tried and the layout with the shortest longer side (then the smallest area)
// wins: sheets stay roughly square, and the result depends only on the icon sizes and names.

type rect struct {
	name string
	w, h int
	x, y int
}

type skySeg struct{ x, y, w int }

// packRects assigns x, y to every rect and returns the sheet size.
func packRects(rs []rect) (int, int) {
	if len(rs) == 0 {
		return 0, 0
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := rs[a], rs[b]
		if ra.h != rb.h {
			return rb.h - ra.h
		}
		if ra.w != rb.w {
			return rb.w - ra.w
		}
		return strings.Compare(ra.name, rb.name)
	})
	maxW, sumW, area := 0, 0, 0
	for _, r := range rs {
		maxW = max(maxW, r.w)
		sumW += r.w
		area += r.w * r.h
	}
	side := math.Sqrt(float64(area))
	cands := []int{maxW, sumW}
	for _, k := range []float64{0.8, 0.9, 1, 1.05, 1.1, 1.2, 1.3, 1.5, 2} {
		cands = append(cands, int(math.Ceil(side*k)))
	}
	bestW, bestH := -1, -1
	var best []rect
	pos := make([]rect, len(rs))
	for _, bw := range cands {
		if bw < maxW {
			bw = maxW
		}
		if bw > sumW {
			bw = sumW
		}
		copy(pos, rs)
		w, h := skyline(pos, order, bw)
		better := bestW < 0
		if !better {
			a, ba := w*h, bestW*bestH
			switch {
			case max(w, h) != max(bestW, bestH):
				better = max(w, h) < max(bestW, bestH)
			case a != ba:
				better = a < ba
			default:
				better = w < bestW
			}
		}
		if better {
			bestW, bestH = w, h
			best = append(best[:0], pos...)
		}
	}
	copy(rs, best)
	return bestW, bestH
}

// skyline packs the rects in the given order into a bin binW wide and returns the used size.
func skyline(rs []rect, order []int, binW int) (int, int) {
	sky := []skySeg{{0, 0, binW}}
	usedW, usedH := 0, 0
	for _, idx := range order {
		r := &rs[idx]
		bestI, bestX, bestY := -1, 0, math.MaxInt
		for i := range sky {
			x := sky[i].x
			if x+r.w > binW {
				break
			}
			// The rect rests on the highest segment it spans.
			y, covered := 0, 0
			for j := i; j < len(sky) && covered < r.w; j++ {
				y = max(y, sky[j].y)
				covered = sky[j].x + sky[j].w - x
			}
			if y < bestY || (y == bestY && x < bestX) {
				bestI, bestX, bestY = i, x, y
			}
		}
		if bestI < 0 { // cannot happen: binW ≥ every width
			bestX, bestY = 0, usedH
		}
		r.x, r.y = bestX, bestY
		usedW = max(usedW, r.x+r.w)
		usedH = max(usedH, r.y+r.h)
		// Update the skyline: the new segment replaces what it covers.
		ns := skySeg{bestX, bestY + r.h, r.w}
		var out []skySeg
		for _, s := range sky {
			sEnd, nEnd := s.x+s.w, ns.x+ns.w
			if sEnd <= ns.x || s.x >= nEnd {
				out = append(out, s)
				continue
			}
			if s.x < ns.x {
				out = append(out, skySeg{s.x, s.y, ns.x - s.x})
			}
			if sEnd > nEnd {
				out = append(out, skySeg{nEnd, s.y, sEnd - nEnd})
			}
		}
		out = append(out, ns)
		slices.SortFunc(out, func(a, b skySeg) int { return a.x - b.x })
		merged := out[:1]
		for _, s := range out[1:] {
			last := &merged[len(merged)-1]
			if last.y == s.y && last.x+last.w == s.x {
				last.w += s.w
			} else {
				merged = append(merged, s)
			}
		}
		sky = merged
	}
	return usedW, usedH
}
