package render

import (
	"fmt"
	"math"
	"sort"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// layerRender draws one layer.
type layerRender struct {
	r    *Renderer
	l    *style.Layer
	cv   *raster.Canvas
	mask *raster.Mask
	fr   frame
	zoom float64

	lines *lineBuilder // reused between features
	// pts and rings hold a polygon's projected rings, reused between
	// polygons (projectRings).
	pts   []raster.Point
	rings [][]raster.Point
	tiles []box // the view's tiles, once asked
	// sprites gives the images of patterns.
	sprites *spriteSource

	filter *expr.Expression
	props  map[string]*expr.Expression // paint and layout properties
	slots  map[string]*prop            // the properties asked for, by name

	gradient *raster.Gradient // line-gradient's ramp, once built
	// lineConst is the style of every feature's line when it depends on
	// no feature, once lineChecked.
	lineConst    *lineStyle
	lineChecked  bool
	gradientDone bool
	seen         map[*box]bool // whether tile squares reach the image
}

// compile prepares the layer's filter and properties.
func (lr *layerRender) compile() error {
	lr.props = map[string]*expr.Expression{}
	if lr.l.Filter != nil {
		f, errs := expr.CompileFilter(lr.l.Filter)
		if len(errs) > 0 {
			return fmt.Errorf("filter: %s", errs[0].Message)
		}
		lr.filter = f
	}
	for _, kind := range []string{"paint", "layout"} {
		specs := lr.r.specs[kind+"_"+lr.l.Type]
		obj := lr.l.Paint
		if kind == "layout" {
			obj = lr.l.Layout
		}
		for name, spec := range specs {
			var e *expr.Expression
			var errs []expr.CompileError
			if obj != nil {
				if raw, ok := obj.Get(name); ok {
					e, errs = expr.CompileValue(raw, spec)
				}
			}
			if e == nil && len(errs) == 0 && len(spec.Default) > 0 {
				e, errs = lr.r.defaultValue(kind+"_"+lr.l.Type, name, spec)
			}
			if len(errs) > 0 {
				// One broken property is left at nothing; the rest draws.
				lr.r.log.Warn("render: property skipped", "layer", lr.l.ID, "property", name, "err", errs[0].Message)
				continue
			}
			if e != nil {
				lr.props[name] = e
			}
		}
	}
	return nil
}

// passes reports whether the layer's filter keeps the feature of c (a
// layer without a filter keeps every feature).
func (lr *layerRender) passes(c *expr.EvalContext) bool {
	if lr.filter == nil {
		return true
	}
	v := lr.filter.EvalOrDefault(c)
	return v.Kind() == expr.KindBoolean && v.Boolean()
}

func (lr *layerRender) ctx(f expr.Feature) *expr.EvalContext {
	return &expr.EvalContext{Zoom: lr.zoom, Feature: f}
}

// prop is one of a layer's properties, looked up once per layer: its
// expression (nil when the layer has none) and, once evaluated, its value
// when it depends on no feature.
type prop struct {
	e     *expr.Expression
	v     expr.Value
	known bool // v holds the feature-constant value at the layer's zoom
}

// prop returns the named property, from one lookup a call.
func (lr *layerRender) prop(name string) *prop {
	if p := lr.slots[name]; p != nil {
		return p
	}
	if lr.slots == nil {
		lr.slots = map[string]*prop{}
	}
	p := &prop{e: lr.props[name]}
	lr.slots[name] = p
	return p
}

// eval evaluates a property, nil when the layer has none. Values that
// depend on no feature are evaluated once for the layer's zoom.
func (lr *layerRender) eval(name string, c *expr.EvalContext) (expr.Value, bool) {
	p := lr.prop(name)
	if p.e == nil {
		return expr.Value{}, false
	}
	if !p.e.IsFeatureConstant() || c.Zoom != lr.zoom {
		return p.e.EvalOrDefault(c), true
	}
	if !p.known {
		p.v, p.known = p.e.EvalOrDefault(c), true
	}
	return p.v, true
}

func (lr *layerRender) num(name string, c *expr.EvalContext, def float64) float64 {
	v, ok := lr.eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindNumber {
		return def
	}
	return v.Num()
}

func (lr *layerRender) color(name string, c *expr.EvalContext) (raster.Color, bool) {
	v, ok := lr.eval(name, c)
	if !ok {
		return raster.Color{}, false
	}
	if v.Kind() != expr.KindColor {
		return raster.Color{}, false
	}
	col := v.Color()
	return raster.Color{R: col.R, G: col.G, B: col.B, A: col.A}, true
}

func (lr *layerRender) str(name string, c *expr.EvalContext, def string) string {
	v, ok := lr.eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindString {
		return def
	}
	return v.Str()
}

func (lr *layerRender) boolean(name string, c *expr.EvalContext, def bool) bool {
	v, ok := lr.eval(name, c)
	if !ok {
		return def
	}
	if v.Kind() != expr.KindBoolean {
		return def
	}
	return v.Boolean()
}

// numbers returns the numbers of a numeric array value (a numberArray,
// padding or plain array of numbers), nil for anything else.
func numbers(v expr.Value) []float64 {
	if f := v.Floats(); f != nil {
		return f
	}
	items := v.Items()
	if items == nil {
		return nil
	}
	out := make([]float64, len(items))
	for i, it := range items {
		if it.Kind() != expr.KindNumber {
			return nil
		}
		out[i] = it.Num()
	}
	return out
}

// translate returns the layer's translation in device pixels.
func (lr *layerRender) translate(name string, c *expr.EvalContext) (float64, float64) {
	val, ok := lr.eval(name, c)
	if !ok {
		return 0, 0
	}
	x, y, ok := numberPair(val)
	if !ok {
		return 0, 0
	}
	dx, dy := x*lr.fr.ratio, y*lr.fr.ratio
	if lr.str(anchorProperty(name), c, "map") == "map" {
		// Anchored to the map: turns with it.
		return dx*lr.fr.cos - dy*lr.fr.sin, dx*lr.fr.sin + dy*lr.fr.cos
	}
	return dx, dy
}

// numberPair returns the two numbers of a numeric array value of two, as
// numbers reads them; ok is false for anything else.
func numberPair(v expr.Value) (x, y float64, ok bool) {
	if f := v.Floats(); f != nil {
		if len(f) != 2 {
			return 0, 0, false
		}
		return f[0], f[1], true
	}
	items := v.Items()
	if len(items) != 2 || items[0].Kind() != expr.KindNumber || items[1].Kind() != expr.KindNumber {
		return 0, 0, false
	}
	return items[0].Num(), items[1].Num(), true
}

// anchorProperty returns the name of a translate property's anchor
// property, without building the string for the usual ones.
func anchorProperty(translate string) string {
	switch translate {
	case "fill-translate":
		return "fill-translate-anchor"
	case "line-translate":
		return "line-translate-anchor"
	case "circle-translate":
		return "circle-translate-anchor"
	case "fill-extrusion-translate":
		return "fill-extrusion-translate-anchor"
	}
	return translate + "-anchor"
}

func (lr *layerRender) background() {
	c := lr.ctx(nil)
	if img := lr.patternImage("background-pattern", c); img != nil {
		lr.cv.FillPattern(lr.planePattern(img, 0, 0), lr.num("background-opacity", c, 1))
		return
	}
	if lr.l.Paint != nil && lr.l.Paint.Has("background-pattern") {
		return // a pattern whose image is missing draws nothing, as in GL
	}
	col, ok := lr.color("background-color", c)
	if !ok {
		return
	}
	lr.cv.Fill(col, lr.num("background-opacity", c, 1))
}

// draw draws the layer's features, each feature with its own properties.
func (lr *layerRender) draw(runs featureRuns) {
	if lr.l.Type == "circle" {
		runs = featureRuns{byTileOrder(runs.flat(), lr.viewTiles)}
	}
	if lr.sortKeyed() {
		runs = featureRuns{lr.sortByKey(runs.flat())}
	}
	clipped := lr.l.Type == "fill" || lr.l.Type == "line"
	// GL draws a fill layer's interiors, then its antialiasing outlines
	// over all of them: the outlines are a pass of their own.
	type outline struct {
		f     *sourceFeature
		paint fillPaint
	}
	var outlines []outline
	// One context serves every feature in turn: evaluation keeps none.
	c := lr.ctx(nil)
	var cull featureCull
	if clipped {
		cull = lr.featureCull(c)
	}
	for _, run := range runs {
		for i := range run {
			if lr.cv.Budget.Stopped() {
				return // cancelled, or over the render's work bound
			}
			if lr.l.Type == "fill" && run[i].kind == "LineString" {
				// GL fills the rings lines close.
				for _, g := range lr.lineFills(&run[i]) {
					if fp, ok := lr.drawFeature(&g, c, clipped, &cull); ok {
						outlines = append(outlines, outline{&g, fp})
					}
				}
				continue
			}
			if fp, ok := lr.drawFeature(&run[i], c, clipped, &cull); ok {
				outlines = append(outlines, outline{&run[i], fp})
			}
		}
	}
	for k := range outlines {
		lr.fillOutline(*outlines[k].f, &outlines[k].paint)
	}
}

// drawFeature draws one feature of the layer with context c (its feature
// set here), unless it is culled or filtered out. A fill drawn returns its
// paint: its antialiasing outline is drawn after every interior.
func (lr *layerRender) drawFeature(f *sourceFeature, c *expr.EvalContext, clipped bool, cull *featureCull) (fillPaint, bool) {
	if clipped && f.clip != nil && !lr.squareVisible(f.clip) {
		// Fills and lines are cut to their tile's square: a tile read
		// only for the labels around the view draws nothing here.
		return fillPaint{}, false
	}
	if cull.ok && !lr.featureReaches(*f, cull) {
		return fillPaint{}, false // nothing of it can reach the canvas: no filter to evaluate
	}
	c.Feature = f.feat
	if !lr.passes(c) {
		return fillPaint{}, false
	}
	switch lr.l.Type {
	case "fill":
		return lr.fill(*f, c)
	case "line":
		lr.line(*f, c)
	case "circle":
		lr.circle(*f, c)
	}
	return fillPaint{}, false
}

// sortKeyed reports whether the layer orders its features by a sort key.
func (lr *layerRender) sortKeyed() bool {
	return lr.l.Layout != nil && lr.l.Layout.Has(lr.l.Type+"-sort-key")
}

// featureCull is what a fill or line layer knows, the same for every
// feature, of how far beyond its points on the map a feature draws.
type featureCull struct {
	ok     bool    // the bound holds for every feature of the layer
	dx, dy float64 // the layer's translation, device pixels
	// in is a world box whose points, translated, the view surely
	// shows: a feature with a point in it reaches the canvas.
	in     box
	margin float64 // device pixels beyond the points, for fills
	line   bool    // lines: margin is lineReach's without the tile unit
}

// featureCull returns the layer's bound, not ok under a tilted camera or
// when a property it rests on depends on the feature.
func (lr *layerRender) featureCull(c *expr.EvalContext) featureCull {
	cull := lr.featureBound(c)
	if cull.ok {
		cull.in = lr.surelyShown(cull.dx, cull.dy)
	}
	return cull
}

// surelyShown returns a world box whose points, translated by dx, dy
// device pixels, lie inside the canvas: the view's box when the map is
// not turned, else the square inside the circle inside it.
func (lr *layerRender) surelyShown(dx, dy float64) box {
	fr := lr.fr
	w, h := float64(lr.cv.Rect.Dx()), float64(lr.cv.Rect.Dy())
	// The canvas's centre, less the translation, on the map.
	cx := fr.cx + ((w/2-dx)*fr.cos+(h/2-dy)*fr.sin-fr.w/2*fr.cos-fr.h/2*fr.sin)/fr.scale
	cy := fr.cy + (-(w/2-dx)*fr.sin+(h/2-dy)*fr.cos+fr.w/2*fr.sin-fr.h/2*fr.cos)/fr.scale
	// A pixel short of the edges, for rounding.
	hx, hy := (w/2-1)/fr.scale, (h/2-1)/fr.scale
	if fr.sin != 0 {
		hx = (min(w, h)/2 - 1) / math.Sqrt2 / fr.scale
		hy = hx
	}
	if hx <= 0 || hy <= 0 {
		return box{}
	}
	return box{cx - hx, cy - hy, cx + hx, cy + hy}
}

// featureBound is featureCull without its box of surely shown points.
func (lr *layerRender) featureBound(c *expr.EvalContext) featureCull {
	if lr.fr.tilt != nil {
		return featureCull{}
	}
	constant := func(names ...string) bool {
		for _, name := range names {
			if e := lr.prop(name).e; e != nil && !e.IsFeatureConstant() {
				return false
			}
		}
		return true
	}
	switch lr.l.Type {
	case "fill":
		if !constant("fill-translate", "fill-translate-anchor") {
			return featureCull{}
		}
		cull := featureCull{ok: true, margin: 1}
		cull.dx, cull.dy = lr.translate("fill-translate", c)
		return cull
	case "line":
		if !constant("line-translate", "line-translate-anchor", "line-width", "line-gap-width",
			"line-offset", "line-join", "line-miter-limit") {
			return featureCull{}
		}
		cull := featureCull{ok: true, line: true}
		cull.dx, cull.dy = lr.translate("line-translate", c)
		_, outset := lr.lineEdges(c)
		shape := lineShape{join: lr.str("line-join", c, "miter"), miterLimit: lr.num("line-miter-limit", c, 2)}
		ratio := lr.fr.ratio
		cull.margin = lineReach(shape, outset*ratio, lr.num("line-offset", c, 0)*ratio, 0)
		// A NaN or negative bound culls nothing.
		cull.ok = cull.margin >= 0
		return cull
	}
	return featureCull{}
}

// featureReaches reports whether a feature of a fill or line layer can
// draw on the canvas: whether the box around the geometry it draws, seen
// on the map and widened by the layer's bound, meets it.
func (lr *layerRender) featureReaches(f sourceFeature, cull *featureCull) bool {
	b := pointBox{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1), in: cull.in}
	margin := cull.margin
	switch {
	case !cull.line:
		if f.kind != "Polygon" {
			return false // fills draw polygons only
		}
		if b.addPolygons(f.polygons) {
			return true
		}
	case f.kind == "LineString":
		for _, p := range f.parts {
			if b.add(p) {
				return true
			}
		}
	case f.kind == "Polygon":
		// Rings drawn as lines, from the tile's own when it has them.
		polys := f.unclipped
		if polys == nil {
			polys = f.polygons
		}
		if b.addPolygons(polys) {
			return true
		}
	default:
		return false // lines draw lines and rings only
	}
	if cull.line {
		margin += lr.tileUnit(f)
	}
	if b.x0 > b.x1 || b.y0 > b.y1 {
		return true // no points, or NaN: drawn as it comes
	}
	// The box's corners on the map: a turned map turns the box.
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range [4]raster.Point{lr.fr.toPlane(b.x0, b.y0), lr.fr.toPlane(b.x1, b.y0), lr.fr.toPlane(b.x0, b.y1), lr.fr.toPlane(b.x1, b.y1)} {
		x0, y0, x1, y1 = min(x0, q.X), min(y0, q.Y), max(x1, q.X), max(y1, q.Y)
	}
	return lr.boxReaches(x0+cull.dx, y0+cull.dy, x1+cull.dx, y1+cull.dy, margin)
}

