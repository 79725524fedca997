package raster

import (
	"image"
	"math"
)

// LineVertex is a vertex of a line's triangles, as GL's line shader sees
// it: its position in device pixels, the normal it interpolates across the
// line (|N| times the paint's Outset is a fragment's distance from the
// line's centre; NY runs from -1 on one side to 1 on the other, NX is 1 at
// the far end of a round cap or join), and its distance along the line in
// CSS pixels (for dashes and patterns).
type LineVertex struct {
	X, Y   float64
	NX, NY float64
	Along  float64
	// Progress is how far along its whole line the vertex is, 0 to 1
	// (for a gradient).
	Progress float64
}

// LinePaint is how the fragments of a line's triangles are coloured, in
// device pixels: coverage rises from 0 at Inset-Blur2 to 1 at Inset (the
// inner edge of a line with a gap) and falls from 1 at Outset-Blur2 to 0 at
// Outset, as GL's line shader computes it.
type LinePaint struct {
	Outset, Inset, Blur2 float64
	Color                Color
	Opacity              float64
	// Dash, when not nil, cuts the line into dashes.
	Dash *Dash
	// Pattern, when not nil, colours the line from an image instead of
	// Color.
	Pattern *LinePattern
	// Gradient, when not nil, colours the line by its vertices' Progress
	// instead of Color.
	Gradient *Gradient
	// Tilt, when not nil, is the camera that sees the map: triangles are
	// given on the map's plane and shaded there, antialiasing over one
	// screen pixel.
	Tilt *Tilt
}

// Dash is a line's dash array as GL draws it from a signed distance field:
// Parts alternate dash and gap lengths in units of Width CSS pixels, and
// edges fade over about one device pixel (Ratio device pixels a CSS pixel).
// Round dashes end in half discs.
type Dash struct {
	Parts []float64
	Width float64
	Ratio float64
	Round bool
	// Ramp is half the width of the edges' fade, in device pixels.
	Ramp  float64
	total float64
	// ends holds where each part ends, from the repeat's start: a
	// fragment finds its part by a binary search, however long the
	// array.
	ends []float64
}

// dashAtlasWidth is how many texels GL's line atlas gives a dash array's
// repeat.
const dashAtlasWidth = 256

// NewDash returns the dash of parts (in line widths) for a line width in
// CSS pixels, or nil when the parts draw no dashes (empty or all zero, or a
// negative part).
func NewDash(parts []float64, width, ratio float64, round bool) *Dash {
	total := 0.0
	for _, p := range parts {
		if p < 0 || math.IsNaN(p) {
			return nil
		}
		total += p
	}
	if total <= 0 || width <= 0 {
		return nil
	}
	if len(parts)%2 == 1 {
		// An odd array repeats twice to alternate dash and gap.
		parts = append(append([]float64(nil), parts...), parts...)
		total *= 2
	}
	ends := make([]float64, len(parts))
	end := 0.0
	for i, p := range parts {
		end += p
		ends[i] = end
	}
	return &Dash{Parts: parts, Width: width, Ratio: ratio, Round: round, Ramp: 0.5, total: total, ends: ends}
}

// coverage returns how much of a fragment at along CSS pixels, across the
// line at ny (-1..1), the dashes keep.
func (d *Dash) coverage(along, ny float64) float64 {
	// In line widths. GL samples its row of dashAtlasWidth texels
	// linearly, texel i holding the field at i/dashAtlasWidth of the
	// repeat but centred half a texel further: the pattern lies half a
	// texel further along.
	texel := d.total / dashAtlasWidth
	pos := along/d.Width - 0.5*texel
	pos -= math.Floor(pos/d.total) * d.total
	// The signed distance (line widths, positive inside a dash) to the
	// nearest edge of the part holding pos: the first that ends past it,
	// or the last.
	i := d.part(pos)
	start := 0.0
	if i > 0 {
		start = d.ends[i-1]
	}
	inside := i%2 == 0
	dist := min(pos-start, d.ends[i]-pos)
	var sd float64
	if d.Round {
		half := 0.5
		mid := math.Abs(ny) * half
		if inside {
			edge := half - mid
			sd = math.Sqrt(dist*dist + edge*edge)
		} else {
			sd = half - math.Sqrt(dist*dist+mid*mid)
		}
	} else if inside {
		sd = dist
	} else {
		sd = -dist
	}
	// GL stores the field in 8 bits offset by 128: its edge sits half a
	// texel outside the dash. The edge fades over Ramp device pixels
	// either side.
	sd += 0.5 * texel
	g := d.Ramp / (d.Ratio * d.Width)
	return smoothstep(-g, g, sd)
}

