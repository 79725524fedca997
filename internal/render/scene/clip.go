package scene

import (
	"math"

	"github.com/paulmach/orb"
)

// Each vector tile's lines and fills are clipped to the tile's square, as
// GL's stencil clips them: the buffer a tile carries around its square is
// for computing joins and outlines, not for drawing over its neighbours.

// Box is an axis-aligned rectangle in world coordinates.
type Box struct{ X0, Y0, X1, Y1 float64 }

// ClipRing clips a closed ring to the box (Sutherland-Hodgman, one edge of
// the box at a time).
func ClipRing(ring []orb.Point, b Box) []orb.Point {
	// Most rings of a tile lie inside its square: nothing to cut.
	inside := true
	for _, p := range ring {
		if p[0] < b.X0 || p[0] > b.X1 || p[1] < b.Y0 || p[1] > b.Y1 {
			inside = false
			break
		}
	}
	if inside {
		if len(ring) < 3 {
			return nil
		}
		return ring
	}
	edges := []struct {
		inside func(p orb.Point) bool
		cut    func(p, q orb.Point) orb.Point
	}{
		{func(p orb.Point) bool { return p[0] >= b.X0 }, func(p, q orb.Point) orb.Point { return atX(p, q, b.X0) }},
		{func(p orb.Point) bool { return p[0] <= b.X1 }, func(p, q orb.Point) orb.Point { return atX(p, q, b.X1) }},
		{func(p orb.Point) bool { return p[1] >= b.Y0 }, func(p, q orb.Point) orb.Point { return atY(p, q, b.Y0) }},
		{func(p orb.Point) bool { return p[1] <= b.Y1 }, func(p, q orb.Point) orb.Point { return atY(p, q, b.Y1) }},
	}
	pts := ring
	for _, e := range edges {
		if len(pts) == 0 {
			return nil
		}
		out := make([]orb.Point, 0, len(pts)+4)
		prev := pts[len(pts)-1]
		for _, p := range pts {
			switch in, prevIn := e.inside(p), e.inside(prev); {
			case in && prevIn:
				out = append(out, p)
			case in:
				out = append(out, e.cut(prev, p), p)
			case prevIn:
				out = append(out, e.cut(prev, p))
			}
			prev = p
		}
		pts = out
	}
	if len(pts) < 3 {
		return nil
	}
	return pts
}

func atX(p, q orb.Point, x float64) orb.Point {
	t := (x - p[0]) / (q[0] - p[0])
	return orb.Point{x, p[1] + t*(q[1]-p[1])}
}

func atY(p, q orb.Point, y float64) orb.Point {
	t := (y - p[1]) / (q[1] - p[1])
	return orb.Point{p[0] + t*(q[0]-p[0]), y}
}

// ClipLine clips a polyline to the box, returning the pieces inside it
// (parametric clipping of each segment, Liang-Barsky).
func ClipLine(line []orb.Point, b Box) [][]orb.Point {
	pieces, _ := ClipLineFrom(line, b)
	return pieces
}

// ClipLineFrom is ClipLine that also returns where each piece starts: its
// distance along the line from the line's first point.
func ClipLineFrom(line []orb.Point, b Box) ([][]orb.Point, []float64) {
	var out [][]orb.Point
	var starts []float64
	var cur []orb.Point
	curStart, walked := 0.0, 0.0
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
			starts = append(starts, curStart)
		}
		cur = nil
	}
	for i := 0; i+1 < len(line); i++ {
		p, q := line[i], line[i+1]
		t0, t1 := 0.0, 1.0
		dx, dy := q[0]-p[0], q[1]-p[1]
		seg := math.Hypot(dx, dy)
		before := walked
		walked += seg
		ok := true
		for _, c := range [4][2]float64{{-dx, p[0] - b.X0}, {dx, b.X1 - p[0]}, {-dy, p[1] - b.Y0}, {dy, b.Y1 - p[1]}} {
			den, num := c[0], c[1]
			if den == 0 {
				if num < 0 {
					ok = false
				}
				continue
			}
			t := num / den
			if den < 0 {
				t0 = max(t0, t)
			} else {
				t1 = min(t1, t)
			}
		}
		if !ok || t0 > t1 {
			flush()
			continue
		}
		a := orb.Point{p[0] + t0*dx, p[1] + t0*dy}
		z := orb.Point{p[0] + t1*dx, p[1] + t1*dy}
		if len(cur) == 0 || t0 > 0 || cur[len(cur)-1] != a {
			flush()
			cur = append(cur, a)
			curStart = before + t0*seg
		}
		cur = append(cur, z)
		if t1 < 1 {
			flush()
		}
	}
	flush()
	return out, starts
}