// pointBox grows the box around world points, and stops at the first
// point inside in (a world box the view surely shows, with the layer's
// translation): the feature then reaches the canvas whatever its box.
type pointBox struct {
	x0, y0, x1, y1 float64
	in             box
}

// add adds points, reporting whether one lies in b.in.
func (b *pointBox) add(ps []orb.Point) bool {
	for _, p := range ps {
		x, y := p[0], p[1]
		if x > b.in.x0 && x < b.in.x1 && y > b.in.y0 && y < b.in.y1 {
			return true
		}
		b.x0, b.y0, b.x1, b.y1 = min(b.x0, x), min(b.y0, y), max(b.x1, x), max(b.y1, y)
	}
	return false
}

// addPolygons adds the points of polygons' rings, as add does.
func (b *pointBox) addPolygons(polys [][][]orb.Point) bool {
	for _, p := range polys {
		for _, r := range p {
			if b.add(r) {
				return true
			}
		}
	}
	return false
}

// project maps world points to device pixels, shifted by (dx, dy) on the
// map (before a tilted camera sees it).
func (lr *layerRender) project(ps []orb.Point, dx, dy float64) []raster.Point {
	out := lr.projectPlane(ps, dx, dy)
	if t := lr.fr.tilt; t != nil {
		for i, q := range out {
			out[i], _ = t.Project(q)
		}
	}
	return out
}

