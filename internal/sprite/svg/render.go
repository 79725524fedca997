package svg

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
)

// maxLayers and maxLayerBytes bound the offscreen layers (group opacity, clip paths): their
// nesting and the memory of all layers of a render (16 bytes per pixel each).
const (
	maxLayers     = 8
	maxLayerBytes = 256 << 20
)

// renderer draws a document into a premultiplied float RGBA canvas.
type renderer struct {
	ctx         context.Context
	doc         *Document
	w, h        int
	layers      [][]float32
	ras         *rasterizer
	edges       int // remaining edge budget
	points      int // remaining flattened point budget
	useDepth    int
	vpW, vpH    float64                // current viewport size in user units (percentages)
	activeMasks map[*node]bool         // masks being rendered (no recursion)
	images      map[*node]*image.NRGBA // decoded embedded images (nil: undecodable)
	baseScale   float64                // image pixels per CSS pixel of the document
	instances   int                    // elements drawn so far (counting <use> copies)
	err         error
	steps       int
}

// Render rasterizes the document at scale times its natural size. The image is
// ceil(width×scale) × ceil(height×scale) pixels.
func (d *Document) Render(ctx context.Context, scale float64) (*image.NRGBA, error) {
	if !(scale > 0) || !finite(scale) {
		return nil, fmt.Errorf("svg: invalid scale %v", scale)
	}
	w := int(math.Ceil(d.width*scale - 1e-6))
	h := int(math.Ceil(d.height*scale - 1e-6))
	return d.RenderSize(ctx, w, h)
}

// RenderSize rasterizes the document into a w×h image, mapping the natural size onto it.
func (d *Document) RenderSize(ctx context.Context, w, h int) (*image.NRGBA, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("svg: empty image size %dx%d", w, h)
	}
	if w > d.lim.MaxDimension || h > d.lim.MaxDimension || w*h > d.lim.MaxPixels {
		return nil, fmt.Errorf("%w: image %dx%d", ErrTooLarge, w, h)
	}
	if !(d.width > 0) || !(d.height > 0) {
		return nil, fmt.Errorf("svg: document has no size")
	}
	r := &renderer{
		ctx:    ctx,
		doc:    d,
		w:      w,
		h:      h,
		edges:  d.lim.MaxEdges,
		points: d.lim.MaxPoints,
	}
	r.ras = newRasterizer(w, h, &r.edges)
	r.layers = [][]float32{make([]float32, w*h*4)}
	base := scaleM(float64(w)/d.width, float64(h)/d.height)
	r.baseScale = math.Sqrt(base.a * base.d)
	r.vpW, r.vpH = d.width, d.height
	if vb, ok := parseViewBox(d.root.attr("viewBox")); ok {
		r.vpW, r.vpH = vb[2], vb[3]
	}
	// The root's own style properties apply to everything (fill="none" on <svg> is common).
	st := inherit(initialStyle(), d.root, r.diag())
	r.viewport(d.root, base, st, 0, 0, d.width, d.height)
	if r.err != nil {
		return nil, r.err
	}
	if r.ras.overflow {
		return nil, fmt.Errorf("%w: more than %d edges", ErrTooLarge, d.lim.MaxEdges)
	}
	if v, ok := d.root.props["opacity"]; ok {
		if f, good := parseOpacity(v); good && f < 1 {
			for i := range r.layers[0] {
				r.layers[0][i] *= float32(f)
			}
		}
	}
	return toNRGBA(r.layers[0], w, h), nil
}

func toNRGBA(buf []float32, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		a := buf[i*4+3]
		if a <= 0 {
			continue
		}
		if a > 1 {
			a = 1
		}
		o := img.Pix[i*4 : i*4+4]
		o[0] = to8(buf[i*4] / a)
		o[1] = to8(buf[i*4+1] / a)
		o[2] = to8(buf[i*4+2] / a)
		o[3] = to8(a)
	}
	return img
}

func to8(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	return uint8(v*255 + 0.5)
}