// LineLength is a polyline's length.
func LineLength(line []orb.Point) float64 {
	n := 0.0
	for i := 0; i+1 < len(line); i++ {
		n += math.Hypot(line[i+1][0]-line[i][0], line[i+1][1]-line[i][1])
	}
	return n
}

// CutEdge tells which edges of a ring lie along the tile square the
// feature was clipped to: GL's stencil hides a tile's outlines past its
// square, so the cut edges draw no outline. Nil when nothing was clipped.
func (f Feature) CutEdge(ring []orb.Point) func(i int) bool {
	if f.Clip == nil {
		return nil
	}
	b := *f.Clip
	return func(i int) bool {
		p, q := ring[i], ring[(i+1)%len(ring)]
		return p[0] == q[0] && (p[0] == b.X0 || p[0] == b.X1) || p[1] == q[1] && (p[1] == b.Y0 || p[1] == b.Y1)
	}
}

// CutPoint tells which points of a ring lie on the tile square the
// feature was clipped to: points the clipping made, where GL, which draws
// the tile's geometry past its square and hides the rest with its stencil,
// has no vertex. Nil when nothing was clipped.
func (f Feature) CutPoint(ring []orb.Point) func(i int) bool {
	if f.Clip == nil {
		return nil
	}
	b := *f.Clip
	return func(i int) bool {
		p := ring[i]
		return p[0] == b.X0 || p[0] == b.X1 || p[1] == b.Y0 || p[1] == b.Y1
	}
}

// CloseRing returns the ring with its first point repeated at its end.
func CloseRing(r []orb.Point) []orb.Point {
	if len(r) == 0 || r[0] == r[len(r)-1] {
		return r
	}
	return append(append(make([]orb.Point, 0, len(r)+1), r...), r[0])
}

