package render

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

// Line geometry as GL builds it: a triangle strip along the line, two
// vertices at each point extruded to either side, with joins and caps made
// of extra vertex pairs. The shader then shades each fragment by its
// interpolated normal, so the joins' exact triangles decide the picture
// (and overlapping triangles blend twice).

// lineShape is how a line's points are joined and its ends capped.
type lineShape struct {
	join       string  // miter, bevel, round
	cap        string  // butt, round, square
	miterLimit float64 // longest miter (in half widths) before a bevel
	roundLimit float64 // shortest miter drawn round rather than mitred
}

// sharpCornerPixels is how far from a sharp corner (in CSS pixels of the
// tile's zoom) GL adds a vertex pair so that the corner's texture does not
// stretch; overscaled tiles divide it by their overscaling.
const sharpCornerPixels = 15

// cosHalfSharpCorner is the cosine of half the turn past which a corner is
// sharp (75 degrees).
var cosHalfSharpCorner = math.Cos(75.0 / 2 * math.Pi / 180)

// lineBuilder accumulates the triangles of lines.
type lineBuilder struct {
	outset float64 // device pixels from the centre to the edge of the geometry
	offset float64 // device pixels the line shifts to its right
	// alongScale turns device pixels along the line into the distance
	// the shader counts: CSS pixels at the zoom's floor (GL measures
	// dashes and patterns in the tile's own pixels).
	alongScale float64
	tile       float64 // device pixels a tile unit (8192 units a tile)
	sharp      float64 // device pixels from a sharp corner to its extra vertex pair (0: none)

	tris   [][3]raster.LineVertex
	verts  []raster.LineVertex
	e1, e2 int     // the last vertex on each side of the strip, -1 for none
	along  float64 // distance so far, device pixels
	// walked is the distance before along last started again from zero;
	// progStart and progScale turn walked+along into the line's progress
	// (0 at its start, 1 at its end) for line-gradient; progScale 0
	// when the line has no gradient.
	walked, progStart, progScale float64
}

// vec is a 2D vector in device pixels (y down).
type vec struct{ x, y float64 }

func (a vec) add(b vec) vec             { return vec{a.x + b.x, a.y + b.y} }
func (a vec) sub(b vec) vec             { return vec{a.x - b.x, a.y - b.y} }
func (a vec) mul(k float64) vec         { return vec{a.x * k, a.y * k} }
func (a vec) dot(b vec) float64         { return a.x*b.x + a.y*b.y }
func (a vec) length() float64           { return math.Hypot(a.x, a.y) }
func (a vec) perp() vec                 { return vec{-a.y, a.x} }
func (a vec) dist(b vec) float64        { return a.sub(b).length() }
func (a vec) unit() vec                 { return a.mul(1 / a.length()) }
func (a vec) equals(b vec) bool         { return a.x == b.x && a.y == b.y }
func (a vec) cross(b vec) float64       { return a.x*b.y - a.y*b.x }
func (a vec) lerp(b vec, t float64) vec { return a.add(b.sub(a).mul(t)) }

// addHalf adds one vertex on one side of the strip: at p extruded by ext
// (in units of the outset); up is the side (the shader's normal y is 1 up,
// -1 down); round marks the far vertices of round caps and joins; dir is
// how far the vertex is shifted along the line (which turns its offset).
func (b *lineBuilder) addHalf(p vec, ext vec, round, up bool, dir float64) {
	ny := -1.0
	if up {
		ny = 1
	}
	nx := 0.0
	if round {
		nx = 1
	}
	// The offset moves the vertex along its own extrusion, turned for the
	// vertices of round ends.
	u := 0.5 * dir
	t := 1 - math.Abs(u)
	o := ext.mul(-b.offset * ny)
	shift := vec{t*o.x - u*o.y, u*o.x + t*o.y}
	// GL stores the extrusion in a byte, 63 a unit, and the distance in
	// 14 bits of 2 tile units.
	q := vec{math.Round(ext.x*63) / 63, math.Round(ext.y*63) / 63}
	pos := p.add(q.mul(b.outset)).add(shift)
	along := math.Mod(math.Floor(b.along/b.tile/2)*2, 1<<15) * b.tile * b.alongScale
	v := raster.LineVertex{X: pos.x, Y: pos.y, NX: nx, NY: ny, Along: along}
	if b.progScale != 0 {
		v.Progress = b.progStart + (b.walked+b.along)*b.progScale
	}
	b.verts = append(b.verts, v)
	e3 := len(b.verts) - 1
	if b.e1 >= 0 && b.e2 >= 0 {
		b.tris = append(b.tris, [3]raster.LineVertex{b.verts[b.e1], b.verts[b.e2], b.verts[e3]})
	}
	if up {
		b.e2 = e3
	} else {
		b.e1 = e3
	}
}