// projectRings projects a polygon's rings as project does, into buffers
// of the layer reused from one polygon to the next: the rings hold until
// the next call.
func (lr *layerRender) projectRings(poly [][]orb.Point, dx, dy float64) [][]raster.Point {
	n := 0
	for _, r := range poly {
		n += len(r)
	}
	if cap(lr.pts) < n {
		lr.pts = make([]raster.Point, n)
	}
	pts := lr.pts[:n]
	rings := lr.rings[:0]
	t := lr.fr.tilt
	for _, r := range poly {
		ring := pts[:len(r):len(r)]
		pts = pts[len(r):]
		for i, p := range r {
			q := lr.fr.toPlane(p[0], p[1])
			ring[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
			if t != nil {
				ring[i], _ = t.Project(ring[i])
			}
		}
		rings = append(rings, ring)
	}
	lr.rings = rings
	return rings
}

// reaches reports whether the box around the rings' points, widened by
// margin pixels, meets the canvas.
func (lr *layerRender) reaches(rings [][]raster.Point, margin float64) bool {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range rings {
		for _, p := range r {
			x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
		}
	}
	return lr.boxReaches(x0, y0, x1, y1, margin)
}

// boxReaches reports whether the box from x0, y0 to x1, y1 (pixels),
// widened by margin, meets the canvas. NaN bounds or margin compare
// false: such a box counts as reaching it.
func (lr *layerRender) boxReaches(x0, y0, x1, y1, margin float64) bool {
	w, h := float64(lr.cv.Rect.Dx()), float64(lr.cv.Rect.Dy())
	return !(x1 < -margin || y1 < -margin || x0 > w+margin || y0 > h+margin)
}

// projectPlaneInto is projectPlane writing into the layer's reused buffer:
// the points hold until the next call.
func (lr *layerRender) projectPlaneInto(ps []orb.Point, dx, dy float64) []raster.Point {
	if cap(lr.pts) < len(ps) {
		lr.pts = make([]raster.Point, len(ps))
	}
	out := lr.pts[:len(ps)]
	for i, p := range ps {
		q := lr.fr.toPlane(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}

// depths returns the relative depth under the tilted camera of each world
// point shifted by (dx, dy), nil when the camera looks straight down.
func (lr *layerRender) depths(ps []orb.Point, dx, dy float64) []float64 {
	t := lr.fr.tilt
	if t == nil {
		return nil
	}
	out := make([]float64, len(ps))
	for i, q := range lr.projectPlane(ps, dx, dy) {
		_, out[i] = t.Project(q)
	}
	return out
}

// projectPlane maps world points to device pixels of the untilted map,
// shifted by (dx, dy).
func (lr *layerRender) projectPlane(ps []orb.Point, dx, dy float64) []raster.Point {
	out := make([]raster.Point, len(ps))
	for i, p := range ps {
		q := lr.fr.toPlane(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}

// fillPaint is how a polygon feature is filled, kept from the pass that
// draws its interior for the one that draws its outline.
type fillPaint struct {
	col, outline    raster.Color
	opacity, dx, dy float64
	pattern         *raster.Pattern
}

// fill draws a polygon feature's interior; it reports whether the feature
// has an antialiasing outline to draw, and how (fillOutline).
func (lr *layerRender) fill(f sourceFeature, c *expr.EvalContext) (fillPaint, bool) {
	if f.kind != "Polygon" {
		return fillPaint{}, false
	}
	col, ok := lr.color("fill-color", c)
	if !ok {
		return fillPaint{}, false
	}
	antialias := lr.boolean("fill-antialias", c, true)
	fp := fillPaint{col: col, outline: col, opacity: lr.num("fill-opacity", c, 1)}
	fp.dx, fp.dy = lr.translate("fill-translate", c)
	if img := lr.patternImage("fill-pattern", c); img != nil {
		fp.pattern = lr.planePattern(img, fp.dx, fp.dy)
	}
	// GL draws fills without antialiasing, then a one-pixel outline on
	// top when fill-antialias is on; a pattern fill, and its outline,
	// take the pattern's colours.
	if antialias {
		if oc, ok := lr.color("fill-outline-color", c); ok && lr.l.Paint != nil && lr.l.Paint.Has("fill-outline-color") {
			fp.outline = oc
		}
	}
	for _, poly := range f.polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 0) {
			continue // pixels are drawn where their centres lie in the rings
		}
		if fp.pattern == nil {
			lr.cv.FillPolygon(rings, col, fp.opacity)
			continue
		}
		lr.mask.Reset()
		lr.mask.FillPolygon(rings)
		lr.cv.CompositePattern(lr.mask, fp.pattern, fp.opacity)
	}
	return fp, antialias
}

// fillOutline draws a polygon feature's antialiasing outline with the
// paint its interior had.
func (lr *layerRender) fillOutline(f sourceFeature, fp *fillPaint) {
	for _, poly := range f.polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 1) {
			continue // outlines are drawn within a pixel of an edge
		}
		lr.mask.Reset()
		for k, r := range rings {
			lr.mask.HairlineDepth(r, lr.depths(poly[k], fp.dx, fp.dy), f.cutEdge(poly[k]))
		}
		if fp.pattern != nil {
			lr.cv.CompositePattern(lr.mask, fp.pattern, fp.opacity)
		} else {
			lr.cv.Composite(lr.mask, fp.outline, fp.opacity)
		}
	}
}

// lineEdges returns how far from a line's centre (CSS pixels) its
// geometry starts and ends, as GL's line shader has it: the geometry
// reaches half an antialiasing pixel past the line's edge; a gap makes two
// lines of the width on either side of it.
func (lr *layerRender) lineEdges(c *expr.EvalContext) (inset, outset float64) {
	width := max(0, lr.num("line-width", c, 1))
	gap := max(0, lr.num("line-gap-width", c, 0))
	aa := 0.5 / lr.fr.ratio
	half, gapHalf := width/2, gap/2
	inset, outset = 0.0, half
	if gapHalf > 0 {
		inset, outset = gapHalf+aa, gapHalf+2*half
	}
	if half > 0 {
		outset += aa
	}
	return inset, outset
}

// lineStyle is what a line layer's properties make of a feature's line.
type lineStyle struct {
	draw   bool // false: the feature draws nothing (no colour or no width)
	paint  raster.LinePaint
	shape  lineShape
	dx, dy float64 // translation, device pixels
	offset float64 // device pixels to the line's right
}

// lineProperties are the properties a lineStyle rests on.
var lineProperties = []string{"line-color", "line-opacity", "line-translate", "line-translate-anchor",
	"line-join", "line-cap", "line-miter-limit", "line-round-limit", "line-width", "line-gap-width",
	"line-blur", "line-dasharray", "line-pattern", "line-offset"}

// lineStyleOf returns the style of the line of the feature in c: when no
// property it rests on depends on the feature, the layer's, evaluated
// once.
func (lr *layerRender) lineStyleOf(c *expr.EvalContext) lineStyle {
	if lr.lineConst != nil {
		return *lr.lineConst
	}
	st := lr.evalLineStyle(c)
	if !lr.lineChecked {
		lr.lineChecked = true
		constant := true
		for _, name := range lineProperties {
			if e := lr.prop(name).e; e != nil && !e.IsFeatureConstant() {
				constant = false
			}
		}
		if constant && c.Zoom == lr.zoom {
			lr.lineConst = &st
		}
	}
	return st
}

// evalLineStyle evaluates the style of the line of the feature in c.
func (lr *layerRender) evalLineStyle(c *expr.EvalContext) lineStyle {
	var st lineStyle
	col, ok := lr.color("line-color", c)
	if !ok {
		return st
	}
	ratio := lr.fr.ratio
	opacity := lr.num("line-opacity", c, 1)
	st.dx, st.dy = lr.translate("line-translate", c)
	st.shape = lineShape{
		join:       lr.str("line-join", c, "miter"),
		cap:        lr.str("line-cap", c, "butt"),
		miterLimit: lr.num("line-miter-limit", c, 2),
		roundLimit: lr.num("line-round-limit", c, 1.05),
	}
	inset, outset := lr.lineEdges(c)
	if outset <= 0 {
		return st
	}
	st.draw = true
	st.paint = raster.LinePaint{
		Tilt:    lr.fr.tilt,
		Outset:  outset * ratio,
		Inset:   inset * ratio,
		Blur2:   (max(0, lr.num("line-blur", c, 0)) + 1/ratio) * ratio,
		Color:   col,
		Opacity: opacity,
	}
	paint := &st.paint
	if e := lr.props["line-dasharray"]; e != nil && lr.l.Paint != nil && lr.l.Paint.Has("line-dasharray") {
		// Dashes scale with the width at the zoom's floor, as GL's line
		// atlas does.
		floor := *c
		floor.Zoom = math.Floor(lr.zoom)
		fw := lr.num("line-width", &floor, 1)
		paint.Dash = raster.NewDash(numbers(e.EvalOrDefault(c)), fw, ratio, st.shape.cap == "round")
		if paint.Dash != nil && lr.zoom == math.Floor(lr.zoom) {
			// At an integer zoom GL fades from the dashes of the zoom
			// below, drawn at half scale: the edges' ramp doubles.
			paint.Dash.Ramp = 1
		}
	}
	if img := lr.patternImage("line-pattern", c); img != nil {
		// A repeat is as long as the image is wide when its height is
		// scaled to the line's width at the zoom's floor.
		floor := *c
		floor.Zoom = math.Floor(lr.zoom)
		fw := lr.num("line-width", &floor, 1)
		w, h := float64(img.rect.Dx())/img.ratio, float64(img.rect.Dy())/img.ratio
		if fw > 0 {
			paint.Pattern = &raster.LinePattern{Img: img.sheet, Rect: img.rect, Repeat: w * fw / h}
		}
	}
	st.offset = lr.num("line-offset", c, 0) * ratio
	return st
}

func (lr *layerRender) line(f sourceFeature, c *expr.EvalContext) {
	st := lr.lineStyleOf(c)
	if !st.draw {
		return
	}
	ratio := lr.fr.ratio
	shape, dx, dy := st.shape, st.dx, st.dy
	// The feature's own copy: a gradient is the feature's.
	paint := &st.paint
	var lines [][]orb.Point
	var closed []bool
	switch f.kind {
	case "LineString":
		lines = f.parts
		closed = make([]bool, len(lines))
	case "Polygon":
		if f.unclipped != nil {
			// Rings as the tile has them, closed, drawn inside the
			// tile's square.
			for _, p := range f.unclipped {
				for _, r := range p {
					lines = append(lines, closeRing(r))
					closed = append(closed, true)
				}
			}
			break
		}
		// A ring drawn as a line is closed, but the edges the tile square
		// cut are not the polygon's own: the line breaks there.
		for _, p := range f.polygons {
			for _, r := range p {
				ring := closeRing(r)
				pieces := splitAtCuts(ring, f.cutEdge(ring))
				for _, piece := range pieces {
					lines = append(lines, piece)
					closed = append(closed, len(pieces) == 1 && len(piece) == len(ring))
				}
			}
		}
	default:
		return
	}
	b := lr.lines
	if b == nil {
		b = &lineBuilder{}
		lr.lines = b
	}
	b.outset = paint.Outset
	b.alongScale = math.Exp2(math.Floor(lr.zoom)-lr.zoom) / ratio
	b.offset = st.offset
	b.setTile(lr.tileUnit(f), lr.zoom, ratio)
	// A gradient colours a GeoJSON line with line metrics by its progress
	// along the whole line; GL draws no gradient on other sources'
	// lines, which keep line-color.
	if f.metrics && f.kind == "LineString" {
		paint.Gradient = lr.lineGradient()
	}
	// progress, for a gradient, gives each piece its start and the
	// length of its whole line (world units).
	var progress func(i int) (start, total float64)
	draw := func(lines [][]orb.Point, closed []bool, clip []raster.Point) {
		b.tris = b.tris[:0]
		// reach bounds how far from its points a line's triangles go
		// (device pixels), -1 for no bound: under a tilted camera every
		// line is built.
		reach := -1.0
		if lr.fr.tilt == nil {
			reach = lineReach(shape, b.outset, b.offset, b.tile)
		}
		for i, l := range lines {
			b.progScale = 0
			if paint.Gradient != nil && progress != nil {
				start, total := progress(i)
				if total > 0 {
					b.progStart, b.progScale = start/total, 1/(total*lr.fr.scale)
				}
			}
			// Lines are built on the map and seen through the camera.
			pts := lr.projectPlaneInto(l, dx, dy)
			if reach >= 0 && !lr.lineReaches(pts, reach) {
				continue // no triangle of it meets the canvas
			}
			b.add(pts, shape, closed[i])
		}
		if clip != nil && trianglesInside(b.tris, clip) {
			clip = nil // nothing to cut: most lines lie inside their tile
		}
		for i := range b.tris {
			lr.cv.LineTriangle(&b.tris[i], clip, paint)
		}
	}
	if f.clip != nil && f.kind == "LineString" {
		if kids, ok := lr.sliceTiles(f, lines); ok {
			// An overzoomed vector tile: each child GL JS 6 cuts from it
			// draws its own pieces inside its square.
			rings := f.kind == "Polygon"
			for _, t := range kids {
				pieces := sliceParts(lines, t, rings)
				if len(pieces) == 0 {
					continue
				}
				sq := tileSquare(t, 0)
				b.setTile(lr.fr.scale*(sq.x1-sq.x0)/8192, lr.zoom, ratio)
				kidClosed := make([]bool, len(pieces))
				for i := range kidClosed {
					kidClosed[i] = rings
				}
				draw(pieces, kidClosed, lr.clipPolygon(&sq))
			}
			return
		}
	}
	if f.clip != nil || f.kind != "LineString" {
		draw(lines, closed, lr.clipPolygon(f.clip))
		return
	}
	// GL cuts GeoJSON lines into its tiles (with a buffer of a quarter
	// tile): each tile's piece counts its distance from where it was cut,
	// and draws inside its square.
	for _, tile := range lr.viewTiles() {
		buffered := box{tile.x0 - (tile.x1-tile.x0)/4, tile.y0 - (tile.y1-tile.y0)/4, tile.x1 + (tile.x1-tile.x0)/4, tile.y1 + (tile.y1-tile.y0)/4}
		var pieces [][]orb.Point
		var starts, totals []float64
		for _, l := range lines {
			ps, st := clipLineFrom(l, buffered)
			pieces, starts = append(pieces, ps...), append(starts, st...)
			if paint.Gradient != nil {
				total := lineLength(l)
				for range ps {
					totals = append(totals, total)
				}
			}
		}
		if paint.Gradient != nil {
			progress = func(i int) (float64, float64) { return starts[i], totals[i] }
		}
		if len(pieces) > 0 {
			draw(pieces, make([]bool, len(pieces)), lr.clipPolygon(&tile))
		}
	}
}

// lineReach bounds how far from a line's points (device pixels) the
// vertices of its triangles lie: extrusions (in units of the outset) are
// at most the miter limit long, or 2 (bevels, square and round ends); the
// offset shifts a vertex by at most its extrusion times the offset; the
// extra vertices by sharp corners lie within a tile unit of the line.
func lineReach(s lineShape, outset, offset, tile float64) float64 {
	ext := 2.0
	if s.join != "bevel" {
		ext = max(ext, s.miterLimit)
	}
	// GL rounds extrusions to 1/63: a little more.
	ext += 0.05
	return ext*(outset+math.Abs(offset)) + tile + 1
}

// lineReaches reports whether triangles within reach pixels of the points
// can meet the canvas.
func (lr *layerRender) lineReaches(pts []raster.Point, reach float64) bool {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	return lr.boxReaches(x0, y0, x1, y1, reach)
}

// sliceTiles returns the tiles GL JS 6 cuts a feature's overzoomed vector
// tile into that the feature's lines (world units, buffer included) and
// the view both reach; ok is false when the tile is drawn as it is.
func (lr *layerRender) sliceTiles(f sourceFeature, lines [][]orb.Point) ([][3]int, bool) {
	z, ok := sliceZoom(lr.zoom, f.tile[2])
	if !ok || len(lines) == 0 {
		return nil, false
	}
	var within box
	within.x0, within.y0, within.x1, within.y1 = lr.fr.viewBox()
	lx0, ly0, lx1, ly1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l {
			lx0, lx1 = min(lx0, p[0]), max(lx1, p[0])
			ly0, ly1 = min(ly0, p[1]), max(ly1, p[1])
		}
	}
	within = box{max(within.x0, lx0), max(within.y0, ly0), min(within.x1, lx1), min(within.y1, ly1)}
	if within.x1 < within.x0 || within.y1 < within.y0 {
		return nil, true
	}
	return sliceChildren(f.tile, z, within, maxTiles)
}

