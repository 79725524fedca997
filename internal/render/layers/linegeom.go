package layers

// Line tessellation: the points of a line become triangles whose vertices
// carry the normal the line shader shades by (raster.LineVertex).
//
// Written from the style specification (line-join, line-cap,
// line-miter-limit, line-round-limit, line-offset), the render tests'
// images and the geometry of a stroked polyline; it follows no other
// renderer's code. Where pixel parity with GL needs one of its numbers the
// number is kept and its comment says so: the 1/63 steps an extrusion is
// stored in, the 75 degree turn past which a corner is sharp and the 15
// pixels from it where an extra rung goes, the 2^14 tile units after which
// the distance along a line starts again, and how the shader turns a
// vertex's extrusion into its share of line-offset.
//
// The stroke is a ribbon with a right and a left side (of the direction of
// travel, y down). Every vertex lies on one side and closes a triangle with
// the last vertex of each side, so a rung (one vertex per side) adds the
// quad back to the previous rung, and a lone vertex on one side fans about
// the other side's last vertex. Each point of the line adds a rung; a join
// adds its extra vertices on the outer side of the turn only.

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

// lineShape is how a line's points are joined and its ends capped.
type lineShape struct {
	join       string  // miter, bevel, round
	cap        string  // butt, round, square
	miterLimit float64 // longest miter (in half widths) before a bevel
	roundLimit float64 // shortest miter drawn round rather than mitred
}

const (
	// extrusionSteps: GL stores a vertex's extrusion in steps of 1/63 of
	// the half width (kept for parity).
	extrusionSteps = 63
	// maxLineDistance is the distance, in tile units, after which GL
	// counts a line's distance from zero again (its vertex format holds
	// no more; kept for parity).
	maxLineDistance = 1 << 14
	// distanceStep is the resolution, in tile units, of the distance
	// along a line GL's vertex format holds (kept for parity).
	distanceStep = 2
	// distanceSteps is how many steps of distance GL's vertex format
	// holds (kept for parity).
	distanceSteps = 1 << 14
	// sharpCornerPixels is how far (CSS pixels of a tile that is not
	// overscaled) from a sharp corner GL adds an extra rung on each side,
	// so that dashes and patterns do not stretch over the corner (kept
	// for parity).
	sharpCornerPixels = 15
	// bevelReach is the longest inner miter (in half widths) a bevel or
	// round join meets its inner side at: sharper turns join otherwise
	// (lineReach counts on it).
	bevelReach = 2
	// shallowBevel is the miter length (half widths) under which GL
	// draws a bevel as a miter (kept for parity).
	shallowBevel = 1.05
	// nearReversal is the miter length (half widths) past which GL
	// treats a turn as going straight back (kept for parity).
	nearReversal = 100
	// roundStep is the turn (radians) one triangle of a round join's fan
	// covers, about: see fanTriangles.
	roundStep = 20 * math.Pi / 180
)

// sharpTurnCos is the cosine of half of the 75 degree turn past which GL
// treats a corner as sharp (kept for parity).
var sharpTurnCos = math.Cos(75.0 / 2 * math.Pi / 180)

// lineBuilder accumulates the triangles of lines.
type lineBuilder struct {
	outset float64 // device pixels from the centre to the edge of the geometry
	offset float64 // device pixels the line shifts to its right
	// alongScale turns device pixels along the line into the distance
	// the shader counts: CSS pixels at the zoom's floor (GL measures
	// dashes and patterns in the tile's own pixels).
	alongScale float64
	tile       float64 // device pixels a tile unit (8192 units a tile)
	sharp      float64 // device pixels from a sharp corner to its extra rung (0: none)
	// progStart and progScale turn the distance walked along the line
	// into its progress (0 at its start, 1 at its end) for
	// line-gradient; progScale 0 when the line has no gradient.
	progStart, progScale float64

	tris  [][3]raster.LineVertex
	verts []raster.LineVertex // the current line's

	tail  [2]int         // index in verts of the last vertex on the right (0) and left (1) side, -1: none
	dist  float64        // device pixels along the line since the distance last started from zero
	done  float64        // device pixels walked before that
	path  []raster.Point // the current line's distinct points, when it repeats one
	stops []stop         // the current line's stops
}

