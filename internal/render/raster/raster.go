// Package raster draws into a premultiplied RGBA8 canvas the way a GL
// renderer does: areas are sampled at pixel centres (a pixel belongs to a
// polygon when its centre does, the top-left rule deciding centres on an
// edge), coverage comes only from explicit antialiasing ramps, and every
// draw is blended as src + dst*(1-src.alpha) and rounded to 8 bits, as a
// GL framebuffer stores it.
//
// Shapes are first turned into a coverage mask (one byte a pixel, spans
// only where they are), then composited with one colour: overlapping parts
// of one shape are drawn once, as GL's stencil and depth tests do for a
// layer.
package raster

import (
	"image"
	"math"
)

// Canvas is a premultiplied RGBA8 image.
type Canvas struct {
	*image.RGBA
	// Budget, when not nil, bounds the drawing on the canvas: once it
	// says no, drawing calls return early, leaving the picture
	// unfinished.
	Budget *Budget
}

// NewCanvas returns a transparent canvas of w x h pixels.
func NewCanvas(w, h int) *Canvas {
	return &Canvas{RGBA: image.NewRGBA(image.Rect(0, 0, w, h))}
}

// Color is a straight-alpha colour with components in 0..1.
type Color struct{ R, G, B, A float64 }

// premul returns the colour premultiplied and scaled by opacity, in 0..255.
func (c Color) premul(opacity float64) (r, g, b, a float64) {
	a = c.A * opacity
	return c.R * a * 255, c.G * a * 255, c.B * a * 255, a * 255
}

// Fill blends c (with opacity) over the whole canvas.
func (cv *Canvas) Fill(c Color, opacity float64) {
	r, g, b, a := c.premul(opacity)
	if a <= 0 {
		return
	}
	pix := cv.Pix
	if !cv.Budget.Spend(len(pix) / 4) {
		return
	}
	if a >= 255 {
		// Opaque: every pixel becomes the colour (what blend gives, since
		// nothing of the old pixel remains), written by doubling copies.
		if len(pix) == 0 {
			return
		}
		pix[0], pix[1], pix[2], pix[3] = round8(r), round8(g), round8(b), 255
		for n := 4; n < len(pix); n *= 2 {
			copy(pix[n:], pix[:n])
		}
		return
	}
	for i := 0; i < len(pix); i += 4 {
		blend(pix[i:i+4], r, g, b, a)
	}
}

// BlendPremul composites a premultiplied colour (components in 0..1, as a
// GL fragment shader outputs them: each clamped to 0..1) over pixel x, y.
// Pixels outside the canvas are left alone.
func (cv *Canvas) BlendPremul(x, y int, r, g, b, a float64) {
	if !(image.Point{X: x, Y: y}).In(cv.Rect) {
		return
	}
	a = clamp01(a)
	if a <= 0 && r <= 0 && g <= 0 && b <= 0 {
		return
	}
	o := cv.PixOffset(x, y)
	blend(cv.Pix[o:o+4], clamp01(r)*255, clamp01(g)*255, clamp01(b)*255, a*255)
}

func clamp01(v float64) float64 {
	return max(0, min(1, v))
}

// blend composites a premultiplied colour (0..255 floats) over one pixel.
func blend(p []uint8, r, g, b, a float64) {
	k := 1 - a/255
	p[0] = round8(r + float64(p[0])*k)
	p[1] = round8(g + float64(p[1])*k)
	p[2] = round8(b + float64(p[2])*k)
	p[3] = round8(a + float64(p[3])*k)
}

func round8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// Mask is a coverage mask: one value in 0..1 a pixel, with the bounds of
// what was touched so that compositing walks only those rows. A mask that
// only Raise has written since it was empty (a fill's outline) also lists
// its covered pixels, which compositing and clearing then walk instead of
// the touched box.
type Mask struct {
	W, H   int
	Cov    []float32
	y0, y1 int // rows touched: [y0, y1)
	x0, x1 int // columns touched
	// list holds the index in Cov of each pixel Raise has covered,
	// complete unless dense; fills, strokes and discs make the mask dense
	// until the next Reset.
	list  []int32
	dense bool
	// Budget, when not nil, bounds the drawing into the mask, as a
	// canvas's does.
	Budget *Budget
}