// lineGradient returns the layer's line-gradient as GL's colour ramp
// texture, built once per layer: 256 texels sampled linearly, or for a
// stepped gradient 1024 sampled nearest, so that steps stay sharp; nil
// without a line-gradient.
func (lr *layerRender) lineGradient() *raster.Gradient {
	if lr.gradientDone {
		return lr.gradient
	}
	lr.gradientDone = true
	e := lr.props["line-gradient"]
	if e == nil || lr.l.Paint == nil || !lr.l.Paint.Has("line-gradient") {
		return nil
	}
	g := &raster.Gradient{}
	n := 256
	if raw, ok := lr.l.Paint.Get("line-gradient"); ok {
		if arr, ok := raw.([]any); ok && len(arr) > 0 && arr[0] == "step" {
			g.Nearest, n = true, 1024
		}
	}
	g.Texels = make([][4]float64, n)
	for i := range g.Texels {
		c := &expr.EvalContext{Zoom: lr.zoom, LineProgress: float64(i) / float64(n-1)}
		v := e.EvalOrDefault(c)
		if v.Kind() != expr.KindColor {
			continue
		}
		col := v.Color()
		g.Texels[i] = [4]float64{col.R * col.A * 255, col.G * col.A * 255, col.B * col.A * 255, col.A * 255}
	}
	lr.gradient = g
	return g
}