// vec is a 2D vector in device pixels (y down).
type vec struct{ x, y float64 }

func (a vec) add(b vec) vec       { return vec{a.x + b.x, a.y + b.y} }
func (a vec) sub(b vec) vec       { return vec{a.x - b.x, a.y - b.y} }
func (a vec) mul(k float64) vec   { return vec{a.x * k, a.y * k} }
func (a vec) dot(b vec) float64   { return a.x*b.x + a.y*b.y }
func (a vec) cross(b vec) float64 { return a.x*b.y - a.y*b.x }
func (a vec) length() float64     { return math.Hypot(a.x, a.y) }

// right is the unit vector a quarter turn clockwise on screen (y down)
// from the unit direction a: the right-hand side of travel.
func (a vec) right() vec { return vec{-a.y, a.x} }

// turned is a turned by angle (radians, positive clockwise on screen).
func (a vec) turned(angle float64) vec {
	s, c := math.Sincos(angle)
	return vec{a.x*c - a.y*s, a.x*s + a.y*c}
}

// setTile sets the device pixels of one unit of the 8192-unit tile the
// lines come in, and with it how far from a sharp corner its extra rung
// goes, for a view at zoom and pixel ratio. A tile of zoom z is drawn
// 512*2^(zoom-z) CSS pixels wide; it is overscaled 2^(floor(zoom)-z)
// times, and the 15 pixels shrink with that; past 16 times overscaled GL
// adds no extra rungs (kept for parity).
func (b *lineBuilder) setTile(unit, zoom, ratio float64) {
	b.tile = unit
	tilePx := unit * 8192 / ratio                                // CSS pixels of the tile's side
	overscale := tilePx / 512 / math.Exp2(zoom-math.Floor(zoom)) // 2^(floor(zoom)-z)
	b.sharp = 0
	if overscale <= 16 {
		// 15 CSS pixels of the tile at its own scale, in tile units
		// (8192 units to 512 pixels), then device pixels.
		b.sharp = sharpCornerPixels * (8192 / 512) / overscale * unit
	}
}

// put adds one vertex at the line's point p extruded by e (half widths)
// on side (+1 right, -1 left). round marks the far vertices of a round
// cap; along is how far e reaches along the line (half widths) beyond
// the side's normal, which turns the vertex's share of the offset.
func (b *lineBuilder) put(p, e vec, side float64, round bool, along float64) {
	// Stored as GL's vertex format holds it.
	e = vec{scene.JSRound(e.x*extrusionSteps) / extrusionSteps, scene.JSRound(e.y*extrusionSteps) / extrusionSteps}
	at := p.add(e.mul(b.outset))
	if b.offset != 0 {
		// GL's shader shifts a vertex by the offset times its extrusion
		// turned back by half its reach along the line (and shrunk with
		// it), so that the vertices of a cap move as the line's normal
		// does (kept for parity).
		u := side * along / 2
		t := 1 - math.Abs(u)
		at = at.add(vec{t*e.x - u*e.y, u*e.x + t*e.y}.mul(b.offset * side))
	}
	v := raster.LineVertex{X: at.x, Y: at.y, NY: -side, Along: b.along()}
	if round {
		v.NX = 1
	}
	if b.progScale != 0 {
		v.Progress = b.progStart + (b.done+b.dist)*b.progScale
	}
	b.link(v)
}