// NewMask returns an empty mask of w x h.
func NewMask(w, h int) *Mask {
	return &Mask{W: w, H: h, Cov: make([]float32, w*h), y0: h, x0: w}
}

// Reset empties the mask for reuse.
func (m *Mask) Reset() {
	switch {
	case !m.dense:
		for _, i := range m.list {
			m.Cov[i] = 0
		}
	case m.y0 < m.y1:
		for y := m.y0; y < m.y1; y++ {
			clear(m.Cov[y*m.W+m.x0 : y*m.W+m.x1])
		}
	}
	m.list, m.dense = m.list[:0], false
	m.y0, m.y1, m.x0, m.x1 = m.H, 0, m.W, 0
}

func (m *Mask) touch(x0, x1, y int) {
	m.y0, m.y1 = min(m.y0, y), max(m.y1, y+1)
	m.x0, m.x1 = min(m.x0, x0), max(m.x1, x1)
}

// max sets the coverage of pixel x, y to at least v.
func (m *Mask) max(x, y int, v float32) {
	i := y*m.W + x
	if v > m.Cov[i] {
		m.Cov[i] = v
	}
}

// cover raises pixel x, y (inside the mask) to the antialiasing coverage
// cov, at most 1, reporting whether cov covers it at all.
func (m *Mask) cover(x, y int, cov float64) bool {
	if cov <= 0 {
		return false
	}
	m.max(x, y, float32(min(1, cov)))
	return true
}

// Raise sets the coverage of pixel x, y to at least v; pixels outside the
// mask are ignored.
func (m *Mask) Raise(x, y int, v float32) {
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return
	}
	m.touch(x, x+1, y)
	i := y*m.W + x
	if v > m.Cov[i] {
		if m.Cov[i] == 0 && !m.dense {
			m.list = append(m.list, int32(i))
		}
		m.Cov[i] = v
	}
}

// Composite blends colour c with opacity over the canvas where the mask
// covers it, each pixel at its coverage.
func (cv *Canvas) Composite(m *Mask, c Color, opacity float64) {
	r, g, b, a := c.premul(opacity)
	if a <= 0 || m.y0 >= m.y1 {
		return
	}
	// An opaque colour at full coverage replaces the pixel: the bytes are
	// computed once (what blend gives when nothing of the old pixel remains).
	solid := a >= 255
	sr, sg, sb := round8(r), round8(g), round8(b)
	pixel := func(x, y int, v float32) {
		o := cv.PixOffset(x, y)
		p := cv.Pix[o : o+4 : o+4]
		if solid && v >= 1 {
			p[0], p[1], p[2], p[3] = sr, sg, sb, 255
			return
		}
		fv := float64(v)
		blend(p, r*fv, g*fv, b*fv, a*fv)
	}
	if !m.dense {
		if !cv.Budget.Spend(len(m.list)) {
			return
		}
		for _, i := range m.list {
			if v := m.Cov[i]; v > 0 {
				pixel(int(i)%m.W, int(i)/m.W, v)
			}
		}
		return
	}
	for y := m.y0; y < m.y1; y++ {
		if !cv.Budget.Spend(m.x1 - m.x0) {
			return
		}
		row := m.Cov[y*m.W : (y+1)*m.W]
		for x := m.x0; x < m.x1; x++ {
			if v := row[x]; v > 0 {
				pixel(x, y, v)
			}
		}
	}
}

// Over lays top (premultiplied, the same size) over the canvas: each
// pixel becomes top + canvas*(1-top.alpha), rounded as blend rounds.
func (cv *Canvas) Over(top *Canvas) {
	dst, src := cv.Pix, top.Pix
	n := min(len(dst), len(src))
	for i := 0; i+3 < n; i += 4 {
		sa := src[i+3]
		switch {
		case sa == 0 && src[i]|src[i+1]|src[i+2] == 0:
			continue
		case sa == 255:
			copy(dst[i:i+4], src[i:i+4])
		default:
			blend(dst[i:i+4:i+4], float64(src[i]), float64(src[i+1]), float64(src[i+2]), float64(sa))
		}
	}
}

// Point is a position in canvas pixels (x right, y down).
type Point struct{ X, Y float64 }

