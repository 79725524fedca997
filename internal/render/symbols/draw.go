package symbols

import (
	"image"
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/sources"
)

// texQuad is a textured quad on screen: texel (s, t) of a tw x th texture
// lands at o + s*u + t*v (device pixels). With tilt set, o, u and v are on
// the plane of the map and the tilted camera projects the quad to the
// screen (a label pitched with the map).
type texQuad struct {
	ox, oy float64
	ux, uy float64
	vx, vy float64
	tw, th int
	tilt   *raster.Tilt
}

// newTexQuad places a texture of tw x th texels of kx by ky device pixels each
// with its top-left corner at (x, y) from the anchor a (before rotating by
// angle, clockwise, about the anchor), shifted by (tx, ty).
func newTexQuad(a raster.Point, tx, ty, x, y, kx, ky, angle float64, tw, th int) texQuad {
	sin, cos := math.Sincos(angle)
	return texQuad{
		ox: a.X + tx + x*cos - y*sin, oy: a.Y + ty + x*sin + y*cos,
		ux: kx * cos, uy: kx * sin,
		vx: -ky * sin, vy: ky * cos,
		tw: tw, th: th,
	}
}

// span returns the pixels of a w x h canvas the quad may cover and the
// determinant of its axes (0 when it covers nothing).
func (q *texQuad) span(r image.Rectangle) (x0, y0, x1, y1 int, det float64) {
	det = q.ux*q.vy - q.uy*q.vx
	if det == 0 || q.tw <= 0 || q.th <= 0 {
		return 0, 0, 0, 0, 0
	}
	sw, th := float64(q.tw), float64(q.th)
	xs := [4]float64{q.ox, q.ox + sw*q.ux, q.ox + th*q.vx, q.ox + sw*q.ux + th*q.vx}
	ys := [4]float64{q.oy, q.oy + sw*q.uy, q.oy + th*q.vy, q.oy + sw*q.uy + th*q.vy}
	if q.tilt != nil {
		for i := range xs {
			p, pw := q.tilt.Project(raster.Point{X: xs[i], Y: ys[i]})
			if pw <= 0 {
				return 0, 0, 0, 0, 0 // behind the camera
			}
			xs[i], ys[i] = p.X, p.Y
		}
	}
	minX, maxX, minY, maxY := xs[0], xs[0], ys[0], ys[0]
	for i := 1; i < 4; i++ {
		minX, maxX = math.Min(minX, xs[i]), math.Max(maxX, xs[i])
		minY, maxY = math.Min(minY, ys[i]), math.Max(maxY, ys[i])
	}
	x0, x1 = max(r.Min.X, int(math.Floor(minX))), min(r.Max.X, int(math.Ceil(maxX)))
	y0, y1 = max(r.Min.Y, int(math.Floor(minY))), min(r.Max.Y, int(math.Ceil(maxY)))
	return x0, y0, x1, y1, det
}

// texel returns the texel coordinates of the centre of pixel (x, y) and,
// for a quad on the tilted plane, the distance of that point from the
// camera relative to the centre's (1 otherwise); ok is false outside the
// quad.
func (q *texQuad) texel(x, y int, det float64) (s, t, w float64, ok bool) {
	px, py := float64(x)+0.5, float64(y)+0.5
	w = 1
	if q.tilt != nil {
		p := q.tilt.Unproject(raster.Point{X: px, Y: py})
		px, py = p.X, p.Y
		w = (q.tilt.Dist - (py-q.tilt.CY)*q.tilt.Sin) / q.tilt.Dist
	}
	s, t, ok = q.texelAt(px-q.ox, py-q.oy, det)
	return s, t, w, ok
}

// texelAt returns the texel coordinates of the point (dx, dy) device
// pixels from the quad's origin on its plane; ok is false outside the
// quad. Every pixel-to-texel step of the symbol drawing goes through it.
func (q *texQuad) texelAt(dx, dy, det float64) (s, t float64, ok bool) {
	s = (dx*q.vy - dy*q.vx) / det
	t = (q.ux*dy - q.uy*dx) / det
	if s < 0 || t < 0 || s >= float64(q.tw) || t >= float64(q.th) {
		return 0, 0, false
	}
	return s, t, true
}

// rowStopped reports whether drawing should stop before row y: the budget
// is looked at every 16 rows, as a quad may cover the whole picture.
func rowStopped(cv *raster.Canvas, y int) bool {
	return y&15 == 0 && cv.Budget.Stopped()
}