// SplitAtCuts breaks a closed ring (last point = first) into the runs of
// edges that are not cut; with no cut it is one line.
func SplitAtCuts(ring []orb.Point, cut func(i int) bool) [][]orb.Point {
	if cut == nil {
		return [][]orb.Point{ring}
	}
	var out [][]orb.Point
	var cur []orb.Point
	for i := 0; i+1 < len(ring); i++ {
		if cut(i) {
			if len(cur) >= 2 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		if len(cur) == 0 {
			cur = append(cur, ring[i])
		}
		cur = append(cur, ring[i+1])
	}
	if len(cur) >= 2 {
		// A run reaching the ring's end continues its first run.
		if len(out) > 0 && !cut(0) && out[0][0] == cur[len(cur)-1] {
			out[0] = append(cur, out[0][1:]...)
		} else {
			out = append(out, cur)
		}
	}
	return out
}

// A Cut is how GL cuts a tile out of larger geometry: the features
// clipped to the tile's square grown by Buffer (a share of the tile) on
// each side, their points rounded to a grid of Grid units a tile side. GL
// JS 6 does not stretch a vector tile past its source's maxzoom: it cuts
// the source's deepest tile into real tiles of the view's zoom (up to
// SlicedMaxZoom, past which those are stretched) as Sliced does; GeoJSON
// is cut into tiles of the view's zoom with the source's buffer. A line
// drawn from such a tile counts its distance, and so its dash and pattern
// phase, from where that tile cut it; a ring its walls' edge distance.
type Cut struct{ Buffer, Grid float64 }

// Sliced is the cut of an overzoomed vector tile's children: a buffer of
// 128/4096 of the child, points on its 8192-unit grid as every tile's
// are.
var Sliced = Cut{Buffer: 128.0 / 4096, Grid: 8192}

// SliceZoom returns the zoom of the tiles a vector tile of zoom tz is cut
// into for a view at zoom; ok is false when the tile is drawn as it is (it
// is not overzoomed, or is stretched past slicedMaxZoom).
func SliceZoom(zoom float64, tz int) (z int, ok bool) {
	z = min(int(math.Floor(zoom)), max(tz, SlicedMaxZoom))
	return z, z > tz
}

// TileSquare returns the world square of tile t ([y, x, z]) grown by pad
// of its side on every side.
func TileSquare(t [3]int, pad float64) Box {
	n := math.Exp2(float64(t[2]))
	return Box{(float64(t[1]) - pad) / n, (float64(t[0]) - pad) / n, (float64(t[1]) + 1 + pad) / n, (float64(t[0]) + 1 + pad) / n}
}

// Tiles returns the tiles of zoom z inside tile t (the world for
// [0, 0, 0]) that GL cuts and draws a feature from: those whose square
// meets the world box view (the tiles in view) and whose buffered square
// meets the feature's box. ok is false when there are more than limit of
// them.
func (c Cut) Tiles(t [3]int, z int, view, feature Box, limit int) (out [][3]int, ok bool) {
	dz := z - t[2]
	if dz <= 0 || dz > 30 {
		return nil, false
	}
	n := math.Exp2(float64(z))
	k := 1 << dz
	span := func(vlo, vhi, flo, fhi float64, first int) (int, int) {
		a := int(max(float64(first), math.Floor(vlo*n), math.Floor(flo*n-c.Buffer)))
		b := int(min(float64(first+k-1), math.Floor(vhi*n), math.Floor(fhi*n+c.Buffer)))
		return a, b
	}
	x0, x1 := span(view.X0, view.X1, feature.X0, feature.X1, t[1]*k)
	y0, y1 := span(view.Y0, view.Y1, feature.Y0, feature.Y1, t[0]*k)
	if x1 < x0 || y1 < y0 {
		return nil, true
	}
	if (x1-x0+1)*(y1-y0+1) > limit {
		return nil, false
	}
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			out = append(out, [3]int{y, x, z})
		}
	}
	return out, true
}

// Parts cuts lines, or closed rings when rings is set, to the square of
// tile t grown by the buffer, and rounds their points to its grid: the
// geometry GL builds the tile's lines from.
func (c Cut) Parts(parts [][]orb.Point, t [3]int, rings bool) [][]orb.Point {
	b := TileSquare(t, c.Buffer)
	var out [][]orb.Point
	for _, p := range parts {
		if rings {
			if r, _ := clipRingBox(CloseRing(p), nil, b); len(r) > 0 {
				out = append(out, r)
			}
			continue
		}
		out = append(out, ClipLine(p, b)...)
	}
	for _, l := range out {
		c.snap(l, t)
	}
	return out
}

// Ring is Parts of one ring (closed or not), nil when none of it is in
// the tile's buffered square, with where each edge of the cut ring lies:
// from[i] is the index of the edge of ring (closed) that cut edge i runs
// along, -1 for an edge along the buffer's border.
func (c Cut) Ring(ring []orb.Point, t [3]int) (cut []orb.Point, from []int) {
	closed := CloseRing(ring)
	src := make([]int, len(closed)-1)
	for i := range src {
		src[i] = i
	}
	cut, from = clipRingBox(closed, src, TileSquare(t, c.Buffer))
	c.snap(cut, t)
	return cut, from
}

// clipRingBox clips a closed ring to a box, on x and then on y, carrying
// the edges' labels src (nil: none) as clipRingAxis does.
func clipRingBox(ring []orb.Point, src []int, b Box) ([]orb.Point, []int) {
	r, from := clipRingAxis(ring, src, b.X0, b.X1, 0)
	return clipRingAxis(r, from, b.Y0, b.Y1, 1)
}