// FillPolygon sets to 1 the pixels whose centres lie inside the rings by
// the even-odd rule (rings may be open or closed). A centre exactly on a
// left edge is inside, on a right edge outside.
func (m *Mask) FillPolygon(rings [][]Point) {
	m.dense = true
	polygonSpans(rings, m.W, m.H, m.Budget, func(y, x0, x1 int) {
		row := m.Cov[y*m.W:]
		for x := x0; x < x1; x++ {
			row[x] = 1
		}
		m.touch(x0, x1, y)
	})
}

// FillPolygon blends colour c with opacity over the pixels whose centres
// lie inside the rings, as Mask.FillPolygon and Composite do together,
// without the mask: the spans of one polygon do not overlap, so each
// pixel is blended once, at full coverage.
func (cv *Canvas) FillPolygon(rings [][]Point, c Color, opacity float64) {
	r, g, b, a := c.premul(opacity)
	if a <= 0 {
		return
	}
	solid := a >= 255
	sr, sg, sb := round8(r), round8(g), round8(b)
	W, H := cv.Rect.Dx(), cv.Rect.Dy()
	polygonSpans(rings, W, H, cv.Budget, func(y, x0, x1 int) {
		o := cv.PixOffset(x0, y)
		row := cv.Pix[o : o+4*(x1-x0)]
		for i := 0; i+3 < len(row); i += 4 {
			p := row[i : i+4 : i+4]
			if solid {
				p[0], p[1], p[2], p[3] = sr, sg, sb, 255
				continue
			}
			blend(p, r, g, b, a)
		}
	})
}

// polygonSpans calls span for each run of pixels x0..x1 (excluded) of row
// y, within w x h, whose centres lie inside the rings by the even-odd
// rule, rows top down and runs left to right; runs do not overlap. Each
// row spends its edges and its pixels from the budget; it stops when the
// budget does.
func polygonSpans(rings [][]Point, w, h int, budget *Budget, span func(y, x0, x1 int)) {
	minY, maxY := math.Inf(1), math.Inf(-1)
	edges := 0
	for _, r := range rings {
		edges += len(r)
		for _, p := range r {
			minY, maxY = min(minY, p.Y), max(maxY, p.Y)
		}
	}
	if math.IsInf(minY, 0) {
		return
	}
	y0 := max(0, int(math.Ceil(minY-0.5)))
	y1 := min(h, int(math.Ceil(maxY-0.5)))
	var buf [32]float64
	xs := buf[:0]
	for y := y0; y < y1; y++ {
		if !budget.Spend(edges) {
			return
		}
		cy := float64(y) + 0.5
		xs = xs[:0]
		for _, r := range rings {
			if len(r) == 0 {
				continue
			}
			// Each edge from a to b, the closing one first: sorted, the
			// crossings do not depend on the order.
			a := r[len(r)-1]
			for _, b := range r {
				if (a.Y <= cy) != (b.Y <= cy) {
					xs = append(xs, a.X+(cy-a.Y)*(b.X-a.X)/(b.Y-a.Y))
				}
				a = b
			}
		}
		sortFloats(xs)
		for i := 0; i+1 < len(xs); i += 2 {
			// Pixels whose centre x+0.5 lies in [xs[i], xs[i+1]).
			x0 := max(0, int(math.Ceil(xs[i]-0.5)))
			x1 := min(w, int(math.Ceil(xs[i+1]-0.5)))
			if x0 >= x1 {
				continue
			}
			if !budget.Spend(x1 - x0) {
				return
			}
			span(y, x0, x1)
		}
	}
}