func (r *renderer) check() bool {
	if r.err != nil {
		return false
	}
	r.steps++
	if r.steps%64 == 0 {
		if err := r.ctx.Err(); err != nil {
			r.err = fmt.Errorf("svg: render: %w", err)
			return false
		}
	}
	if r.ras.overflow {
		r.err = fmt.Errorf("%w: more than %d edges", ErrTooLarge, r.doc.lim.MaxEdges)
		return false
	}
	if r.ras.work > r.doc.lim.MaxWork {
		r.err = fmt.Errorf("%w: rendering needs more than %d steps", ErrTooLarge, r.doc.lim.MaxWork)
		return false
	}
	return true
}

// viewport renders an <svg> (root or nested) or an instantiated <symbol> into the viewport
// (x, y, w, h) given in the coordinates of ctm.
func (r *renderer) viewport(n *node, ctm matrix, st computed, x, y, w, h float64) {
	m := ctm
	vpW, vpH := r.vpW, r.vpH
	if vb, ok := parseViewBox(n.attr("viewBox")); ok {
		m = ctm.mul(viewBoxTransform(vb, parseAspect(n.attr("preserveAspectRatio")), x, y, w, h))
		r.vpW, r.vpH = vb[2], vb[3]
	} else {
		m = ctm.mul(translate(x, y))
		r.vpW, r.vpH = w, h
	}
	r.group(n, m, st)
	r.vpW, r.vpH = vpW, vpH
}

func (r *renderer) diag() float64 {
	return math.Sqrt((r.vpW*r.vpW + r.vpH*r.vpH) / 2)
}

// group renders the children of a container, honouring its opacity and clip-path.
func (r *renderer) group(n *node, ctm matrix, st computed) {
	for _, c := range n.children {
		if !r.check() {
			return
		}
		r.element(c, ctm, st)
		if n.tag == "switch" && renderable(c) {
			break
		}
	}
}

func renderable(n *node) bool {
	switch n.tag {
	case "g", "a", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use", "svg", "switch", "image":
		_, cond := n.attrs["requiredExtensions"]
		_, feat := n.attrs["requiredFeatures"]
		return !cond && !feat
	}
	return false
}