// addPair adds the two vertices at p: normal n extruded to either side,
// each shifted along the line by endLeft and endRight half widths. Past
// maxLineDistance tile units the distance starts again from zero at the
// pair just added (which is added again there), as GL's 14 bits of
// distance would otherwise overflow.
func (b *lineBuilder) addPair(p, n vec, endLeft, endRight float64, round bool) {
	b.addHalf(p, vec{n.x + n.y*endLeft, n.y - n.x*endLeft}, round, false, endLeft)
	b.addHalf(p, vec{-n.x + n.y*endRight, -n.y - n.x*endRight}, round, true, -endRight)
	if b.along > maxLineDistance*b.tile {
		b.walked += b.along
		b.along = 0
		b.addPair(p, n, endLeft, endRight, round)
	}
}

// maxLineDistance is the distance, in tile units, at which GL starts a
// line's distance again from zero.
const maxLineDistance = 1 << 14

// add builds the geometry of one line (device pixels); closed lines are
// polygon rings whose last point repeats the first.
func (b *lineBuilder) add(pts []raster.Point, s lineShape, closed bool) {
	n := len(pts)
	for n >= 2 && pts[n-1] == pts[n-2] {
		n--
	}
	first := 0
	for first < n-1 && pts[first] == pts[first+1] {
		first++
	}
	if closed && n-first < 3 || n-first < 2 {
		return
	}
	v := func(i int) vec { return vec{pts[i].X, pts[i].Y} }
	miterLimit := s.miterLimit
	if s.join == "bevel" {
		miterLimit = 1.05
	}
	b.e1, b.e2 = -1, -1
	b.verts = b.verts[:0]
	b.along, b.walked = 0, 0

	var cur, prev vec
	var hasCur, hasPrev bool
	var prevNormal, nextNormal vec
	var hasNextNormal bool
	if closed {
		cur, hasCur = v(n-2), true
		nextNormal, hasNextNormal = v(first).sub(cur).unit().perp(), true
	}
	for i := first; i < n; i++ {
		var next vec
		hasNext := true
		switch {
		case i < n-1:
			next = v(i + 1)
		case closed:
			next = v(first + 1)
		default:
			hasNext = false
		}
		if hasNext && v(i).equals(next) {
			continue
		}
		if hasNextNormal {
			prevNormal = nextNormal
		}
		if hasCur {
			prev, hasPrev = cur, true
		}
		cur, hasCur = v(i), true
		if hasNext {
			nextNormal = next.sub(cur).unit().perp()
		} else {
			nextNormal = prevNormal
		}
		hasNextNormal = true
		if !hasPrev {
			prevNormal = nextNormal
		}

		joinNormal := prevNormal.add(nextNormal)
		// GL's integer tile coordinates make a reversal's normals cancel
		// exactly; in device pixels they leave rounding noise, which must
		// not be taken for a direction (it made spikes across the map).
		if joinNormal.length() > 1e-9 {
			joinNormal = joinNormal.unit()
		} else {
			joinNormal = vec{}
		}
		cosAngle := prevNormal.dot(nextNormal)
		cosHalf := joinNormal.dot(nextNormal)
		miterLength := math.Inf(1)
		if cosHalf != 0 {
			miterLength = 1 / cosHalf
		}
		sharp := cosHalf < cosHalfSharpCorner && hasPrev && hasNext
		turnsLeft := prevNormal.cross(nextNormal) > 0

		if sharp && i > first {
			if l := cur.dist(prev); b.sharp > 0 && l > 2*b.sharp {
				np := cur.sub(b.roundTile(cur.sub(prev).mul(b.sharp / l)))
				b.along += np.dist(prev)
				b.addPair(np, prevNormal, 0, 0, false)
				prev = np
			}
		}

		middle := hasPrev && hasNext
		join := s.join
		if !middle {
			join = s.cap
			if closed {
				join = "butt"
			}
		}
		if middle && join == "round" {
			if miterLength < s.roundLimit {
				join = "miter"
			} else if miterLength <= 2 {
				join = "fakeround"
			}
		}
		if join == "miter" && miterLength > miterLimit {
			join = "bevel"
		}
		if join == "bevel" {
			if miterLength > 2 {
				join = "flipbevel"
			}
			if miterLength < miterLimit {
				join = "miter"
			}
		}
		if hasPrev {
			b.along += cur.dist(prev)
		}

		switch join {
		case "miter":
			b.addPair(cur, joinNormal.mul(miterLength), 0, 0, false)
		case "flipbevel":
			var jn vec
			if miterLength > 100 {
				jn = nextNormal.mul(-1) // nearly parallel
			} else {
				dir := 1.0
				if turnsLeft {
					dir = -1
				}
				bevel := miterLength * prevNormal.add(nextNormal).length() / prevNormal.sub(nextNormal).length()
				jn = joinNormal.perp().mul(bevel * dir)
			}
			b.addPair(cur, jn, 0, 0, false)
			b.addPair(cur, jn.mul(-1), 0, 0, false)
		case "bevel", "fakeround":
			off := -math.Sqrt(miterLength*miterLength - 1)
			offA, offB := 0.0, off
			if turnsLeft {
				offA, offB = off, 0
			}
			if hasPrev {
				b.addPair(cur, prevNormal, offA, offB, false)
			}
			if join == "fakeround" {
				// A fan of slices around the inner corner, about one a 20
				// degrees of turn.
				angle := math.Acos(max(-1, min(1, cosAngle)))
				steps := int(math.Round(angle * 180 / math.Pi / 20))
				side := 1.0
				if turnsLeft {
					side = -1
				}
				for m := 1; m < steps; m++ {
					ext := slerp(prevNormal, nextNormal, angle, float64(m)/float64(steps)).mul(side)
					b.addHalf(cur, ext, false, turnsLeft, 0)
				}
			}
			if hasNext {
				b.addPair(cur, nextNormal, -offA, -offB, false)
			}
		case "butt":
			b.addPair(cur, joinNormal, 0, 0, false)
		case "square":
			end := -1.0
			if hasPrev {
				end = 1
			}
			b.addPair(cur, joinNormal, end, end, false)
		case "round":
			if hasPrev {
				b.addPair(cur, prevNormal, 0, 0, false)
				b.addPair(cur, prevNormal, 1, 1, true)
				b.e1, b.e2 = -1, -1
			}
			if hasNext {
				b.e1, b.e2 = -1, -1
				b.addPair(cur, nextNormal, -1, -1, true)
				b.addPair(cur, nextNormal, 0, 0, false)
			}
		}

		if sharp && i < n-1 {
			if l := cur.dist(next); b.sharp > 0 && l > 2*b.sharp {
				nc := cur.add(b.roundTile(next.sub(cur).mul(b.sharp / l)))
				b.along += nc.dist(cur)
				b.addPair(nc, nextNormal, 0, 0, false)
				cur = nc
			}
		}
	}
}

// setTile sets the device pixels of one unit of the 8192-unit tile the
// lines come in, and with it how far from a sharp corner its extra vertex
// pair goes, for a view at zoom and pixel ratio: past 16 times overscaled
// GL adds no vertex pairs at sharp corners.
func (b *lineBuilder) setTile(unit, zoom, ratio float64) {
	b.tile = unit
	b.sharp = 0
	if over := unit * 8192 / 512 / ratio / math.Exp2(zoom-math.Floor(zoom)); over <= 16 {
		b.sharp = sharpCornerPixels * unit * 8192 / 512 / over
	}
}

// roundTile rounds a vector to whole tile units, as GL's integer tile
// coordinates are.
func (b *lineBuilder) roundTile(v vec) vec {
	return vec{math.Round(v.x/b.tile) * b.tile, math.Round(v.y/b.tile) * b.tile}
}

// slerp turns unit vector a towards b (angle apart) by the share t of the
// angle.
func slerp(a, b vec, angle, t float64) vec {
	if angle < 1e-9 {
		return a
	}
	s := math.Sin(angle)
	ka, kb := math.Sin((1-t)*angle)/s, math.Sin(t*angle)/s
	return a.mul(ka).add(b.mul(kb)).unit()
}