func sortFloats(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Cap is how a line ends.
type Cap int

// The caps.
const (
	ButtCap Cap = iota
	RoundCap
	SquareCap
)

// Stroke adds to the mask a polyline of the given width: coverage is 1
// within half the width of the line and falls to 0 over the antialiasing
// ramp (blur, at least one pixel, centred on the edge), as GL draws line
// geometry. Joins are round; the ends have the cap asked (a butt end is
// cut sharp at the end point, as GL's line geometry is).
func (m *Mask) Stroke(line []Point, width, blur float64, c Cap) {
	if len(line) < 2 || width <= 0 {
		return
	}
	m.dense = true
	half := width / 2
	ramp := max(blur, 1)
	outer := half + ramp/2
	last := len(line) - 2
	for i := 0; i <= last; i++ {
		a, b := line[i], line[i+1]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		if l == 0 {
			continue
		}
		ux, uy := (b.X-a.X)/l, (b.Y-a.Y)/l
		x0 := max(0, int(math.Floor(min(a.X, b.X)-outer)))
		x1 := min(m.W, int(math.Ceil(max(a.X, b.X)+outer)))
		y0 := max(0, int(math.Floor(min(a.Y, b.Y)-outer)))
		y1 := min(m.H, int(math.Ceil(max(a.Y, b.Y)+outer)))
		for y := y0; y < y1; y++ {
			if !m.Budget.Spend(x1 - x0) {
				return
			}
			py := float64(y) + 0.5
			touched := false
			for x := x0; x < x1; x++ {
				px := float64(x) + 0.5
				t := (px-a.X)*ux + (py-a.Y)*uy           // along the segment
				d := math.Abs((px-a.X)*uy - (py-a.Y)*ux) // across it
				beyond := 0.0                            // past an end, along the line
				end := false                             // that end is the line's own end
				switch {
				case t < 0:
					beyond, end = -t, i == 0
				case t > l:
					beyond, end = t-l, i == last
				}
				dist := d
				if beyond > 0 {
					switch {
					case !end, c == RoundCap:
						dist = math.Hypot(beyond, d) // round join or cap
					case c == SquareCap:
						dist = max(d, beyond)
					default: // butt
						continue
					}
				}
				if m.cover(x, y, (outer-dist)/ramp) {
					touched = true
				}
			}
			if touched {
				m.touch(x0, x1, y)
			}
		}
	}
}

// Disc adds a filled circle of radius r at c with an antialiasing ramp of
// blur pixels (at least one) inside its edge.
func (m *Mask) Disc(c Point, r, blur float64) {
	if r <= 0 {
		return
	}
	m.dense = true
	ramp := max(blur, 1)
	x0 := max(0, int(math.Floor(c.X-r-1)))
	x1 := min(m.W, int(math.Ceil(c.X+r+1)))
	y0 := max(0, int(math.Floor(c.Y-r-1)))
	y1 := min(m.H, int(math.Ceil(c.Y+r+1)))
	for y := y0; y < y1; y++ {
		if !m.Budget.Spend(x1 - x0) {
			return
		}
		touched := false
		for x := x0; x < x1; x++ {
			d := math.Hypot(float64(x)+0.5-c.X, float64(y)+0.5-c.Y)
			if m.cover(x, y, (r-d)/ramp) {
				touched = true
			}
		}
		if touched {
			m.touch(x0, x1, y)
		}
	}
}

// smoothstep is GLSL's smoothstep(e0, e1, x).
func smoothstep(e0, e1, x float64) float64 {
	t := max(0, min(1, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

// Circle draws a circle the way GL's circle shader does, per pixel centre:
// e is the distance from c over the outer radius (radius + stroke); the
// edge fades over max(blur, one device pixel) of that unit with a
// smoothstep, and the fill turns into the stroke colour over the same
// width at the stroke's inner edge. Colours are premultiplied and scaled by
// their opacities, then blended like every draw.
//
// aa is the antialiasing width in units of the outer radius (0 for one
// device pixel): a tilted camera scales circles but not GL's ramp.
func (cv *Canvas) Circle(c Point, radius, stroke, blur, aa float64, fill, strokeColor Color, opacity, strokeOpacity float64) {
	outer := radius + stroke
	if outer <= 0 {
		return
	}
	if aa <= 0 {
		aa = 1 / outer // one device pixel
	}
	b := max(blur, aa)
	fr, fg, fb, fa := fill.premul(opacity)
	sr, sg, sb, sa := strokeColor.premul(strokeOpacity)
	inner := radius / outer
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	x0, x1 := max(0, int(math.Floor(c.X-outer))), min(w, int(math.Ceil(c.X+outer)))
	y0, y1 := max(0, int(math.Floor(c.Y-outer))), min(h, int(math.Ceil(c.Y+outer)))
	for y := y0; y < y1; y++ {
		if !cv.Budget.Spend((x1 - x0) * CostCircle) {
			return
		}
		for x := x0; x < x1; x++ {
			e := math.Hypot(float64(x)+0.5-c.X, float64(y)+0.5-c.Y) / outer
			if e >= 1 {
				continue
			}
			op := smoothstep(0, -b, e-1)
			ct := 0.0
			if stroke >= 0.01 {
				ct = smoothstep(-b, 0, e-inner)
			}
			mix := func(a, s float64) float64 { return op * (a*(1-ct) + s*ct) }
			o := cv.PixOffset(x, y)
			blend(cv.Pix[o:o+4], mix(fr, sr), mix(fg, sg), mix(fb, sb), mix(fa, sa))
		}
	}
}

// Hairline adds a closed ring's edges as GL draws fill outlines: one-pixel
// GL lines (one pixel a column for a mostly horizontal edge, one a row for
// a mostly vertical one, the pixel whose centre is nearest the edge, from
// the edge's start to just before its end), each pixel's coverage 1 -
// smoothstep(0, 1, distance) from the edge. Which pixels a line takes is
// decided on its ends snapped to the rasteriser's sub-pixel grid
// (SnapVertex); the distance that fades them is to the edge as given (the
// shader's position varying is not snapped). When skip is not nil, the
// edges i (from ring[i] to the next point) for which it is true are left
// out; when exact is not nil, the points i for which it is true are not
// snapped (points a clipping made, which lie on a longer edge GL draws
// between vertices of its own).
func (m *Mask) Hairline(ring []Point, skip, exact func(i int) bool) {
	m.HairlineDepth(ring, nil, skip, exact)
}

// subPixel is the number of steps a device pixel has in the grid GL's
// rasteriser snaps vertex positions to (4 bits of sub-pixel precision, as
// the headless Chromium MapLibre is observed in draws).
const subPixel = 16

// SnapVertex returns p rounded to the rasteriser's sub-pixel grid: a
// triangle or line covers the pixels its snapped vertices enclose.
func SnapVertex(p Point) Point {
	return Point{X: Snap(p.X), Y: Snap(p.Y)}
}

// Snap rounds a device-pixel coordinate to the rasteriser's sub-pixel grid.
func Snap(v float64) float64 { return math.Round(v*subPixel) / subPixel }

// HairlineDepth is Hairline for a ring seen through a tilted camera, w
// holding each vertex's relative depth (nil: none). GL's outline shader
// fades a pixel by its distance to the point its position varying gives
// there, and that varying is interpolated with perspective correction
// while the pixel steps evenly on screen: away from the vertices of a
// long edge running into the distance the two part, and the outline
// fades out.
func (m *Mask) HairlineDepth(ring []Point, w []float64, skip, exact func(i int) bool) {
	n := len(ring)
	for i := 0; i < n; i++ {
		if skip != nil && skip(i) {
			continue
		}
		j := (i + 1) % n
		a, b := ring[i], ring[j]
		sa, sb := a, b
		if exact == nil || !exact(i) {
			sa = SnapVertex(a)
		}
		if exact == nil || !exact(j) {
			sb = SnapVertex(b)
		}
		dx, dy := sb.X-sa.X, sb.Y-sa.Y
		if dx == 0 && dy == 0 {
			continue // no pixel's centre lies along it
		}
		e := hairEdge{a: a, nx: a.Y - b.Y, ny: b.X - a.X}
		if l := math.Sqrt(e.nx*e.nx + e.ny*e.ny); l > 0 {
			e.nx, e.ny = e.nx/l, e.ny/l
		}
		if w != nil && w[i] != w[j] {
			e.pe = &perspEdge{a: a, b: b, wa: w[i], wb: w[j]}
		}
		if math.Abs(dx) >= math.Abs(dy) {
			m.hairSpan(sa.X, sa.Y, sb.X, dy/dx, false, &e)
		} else {
			m.hairSpan(sa.Y, sa.X, sb.Y, dx/dy, true, &e)
		}
	}
}

// hairEdge is the edge a hairline fades its pixels by: through a, of unit
// normal (nx, ny), or seen through a tilted camera when pe is not nil.
type hairEdge struct {
	a      Point
	nx, ny float64
	pe     *perspEdge
}

// perspEdge is an edge between two screen points at depths wa and wb.
type perspEdge struct {
	a, b   Point
	wa, wb float64
}

// dist returns the distance from the pixel centre p to the point of the
// edge GL's perspective-correct interpolation gives at p's projection on
// the edge.
func (e *perspEdge) dist(p Point) float64 {
	dx, dy := e.b.X-e.a.X, e.b.Y-e.a.Y
	s := ((p.X-e.a.X)*dx + (p.Y-e.a.Y)*dy) / (dx*dx + dy*dy)
	s = max(0, min(1, s))
	t := (s / e.wb) / ((1-s)/e.wa + s/e.wb)
	return math.Hypot(e.a.X+t*dx-p.X, e.a.Y+t*dy-p.Y)
}

// hairRange narrows the pixels [c0, c1) of a hairline along its major axis
// to those whose pixel on the minor axis may lie in the mask: an edge of a
// tilted view's polygon may run thousands of pixels past the picture. The
// pixels left out are those Raise would ignore.
func (m *Mask) hairRange(c0, c1 int, u0, v0, slope float64, swap bool) (int, int) {
	major, minor := m.W, m.H
	if swap {
		major, minor = m.H, m.W
	}
	c0, c1 = max(c0, 0), min(c1, major)
	if slope == 0 || c0 >= c1 {
		return c0, c1
	}
	// v = v0 + (c+0.5-u0)*slope must lie in [-1, minor+1]: a margin of a
	// pixel on each side, beyond the rounding of v to its pixel.
	ca := (-1-v0)/slope + u0 - 0.5
	cb := (float64(minor)+1-v0)/slope + u0 - 0.5
	lo, hi := math.Min(ca, cb), math.Max(ca, cb)
	if lo > float64(c0) {
		c0 = int(math.Min(math.Floor(lo), float64(c1)))
	}
	if hi < float64(c1) {
		c1 = int(math.Max(math.Ceil(hi)+1, float64(c0)))
	}
	return c0, c1
}

// hairSpan draws a line along its major axis u from u0 (included) to u1
// (excluded), the minor axis at v0 at u0 and changing by slope a unit;
// each pixel fades by its distance to e. swap says the major axis is y.
func (m *Mask) hairSpan(u0, v0, u1, slope float64, swap bool, e *hairEdge) {
	var c0, c1 int // pixels whose centres lie from u0 towards u1
	if u1 > u0 {
		c0, c1 = int(math.Ceil(u0-0.5)), int(math.Ceil(u1-0.5))
	} else {
		c0, c1 = int(math.Floor(u1-0.5))+1, int(math.Floor(u0-0.5))+1
	}
	c0, c1 = m.hairRange(c0, c1, u0, v0, slope, swap)
	if c1 > c0 && !m.Budget.Spend(c1-c0) {
		return
	}
	m.hairPixels(c0, c1, u0, v0, slope, swap, e)
}

// hairPixels draws the pixels [c0, c1) along the major axis of the line
// hairSpan draws.
func (m *Mask) hairPixels(c0, c1 int, u0, v0, slope float64, swap bool, e *hairEdge) {
	// A pixel centre (cu, cv) on the major and minor axes lies
	// |k + cu*nu + cv*nv| from the edge.
	nu, nv, au, av := e.nx, e.ny, e.a.X, e.a.Y
	if swap {
		nu, nv, au, av = e.ny, e.nx, e.a.Y, e.a.X
	}
	k := -(au*nu + av*nv)
	for c := c0; c < c1; c++ {
		v := v0 + (float64(c)+0.5-u0)*slope
		// The pixel whose centre is nearest; on a tie between two, the
		// one below a mostly horizontal line and left of a mostly
		// vertical one, as GL's diamond rule picks.
		r := int(math.Floor(v))
		if swap {
			r = int(math.Ceil(v)) - 1
		}
		cu, cv := float64(c)+0.5, float64(r)+0.5
		d := math.Abs(k + cu*nu + cv*nv)
		if e.pe != nil {
			p := Point{X: cu, Y: cv}
			if swap {
				p = Point{X: cv, Y: cu}
			}
			d = e.pe.dist(p)
		}
		cov := float32(1 - smoothstep(0, 1, d))
		if swap {
			m.Raise(r, c, cov)
		} else {
			m.Raise(c, r, cov)
		}
	}
}