func (r *renderer) element(n *node, ctm matrix, parent computed) {
	r.instances++
	if r.instances > r.doc.lim.MaxInstances {
		if r.err == nil {
			r.err = fmt.Errorf("%w: more than %d element instances (<use> fan-out)", ErrTooLarge, r.doc.lim.MaxInstances)
		}
		return
	}
	switch n.tag {
	case "g", "a", "switch", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use", "svg", "image":
	default:
		return // defs, symbol, clipPath, mask, gradients, style, text, image... are not drawn directly
	}
	if n.props["display"] == "none" {
		return
	}
	if _, bad := n.attrs["requiredExtensions"]; bad {
		return
	}
	st := inherit(parent, n, r.diag())
	if t, ok := n.attrs["transform"]; ok {
		m, good := parseTransform(t)
		if !good {
			return
		}
		ctm = ctm.mul(m)
	}
	if ctm.det() == 0 {
		return
	}
	opacity := 1.0
	if v, ok := n.props["opacity"]; ok {
		if f, good := parseOpacity(v); good {
			opacity = f
		}
	}
	if opacity <= 0 {
		return
	}
	var clip *node
	if v := n.props["clip-path"]; v != "" && v != "none" {
		if id, _, ok := parseURLRef(v); ok {
			clip = r.doc.ids[id]
			if clip == nil || clip.tag != "clipPath" {
				return // a reference to a missing clip path disables rendering
			}
		}
	}
	var msk *node
	if v := n.props["mask"]; v != "" && v != "none" {
		if id, _, ok := parseURLRef(v); ok {
			if m := r.doc.ids[id]; m != nil && m.tag == "mask" && !r.activeMasks[m] {
				msk = m
			}
		}
	}
	layered := opacity < 1 || clip != nil || msk != nil
	// A mask needs a second layer for its content.
	need := len(r.layers) + 1
	if msk != nil {
		need++
	}
	if layered && (len(r.layers) > maxLayers || need*r.w*r.h*16 > maxLayerBytes) {
		// Too many nested layers: fold the opacity into the paint and drop the clip
		// (an approximation that keeps memory bounded).
		layered = false
		st.fillOpacity *= opacity
		st.strokeOpacity *= opacity
	}
	if layered {
		r.layers = append(r.layers, make([]float32, r.w*r.h*4))
	}
	switch n.tag {
	case "g", "a", "switch":
		r.group(n, ctm, st)
	case "svg":
		x, _ := parseLength(n.attr("x"), r.vpW)
		y, _ := parseLength(n.attr("y"), r.vpH)
		w, okw := parseLength(n.attr("width"), r.vpW)
		h, okh := parseLength(n.attr("height"), r.vpH)
		if !okw {
			w = r.vpW
		}
		if !okh {
			h = r.vpH
		}
		if w > 0 && h > 0 {
			r.viewport(n, ctm, st, x, y, w, h)
		}
	case "use":
		r.use(n, ctm, st)
	case "image":
		r.drawImage(n, ctm, st)
	default:
		r.shape(n, ctm, st)
	}
	if layered {
		top := r.layers[len(r.layers)-1]
		r.layers = r.layers[:len(r.layers)-1]
		var cm *clipMask
		if clip != nil {
			cm = r.clipMask(clip, n, ctm)
		}
		if msk != nil {
			mm := r.maskCoverage(msk, n, ctm)
			if cm == nil {
				cm = mm
			} else {
				for i := range cm.cov {
					cm.cov[i] *= mm.cov[i]
				}
			}
		}
		dst := r.layers[len(r.layers)-1]
		r.ras.work += 4 * int64(r.w*r.h) // allocation, clearing and compositing of the layer
		op := float32(opacity)
		for i := 0; i < r.w*r.h; i++ {
			a := top[i*4+3]
			if a <= 0 {
				continue
			}
			k := op
			if cm != nil {
				k *= cm.cov[i]
				if k == 0 {
					continue
				}
			}
			sa := a * k
			inv := 1 - sa
			dst[i*4] = top[i*4]*k + dst[i*4]*inv
			dst[i*4+1] = top[i*4+1]*k + dst[i*4+1]*inv
			dst[i*4+2] = top[i*4+2]*k + dst[i*4+2]*inv
			dst[i*4+3] = sa + dst[i*4+3]*inv
		}
	}
}

func (r *renderer) use(n *node, ctm matrix, st computed) {
	href := strings.TrimSpace(n.attr("href"))
	if !strings.HasPrefix(href, "#") {
		return
	}
	target := r.doc.ids[href[1:]]
	if target == nil || r.useDepth >= r.doc.lim.MaxUseDepth {
		return
	}
	for p := n; p != nil; p = p.parent { // self-reference
		if p == target {
			return
		}
	}
	x, _ := parseLength(n.attr("x"), r.vpW)
	y, _ := parseLength(n.attr("y"), r.vpH)
	ctm = ctm.mul(translate(x, y))
	r.useDepth++
	defer func() { r.useDepth-- }()
	switch target.tag {
	case "symbol", "svg":
		w, okw := parseLength(n.attr("width"), r.vpW)
		h, okh := parseLength(n.attr("height"), r.vpH)
		if !okw {
			if w, okw = parseLength(target.attr("width"), r.vpW); !okw {
				w = r.vpW
			}
		}
		if !okh {
			if h, okh = parseLength(target.attr("height"), r.vpH); !okh {
				h = r.vpH
			}
		}
		if target.props["display"] == "none" || !(w > 0 && h > 0) {
			return
		}
		st = inherit(st, target, r.diag())
		if t, ok := target.attrs["transform"]; ok && target.tag == "symbol" {
			if m, good := parseTransform(t); good {
				ctm = ctm.mul(m)
			}
		}
		r.viewport(target, ctm, st, 0, 0, w, h)
	default:
		r.element(target, ctm, st)
	}
}