// along is the distance the shader counts at the current point: GL's
// vertex format holds it in whole steps of two tile units, rounded down,
// and in 14 bits of them, so that a point more than 2^15 units from where
// the distance last started wraps round (kept for parity).
func (b *lineBuilder) along() float64 {
	d := b.dist
	if b.tile > 0 {
		steps := math.Mod(math.Floor(d/b.tile/distanceStep), distanceSteps)
		d = steps * distanceStep * b.tile
	}
	return d * b.alongScale
}

// link appends v to the ribbon on its side (NY), closing a triangle with
// the last vertex of each side.
func (b *lineBuilder) link(v raster.LineVertex) {
	s := 0
	if v.NY > 0 {
		s = 1
	}
	if b.tail[0] >= 0 && b.tail[1] >= 0 {
		b.tris = append(b.tris, [3]raster.LineVertex{b.verts[b.tail[0]], b.verts[b.tail[1]], v})
	}
	b.tail[s] = len(b.verts)
	b.verts = append(b.verts, v)
}

// rung adds a vertex on each side of p: the right one extruded by e, the
// left one by -e.
func (b *lineBuilder) rung(p, e vec) {
	b.put(p, e, 1, false, 0)
	b.put(p, e.mul(-1), -1, false, 0)
}

// end adds a line's cap at p, whose segment runs in direction d (away
// from the line at its start, start set) with normal n.
func (b *lineBuilder) end(p, d vec, cap string, start bool) {
	n := d.right()
	// out reaches one half width past the end, away from the line.
	out, reach := d, 1.0
	if start {
		out, reach = d.mul(-1), -1
	}
	switch cap {
	case "square":
		b.put(p, n.add(out), 1, false, reach)
		b.put(p, n.mul(-1).add(out), -1, false, reach)
	case "round":
		// The far rung's normals have length sqrt 2 at its corners and
		// 1 at its middle: the shader rounds the end.
		if !start {
			b.rung(p, n)
			b.restartPast()
		}
		b.put(p, n.add(out), 1, true, reach)
		b.put(p, n.mul(-1).add(out), -1, true, reach)
		if start {
			b.rung(p, n)
		}
	default: // butt
		b.rung(p, n)
	}
	if !start && cap != "round" {
		b.restartPast()
	}
}

// joinAt returns the join drawn at a corner whose miter is ml half widths
// long. A round join stays round unless the corner is shallower than
// line-round-limit; a miter join, or a round one too shallow, is mitred
// while the miter is no longer than line-miter-limit and bevelled past
// it. A bevel join is bevelled, except that GL mitres a nearly straight
// corner (miter under 1.05, a number of its own, not a property; kept for
// parity). GL's pictures show that exception for line-join bevel only: a
// miter demoted by a line-miter-limit under 1.05 is bevelled however
// shallow the corner.
func (s lineShape) joinAt(ml float64) string {
	switch {
	case s.join == "round" && !(ml < s.roundLimit):
		return "round"
	case s.join == "bevel":
		if ml < shallowBevel {
			return "miter"
		}
		return "bevel"
	case ml <= s.miterLimit:
		return "miter"
	}
	return "bevel"
}