// sortByKey orders the features by the layer's fill-, line- or
// circle-sort-key, ascending (a higher key is drawn above), keeping the
// order of features with equal keys. GL sorts each tile's features: fills
// and lines are cut to their tiles, so one sort of all of them draws the
// same; circles keep their tiles' order (byTileOrder) and are sorted
// within each tile.
func (lr *layerRender) sortByKey(feats []sourceFeature) []sourceFeature {
	name := lr.l.Type + "-sort-key"
	if lr.l.Layout == nil || !lr.l.Layout.Has(name) || len(feats) < 2 {
		return feats
	}
	// Circles come in runs of one tile (byTileOrder); each run is sorted
	// apart. Fills and lines sort as one run.
	type keyed struct {
		run int
		key float64
		i   int
	}
	ks := make([]keyed, len(feats))
	for i, f := range feats {
		ks[i] = keyed{key: lr.num(name, lr.ctx(f.feat), 0), i: i}
		if i > 0 {
			ks[i].run = ks[i-1].run
			if lr.l.Type == "circle" && !sameTile(f.clip, feats[i-1].clip) {
				ks[i].run++
			}
		}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		if ks[a].run != ks[b].run {
			return ks[a].run < ks[b].run
		}
		return ks[a].key < ks[b].key
	})
	out := make([]sourceFeature, len(feats))
	for j, k := range ks {
		out[j] = feats[k.i]
	}
	return out
}