// each calls fn for every pixel of a w x h canvas whose centre lies in the
// quad, with the texel coordinates of that centre.
func (q *texQuad) each(cv *raster.Canvas, fn func(x, y int, s, t float64)) {
	x0, y0, x1, y1, det := q.span(cv.Rect)
	if det == 0 || !cv.Budget.SpendArea(x0, y0, x1, y1, raster.CostTexture) {
		return
	}
	for y := y0; y < y1; y++ {
		if rowStopped(cv, y) {
			return
		}
		for x := x0; x < x1; x++ {
			if s, t, _, ok := q.texel(x, y, det); ok {
				fn(x, y, s, t)
			}
		}
	}
}

// alphaTex reads one byte a texel from an image of w x h texels (stride
// bytes between texels, at offset off), surrounded by pad texels of 0.
type alphaTex struct {
	data        []byte
	w, h, pad   int
	stride, off int
	rowStride   int
}

func (a *alphaTex) at(i, j int) float64 {
	i, j = i-a.pad, j-a.pad
	if i < 0 || j < 0 || i >= a.w || j >= a.h {
		return 0
	}
	return float64(a.data[j*a.rowStride+i*a.stride+a.off])
}

// sdfEdge is where the outline lies in a distance field (192/255 in GL's
// encoding, taken as 0.75).
const sdfEdge = 0.75

// edgeGamma is GL's antialiasing half-width of an SDF edge, in distance
// units at one device pixel per glyph pixel.
const edgeGamma = 0.105

// sdfPerPixel is how much of a distance field's range one glyph pixel
// spans (parity: GL's 1/8): a halo's width and blur move the edge by it.
const sdfPerPixel = 1.0 / 8

// haloBlurGain widens text-halo-blur before it is added to the edge's
// antialiasing (parity: GL's 1.19).
const haloBlurGain = 1.19

// sdfParams returns the edge, its antialiasing and the colour of one SDF
// pass (GL's symbol SDF shader): the halo
// (buffer from the halo width, blurred) or the fill.
func sdfParams(p sdfPaint, halo bool, ratio float64) (buff, gamma float64, col raster.Color, draw bool) {
	eg := edgeGamma / ratio
	fs := math.Max(p.fontScale, 1e-6)
	if halo {
		if p.haloWidth <= 0 || p.halo.A <= 0 {
			return 0, 0, raster.Color{}, false
		}
		return sdfEdge - p.haloWidth/fs*sdfPerPixel, (p.haloBlur*haloBlurGain*sdfPerPixel + eg) / fs, p.halo, true
	}
	return sdfEdge, eg / fs, p.color, true
}

// drawGlyph draws one pass of an SDF glyph, or of an image inside the
// text.
func drawGlyph(cv *raster.Canvas, gq *glyphQuad, p sdfPaint, halo bool, ratio float64) {
	col := p.color
	if gq.color != nil && !halo {
		col = *gq.color
	}
	p.color = col
	if gq.ic != nil {
		drawTextImage(cv, gq, p, halo, ratio)
		return
	}
	buff, gamma, col, ok := sdfParams(p, halo, ratio)
	if !ok {
		return
	}
	bw, bh := int(gq.g.Width)+6, int(gq.g.Height)+6
	tex := alphaTex{data: gq.g.Bitmap, w: bw, h: bh, pad: 1, stride: 1, rowStride: bw}
	drawSDF(cv, &gq.q, &tex, buff, gamma, col, p.opacity)
}

// drawTextImage draws one pass of an image inside a label. A colour image
// is drawn as GL's text-and-icon shader draws it: its texels times the
// text's opacity, in the fill pass (and in the halo pass too when the
// paint says so). An SDF image is drawn as the text's glyphs are, in the
// text's colour and halo (GL JS 6 samples its glyph atlas there instead,
// which draws nothing meant).
func drawTextImage(cv *raster.Canvas, gq *glyphQuad, p sdfPaint, halo bool, ratio float64) {
	ic := gq.ic
	if ic.SDF {
		buff, gamma, col, ok := sdfParams(p, halo, ratio)
		if !ok {
			return
		}
		tex := iconAlpha(ic)
		drawSDF(cv, &gq.q, &tex, buff, gamma, col, p.opacity)
		return
	}
	if halo && !p.imagesInHalo {
		return
	}
	drawIcon(cv, &iconQuad{ic: ic, q: gq.q, linear: gq.linear}, p.opacity)
}