// join adds the vertices at p where a segment in direction in turns into
// one in direction out (unit vectors).
func (b *lineBuilder) join(p, in, out vec, s lineShape) {
	// The turn, positive clockwise on screen (to the right).
	turn := math.Atan2(in.cross(out), in.dot(out))
	half := math.Cos(turn / 2)
	nIn, nOut := in.right(), out.right()
	// miter is the unit bisector of the two normals: the join's outer
	// corner lies on it, 1/half half widths out.
	miter := nIn.turned(turn / 2)
	kind := s.joinAt(1 / half)
	// The distance starts again, if it must, once the incoming segment
	// has its last rung.
	if kind == "miter" {
		b.rung(p, miter.mul(1/half))
		b.restartPast()
		return
	}
	if 1/half > bevelReach {
		// A turn of more than 120 degrees: the inner miter point lies
		// too far. A round join caps both segments round; a bevel ends
		// both on the line through p across the turn's bisector, where
		// their edges meet it, the outgoing segment's sides swapped.
		if kind == "round" {
			b.end(p, in, "round", false)
			b.tail = [2]int{-1, -1} // two strips: nothing joins the caps
			b.end(p, out, "round", true)
			return
		}
		across := nOut.sub(nIn)
		across = across.mul(1 / (across.length() * math.Abs(math.Sin(turn/2))))
		if 1/half > nearReversal {
			// The line turns straight back: the outgoing segment's
			// normal (GL's choice past a miter of 100, kept for parity).
			across = nOut
		}
		if across.dot(nIn) < 0 {
			across = across.mul(-1)
		}
		b.rung(p, across)
		b.restartPast()
		b.rung(p, across.mul(-1))
		return
	}
	// The outer side is the left one of a right turn. The inner side of
	// both segments ends at the miter point; the outer side is cut
	// straight across (bevel) or fans about p (round).
	outer := 1.0
	if turn > 0 {
		outer = -1
	}
	// The rung ending the incoming segment, right side first as every
	// rung.
	if outer > 0 {
		b.put(p, nIn, 1, false, 0)
		b.put(p, miter.mul(-1/half), -1, false, 0)
	} else {
		b.put(p, miter.mul(1/half), 1, false, 0)
		b.put(p, nIn.mul(-1), -1, false, 0)
	}
	b.restartPast()
	if kind == "round" {
		steps := fanTriangles(nIn, miter, nOut)
		for k := 1.0; k < steps; k++ {
			b.put(p, nIn.turned(turn*k/steps).mul(outer), outer, false, 0)
		}
	}
	b.put(p, nOut.mul(outer), outer, false, 0)
}

// fanTriangles returns how many triangles the fan of a round join has,
// given the unit normals of the segments in and out and the unit bisector
// between them: the nearest whole number of roundStep in the length of
// the outline from one normal's tip to the bisector's and on to the
// other's (two chords of the unit circle; 4 sin(turn/4), a little short of
// the turn itself). Read from GL's pictures of wide round joins (80 and
// 160 pixels, turns of 40 to 120 degrees, facets counted by fitting the
// outline): GL adds a triangle at turns of about 50.4, 71.1, 92.5 and
// 114.7 degrees (observed between 50.25 and 50.5, 71 and 71.25, 92.25 and
// 92.5, 114.5 and 114.75), the same for both widths, where the nearest
// whole number of 20 degree steps in the turn would add it at 50, 70, 90
// and 110.
func fanTriangles(nIn, miter, nOut vec) float64 {
	outline := nIn.sub(miter).length() + miter.sub(nOut).length()
	return scene.JSRound(outline / roundStep)
}

// add builds the geometry of one line (device pixels); closed lines are
// polygon rings whose last point repeats the first.
func (b *lineBuilder) add(pts []raster.Point, s lineShape, closed bool) {
	// The line's distinct points: a point repeated is one point. Most
	// lines repeat none and are read as they are.
	path := pts
	for i := 1; i < len(pts); i++ {
		if pts[i] == pts[i-1] {
			path = b.path[:0]
			for k, q := range pts {
				if k == 0 || q != pts[k-1] {
					path = append(path, q)
				}
			}
			b.path = path
			break
		}
	}
	n := len(path)
	if n < 2 {
		return
	}
	closed = closed && n >= 3 && path[0] == path[n-1]
	b.verts = b.verts[:0]
	b.tail = [2]int{-1, -1}
	b.dist, b.done = 0, 0
	from := vec{path[0].X, path[0].Y}
	if closed {
		from = vec{path[n-2].X, path[n-2].Y}
	}
	if want := 3 * n; cap(b.stops) < want {
		// At most three stops a point; kept for the next lines.
		b.stops = make([]stop, 0, max(want, 256))
	}
	b.stops = b.planStops(b.stops[:0], path, closed)
	for _, st := range b.stops {
		if st.start {
			b.end(st.p, st.out, s.cap, true)
			continue
		}
		b.dist += st.p.sub(from).length()
		from = st.p
		switch {
		case st.straight:
			b.rung(st.p, st.in.right())
			b.restartPast()
		case st.end:
			b.end(st.p, st.in, s.cap, false)
		default:
			b.join(st.p, st.in, st.out, s)
		}
	}
}