// sameTile reports whether two features' tile squares are the same.
func sameTile(a, b *box) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// squareVisible reports whether a tile's square (world units) reaches the
// image, remembered per square for the layer. Under a tilted camera every
// square counts as visible.
func (lr *layerRender) squareVisible(b *box) bool {
	if lr.fr.tilt != nil {
		return true
	}
	if v, ok := lr.seen[b]; ok {
		return v
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{b.x0, b.y0}, {b.x1, b.y0}, {b.x0, b.y1}, {b.x1, b.y1}} {
		p := lr.fr.toPlane(c[0], c[1])
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	// A pixel of slack: antialiasing reaches half a pixel past an edge.
	v := maxX > -1 && minX < lr.fr.w+1 && maxY > -1 && minY < lr.fr.h+1
	if lr.seen == nil {
		lr.seen = map[*box]bool{}
	}
	lr.seen[b] = v
	return v
}

// trianglesInside reports whether every vertex of the triangles lies in
// the convex polygon clip (then so do the triangles).
func trianglesInside(tris [][3]raster.LineVertex, clip []raster.Point) bool {
	if len(tris) == 0 {
		return true
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range tris {
		for _, v := range tris[i] {
			x0, y0, x1, y1 = min(x0, v.X), min(y0, v.Y), max(x1, v.X), max(y1, v.Y)
		}
	}
	// The corners of their bounding box on the inner side of every edge.
	area := 0.0
	for i := range clip {
		a, b := clip[i], clip[(i+1)%len(clip)]
		area += a.X*b.Y - b.X*a.Y
	}
	for i := range clip {
		a, b := clip[i], clip[(i+1)%len(clip)]
		for _, q := range [4]raster.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}} {
			if side := (b.X-a.X)*(q.Y-a.Y) - (b.Y-a.Y)*(q.X-a.X); side*area < 0 {
				return false
			}
		}
	}
	return true
}