// drawSDF draws a distance field with GL's symbol SDF shader: the field
// sampled linearly at each pixel centre, coverage a smoothstep around the
// edge, the premultiplied colour blended at that coverage. On a tilted
// plane the edge widens with the distance from the camera, over the
// cosine of the pitch, as GL scales its gamma by the depth.
func drawSDF(cv *raster.Canvas, q *texQuad, tex *alphaTex, buff, gamma float64, col raster.Color, opacity float64) {
	r, g, b, a := col.R*col.A*opacity, col.G*col.A*opacity, col.B*col.A*opacity, col.A*opacity
	if a <= 0 {
		return
	}
	x0, y0, x1, y1, det := q.span(cv.Rect)
	if det == 0 || !cv.Budget.SpendArea(x0, y0, x1, y1, raster.CostTexture) {
		return
	}
	if q.tilt == nil {
		drawSDFFlat(cv, q, tex, x0, y0, x1, y1, det, buff, gamma, r, g, b, a)
		return
	}
	gk := 1.0
	if q.tilt.Cos > 0 {
		gk = 1 / q.tilt.Cos
	}
	for y := y0; y < y1; y++ {
		if rowStopped(cv, y) {
			return
		}
		for x := x0; x < x1; x++ {
			s, t, w, ok := q.texel(x, y, det)
			if !ok {
				continue
			}
			gm := gamma
			if q.tilt != nil {
				gm *= w * gk
			}
			// Bilinear, with a quick exit where all four texels are
			// below the edge's lower end.
			fx, fy := math.Floor(s-0.5), math.Floor(t-0.5)
			d, ok := tex.sdfDistance(int(fx), int(fy), s-0.5-fx, t-0.5-fy, (buff-gm)*255)
			if !ok {
				continue
			}
			k := smoothstep(buff-gm, buff+gm, d)
			if k <= 0 {
				continue
			}
			cv.BlendPremul(x, y, r*k, g*k, b*k, a*k)
		}
	}
}

// drawSDFFlat is drawSDF for a quad on screen (no tilt), over the pixels
// x0..x1, y0..y1 of its span, with the same arithmetic: the texel
// coordinates of each pixel centre, the four texels read directly where
// they lie inside the texture, the premultiplied colour r, g, b, a.
func drawSDFFlat(cv *raster.Canvas, q *texQuad, tex *alphaTex, x0, y0, x1, y1 int, det, buff, gamma, r, g, b, a float64) {
	if q.uy == 0 && q.vx == 0 {
		drawSDFUnturned(cv, q, tex, x0, y0, x1, y1, det, buff, gamma, r, g, b, a)
		return
	}
	e0, e1 := buff-gamma, buff+gamma
	lo := e0 * 255 // below it, a texel adds nothing
	for y := y0; y < y1; y++ {
		if rowStopped(cv, y) {
			return
		}
		dy := float64(y) + 0.5 - q.oy
		for x := x0; x < x1; x++ {
			s, t, ok := q.texelAt(float64(x)+0.5-q.ox, dy, det)
			if !ok {
				continue
			}
			fx, fy := math.Floor(s-0.5), math.Floor(t-0.5)
			d, ok := tex.sdfDistance(int(fx), int(fy), s-0.5-fx, t-0.5-fy, lo)
			if !ok {
				continue
			}
			k := smoothstep(e0, e1, d)
			if k <= 0 {
				continue
			}
			cv.BlendPremul(x, y, r*k, g*k, b*k, a*k)
		}
	}
}

// sdfDistance samples an SDF texture bilinearly about texel (i, j) with
// weights ax and ay, as GL's linear sampler does, in 0..1; ok is false
// when all four texels are at or below lo (255 scale), where a pixel gets
// nothing.
func (tex *alphaTex) sdfDistance(i, j int, ax, ay, lo float64) (d float64, ok bool) {
	var t00, t10, t01, t11 float64
	if ti, tj := i-tex.pad, j-tex.pad; ti >= 0 && tj >= 0 && ti+1 < tex.w && tj+1 < tex.h {
		o := tj*tex.rowStride + ti*tex.stride + tex.off
		t00, t10 = float64(tex.data[o]), float64(tex.data[o+tex.stride])
		t01, t11 = float64(tex.data[o+tex.rowStride]), float64(tex.data[o+tex.rowStride+tex.stride])
	} else {
		t00, t10, t01, t11 = tex.at(i, j), tex.at(i+1, j), tex.at(i, j+1), tex.at(i+1, j+1)
	}
	if t00 <= lo && t10 <= lo && t01 <= lo && t11 <= lo {
		return 0, false
	}
	return ((t00*(1-ax)+t10*ax)*(1-ay) + (t01*(1-ax)+t11*ax)*ay) / 255, true
}