// stop is a place where a line's tessellation adds vertices: one of its
// points, or an extra point on a straight stretch by a sharp corner.
type stop struct {
	p       vec
	in, out vec  // unit directions of the segments into and out of p
	start   bool // the line's first point: a cap, out set
	end     bool // its last point: a cap, in set
	// straight marks a point added on a segment of direction in: it takes
	// a plain rung across the line.
	straight bool
}

// planStops appends to dst the stops of a line of distinct points, in
// order; a ring (closed) joins its last point to its first. Sharp
// corners get a straight stop sharp pixels before and after them (at a
// whole tile unit), so that dashes and patterns do not stretch over the
// corner, where the segment is long enough: longer than twice that from
// the previous stop, and than twice that to the next point.
func (b *lineBuilder) planStops(dst []stop, path []raster.Point, closed bool) []stop {
	n := len(path)
	at := func(i int) vec { return vec{path[i].X, path[i].Y} }
	// unit returns the direction from point i to point j and its length.
	unit := func(i, j int) (vec, float64) {
		d := at(j).sub(at(i))
		l := d.length()
		return d.mul(1 / l), l
	}
	// from is the last stop: a ring counts its closing edge before its
	// first point.
	from := at(0)
	if closed {
		from = at(n - 2)
	}
	for i := range path {
		st := stop{p: at(i), start: i == 0 && !closed, end: i == n-1 && !closed}
		var outLen float64
		switch {
		case i > 0:
			st.in, _ = unit(i-1, i)
		case closed:
			st.in, _ = unit(n-2, 0)
		}
		switch {
		case i < n-1:
			st.out, outLen = unit(i, i+1)
		case closed:
			st.out, outLen = unit(0, 1)
		}
		if st.start {
			dst = append(dst, st)
			continue
		}
		sharp := !st.end && b.sharp > 0 && st.in.dot(st.out) < 2*sharpTurnCos*sharpTurnCos-1
		if back := st.p.sub(from).length(); sharp && i > 0 && back > 2*b.sharp {
			q := st.p.add(b.tileRound(from.sub(st.p).mul(b.sharp / back)))
			dst = append(dst, stop{p: q, in: st.in, straight: true})
		}
		dst = append(dst, st)
		from = st.p
		if sharp && i < n-1 && outLen > 2*b.sharp {
			q := st.p.add(b.tileRound(st.out.mul(b.sharp)))
			dst = append(dst, stop{p: q, in: st.out, straight: true})
			from = q
		}
	}
	return dst
}

// restartPast counts the line's distance from zero again at its last rung,
// which is added again with the new distance, once it is past
// maxLineDistance.
func (b *lineBuilder) restartPast() {
	if b.tile <= 0 || b.dist <= maxLineDistance*b.tile {
		return
	}
	b.done += b.dist
	b.dist = 0
	l, r := b.verts[b.tail[1]], b.verts[b.tail[0]]
	first, second := r, l
	if b.tail[1] < b.tail[0] {
		first, second = l, r
	}
	for _, v := range [2]raster.LineVertex{first, second} {
		v.Along = 0
		if b.progScale != 0 {
			v.Progress = b.progStart + b.done*b.progScale
		}
		b.link(v)
	}
}

// tileRound rounds a vector to whole tile units, as GL's integer tile
// coordinates are.
func (b *lineBuilder) tileRound(v vec) vec {
	if b.tile <= 0 {
		return v
	}
	return vec{scene.JSRound(v.x/b.tile) * b.tile, scene.JSRound(v.y/b.tile) * b.tile}
}