// shapePath builds the geometry of a basic shape or path in user space.
func (r *renderer) shapePath(n *node) *path {
	num := func(k string, ref float64) float64 {
		v, ok := parseLength(n.attr(k), ref)
		if !ok {
			return 0
		}
		return v
	}
	p := &path{}
	switch n.tag {
	case "path":
		pp, err := parsePathData(n.attr("d"), r.points)
		if err != nil && pp == nil {
			return nil
		}
		return pp // keep what parsed before an error, like browsers do
	case "rect":
		x, y := num("x", r.vpW), num("y", r.vpH)
		w, h := num("width", r.vpW), num("height", r.vpH)
		if !(w > 0 && h > 0) {
			return nil
		}
		rxS, hasRx := n.attrs["rx"]
		ryS, hasRy := n.attrs["ry"]
		rx, okx := parseLength(rxS, r.vpW)
		ry, oky := parseLength(ryS, r.vpH)
		okx = okx && hasRx && rx >= 0
		oky = oky && hasRy && ry >= 0
		switch {
		case okx && !oky:
			ry = rx
		case oky && !okx:
			rx = ry
		case !okx && !oky:
			rx, ry = 0, 0
		}
		rx = math.Min(rx, w/2)
		ry = math.Min(ry, h/2)
		if rx > 0 && ry > 0 {
			p.moveTo(point{x + rx, y})
			p.lineTo(point{x + w - rx, y})
			p.arcTo(point{x + w - rx, y}, rx, ry, 0, false, true, point{x + w, y + ry})
			p.lineTo(point{x + w, y + h - ry})
			p.arcTo(point{x + w, y + h - ry}, rx, ry, 0, false, true, point{x + w - rx, y + h})
			p.lineTo(point{x + rx, y + h})
			p.arcTo(point{x + rx, y + h}, rx, ry, 0, false, true, point{x, y + h - ry})
			p.lineTo(point{x, y + ry})
			p.arcTo(point{x, y + ry}, rx, ry, 0, false, true, point{x + rx, y})
		} else {
			p.moveTo(point{x, y})
			p.lineTo(point{x + w, y})
			p.lineTo(point{x + w, y + h})
			p.lineTo(point{x, y + h})
		}
		p.close()
	case "circle", "ellipse":
		cx, cy := num("cx", r.vpW), num("cy", r.vpH)
		var rx, ry float64
		if n.tag == "circle" {
			rx = num("r", r.diag())
			ry = rx
		} else {
			rx, ry = num("rx", r.vpW), num("ry", r.vpH)
			_, hasRx := n.attrs["rx"]
			_, hasRy := n.attrs["ry"]
			if !hasRx || n.attr("rx") == "auto" {
				rx = ry
			}
			if !hasRy || n.attr("ry") == "auto" {
				ry = rx
			}
		}
		if !(rx > 0 && ry > 0) {
			return nil
		}
		p.moveTo(point{cx + rx, cy})
		p.arcTo(point{cx + rx, cy}, rx, ry, 0, false, true, point{cx, cy + ry})
		p.arcTo(point{cx, cy + ry}, rx, ry, 0, false, true, point{cx - rx, cy})
		p.arcTo(point{cx - rx, cy}, rx, ry, 0, false, true, point{cx, cy - ry})
		p.arcTo(point{cx, cy - ry}, rx, ry, 0, false, true, point{cx + rx, cy})
		p.close()
	case "line":
		p.moveTo(point{num("x1", r.vpW), num("y1", r.vpH)})
		p.lineTo(point{num("x2", r.vpW), num("y2", r.vpH)})
	case "polyline", "polygon":
		f := parseNumbers(n.attr("points"), 2*r.points)
		if len(f) < 2 {
			return nil
		}
		p.moveTo(point{f[0], f[1]})
		for i := 2; i+1 < len(f); i += 2 {
			p.lineTo(point{f[i], f[i+1]})
		}
		if n.tag == "polygon" {
			p.close()
		}
	default:
		return nil
	}
	return p
}

func (r *renderer) flatten(p *path, ctm matrix) []polyline {
	tol := 0.05 / math.Max(ctm.scale(), 1e-9)
	lines, err := p.flatten(tol, r.points)
	if err != nil {
		r.err = fmt.Errorf("%w: too many path points", ErrTooLarge)
		return nil
	}
	for _, l := range lines {
		r.points -= len(l.pts)
	}
	return lines
}