// sdfColumn is where a column of pixels samples an unturned quad's
// texture: the texel column left of the sample and the weight of the one
// right of it (ok: the column lies on the quad).
type sdfColumn struct {
	i  int
	ax float64
	ok bool
}

// drawSDFUnturned is drawSDFFlat for a quad whose u runs along x and v
// along y: s is the same down a column and t along a row, so each is
// found once for its column or row, with the same arithmetic that finds
// it per pixel.
func drawSDFUnturned(cv *raster.Canvas, q *texQuad, tex *alphaTex, x0, y0, x1, y1 int, det, buff, gamma, r, g, b, a float64) {
	e0, e1 := buff-gamma, buff+gamma
	lo := e0 * 255 // below it, a texel adds nothing
	tw, th := float64(q.tw), float64(q.th)
	var buf [64]sdfColumn
	cols := buf[:0]
	if n := x1 - x0; n > len(buf) {
		cols = make([]sdfColumn, 0, n)
	}
	for x := x0; x < x1; x++ {
		dx := float64(x) + 0.5 - q.ox
		s := dx * q.vy / det
		var c sdfColumn
		if s >= 0 && s < tw {
			fx := math.Floor(s - 0.5)
			c = sdfColumn{i: int(fx), ax: s - 0.5 - fx, ok: true}
		}
		cols = append(cols, c)
	}
	for y := y0; y < y1; y++ {
		if rowStopped(cv, y) {
			return
		}
		dy := float64(y) + 0.5 - q.oy
		t := q.ux * dy / det
		if t < 0 || t >= th {
			continue
		}
		fy := math.Floor(t - 0.5)
		j := int(fy)
		ay := t - 0.5 - fy
		for k := range cols {
			c := &cols[k]
			if !c.ok {
				continue
			}
			d, ok := tex.sdfDistance(c.i, j, c.ax, ay, lo)
			if !ok {
				continue
			}
			kv := smoothstep(e0, e1, d)
			if kv <= 0 {
				continue
			}
			cv.BlendPremul(x0+k, y, r*kv, g*kv, b*kv, a*kv)
		}
	}
}

// drawSDFIcon draws one pass of an SDF icon (its alpha channel is the
// distance field).
func drawSDFIcon(cv *raster.Canvas, iq *iconQuad, p sdfPaint, halo bool) {
	buff, gamma, col, ok := sdfParams(p, halo, 1)
	if !ok {
		return
	}
	tex := iconAlpha(iq.ic)
	drawSDF(cv, &iq.q, &tex, buff, gamma, col, p.opacity)
}

// iconAlpha is an icon's alpha channel as a texture (the distance field
// of an SDF icon), padded by one texel of 0 all round.
func iconAlpha(ic *sources.Icon) alphaTex {
	return alphaTex{data: ic.Pix, w: ic.W, h: ic.H, pad: 1, stride: 4, off: 3, rowStride: ic.W * 4}
}

// iconTexel returns the four channels of texel (i, j) of an icon padded
// by one texel of 0 all round (0 in the padding and beyond), in 0..255.
func iconTexel(ic *sources.Icon, i, j int) (v [4]float64) {
	i, j = i-1, j-1
	if i < 0 || j < 0 || i >= ic.W || j >= ic.H {
		return v
	}
	o := j*ic.W*4 + i*4
	p := ic.Pix[o : o+4]
	return [4]float64{float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3])}
}

// iconSample samples an icon at texel coordinates (s, t), linearly as a
// GL linear sampler does or at the nearest texel, in 0..1.
func iconSample(ic *sources.Icon, s, t float64, linear bool) (v [4]float64) {
	if !linear {
		px := iconTexel(ic, int(s), int(t))
		for c := range v {
			v[c] = px[c] / 255
		}
		return v
	}
	fx, fy := math.Floor(s-0.5), math.Floor(t-0.5)
	i, j := int(fx), int(fy)
	ax, ay := s-0.5-fx, t-0.5-fy
	t00, t10, t01, t11 := iconTexel(ic, i, j), iconTexel(ic, i+1, j), iconTexel(ic, i, j+1), iconTexel(ic, i+1, j+1)
	for c := range v {
		top := t00[c]*(1-ax) + t10[c]*ax
		bot := t01[c]*(1-ax) + t11[c]*ax
		v[c] = (top*(1-ay) + bot*ay) / 255
	}
	return v
}

