package svg

import "math"

type lineCap uint8

const (
	capButt lineCap = iota
	capRound
	capSquare
)

type lineJoin uint8

const (
	joinMiter lineJoin = iota
	joinRound
	joinBevel
)

type strokeParams struct {
	width      float64
	cap        lineCap
	join       lineJoin
	miterLimit float64
	dash       []float64
	dashOffset float64
}

// polygonSink receives the closed polygons that make up a stroke outline. Every polygon is
// emitted with positive orientation so that the union can be filled with the non-zero rule.
type polygonSink func(pts []point)

func emitOriented(sink polygonSink, pts []point) {
	area := 0.0
	for i := range pts {
		j := (i + 1) % len(pts)
		area += pts[i].cross(pts[j])
	}
	if area == 0 {
		return
	}
	if area < 0 {
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	sink(pts)
}

// circleSegments returns how many segments approximate a circle of radius r (user units)
// within tol.
func circleSegments(r, tol float64) int {
	if r <= tol {
		return 8
	}
	n := int(math.Ceil(math.Pi / math.Acos(1-tol/r)))
	return clampInt(n, 8, 256)
}

func disc(sink polygonSink, c point, r, tol float64) {
	n := circleSegments(r, tol)
	pts := make([]point, n)
	for i := range pts {
		a := 2 * math.Pi * float64(i) / float64(n)
		pts[i] = point{c.x + r*math.Cos(a), c.y + r*math.Sin(a)}
	}
	emitOriented(sink, pts)
}

// strokePolylines emits the outline polygons of the stroked polylines.
func strokePolylines(lines []polyline, sp strokeParams, tol float64, sink polygonSink) {
	if !(sp.width > 0) {
		return
	}
	if len(sp.dash) > 0 {
		lines = dashPolylines(lines, sp.dash, sp.dashOffset)
	}
	hw := sp.width / 2
	for _, pl := range lines {
		pts := pl.pts
		closed := pl.closed
		if closed && len(pts) > 1 && pts[0].near(pts[len(pts)-1], 1e-12) {
			pts = pts[:len(pts)-1]
		}
		if len(pts) == 1 || (len(pts) == 2 && closed && pts[0].eq(pts[1])) {
			// Zero-length subpath: round and square caps draw a dot.
			c := pts[0]
			switch sp.cap {
			case capRound:
				disc(sink, c, hw, tol)
			case capSquare:
				emitOriented(sink, []point{{c.x - hw, c.y - hw}, {c.x + hw, c.y - hw}, {c.x + hw, c.y + hw}, {c.x - hw, c.y + hw}})
			}
			continue
		}
		n := len(pts)
		segCount := n - 1
		if closed {
			segCount = n
		}
		for i := 0; i < segCount; i++ {
			a, b := pts[i], pts[(i+1)%n]
			d := b.sub(a)
			l := d.length()
			if l == 0 {
				continue
			}
			u := d.mulf(1 / l)
			nrm := u.perp().mulf(hw)
			a0, b0 := a, b
			if !closed && sp.cap == capSquare {
				if i == 0 {
					a0 = a.sub(u.mulf(hw))
				}
				if i == segCount-1 {
					b0 = b.add(u.mulf(hw))
				}
			}
			emitOriented(sink, []point{a0.add(nrm), b0.add(nrm), b0.sub(nrm), a0.sub(nrm)})
		}
		// Joins at interior vertices (and at every vertex of a closed polyline).
		for i := 0; i < n; i++ {
			if !closed && (i == 0 || i == n-1) {
				continue
			}
			prev := pts[(i-1+n)%n]
			cur := pts[i]
			next := pts[(i+1)%n]
			d0, d1 := cur.sub(prev), next.sub(cur)
			l0, l1 := d0.length(), d1.length()
			if l0 == 0 || l1 == 0 {
				continue
			}
			u0, u1 := d0.mulf(1/l0), d1.mulf(1/l1)
			cr := u0.cross(u1)
			if math.Abs(cr) < 1e-9 && u0.dot(u1) > 0 {
				continue // collinear: the rectangles already meet
			}
			join := sp.join
			if !pl.corner[indexIn(pl, i)] {
				join = joinBevel
			}
			if join == joinRound {
				disc(sink, cur, hw, tol)
				continue
			}
			// Outer side: the side the path turns away from.
			side := 1.0
			if cr > 0 {
				side = -1
			}
			p0 := cur.add(u0.perp().mulf(hw * side))
			p1 := cur.add(u1.perp().mulf(hw * side))
			if join == joinMiter {
				cosT := u0.dot(u1) // cos of the turn angle
				// miter length / stroke width = 1/sin(θ/2) with θ the interior angle,
				// and sin(θ/2) = cos(turn/2).
				sinHalf := math.Sqrt(math.Max(0, (1+cosT)/2))
				if sinHalf > 0 && 1/sinHalf <= sp.miterLimit {
					bis := u0.perp().add(u1.perp())
					bl := bis.length()
					if bl > 0 {
						// The tip lies on the bisector of the outer normals, hw / cos(turn/2) from cur.
						tip := cur.add(bis.mulf(side * hw / (bl * sinHalf)))
						emitOriented(sink, []point{cur, p0, tip, p1})
						continue
					}
				}
			}
			emitOriented(sink, []point{cur, p0, p1})
		}
		if !closed && sp.cap == capRound {
			disc(sink, pts[0], hw, tol)
			disc(sink, pts[n-1], hw, tol)
		}
	}
}

func indexIn(pl polyline, i int) int {
	if i < len(pl.corner) {
		return i
	}
	return len(pl.corner) - 1
}

// dashPolylines splits polylines into dashes following the dash array (SVG semantics:
// an odd-length array is repeated twice).
func dashPolylines(lines []polyline, dash []float64, offset float64) []polyline {
	total := 0.0
	for _, d := range dash {
		if d < 0 || !finite(d) {
			return lines
		}
		total += d
	}
	if !(total > 0) {
		return lines
	}
	if len(dash)%2 == 1 {
		dash = append(append([]float64{}, dash...), dash...)
		total *= 2
	}
	var out []polyline
	const maxDashes = 100000
	steps := 0
	for _, pl := range lines {
		pts := pl.pts
		if pl.closed && len(pts) > 1 {
			pts = append(append([]point{}, pts...), pts[0])
		}
		// Find the starting position in the pattern.
		off := math.Mod(offset, total)
		if off < 0 {
			off += total
		}
		idx := 0
		for off >= dash[idx] {
			off -= dash[idx]
			idx = (idx + 1) % len(dash)
		}
		left := dash[idx] - off
		on := idx%2 == 0
		var cur polyline
		if on && len(pts) > 0 {
			cur.pts = append(cur.pts, pts[0])
			cur.corner = append(cur.corner, true)
		}
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			segLen := b.sub(a).length()
			pos := 0.0
			for segLen-pos > left {
				steps++
				if steps > 4*maxDashes {
					return out
				}
				pos += left
				q := lerp(a, b, pos/segLen)
				if on {
					cur.pts = append(cur.pts, q)
					cur.corner = append(cur.corner, true)
					out = append(out, cur)
					if len(out) > maxDashes {
						return out
					}
					cur = polyline{}
				} else {
					cur = polyline{pts: []point{q}, corner: []bool{true}}
				}
				on = !on
				idx = (idx + 1) % len(dash)
				left = dash[idx]
			}
			left -= segLen - pos
			if on {
				cur.pts = append(cur.pts, b)
				cur.corner = append(cur.corner, i < len(pl.corner) && pl.corner[i])
			}
		}
		if on && len(cur.pts) > 1 {
			out = append(out, cur)
		}
	}
	return out
}