// part returns the index of the first part that ends past pos (line
// widths from the repeat's start), the last when none does.
func (d *Dash) part(pos float64) int {
	lo, hi := 0, len(d.ends)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pos < d.ends[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// LinePattern is an image repeated along a line as GL's line pattern
// shader draws it: a repeat is Repeat CSS pixels long (of the distance the
// line counts), and across the line the normal's y (-1..1) spans the
// image's height. GL's atlas keeps each pattern with one texel of padding
// that repeats the image's opposite edge, and the shader stretches the
// padded image over a repeat (along) and over the geometry's width
// (across), so a repeat shows w+2 texels and the edge texels appear twice.
type LinePattern struct {
	Img    *Canvas
	Rect   image.Rectangle // the image within Img
	Repeat float64
}

// sample returns the premultiplied colour (0..255) of the pattern at along
// CSS pixels, across the line at ny.
func (p *LinePattern) sample(along, ny float64) (r, g, b, a float64) {
	x := along / p.Repeat
	x -= math.Floor(x)
	y := 0.5*ny + 0.5
	w, h := float64(p.Rect.Dx()), float64(p.Rect.Dy())
	return p.Img.bilinearPadded(x*(w+2)-1, y*(h+2)-1, p.Rect)
}

// LineTriangle draws one triangle of a line's geometry with GL's line
// shader, blended on its own as GL blends each triangle (so parts of one
// line that overlap, inside sharp joins, blend twice). clip, when not
// nil, is a convex polygon (the tile's square) on the map's plane, like
// the triangle's vertices, outside which nothing is drawn.
func (cv *Canvas) LineTriangle(t *[3]LineVertex, clip []Point, p *LinePaint) {
	W, H := cv.Rect.Dx(), cv.Rect.Dy()
	if p.Tilt == nil {
		// Pixels are drawn where their centres lie in the triangle: one
		// wholly beside the canvas draws nothing.
		a, b, c := &t[0], &t[1], &t[2]
		if max(a.X, b.X, c.X) < 0 || min(a.X, b.X, c.X) > float64(W) ||
			max(a.Y, b.Y, c.Y) < 0 || min(a.Y, b.Y, c.Y) > float64(H) {
			return
		}
	}
	x0, y0 := t[0].X, t[0].Y
	e1x, e1y := t[1].X-x0, t[1].Y-y0
	e2x, e2y := t[2].X-x0, t[2].Y-y0
	det := e1x*e2y - e2x*e1y
	if math.Abs(det) < 1e-12 {
		return
	}
	// Gradients of the attributes over the plane of the triangle.
	grad := func(f0, f1, f2 float64) (float64, float64) {
		d1, d2 := f1-f0, f2-f0
		return (d1*e2y - d2*e1y) / det, (e1x*d2 - e2x*d1) / det
	}
	nxX, nxY := grad(t[0].NX, t[1].NX, t[2].NX)
	nyX, nyY := grad(t[0].NY, t[1].NY, t[2].NY)
	alX, alY := grad(t[0].Along, t[1].Along, t[2].Along)
	var prX, prY float64
	if p.Gradient != nil {
		prX, prY = grad(t[0].Progress, t[1].Progress, t[2].Progress)
	}

	// The triangle is cut on the map's plane (by the tile's square, and
	// under a tilted camera by the plane just before the camera, behind
	// which projected points would turn over), then seen by the camera.
	var bufA, bufB [16]Point
	poly := bufA[:0]
	for _, v := range t {
		poly = append(poly, Point{v.X, v.Y})
	}
	if clip != nil {
		poly = clipConvex(poly, clip, bufB[:0])
		if len(poly) < 3 {
			return
		}
	}
	if p.Tilt != nil {
		poly = append(bufA[:0], poly...)
		poly = p.Tilt.clipNear(poly, bufB[:0])
		if len(poly) < 3 {
			return
		}
		for i, q := range poly {
			poly[i], _ = p.Tilt.Project(q)
		}
	}
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, q := range poly {
		minY, maxY = min(minY, q.Y), max(maxY, q.Y)
	}
	ry0 := max(0, int(math.Ceil(minY-0.5)))
	ry1 := min(H, int(math.Ceil(maxY-0.5)))
	cr, cg, cb, ca := p.Color.premul(p.Opacity)
	ramp := newLineRamp(p)
	dash := p.Dash
	imaged := p.Pattern != nil || p.Gradient != nil
	// An opaque colour at full coverage replaces the pixel.
	opaque := ca >= 255
	solid := [4]uint8{round8(cr), round8(cg), round8(cb), 255}
	col := spanColor{cr, cg, cb, ca, solid, opaque}
	n := len(poly)
	pix := cv.Pix
	cost := p.fragmentCost()
	for y := ry0; y < ry1; y++ {
		cy := float64(y) + 0.5
		xl, xr := math.Inf(1), math.Inf(-1)
		a := poly[n-1]
		for _, b := range poly[:n] {
			if (a.Y <= cy) != (b.Y <= cy) {
				x := a.X + (cy-a.Y)*(b.X-a.X)/(b.Y-a.Y)
				xl, xr = min(xl, x), max(xr, x)
			}
			a = b
		}
		// The row's work: its edges, and its pixels at their cost.
		work, px0, px1 := n, 0, 0
		if xl < xr {
			px0 = max(0, int(math.Ceil(xl-0.5)))
			px1 = min(W, int(math.Ceil(xr-0.5)))
			work += max(0, px1-px0) * cost
		}
		if !cv.Budget.Spend(work) {
			return
		}
		if px0 >= px1 {
			continue
		}
		if p.Tilt != nil {
			cv.tiltedSpan(t, p, px0, px1, y, [8]float64{nxX, nxY, nyX, nyY, alX, alY, prX, prY})
			continue
		}
		dx, dy := float64(px0)+0.5-x0, cy-y0
		nx := t[0].NX + nxX*dx + nxY*dy
		ny := t[0].NY + nyX*dx + nyY*dy
		al := t[0].Along + alX*dx + alY*dy
		pr := t[0].Progress + prX*dx + prY*dy
		o := cv.PixOffset(px0, y)
		if dash == nil && !imaged {
			plainSpan(pix[o:o+4*(px1-px0)], nx, ny, nxX, nyX, &ramp, &col)
			continue
		}
		for x := px0; x < px1; x++ {
			if alpha := ramp.alpha(nx*nx + ny*ny); alpha > 0 {
				if dash != nil {
					alpha *= dash.coverage(al, ny)
				}
				px := pix[o : o+4 : o+4]
				switch {
				case alpha <= 0:
				case imaged:
					p.blendImage(px, alpha, al, ny, pr)
				case alpha == 1 && opaque:
					px[0], px[1], px[2], px[3] = solid[0], solid[1], solid[2], solid[3]
				default:
					blend(px, cr*alpha, cg*alpha, cb*alpha, ca*alpha)
				}
			}
			nx += nxX
			ny += nyX
			al += alX
			pr += prX
			o += 4
		}
	}
}

// fragmentCost returns the units of work (of a Budget) a fragment of the
// paint counts for: about its time over that of a plain fragment. A
// dash's distance field costs about twice as much again, a pattern's or
// gradient's texture lookup CostTexture more.
func (p *LinePaint) fragmentCost() int {
	c := 1
	if p.Dash != nil {
		c += 2
	}
	if p.Pattern != nil || p.Gradient != nil {
		c += CostTexture
	}
	if p.Tilt != nil {
		c++ // each pixel taken back to the map's plane
	}
	return c
}

// spanColor is a line's colour as its pixels take it: premultiplied
// (0-255), and when opaque the bytes a fully covered pixel becomes.
type spanColor struct {
	r, g, b, a float64
	solid      [4]uint8
	opaque     bool
}

// plainSpan shades a row of pixels (pix, 4 bytes each) of a line
// triangle without dashes or images: N starts at nx, ny and steps by nxX,
// nyX a pixel.
func plainSpan(pix []uint8, nx, ny, nxX, nyX float64, r *lineRamp, c *spanColor) {
	// Without a round part N is across the line only, and its squared
	// length is ny*ny (nx*nx adds an exact 0).
	round := nx != 0 || nxX != 0
	for o := 0; o+3 < len(pix); o += 4 {
		d2 := ny * ny
		if round {
			d2 = nx*nx + ny*ny
			nx += nxX
		}
		ny += nyX
		alpha := r.alpha(d2)
		if alpha <= 0 {
			continue
		}
		px := pix[o : o+4 : o+4]
		if alpha == 1 && c.opaque {
			px[0], px[1], px[2], px[3] = c.solid[0], c.solid[1], c.solid[2], c.solid[3]
			continue
		}
		blend(px, c.r*alpha, c.g*alpha, c.b*alpha, c.a*alpha)
	}
}

// lineRamp is a line paint's coverage across the line, as GL's line
// shader computes it from the distance |N|*Outset of a fragment from the
// line's centre, with bounds on the squared length of N within which the
// coverage is surely 1 or surely none, so that most fragments need no
// square root. The bounds keep a margin of a billionth, far beyond the
// rounding of the exact computation: they give what it gives.
type lineRamp struct {
	outset, inner, invBlur float64
	// Surely covered from fullLo to fullHi, surely not from emptyOut up
	// and to emptyIn down.
	fullLo, fullHi, emptyIn, emptyOut float64
}

// rampMargin is the relative margin of a lineRamp's bounds.
const rampMargin = 1e-9

func newLineRamp(p *LinePaint) lineRamp {
	r := lineRamp{outset: p.Outset, inner: p.Inset - p.Blur2, invBlur: 1 / p.Blur2,
		fullLo: math.Inf(1), fullHi: math.Inf(-1), emptyIn: math.Inf(-1), emptyOut: math.Inf(1)}
	o, b, in := p.Outset, p.Blur2, p.Inset-p.Blur2
	if !(o > 0 && b > 0) || math.IsInf(o, 0) || math.IsInf(b, 0) || math.IsNaN(in) || math.IsInf(in, 0) {
		return r // no bounds: every fragment is computed
	}
	e := rampMargin * (o + b + math.Abs(in))
	// Covered where dist <= hi (then outset-dist >= Blur2) and dist >= lo
	// (then dist-inner >= Blur2), each by the margin.
	if hi := o - b - e; hi > 0 {
		r.fullHi = (hi / o) * (hi / o) * (1 - rampMargin)
		r.fullLo = math.Inf(-1)
		if lo := in + b + e; lo > 0 {
			r.fullLo = (lo / o) * (lo / o) * (1 + rampMargin)
		}
	}
	// None past the outset, or, with a gap, inside the inner edge.
	r.emptyOut = (1 + 2*rampMargin) * (1 + 2*rampMargin)
	if in > 0 {
		k := in / o * (1 - 2*rampMargin)
		r.emptyIn = k * k
	}
	return r
}

// alpha returns the coverage of a fragment whose N has the squared length
// d2: at most 1, and none when not above 0.
func (r *lineRamp) alpha(d2 float64) float64 {
	if d2 <= r.fullHi && d2 >= r.fullLo {
		return 1
	}
	if d2 >= r.emptyOut || d2 <= r.emptyIn {
		return 0
	}
	dist := math.Sqrt(d2) * r.outset
	return min(min(dist-r.inner, r.outset-dist)*r.invBlur, 1)
}

// blendImage blends a fragment of coverage alpha coloured by the line's
// pattern (at distance al along it, ny across) or its gradient (at
// progress pr) over the pixel px.
func (p *LinePaint) blendImage(px []uint8, alpha, al, ny, pr float64) {
	var r, g, b, a float64
	if p.Pattern != nil {
		r, g, b, a = p.Pattern.sample(al, ny)
	} else {
		r, g, b, a = p.Gradient.sample(pr)
	}
	k := alpha * p.Opacity
	blend(px, r*k, g*k, b*k, a*k)
}

// tiltedSpan shades pixels px0..px1 of row y of a line triangle given on
// the map's plane and seen through p.Tilt: each pixel's centre goes back
// to the plane, where the attributes are affine (grad holds their
// gradients: NX, NY, Along, Progress by x and y), and the antialiasing ramp widens
// with the distance, to stay one screen pixel.
func (cv *Canvas) tiltedSpan(t *[3]LineVertex, p *LinePaint, px0, px1, y int, grad [8]float64) {
	cr, cg, cb, ca := p.Color.premul(p.Opacity)
	// GL scales the ramp by how much the camera shortens the extrusion
	// (across the line, along NY's gradient): by 1/w, and by the
	// tilt's cosine in the plane's y.
	squash := 1.0
	if gx, gy := grad[2], grad[3]; gx != 0 || gy != 0 {
		l := math.Hypot(gx, gy)
		squash = math.Hypot(gx/l, gy/l*p.Tilt.Cos)
	}
	o := cv.PixOffset(px0, y)
	for x := px0; x < px1; x, o = x+1, o+4 {
		q := p.Tilt.Unproject(Point{float64(x) + 0.5, float64(y) + 0.5})
		_, w := p.Tilt.Project(q)
		dx, dy := q.X-t[0].X, q.Y-t[0].Y
		nx := t[0].NX + grad[0]*dx + grad[1]*dy
		ny := t[0].NY + grad[2]*dx + grad[3]*dy
		al := t[0].Along + grad[4]*dx + grad[5]*dy
		blur := p.Blur2 * w / squash
		dist := math.Sqrt(nx*nx+ny*ny) * p.Outset
		alpha := min(dist-(p.Inset-blur), p.Outset-dist) / blur
		if alpha <= 0 {
			continue
		}
		alpha = min(alpha, 1)
		if p.Dash != nil {
			alpha *= p.Dash.coverage(al, ny)
		}
		switch {
		case alpha <= 0:
		case p.Pattern != nil || p.Gradient != nil:
			p.blendImage(cv.Pix[o:o+4], alpha, al, ny, t[0].Progress+grad[6]*dx+grad[7]*dy)
		default:
			blend(cv.Pix[o:o+4], cr*alpha, cg*alpha, cb*alpha, ca*alpha)
		}
	}
}

// Gradient is a colour ramp over a line's progress, as GL keeps it in a
// texture: Texels premultiplied colours (0-255) for progress i/(n-1),
// sampled linearly between texel centres or, for a stepped ramp, from the
// nearest texel.
type Gradient struct {
	Texels  [][4]float64
	Nearest bool
}

// sample returns the premultiplied colour (0-255) at progress pr.
func (g *Gradient) sample(pr float64) (r, gr, b, a float64) {
	n := len(g.Texels)
	if n == 0 {
		return 0, 0, 0, 0
	}
	x := pr*float64(n) - 0.5 // texel centres at (i+0.5)/n
	if g.Nearest {
		i := min(max(int(math.Floor(x+0.5)), 0), n-1)
		c := g.Texels[i]
		return c[0], c[1], c[2], c[3]
	}
	i := int(math.Floor(x))
	f := x - float64(i)
	c0 := g.Texels[min(max(i, 0), n-1)]
	c1 := g.Texels[min(max(i+1, 0), n-1)]
	return c0[0] + (c1[0]-c0[0])*f, c0[1] + (c1[1]-c0[1])*f, c0[2] + (c1[2]-c0[2])*f, c0[3] + (c1[3]-c0[3])*f
}

// nearW is the least distance (over Dist) from the camera at which clipNear
// keeps the plane: closer points, and those behind the camera, have no
// sensible projection.
const nearW = 1.0 / 64

// clipNear cuts the convex polygon poly (plane points) to the part at
// least nearW*Dist in front of the camera, writing into out.
func (t *Tilt) clipNear(poly, out []Point) []Point {
	if t.Sin <= 0 || len(poly) == 0 {
		return append(out, poly...)
	}
	// w >= nearW where y - CY <= Dist*(1-nearW)/Sin.
	limit := t.CY + t.Dist*(1-nearW)/t.Sin
	return clipSide(poly, func(p Point) float64 { return limit - p.Y }, out)
}

// clipSide keeps the part of the convex polygon poly (not empty) where
// side is at least 0, side being an affine function of the point, and
// appends it to out (up to out's capacity).
func clipSide(poly []Point, side func(Point) float64, out []Point) []Point {
	prev := poly[len(poly)-1]
	sp := side(prev)
	for _, q := range poly {
		sq := side(q)
		if sq >= 0 {
			if sp < 0 {
				out = appendCap(out, lerpPoint(prev, q, sp/(sp-sq)))
			}
			out = appendCap(out, q)
		} else if sp >= 0 {
			out = appendCap(out, lerpPoint(prev, q, sp/(sp-sq)))
		}
		prev, sp = q, sq
	}
	return out
}

// clipConvex clips polygon poly to the convex polygon clip (either
// winding), writing into out.
func clipConvex(poly, clip []Point, out []Point) []Point {
	// Orientation of the clip polygon.
	area := 0.0
	for i := range clip {
		a, b := clip[i], clip[(i+1)%len(clip)]
		area += a.X*b.Y - b.X*a.Y
	}
	sign := 1.0
	if area < 0 {
		sign = -1
	}
	var tmp [16]Point
	cur := append(tmp[:0], poly...)
	for i := range clip {
		a, b := clip[i], clip[(i+1)%len(clip)]
		side := func(p Point) float64 { return sign * ((b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)) }
		out = out[:0]
		if len(cur) == 0 {
			return out
		}
		out = clipSide(cur, side, out)
		cur = append(tmp[:0], out...)
	}
	return out
}

func appendCap(out []Point, p Point) []Point {
	if len(out) < cap(out) {
		return append(out, p)
	}
	return out
}

func lerpPoint(a, b Point, t float64) Point {
	return Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t}
}