// snap rounds points to the grid of tile t, halves upwards as GL rounds.
func (c Cut) snap(l []orb.Point, t [3]int) {
	n := math.Exp2(float64(t[2]))
	snap := func(v float64, first int) float64 {
		return (JSRound((v*n-float64(first))*c.Grid)/c.Grid + float64(first)) / n
	}
	for i, p := range l {
		l[i] = orb.Point{snap(p[0], t[1]), snap(p[1], t[0])}
	}
}

// OutsideEdge tells which edges of a ring cut from the sliced tile t
// ([y, x, z]) run along a line outside the tile's square, in its buffer:
// the cuts Parts and Ring made, and the feature's own edges there. GL builds
// no fill-extrusion wall on such an edge (the neighbouring tile holds the
// feature's own); an edge on the square's border keeps its wall.
func OutsideEdge(ring []orb.Point, t [3]int) func(i int) bool {
	b := TileSquare(t, 0)
	return func(i int) bool {
		p, q := ring[i], ring[(i+1)%len(ring)]
		return p[0] == q[0] && (p[0] < b.X0 || p[0] > b.X1) || p[1] == q[1] && (p[1] < b.Y0 || p[1] > b.Y1)
	}
}

// clipRingAxis keeps the part of a closed ring (last point = first) whose
// coordinate on one axis (0: x, 1: y) lies within [lo, hi]. It walks the
// ring's edges once, in order from its first point: an edge's start is
// kept when inside, and every point where the edge passes a bound is added
// in the order the edge meets them. So the kept ring starts at the first
// point inside, or where the ring first comes in; a ring drawn as a line
// counts its distance from there. The result is closed again; nil when
// nothing is inside. Clipping on x and then on y clips to a box.
//
// src, when not nil, labels the ring's edges (src[i] for ring[i] to
// ring[i+1]); from labels the kept ring's edges alike: an edge keeps the
// label of the edge it runs along, and one along a bound, from where the
// ring leaves to where it comes back, gets -1.
//
// Written from the geometry of clipping a polygon to a slab; it does not
// follow any other renderer's code.
func clipRingAxis(ring []orb.Point, src []int, lo, hi float64, axis int) (out []orb.Point, from []int) {
	if len(ring) < 2 {
		return nil, nil
	}
	// at returns the point where the edge p-q has coordinate v.
	at := func(p, q orb.Point, v float64) orb.Point {
		t := (v - p[axis]) / (q[axis] - p[axis])
		r := orb.Point{p[0] + (q[0]-p[0])*t, p[1] + (q[1]-p[1])*t}
		r[axis] = v // exactly on the bound
		return r
	}
	label := func(i int) int { return src[i] }
	for i := 0; i+1 < len(ring); i++ {
		p, q := ring[i], ring[i+1]
		a, b := p[axis], q[axis]
		if a >= lo && a <= hi {
			out = append(out, p)
			if src != nil {
				from = append(from, label(i))
			}
		}
		// The bounds the edge crosses, nearer p first.
		first, second := lo, hi
		if a > b {
			first, second = hi, lo
		}
		for _, v := range [2]float64{first, second} {
			// Strictly between the ends: an end on the bound is kept as a
			// point of its own.
			if (a < v && v < b) || (b < v && v < a) {
				out = append(out, at(p, q, v))
				if src != nil {
					// Past lo going up, or past hi going down, the edge
					// comes in and the kept ring runs along it.
					if (v == lo) == (b > a) {
						from = append(from, label(i))
					} else {
						from = append(from, -1)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return append(out, out[0]), from
}

// SlicedMaxZoom is the deepest zoom GL JS 6 cuts a vector source's tiles
// to: the map's default maximum zoom (22) less its default
// zoomLevelsToOverscale (4). Beyond the source's maxzoom and up to it, GL
// slices the source's deepest tile into tiles of the view's zoom instead
// of overscaling it; past it the sliced tiles are overscaled.
const SlicedMaxZoom = 22 - 4

// RingArea returns twice the signed area of a ring in world coordinates
// (y down): positive when it turns clockwise on the screen.
func RingArea(r []orb.Point) float64 {
	a := 0.0
	for i := range r {
		p, q := r[i], r[(i+1)%len(r)]
		a += p[0]*q[1] - q[0]*p[1]
	}
	return a
}