func bboxOf(lines []polyline) (x0, y0, x1, y1 float64, ok bool) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, l := range lines {
		for _, q := range l.pts {
			x0 = math.Min(x0, q.x)
			y0 = math.Min(y0, q.y)
			x1 = math.Max(x1, q.x)
			y1 = math.Max(y1, q.y)
		}
	}
	return x0, y0, x1, y1, x1 >= x0 && y1 >= y0
}

func (r *renderer) shape(n *node, ctm matrix, st computed) {
	if !st.visible {
		return
	}
	p := r.shapePath(n)
	if p == nil || len(p.segs) == 0 {
		return
	}
	lines := r.flatten(p, ctm)
	if r.err != nil || len(lines) == 0 {
		return
	}
	bx0, by0, bx1, by1, _ := bboxOf(lines)
	bbox := [4]float64{bx0, by0, bx1 - bx0, by1 - by0}
	fill := func() {
		if st.fill.kind == paintNone || n.tag == "line" {
			return
		}
		pt := r.painter(st.fill, st.fillOpacity, st.color, bbox, ctm)
		if pt == nil {
			return
		}
		r.ras.reset()
		for _, l := range lines {
			if len(l.pts) < 3 {
				continue
			}
			dev := make([]point, len(l.pts))
			for i, q := range l.pts {
				dev[i] = ctm.apply(q)
			}
			r.ras.addPolygon(dev)
		}
		if !r.check() {
			return
		}
		r.composite(r.ras.coverage(st.fillEvenOdd), pt)
		r.check()
	}
	stroke := func() {
		if st.stroke.kind == paintNone || !(st.strokeP.width > 0) {
			return
		}
		pt := r.painter(st.stroke, st.strokeOpacity, st.color, bbox, ctm)
		if pt == nil {
			return
		}
		r.ras.reset()
		if n.props["vector-effect"] == "non-scaling-stroke" {
			// Stroke in device space with the width in CSS pixels of the image.
			dev := make([]polyline, len(lines))
			for i, l := range lines {
				dev[i] = polyline{pts: make([]point, len(l.pts)), corner: l.corner, closed: l.closed}
				for j, q := range l.pts {
					dev[i].pts[j] = ctm.apply(q)
				}
			}
			sp := st.strokeP
			sp.width *= r.baseScale
			sp.dashOffset *= r.baseScale
			if len(sp.dash) > 0 {
				sp.dash = append([]float64(nil), sp.dash...)
				for i := range sp.dash {
					sp.dash[i] *= r.baseScale
				}
			}
			strokePolylines(dev, sp, 0.05, func(pts []point) { r.ras.addPolygon(pts) })
		} else {
			tol := 0.05 / math.Max(ctm.scale(), 1e-9)
			strokePolylines(lines, st.strokeP, tol, func(pts []point) {
				for i := range pts {
					pts[i] = ctm.apply(pts[i])
				}
				r.ras.addPolygon(pts)
			})
		}
		if !r.check() {
			return
		}
		r.composite(r.ras.coverage(false), pt)
		r.check()
	}
	// paint-order: "stroke" (or "stroke fill", "markers stroke"...) before fill.
	po := strings.Fields(n.props["paint-order"])
	strokeFirst := false
	for _, f := range po {
		if f == "fill" {
			break
		}
		if f == "stroke" {
			strokeFirst = true
			break
		}
	}
	if strokeFirst {
		stroke()
		fill()
	} else {
		fill()
		stroke()
	}
}

// composite paints the coverage mask with the painter onto the top layer (source-over).
func (r *renderer) composite(m *mask, pt painter) {
	if m.empty() {
		return
	}
	dst := r.layers[len(r.layers)-1]
	mw := m.x1 - m.x0
	r.ras.work += int64(mw * (m.y1 - m.y0))
	if s, ok := pt.(solid); ok {
		compositeSolid(dst, r.w, m, s)
		return
	}
	for y := m.y0; y < m.y1; y++ {
		row := m.cov[(y-m.y0)*mw : (y-m.y0+1)*mw]
		for xi, c := range row {
			if c <= 0 {
				continue
			}
			x := m.x0 + xi
			s := pt.at(x, y)
			sa := s[3] * c
			if sa <= 0 {
				continue
			}
			i := (y*r.w + x) * 4
			inv := 1 - sa
			dst[i] = s[0]*c + dst[i]*inv
			dst[i+1] = s[1]*c + dst[i+1]*inv
			dst[i+2] = s[2]*c + dst[i+2]*inv
			dst[i+3] = sa + dst[i+3]*inv
		}
	}
}