// drawIcon draws a colour icon, its premultiplied texels scaled by opacity.
func drawIcon(cv *raster.Canvas, iq *iconQuad, opacity float64) {
	if opacity <= 0 {
		return
	}
	q := &iq.q
	if iq.linear || q.tilt != nil || q.uy != 0 || q.vx != 0 || q.ux <= 0 || q.vy <= 0 {
		iq.q.each(cv, func(x, y int, s, t float64) {
			blendIconTexel(cv, x, y, iconSample(iq.ic, s, t, iq.linear), opacity)
		})
		return
	}
	// An upright icon sampled at the nearest texel: GL interpolates its
	// texture coordinates between the quad's corners snapped to the
	// rasteriser's 1/16 pixel, so a pixel centre may fall exactly on a
	// texel edge, where the GPU's arithmetic decides.
	ex, ey := q.ox+float64(q.tw)*q.ux, q.oy+float64(q.th)*q.vy
	sx0, sx1, sy0, sy1 := raster.Snap(q.ox), raster.Snap(ex), raster.Snap(q.oy), raster.Snap(ey)
	// The pixels whose centres lie in the quad, as each finds them.
	r := cv.Rect
	x0, x1 := max(r.Min.X, int(math.Ceil(q.ox-0.5))), min(r.Max.X, int(math.Ceil(ex-0.5)))
	y0, y1 := max(r.Min.Y, int(math.Ceil(q.oy-0.5))), min(r.Max.Y, int(math.Ceil(ey-0.5)))
	if x1 <= x0 || y1 <= y0 || !cv.Budget.SpendArea(x0, y0, x1, y1, raster.CostTexture) {
		return
	}
	for y := y0; y < y1; y++ {
		if rowStopped(cv, y) {
			return
		}
		t := nearestTexel(float64(y)+0.5, sy0, sy1, q.th)
		for x := x0; x < x1; x++ {
			s := nearestTexel(float64(x)+0.5, sx0, sx1, q.tw)
			blendIconTexel(cv, x, y, iconSample(iq.ic, s, t, false), opacity)
		}
	}
}

// nearestTexel returns the texel coordinate GL samples at pixel centre p
// of a quad side from a to b (snapped) over n texels: p's share of the
// side, times n. Where that falls exactly on a texel edge the GPU takes
// the texel after the edge when the share is a binary fraction (computed
// without rounding) and the texel before it otherwise (rounded just
// under): one edge in three for a 24-pixel icon (22 and its padding), as
// MapLibre GL JS 6.17's pictures of symbol-placement/point and
// text-font/chinese show.
func nearestTexel(p, a, b float64, n int) float64 {
	num, den := int64(math.Round((p-a)*16)), int64(math.Round((b-a)*16))
	if den <= 0 {
		return (p - a) / (b - a) * float64(n)
	}
	c := float64(num) / float64(den) * float64(n)
	if (num*int64(n))%den != 0 {
		return c
	}
	edge := float64(num * int64(n) / den)
	r := den / gcd(num, den)
	if r&(r-1) == 0 {
		return edge + 0.5 // the share is exact: the texel after the edge
	}
	return edge - 0.5 // rounded just under: the texel before it
}

// gcd returns the greatest common divisor of a and b (b > 0).
func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	for a != 0 {
		a, b = b%a, a
	}
	return b
}

// blendIconTexel blends an icon's sample v at opacity onto pixel (x, y).
func blendIconTexel(cv *raster.Canvas, x, y int, v [4]float64, opacity float64) {
	if v[3] <= 0 && v[0] <= 0 && v[1] <= 0 && v[2] <= 0 {
		return
	}
	cv.BlendPremul(x, y, v[0]*opacity, v[1]*opacity, v[2]*opacity, v[3]*opacity)
}

// smoothstep is GLSL's smoothstep.
func smoothstep(e0, e1, x float64) float64 {
	if e0 == e1 {
		if x < e0 {
			return 0
		}
		return 1
	}
	t := (x - e0) / (e1 - e0)
	// Clamped to 0..1 as math.Max(0, math.Min(1, t)) does but for the
	// sign of a zero, which the polynomial gives back as a zero.
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	return t * t * (3 - 2*t)
}