// viewTiles returns the squares of the tiles (at the zoom's floor) that
// the view shows.
func (lr *layerRender) viewTiles() []box {
	if lr.tiles != nil {
		return lr.tiles
	}
	fr := lr.fr
	z := max(0, math.Floor(lr.zoom))
	n := math.Exp2(z)
	half := math.Hypot(fr.w, fr.h) / 2 / fr.scale
	x0, x1 := math.Floor((fr.cx-half)*n), math.Floor((fr.cx+half)*n)
	y0, y1 := max(0, math.Floor((fr.cy-half)*n)), min(n-1, math.Floor((fr.cy+half)*n))
	if (x1-x0+1)*(y1-y0+1) > maxTiles {
		// Too many to cut: one square for the whole view.
		lr.tiles = []box{{fr.cx - half, fr.cy - half, fr.cx + half, fr.cy + half}}
		return lr.tiles
	}
	for ty := y0; ty <= y1; ty++ {
		for tx := x0; tx <= x1; tx++ {
			lr.tiles = append(lr.tiles, box{tx / n, ty / n, (tx + 1) / n, (ty + 1) / n})
		}
	}
	return lr.tiles
}

// tileUnit returns the device pixels of one unit of an 8192-unit tile the
// feature's geometry came in (GeoJSON at the zoom drawn, vector tiles at
// their own).
func (lr *layerRender) tileUnit(f sourceFeature) float64 {
	tileWorld := math.Exp2(-math.Floor(lr.zoom))
	if f.clip != nil {
		tileWorld = f.clip.x1 - f.clip.x0
	}
	return tileWorld * lr.fr.scale / 8192
}

