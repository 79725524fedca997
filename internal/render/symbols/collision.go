package symbols

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

// collisionBox is an axis-aligned box on screen, device pixels.
//
// A circle (GL's collision circles of labels along lines) is its bounding
// square with circle set: its centre is the square's, its radius half its
// side.
type collisionBox struct {
	x0, y0, x1, y1 float64
	circle         bool
}

// circleBox returns the collision circle about (x, y).
func circleBox(x, y, r float64) collisionBox {
	return collisionBox{x - r, y - r, x + r, y + r, true}
}

func (b collisionBox) overlaps(o collisionBox) bool {
	if !(b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1) {
		return false // the bounds are apart
	}
	switch {
	case b.circle && o.circle:
		// Closer than the sum of the radii.
		dx, dy := (b.x0+b.x1-o.x0-o.x1)/2, (b.y0+b.y1-o.y0-o.y1)/2
		rr := (b.x1 - b.x0 + o.x1 - o.x0) / 2
		return dx*dx+dy*dy < rr*rr
	case b.circle:
		return circleMeetsBox(b, o)
	case o.circle:
		return circleMeetsBox(o, b)
	}
	return true
}

// circleMeetsBox reports whether a circle whose bounds meet a box's meets
// the box: its centre is over or beside the box, or a corner of the box
// is within its radius.
func circleMeetsBox(c, b collisionBox) bool {
	cx, cy, r := (c.x0+c.x1)/2, (c.y0+c.y1)/2, (c.x1-c.x0)/2
	dx := max(b.x0-cx, 0, cx-b.x1) // from the centre to the box, across
	dy := max(b.y0-cy, 0, cy-b.y1)
	return dx*dx+dy*dy <= r*r
}

// boxAround returns the collision box of a symbol part: the box (x0, y0,
// x1, y1) in CSS pixels around the anchor, rotated by angle (the bounds of
// the rotated box), grown by pad CSS pixels, in device pixels and shifted
// by the translation (tx, ty) device pixels.
func boxAround(a raster.Point, tx, ty, x0, y0, x1, y1, pad, ratio, angle float64) collisionBox {
	if angle != 0 {
		x0, y0, x1, y1 = turnedBounds(x0, y0, x1, y1, angle)
	}
	cx, cy := a.X+tx, a.Y+ty
	return collisionBox{x0: cx + (x0-pad)*ratio, y0: cy + (y0-pad)*ratio, x1: cx + (x1+pad)*ratio, y1: cy + (y1+pad)*ratio}
}

// collisionGrid is the collision index of one view: the boxes placed so
// far, bucketed in square cells. It covers the view and a margin around it.
type collisionGrid struct {
	x0, y0, x1, y1 float64 // the area covered
	cell           float64
	cols, rows     int
	cells          [][]int32
	boxes          []collisionBox
	modes          []overlapMode // how each box's symbol was placed
}

func newCollisionGrid(w, h, margin float64) *collisionGrid {
	const cell = 64
	g := &collisionGrid{x0: -margin, y0: -margin, x1: w + margin, y1: h + margin, cell: cell}
	g.cols = int(math.Ceil((g.x1-g.x0)/cell)) + 1
	g.rows = int(math.Ceil((g.y1-g.y0)/cell)) + 1
	g.cells = make([][]int32, g.cols*g.rows)
	return g
}

// inside reports whether some of the boxes reach the covered area.
func (g *collisionGrid) inside(bs ...collisionBox) bool {
	for _, b := range bs {
		if b.x1 >= g.x0 && b.x0 <= g.x1 && b.y1 >= g.y0 && b.y0 <= g.y1 {
			return true
		}
	}
	return false
}

func (g *collisionGrid) span(b collisionBox) (c0, r0, c1, r1 int) {
	clampI := func(v float64, n int) int { return max(0, min(n-1, int(math.Floor(v)))) }
	return clampI((b.x0-g.x0)/g.cell, g.cols), clampI((b.y0-g.y0)/g.cell, g.rows),
		clampI((b.x1-g.x0)/g.cell, g.cols), clampI((b.y1-g.y0)/g.cell, g.rows)
}

// free reports whether boxes of a part placed with the overlap mode may
// be placed: with never, when they overlap none of the boxes placed; with
// cooperative, none placed with never; with always, whatever they overlap.
func (g *collisionGrid) free(mode overlapMode, bs ...collisionBox) bool {
	if mode == overlapAlways {
		return true
	}
	for _, b := range bs {
		if !g.free1(mode, b) {
			return false
		}
	}
	return true
}

func (g *collisionGrid) free1(mode overlapMode, b collisionBox) bool {
	c0, r0, c1, r1 := g.span(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			for _, i := range g.cells[r*g.cols+c] {
				if g.boxes[i].overlaps(b) && (mode == overlapNever || g.modes[i] == overlapNever) {
					return false
				}
			}
		}
	}
	return true
}

// insert adds the boxes of a part placed with the overlap mode.
func (g *collisionGrid) insert(mode overlapMode, bs ...collisionBox) {
	for _, b := range bs {
		g.insert1(mode, b)
	}
}

func (g *collisionGrid) insert1(mode overlapMode, b collisionBox) {
	i := int32(len(g.boxes))
	g.boxes = append(g.boxes, b)
	g.modes = append(g.modes, mode)
	c0, r0, c1, r1 := g.span(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			g.cells[r*g.cols+c] = append(g.cells[r*g.cols+c], i)
		}
	}
}

// turnedBounds is the bounding box of the box (x0, y0, x1, y1) turned by
// angle about the origin.
func turnedBounds(x0, y0, x1, y1, angle float64) (minX, minY, maxX, maxY float64) {
	sin, cos := math.Sincos(angle)
	minX, minY, maxX, maxY = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := c[0]*cos-c[1]*sin, c[0]*sin+c[1]*cos
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	return minX, minY, maxX, maxY
}