// compositeSolid is composite for a uniform colour.
func compositeSolid(dst []float32, w int, m *mask, s solid) {
	mw := m.x1 - m.x0
	for y := m.y0; y < m.y1; y++ {
		row := m.cov[(y-m.y0)*mw : (y-m.y0+1)*mw]
		base := (y*w + m.x0) * 4
		for xi, c := range row {
			if c <= 0 {
				continue
			}
			sa := s[3] * c
			i := base + xi*4
			d := dst[i : i+4 : i+4]
			inv := 1 - sa
			d[0] = s[0]*c + d[0]*inv
			d[1] = s[1]*c + d[1]*inv
			d[2] = s[2]*c + d[2]*inv
			d[3] = sa + d[3]*inv
		}
	}
}

type clipMask struct{ cov []float32 }

// clipMask computes the coverage of a clipPath for element n drawn with ctm.
func (r *renderer) clipMask(clip, n *node, ctm matrix) *clipMask {
	cm := &clipMask{cov: make([]float32, r.w*r.h)}
	m := ctm
	if t, ok := clip.attrs["transform"]; ok {
		if tm, good := parseTransform(t); good {
			m = m.mul(tm)
		}
	}
	if clip.attr("clipPathUnits") == "objectBoundingBox" {
		bb, ok := r.elementBBox(n)
		if !ok || bb[2] <= 0 || bb[3] <= 0 {
			return cm
		}
		m = m.mul(matrix{a: bb[2], d: bb[3], e: bb[0], f: bb[1]})
	}
	st := inherit(initialStyle(), clip, r.diag())
	for _, c := range clip.children {
		r.clipChild(cm, c, m, st, 0)
	}
	return cm
}

func (r *renderer) clipChild(cm *clipMask, c *node, m matrix, st computed, depth int) {
	r.instances++
	if r.instances > r.doc.lim.MaxInstances {
		if r.err == nil {
			r.err = fmt.Errorf("%w: more than %d element instances", ErrTooLarge, r.doc.lim.MaxInstances)
		}
		return
	}
	if depth > r.doc.lim.MaxUseDepth || !r.check() {
		return
	}
	if c.props["display"] == "none" {
		return
	}
	st = inherit(st, c, r.diag())
	if t, ok := c.attrs["transform"]; ok {
		tm, good := parseTransform(t)
		if !good {
			return
		}
		m = m.mul(tm)
	}
	if c.tag == "use" {
		href := strings.TrimSpace(c.attr("href"))
		if t := r.doc.ids[strings.TrimPrefix(href, "#")]; strings.HasPrefix(href, "#") && t != nil && t != c {
			x, _ := parseLength(c.attr("x"), r.vpW)
			y, _ := parseLength(c.attr("y"), r.vpH)
			r.clipChild(cm, t, m.mul(translate(x, y)), st, depth+1)
		}
		return
	}
	if !st.visible {
		return
	}
	p := r.shapePath(c)
	if p == nil {
		return
	}
	lines := r.flatten(p, m)
	r.ras.reset()
	for _, l := range lines {
		dev := make([]point, len(l.pts))
		for i, q := range l.pts {
			dev[i] = m.apply(q)
		}
		r.ras.addPolygon(dev)
	}
	mk := r.ras.coverage(st.clipEvenOdd)
	if mk.empty() {
		return
	}
	mw := mk.x1 - mk.x0
	for y := mk.y0; y < mk.y1; y++ {
		for x := mk.x0; x < mk.x1; x++ {
			v := mk.cov[(y-mk.y0)*mw+x-mk.x0]
			i := y*r.w + x
			cm.cov[i] = 1 - (1-cm.cov[i])*(1-v) // union
		}
	}
}