// clipPolygon returns a tile's square in device pixels of the untilted map
// (GL's stencil: a tile draws only inside its square), nil for none.
func (lr *layerRender) clipPolygon(b *box) []raster.Point {
	if b == nil {
		return nil
	}
	return []raster.Point{lr.fr.toPlane(b.x0, b.y0), lr.fr.toPlane(b.x1, b.y0), lr.fr.toPlane(b.x1, b.y1), lr.fr.toPlane(b.x0, b.y1)}
}

func (lr *layerRender) circle(f sourceFeature, c *expr.EvalContext) {
	// GL draws a circle at every vertex of a feature, of lines and
	// polygon rings too, but only at those inside the tile's square.
	parts := vertexParts(f)
	if parts == nil {
		return
	}
	ratio := lr.fr.ratio
	radius := lr.num("circle-radius", c, 5) * ratio
	blur := lr.num("circle-blur", c, 0)
	opacity := lr.num("circle-opacity", c, 1)
	stroke := lr.num("circle-stroke-width", c, 0) * ratio
	dx, dy := lr.translate("circle-translate", c)
	col, ok := lr.color("circle-color", c)
	if !ok {
		return
	}
	scol, _ := lr.color("circle-stroke-color", c)
	sop := lr.num("circle-stroke-opacity", c, 1)
	// Under a tilted camera circles face the viewer; with pitch scale
	// "map" they shrink with their distance, antialiased as at their own
	// size.
	scaleWithMap := lr.str("circle-pitch-scale", c, "map") == "map"
	for _, part := range parts {
		for _, p := range lr.projectPlane(part, dx, dy) {
			k := 1.0
			if t := lr.fr.tilt; t != nil {
				var w float64
				p, w = t.Project(p)
				if scaleWithMap {
					k = 1 / w
				}
			}
			aa := 0.0
			if k != 1 && radius+stroke > 0 {
				aa = 1 / (radius + stroke)
			}
			lr.cv.Circle(p, radius*k, stroke*k, blur, aa, col, scol, opacity, sop*opacity)
		}
	}
}

// insideTile returns the points of parts that lie in the tile square b
// (all of them when b is nil).
func insideTile(parts [][]orb.Point, b *box) [][]orb.Point {
	if b == nil {
		return parts
	}
	var pts []orb.Point
	for _, part := range parts {
		for _, p := range part {
			if p[0] >= b.x0 && p[0] < b.x1 && p[1] >= b.y0 && p[1] < b.y1 {
				pts = append(pts, p)
			}
		}
	}
	return [][]orb.Point{pts}
}

// viewBox returns a world box around everything the view shows: the
// circle around the image's diagonal, or with a tilted camera the box of
// the ground under the image's corners.
func (f frame) viewBox() (x0, y0, x1, y1 float64) {
	if f.tilt != nil {
		return f.worldBounds()
	}
	half := math.Hypot(f.w, f.h) / 2 / f.scale
	return f.cx - half, f.cy - half, f.cx + half, f.cy + half
}

// byTileOrder returns the features in the order GL draws circles: tile by
// tile, from the bottom row of tiles up and right to left within a row,
// each tile's features in their order. GeoJSON features (without a tile)
// are cut into the view's tiles: each copy keeps the points of one.
func byTileOrder(feats []sourceFeature, viewTiles func() []box) []sourceFeature {
	type entry struct {
		tile box
		i    int
	}
	var entries []entry
	for i, f := range feats {
		if f.clip != nil {
			entries = append(entries, entry{*f.clip, i})
			continue
		}
		for _, t := range viewTiles() {
			entries = append(entries, entry{t, i})
		}
	}
	sort.SliceStable(entries, func(a, b int) bool {
		ta, tb := entries[a].tile, entries[b].tile
		if ta.y0 != tb.y0 {
			return ta.y0 > tb.y0
		}
		return ta.x0 > tb.x0
	})
	out := make([]sourceFeature, 0, len(entries))
	for _, e := range entries {
		f := feats[e.i]
		if f.clip == nil {
			tile := e.tile
			f.clip = &tile
		}
		out = append(out, f)
	}
	return out
}