// elementBBox is the user-space bounding box of a shape (groups: the union of direct shape
// children without their transforms, a simplification).
func (r *renderer) elementBBox(n *node) ([4]float64, bool) {
	var ls []polyline
	add := func(c *node) {
		if p := r.shapePath(c); p != nil {
			if l, err := p.flatten(0.1, r.points); err == nil {
				ls = append(ls, l...)
			}
		}
	}
	add(n)
	for _, c := range n.children {
		add(c)
	}
	x0, y0, x1, y1, ok := bboxOf(ls)
	return [4]float64{x0, y0, x1 - x0, y1 - y0}, ok
}

// maskCoverage renders a <mask> for element n and returns its per-pixel coverage: the
// luminance (or, with mask-type: alpha, the alpha) of the mask content, limited to the mask
// region.
func (r *renderer) maskCoverage(msk, n *node, ctm matrix) *clipMask {
	cm := &clipMask{cov: make([]float32, r.w*r.h)}
	bb, hasBB := r.elementBBox(n)
	// The mask region.
	var region [4]float64
	if msk.attr("maskUnits") == "userSpaceOnUse" {
		region[0], _ = parseLength(orDefault(msk.attr("x"), "-10%"), r.vpW)
		region[1], _ = parseLength(orDefault(msk.attr("y"), "-10%"), r.vpH)
		region[2], _ = parseLength(orDefault(msk.attr("width"), "120%"), r.vpW)
		region[3], _ = parseLength(orDefault(msk.attr("height"), "120%"), r.vpH)
	} else {
		if !hasBB || bb[2] <= 0 || bb[3] <= 0 {
			return cm
		}
		f := func(k, def string) float64 {
			v := orDefault(msk.attr(k), def)
			if strings.HasSuffix(v, "%") {
				p, _ := parseFloat(v[:len(v)-1])
				return p / 100
			}
			p, _ := parseFloat(v)
			return p
		}
		region = [4]float64{bb[0] + f("x", "-10%")*bb[2], bb[1] + f("y", "-10%")*bb[3], f("width", "120%") * bb[2], f("height", "120%") * bb[3]}
	}
	if !(region[2] > 0 && region[3] > 0) {
		return cm
	}
	r.ras.reset()
	r.ras.addPolygon([]point{
		ctm.apply(point{region[0], region[1]}), ctm.apply(point{region[0] + region[2], region[1]}),
		ctm.apply(point{region[0] + region[2], region[1] + region[3]}), ctm.apply(point{region[0], region[1] + region[3]}),
	})
	regionMask := r.ras.coverage(false)
	if regionMask.empty() {
		return cm
	}
	// The mask content.
	m := ctm
	if msk.attr("maskContentUnits") == "objectBoundingBox" {
		if !hasBB || bb[2] <= 0 || bb[3] <= 0 {
			return cm
		}
		m = m.mul(matrix{a: bb[2], d: bb[3], e: bb[0], f: bb[1]})
	}
	if r.activeMasks == nil {
		r.activeMasks = map[*node]bool{}
	}
	r.activeMasks[msk] = true
	r.layers = append(r.layers, make([]float32, r.w*r.h*4))
	r.ras.work += 4 * int64(r.w*r.h)
	st := inherit(initialStyle(), msk, r.diag())
	for _, c := range msk.children {
		if !r.check() {
			break
		}
		r.element(c, m, st)
	}
	layer := r.layers[len(r.layers)-1]
	r.layers = r.layers[:len(r.layers)-1]
	delete(r.activeMasks, msk)
	alpha := msk.props["mask-type"] == "alpha"
	for y := regionMask.y0; y < regionMask.y1; y++ {
		for x := regionMask.x0; x < regionMask.x1; x++ {
			i := y*r.w + x
			var v float32
			if alpha {
				v = layer[i*4+3]
			} else {
				// Luminance of the premultiplied colour = luminance × alpha.
				v = 0.2125*layer[i*4] + 0.7154*layer[i*4+1] + 0.0721*layer[i*4+2]
			}
			cm.cov[i] = v * regionMask.at(x, y)
		}
	}
	return cm
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}
