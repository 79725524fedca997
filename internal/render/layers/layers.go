package layers

import (
	"math"
	"sort"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Painter draws a layer of one of the kinds that are not symbols, keeping
// what it reuses between features.
type Painter struct {
	scene.Layer
	lines *lineBuilder // reused between features
	// pts and rings hold a polygon's projected rings, reused between
	// polygons (projectRings).
	pts   []raster.Point
	rings [][]raster.Point
	tiles []scene.Box // the view's tiles, once asked
	// sprites gives the images of patterns.
	sprites *sources.Patterns

	gradient *raster.Gradient // line-gradient's ramp, once built
	// lineConst is the style of every feature's line when it depends on
	// no feature, once lineChecked.
	lineConst    *lineStyle
	lineChecked  bool
	gradientDone bool
	seen         map[*scene.Box]bool // whether tile squares reach the image
}

// NewPainter returns a painter of layer l, which takes its patterns'
// images from patterns.
func NewPainter(l scene.Layer, patterns *sources.Patterns) *Painter {
	return &Painter{Layer: l, sprites: patterns}
}

// Background fills the canvas with the background layer's colour or
// pattern.
func (lr *Painter) Background() {
	c := lr.FeatureContext(nil)
	if img := lr.patternImage("background-pattern", c); img != nil {
		lr.Canvas.FillPattern(lr.planePattern(img, 0, 0), lr.Num("background-opacity", c, 1))
		return
	}
	if lr.Style.Paint != nil && lr.Style.Paint.Has("background-pattern") {
		return // a pattern whose image is missing draws nothing, as in GL
	}
	col, ok := lr.Color("background-color", c)
	if !ok {
		return
	}
	lr.Canvas.Fill(col, lr.Num("background-opacity", c, 1))
}

// Draw draws the layer's features, each feature with its own properties.
func (lr *Painter) Draw(runs scene.Runs) {
	if lr.Style.Type == "circle" {
		runs = scene.Runs{byTileOrder(runs.Flat(), lr.viewTiles)}
	}
	if lr.sortKeyed() {
		runs = scene.Runs{lr.sortByKey(runs.Flat())}
	}
	clipped := lr.Style.Type == "fill" || lr.Style.Type == "line"
	// GL draws a fill layer's interiors, then its antialiasing outlines
	// over all of them: the outlines are a pass of their own.
	type outline struct {
		f     *scene.Feature
		paint fillPaint
	}
	var outlines []outline
	// One context serves every feature in turn: evaluation keeps none.
	c := lr.FeatureContext(nil)
	var cull featureCull
	if clipped {
		cull = lr.featureCull(c)
	}
	for _, run := range runs {
		for i := range run {
			if lr.Canvas.Budget.Stopped() {
				return // cancelled, or over the render's work bound
			}
			if lr.Style.Type == "fill" && run[i].Kind == "LineString" {
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
func (lr *Painter) drawFeature(f *scene.Feature, c *expr.EvalContext, clipped bool, cull *featureCull) (fillPaint, bool) {
	if clipped && f.Clip != nil && !lr.squareVisible(f.Clip) {
		// Fills and lines are cut to their tile's square: a tile read
		// only for the labels around the view draws nothing here.
		return fillPaint{}, false
	}
	if cull.ok && !lr.featureReaches(*f, cull) {
		return fillPaint{}, false // nothing of it can reach the canvas: no filter to evaluate
	}
	c.Feature = f.Expr
	if !lr.Keeps(c) {
		return fillPaint{}, false
	}
	switch lr.Style.Type {
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
func (lr *Painter) sortKeyed() bool {
	return lr.Style.Layout != nil && lr.Style.Layout.Has(lr.Style.Type+"-sort-key")
}

// featureCull is what a fill or line layer knows, the same for every
// feature, of how far beyond its points on the map a feature draws.
type featureCull struct {
	ok     bool    // the bound holds for every feature of the layer
	dx, dy float64 // the layer's translation, device pixels
	// in is a world box whose points, translated, the view surely
	// shows: a feature with a point in it reaches the canvas.
	in     scene.Box
	margin float64 // device pixels beyond the points, for fills
	line   bool    // lines: margin is lineReach's without the tile unit
}

// featureCull returns the layer's bound, not ok under a tilted camera or
// when a property it rests on depends on the feature.
func (lr *Painter) featureCull(c *expr.EvalContext) featureCull {
	cull := lr.featureBound(c)
	if cull.ok {
		cull.in = lr.surelyShown(cull.dx, cull.dy)
	}
	return cull
}

// surelyShown returns a world box whose points, translated by dx, dy
// device pixels, lie inside the canvas: the view's box when the map is
// not turned, else the square inside the circle inside it.
func (lr *Painter) surelyShown(dx, dy float64) scene.Box {
	fr := lr.Frame
	w, h := float64(lr.Canvas.Rect.Dx()), float64(lr.Canvas.Rect.Dy())
	// The canvas's centre, less the translation, on the map.
	cx := fr.CX + ((w/2-dx)*fr.Cos+(h/2-dy)*fr.Sin-fr.W/2*fr.Cos-fr.H/2*fr.Sin)/fr.Scale
	cy := fr.CY + (-(w/2-dx)*fr.Sin+(h/2-dy)*fr.Cos+fr.W/2*fr.Sin-fr.H/2*fr.Cos)/fr.Scale
	// A pixel short of the edges, for rounding.
	hx, hy := (w/2-1)/fr.Scale, (h/2-1)/fr.Scale
	if fr.Sin != 0 {
		hx = (min(w, h)/2 - 1) / math.Sqrt2 / fr.Scale
		hy = hx
	}
	if hx <= 0 || hy <= 0 {
		return scene.Box{}
	}
	return scene.Box{X0: cx - hx, Y0: cy - hy, X1: cx + hx, Y1: cy + hy}
}

// featureBound is featureCull without its box of surely shown points.
func (lr *Painter) featureBound(c *expr.EvalContext) featureCull {
	if lr.Frame.Tilt != nil {
		return featureCull{}
	}
	constant := func(names ...string) bool {
		for _, name := range names {
			if e := lr.Prop(name).Expr; e != nil && !e.IsFeatureConstant() {
				return false
			}
		}
		return true
	}
	switch lr.Style.Type {
	case "fill":
		if !constant("fill-translate", "fill-translate-anchor") {
			return featureCull{}
		}
		cull := featureCull{ok: true, margin: 1}
		cull.dx, cull.dy = lr.Translate("fill-translate", c)
		return cull
	case "line":
		if !constant("line-translate", "line-translate-anchor", "line-width", "line-gap-width",
			"line-offset", "line-join", "line-miter-limit") {
			return featureCull{}
		}
		cull := featureCull{ok: true, line: true}
		cull.dx, cull.dy = lr.Translate("line-translate", c)
		_, outset := lr.lineEdges(c)
		shape := lineShape{join: lr.Str("line-join", c, "miter"), miterLimit: lr.Num("line-miter-limit", c, 2)}
		ratio := lr.Frame.Ratio
		cull.margin = lineReach(shape, outset*ratio, lr.Num("line-offset", c, 0)*ratio, 0)
		// A NaN or negative bound culls nothing.
		cull.ok = cull.margin >= 0
		return cull
	}
	return featureCull{}
}

// featureReaches reports whether a feature of a fill or line layer can
// draw on the canvas: whether the box around the geometry it draws, seen
// on the map and widened by the layer's bound, meets it.
func (lr *Painter) featureReaches(f scene.Feature, cull *featureCull) bool {
	b := pointBox{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1), in: cull.in}
	margin := cull.margin
	switch {
	case !cull.line:
		if f.Kind != "Polygon" {
			return false // fills draw polygons only
		}
		if b.addPolygons(f.Polygons) {
			return true
		}
	case f.Kind == "LineString":
		for _, p := range f.Parts {
			if b.add(p) {
				return true
			}
		}
	case f.Kind == "Polygon":
		// Rings drawn as lines, from the tile's own when it has them.
		polys := f.Unclipped
		if polys == nil {
			polys = f.Polygons
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
	for _, q := range [4]raster.Point{lr.Frame.ToPlane(b.x0, b.y0), lr.Frame.ToPlane(b.x1, b.y0), lr.Frame.ToPlane(b.x0, b.y1), lr.Frame.ToPlane(b.x1, b.y1)} {
		x0, y0, x1, y1 = min(x0, q.X), min(y0, q.Y), max(x1, q.X), max(y1, q.Y)
	}
	return lr.boxReaches(x0+cull.dx, y0+cull.dy, x1+cull.dx, y1+cull.dy, margin)
}

// pointBox grows the box around world points, and stops at the first
// point inside in (a world box the view surely shows, with the layer's
// translation): the feature then reaches the canvas whatever its box.
type pointBox struct {
	x0, y0, x1, y1 float64
	in             scene.Box
}

// add adds points, reporting whether one lies in b.in.
func (b *pointBox) add(ps []orb.Point) bool {
	for _, p := range ps {
		x, y := p[0], p[1]
		if x > b.in.X0 && x < b.in.X1 && y > b.in.Y0 && y < b.in.Y1 {
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
func (lr *Painter) project(ps []orb.Point, dx, dy float64) []raster.Point {
	out := lr.projectPlane(ps, dx, dy)
	if t := lr.Frame.Tilt; t != nil {
		for i, q := range out {
			out[i], _ = t.Project(q)
		}
	}
	return out
}

// projectRings projects a polygon's rings as project does, into buffers
// of the layer reused from one polygon to the next: the rings hold until
// the next call.
func (lr *Painter) projectRings(poly [][]orb.Point, dx, dy float64) [][]raster.Point {
	n := 0
	for _, r := range poly {
		n += len(r)
	}
	if cap(lr.pts) < n {
		lr.pts = make([]raster.Point, n)
	}
	pts := lr.pts[:n]
	rings := lr.rings[:0]
	t := lr.Frame.Tilt
	for _, r := range poly {
		ring := pts[:len(r):len(r)]
		pts = pts[len(r):]
		for i, p := range r {
			q := lr.Frame.ToPlane(p[0], p[1])
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
func (lr *Painter) reaches(rings [][]raster.Point, margin float64) bool {
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
func (lr *Painter) boxReaches(x0, y0, x1, y1, margin float64) bool {
	w, h := float64(lr.Canvas.Rect.Dx()), float64(lr.Canvas.Rect.Dy())
	return !(x1 < -margin || y1 < -margin || x0 > w+margin || y0 > h+margin)
}

// projectPlaneInto is projectPlane writing into the layer's reused buffer:
// the points hold until the next call.
func (lr *Painter) projectPlaneInto(ps []orb.Point, dx, dy float64) []raster.Point {
	if cap(lr.pts) < len(ps) {
		lr.pts = make([]raster.Point, len(ps))
	}
	out := lr.pts[:len(ps)]
	for i, p := range ps {
		q := lr.Frame.ToPlane(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}

// depths returns the relative depth under the tilted camera of each world
// point shifted by (dx, dy), nil when the camera looks straight down.
func (lr *Painter) depths(ps []orb.Point, dx, dy float64) []float64 {
	t := lr.Frame.Tilt
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
func (lr *Painter) projectPlane(ps []orb.Point, dx, dy float64) []raster.Point {
	out := make([]raster.Point, len(ps))
	for i, p := range ps {
		q := lr.Frame.ToPlane(p[0], p[1])
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
func (lr *Painter) fill(f scene.Feature, c *expr.EvalContext) (fillPaint, bool) {
	if f.Kind != "Polygon" {
		return fillPaint{}, false
	}
	col, ok := lr.Color("fill-color", c)
	if !ok {
		return fillPaint{}, false
	}
	antialias := lr.Bool("fill-antialias", c, true)
	fp := fillPaint{col: col, outline: col, opacity: lr.Num("fill-opacity", c, 1)}
	fp.dx, fp.dy = lr.Translate("fill-translate", c)
	if img := lr.patternImage("fill-pattern", c); img != nil {
		fp.pattern = lr.planePattern(img, fp.dx, fp.dy)
	}
	// GL draws fills without antialiasing, then a one-pixel outline on
	// top when fill-antialias is on; a pattern fill, and its outline,
	// take the pattern's colours.
	if antialias {
		if oc, ok := lr.Color("fill-outline-color", c); ok && lr.Style.Paint != nil && lr.Style.Paint.Has("fill-outline-color") {
			fp.outline = oc
		}
	}
	for _, poly := range f.Polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 0) {
			continue // pixels are drawn where their centres lie in the rings
		}
		if fp.pattern == nil {
			lr.Canvas.FillPolygon(rings, col, fp.opacity)
			continue
		}
		lr.Mask.Reset()
		lr.Mask.FillPolygon(rings)
		lr.Canvas.CompositePattern(lr.Mask, fp.pattern, fp.opacity)
	}
	return fp, antialias
}

// fillOutline draws a polygon feature's antialiasing outline with the
// paint its interior had.
func (lr *Painter) fillOutline(f scene.Feature, fp *fillPaint) {
	for _, poly := range f.Polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 1) {
			continue // outlines are drawn within a pixel of an edge
		}
		lr.Mask.Reset()
		for k, r := range rings {
			lr.Mask.HairlineDepth(r, lr.depths(poly[k], fp.dx, fp.dy), f.CutEdge(poly[k]))
		}
		if fp.pattern != nil {
			lr.Canvas.CompositePattern(lr.Mask, fp.pattern, fp.opacity)
		} else {
			lr.Canvas.Composite(lr.Mask, fp.outline, fp.opacity)
		}
	}
}

// lineEdges returns how far from a line's centre (CSS pixels) its
// geometry starts and ends, as GL's line shader has it: the geometry
// reaches half an antialiasing pixel past the line's edge; a gap makes two
// lines of the width on either side of it.
func (lr *Painter) lineEdges(c *expr.EvalContext) (inset, outset float64) {
	width := max(0, lr.Num("line-width", c, 1))
	gap := max(0, lr.Num("line-gap-width", c, 0))
	aa := 0.5 / lr.Frame.Ratio
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
func (lr *Painter) lineStyleOf(c *expr.EvalContext) lineStyle {
	if lr.lineConst != nil {
		return *lr.lineConst
	}
	st := lr.evalLineStyle(c)
	if !lr.lineChecked {
		lr.lineChecked = true
		constant := true
		for _, name := range lineProperties {
			if e := lr.Prop(name).Expr; e != nil && !e.IsFeatureConstant() {
				constant = false
			}
		}
		if constant && c.Zoom == lr.Zoom {
			lr.lineConst = &st
		}
	}
	return st
}

// evalLineStyle evaluates the style of the line of the feature in c.
func (lr *Painter) evalLineStyle(c *expr.EvalContext) lineStyle {
	var st lineStyle
	col, ok := lr.Color("line-color", c)
	if !ok {
		return st
	}
	ratio := lr.Frame.Ratio
	opacity := lr.Num("line-opacity", c, 1)
	st.dx, st.dy = lr.Translate("line-translate", c)
	st.shape = lineShape{
		join:       lr.Str("line-join", c, "miter"),
		cap:        lr.Str("line-cap", c, "butt"),
		miterLimit: lr.Num("line-miter-limit", c, 2),
		roundLimit: lr.Num("line-round-limit", c, 1.05),
	}
	inset, outset := lr.lineEdges(c)
	if outset <= 0 {
		return st
	}
	st.draw = true
	st.paint = raster.LinePaint{
		Tilt:    lr.Frame.Tilt,
		Outset:  outset * ratio,
		Inset:   inset * ratio,
		Blur2:   (max(0, lr.Num("line-blur", c, 0)) + 1/ratio) * ratio,
		Color:   col,
		Opacity: opacity,
	}
	paint := &st.paint
	if e := lr.Props["line-dasharray"]; e != nil && lr.Style.Paint != nil && lr.Style.Paint.Has("line-dasharray") {
		// Dashes scale with the width at the zoom's floor, as GL's line
		// atlas does.
		floor := *c
		floor.Zoom = math.Floor(lr.Zoom)
		fw := lr.Num("line-width", &floor, 1)
		paint.Dash = raster.NewDash(scene.Numbers(e.EvalOrDefault(c)), fw, ratio, st.shape.cap == "round")
		if paint.Dash != nil && lr.Zoom == math.Floor(lr.Zoom) {
			// At an integer zoom GL fades from the dashes of the zoom
			// below, drawn at half scale: the edges' ramp doubles.
			paint.Dash.Ramp = 1
		}
	}
	if img := lr.patternImage("line-pattern", c); img != nil {
		// A repeat is as long as the image is wide when its height is
		// scaled to the line's width at the zoom's floor.
		floor := *c
		floor.Zoom = math.Floor(lr.Zoom)
		fw := lr.Num("line-width", &floor, 1)
		w, h := float64(img.Rect.Dx())/img.Ratio, float64(img.Rect.Dy())/img.Ratio
		if fw > 0 {
			paint.Pattern = &raster.LinePattern{Img: img.Sheet, Rect: img.Rect, Repeat: w * fw / h}
		}
	}
	st.offset = lr.Num("line-offset", c, 0) * ratio
	return st
}

func (lr *Painter) line(f scene.Feature, c *expr.EvalContext) {
	st := lr.lineStyleOf(c)
	if !st.draw {
		return
	}
	ratio := lr.Frame.Ratio
	shape, dx, dy := st.shape, st.dx, st.dy
	// The feature's own copy: a gradient is the feature's.
	paint := &st.paint
	var lines [][]orb.Point
	var closed []bool
	switch f.Kind {
	case "LineString":
		lines = f.Parts
		closed = make([]bool, len(lines))
	case "Polygon":
		if f.Unclipped != nil {
			// Rings as the tile has them, closed, drawn inside the
			// tile's square.
			for _, p := range f.Unclipped {
				for _, r := range p {
					lines = append(lines, scene.CloseRing(r))
					closed = append(closed, true)
				}
			}
			break
		}
		// A ring drawn as a line is closed, but the edges the tile square
		// cut are not the polygon's own: the line breaks there.
		for _, p := range f.Polygons {
			for _, r := range p {
				ring := scene.CloseRing(r)
				pieces := scene.SplitAtCuts(ring, f.CutEdge(ring))
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
	b.alongScale = math.Exp2(math.Floor(lr.Zoom)-lr.Zoom) / ratio
	b.offset = st.offset
	b.setTile(lr.tileUnit(f), lr.Zoom, ratio)
	// A gradient colours a GeoJSON line with line metrics by its progress
	// along the whole line; GL draws no gradient on other sources'
	// lines, which keep line-color.
	if f.Metrics && f.Kind == "LineString" {
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
		if lr.Frame.Tilt == nil {
			reach = lineReach(shape, b.outset, b.offset, b.tile)
		}
		for i, l := range lines {
			b.progScale = 0
			if paint.Gradient != nil && progress != nil {
				start, total := progress(i)
				if total > 0 {
					b.progStart, b.progScale = start/total, 1/(total*lr.Frame.Scale)
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
			lr.Canvas.LineTriangle(&b.tris[i], clip, paint)
		}
	}
	if f.Clip != nil && f.Kind == "LineString" {
		if kids, ok := lr.sliceTiles(f, lines); ok {
			// An overzoomed vector tile: each child GL JS 6 cuts from it
			// draws its own pieces inside its square.
			rings := f.Kind == "Polygon"
			for _, t := range kids {
				pieces := scene.SliceParts(lines, t, rings)
				if len(pieces) == 0 {
					continue
				}
				sq := scene.TileSquare(t, 0)
				b.setTile(lr.Frame.Scale*(sq.X1-sq.X0)/8192, lr.Zoom, ratio)
				kidClosed := make([]bool, len(pieces))
				for i := range kidClosed {
					kidClosed[i] = rings
				}
				draw(pieces, kidClosed, lr.clipPolygon(&sq))
			}
			return
		}
	}
	if f.Clip != nil || f.Kind != "LineString" {
		draw(lines, closed, lr.clipPolygon(f.Clip))
		return
	}
	// GL cuts GeoJSON lines into its tiles (with a buffer of a quarter
	// tile): each tile's piece counts its distance from where it was cut,
	// and draws inside its square.
	for _, tile := range lr.viewTiles() {
		buffered := scene.Box{X0: tile.X0 - (tile.X1-tile.X0)/4, Y0: tile.Y0 - (tile.Y1-tile.Y0)/4, X1: tile.X1 + (tile.X1-tile.X0)/4, Y1: tile.Y1 + (tile.Y1-tile.Y0)/4}
		var pieces [][]orb.Point
		var starts, totals []float64
		for _, l := range lines {
			ps, st := scene.ClipLineFrom(l, buffered)
			pieces, starts = append(pieces, ps...), append(starts, st...)
			if paint.Gradient != nil {
				total := scene.LineLength(l)
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
func (lr *Painter) lineReaches(pts []raster.Point, reach float64) bool {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	return lr.boxReaches(x0, y0, x1, y1, reach)
}

// sliceTiles returns the tiles GL JS 6 cuts a feature's overzoomed vector
// tile into that the feature's lines (world units, buffer included) and
// the view both reach; ok is false when the tile is drawn as it is.
func (lr *Painter) sliceTiles(f scene.Feature, lines [][]orb.Point) ([][3]int, bool) {
	z, ok := scene.SliceZoom(lr.Zoom, f.Tile[2])
	if !ok || len(lines) == 0 {
		return nil, false
	}
	var within scene.Box
	within.X0, within.Y0, within.X1, within.Y1 = lr.Frame.ViewBox()
	lx0, ly0, lx1, ly1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l {
			lx0, lx1 = min(lx0, p[0]), max(lx1, p[0])
			ly0, ly1 = min(ly0, p[1]), max(ly1, p[1])
		}
	}
	within = scene.Box{X0: max(within.X0, lx0), Y0: max(within.Y0, ly0), X1: min(within.X1, lx1), Y1: min(within.Y1, ly1)}
	if within.X1 < within.X0 || within.Y1 < within.Y0 {
		return nil, true
	}
	return scene.SliceChildren(f.Tile, z, within, sources.MaxTiles)
}

// lineGradient returns the layer's line-gradient as GL's colour ramp
// texture, built once per layer: 256 texels sampled linearly, or for a
// stepped gradient 1024 sampled nearest, so that steps stay sharp; nil
// without a line-gradient.
func (lr *Painter) lineGradient() *raster.Gradient {
	if lr.gradientDone {
		return lr.gradient
	}
	lr.gradientDone = true
	e := lr.Props["line-gradient"]
	if e == nil || lr.Style.Paint == nil || !lr.Style.Paint.Has("line-gradient") {
		return nil
	}
	g := &raster.Gradient{}
	n := 256
	if raw, ok := lr.Style.Paint.Get("line-gradient"); ok {
		if arr, ok := raw.([]any); ok && len(arr) > 0 && arr[0] == "step" {
			g.Nearest, n = true, 1024
		}
	}
	g.Texels = make([][4]float64, n)
	for i := range g.Texels {
		c := &expr.EvalContext{Zoom: lr.Zoom, LineProgress: float64(i) / float64(n-1)}
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
func (lr *Painter) sortByKey(feats []scene.Feature) []scene.Feature {
	name := lr.Style.Type + "-sort-key"
	if lr.Style.Layout == nil || !lr.Style.Layout.Has(name) || len(feats) < 2 {
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
		ks[i] = keyed{key: lr.Num(name, lr.FeatureContext(f.Expr), 0), i: i}
		if i > 0 {
			ks[i].run = ks[i-1].run
			if lr.Style.Type == "circle" && !sameTile(f.Clip, feats[i-1].Clip) {
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
	out := make([]scene.Feature, len(feats))
	for j, k := range ks {
		out[j] = feats[k.i]
	}
	return out
}

// sameTile reports whether two features' tile squares are the same.
func sameTile(a, b *scene.Box) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// squareVisible reports whether a tile's square (world units) reaches the
// image, remembered per square for the layer. Under a tilted camera every
// square counts as visible.
func (lr *Painter) squareVisible(b *scene.Box) bool {
	if lr.Frame.Tilt != nil {
		return true
	}
	if v, ok := lr.seen[b]; ok {
		return v
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{b.X0, b.Y0}, {b.X1, b.Y0}, {b.X0, b.Y1}, {b.X1, b.Y1}} {
		p := lr.Frame.ToPlane(c[0], c[1])
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	// A pixel of slack: antialiasing reaches half a pixel past an edge.
	v := maxX > -1 && minX < lr.Frame.W+1 && maxY > -1 && minY < lr.Frame.H+1
	if lr.seen == nil {
		lr.seen = map[*scene.Box]bool{}
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
func (lr *Painter) viewTiles() []scene.Box {
	if lr.tiles != nil {
		return lr.tiles
	}
	fr := lr.Frame
	z := max(0, math.Floor(lr.Zoom))
	n := math.Exp2(z)
	half := math.Hypot(fr.W, fr.H) / 2 / fr.Scale
	x0, x1 := math.Floor((fr.CX-half)*n), math.Floor((fr.CX+half)*n)
	y0, y1 := max(0, math.Floor((fr.CY-half)*n)), min(n-1, math.Floor((fr.CY+half)*n))
	if (x1-x0+1)*(y1-y0+1) > sources.MaxTiles {
		// Too many to cut: one square for the whole view.
		lr.tiles = []scene.Box{{X0: fr.CX - half, Y0: fr.CY - half, X1: fr.CX + half, Y1: fr.CY + half}}
		return lr.tiles
	}
	for ty := y0; ty <= y1; ty++ {
		for tx := x0; tx <= x1; tx++ {
			lr.tiles = append(lr.tiles, scene.Box{X0: tx / n, Y0: ty / n, X1: (tx + 1) / n, Y1: (ty + 1) / n})
		}
	}
	return lr.tiles
}

// tileUnit returns the device pixels of one unit of an 8192-unit tile the
// feature's geometry came in (GeoJSON at the zoom drawn, vector tiles at
// their own).
func (lr *Painter) tileUnit(f scene.Feature) float64 {
	tileWorld := math.Exp2(-math.Floor(lr.Zoom))
	if f.Clip != nil {
		tileWorld = f.Clip.X1 - f.Clip.X0
	}
	return tileWorld * lr.Frame.Scale / 8192
}

// clipPolygon returns a tile's square in device pixels of the untilted map
// (GL's stencil: a tile draws only inside its square), nil for none.
func (lr *Painter) clipPolygon(b *scene.Box) []raster.Point {
	if b == nil {
		return nil
	}
	return []raster.Point{lr.Frame.ToPlane(b.X0, b.Y0), lr.Frame.ToPlane(b.X1, b.Y0), lr.Frame.ToPlane(b.X1, b.Y1), lr.Frame.ToPlane(b.X0, b.Y1)}
}

func (lr *Painter) circle(f scene.Feature, c *expr.EvalContext) {
	// GL draws a circle at every vertex of a feature, of lines and
	// polygon rings too, but only at those inside the tile's square.
	parts := vertexParts(f)
	if parts == nil {
		return
	}
	ratio := lr.Frame.Ratio
	radius := lr.Num("circle-radius", c, 5) * ratio
	blur := lr.Num("circle-blur", c, 0)
	opacity := lr.Num("circle-opacity", c, 1)
	stroke := lr.Num("circle-stroke-width", c, 0) * ratio
	dx, dy := lr.Translate("circle-translate", c)
	col, ok := lr.Color("circle-color", c)
	if !ok {
		return
	}
	scol, _ := lr.Color("circle-stroke-color", c)
	sop := lr.Num("circle-stroke-opacity", c, 1)
	// Under a tilted camera circles face the viewer; with pitch scale
	// "map" they shrink with their distance, antialiased as at their own
	// size.
	scaleWithMap := lr.Str("circle-pitch-scale", c, "map") == "map"
	for _, part := range parts {
		for _, p := range lr.projectPlane(part, dx, dy) {
			k := 1.0
			if t := lr.Frame.Tilt; t != nil {
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
			lr.Canvas.Circle(p, radius*k, stroke*k, blur, aa, col, scol, opacity, sop*opacity)
		}
	}
}

// insideTile returns the points of parts that lie in the tile square b
// (all of them when b is nil).
func insideTile(parts [][]orb.Point, b *scene.Box) [][]orb.Point {
	if b == nil {
		return parts
	}
	var pts []orb.Point
	for _, part := range parts {
		for _, p := range part {
			if p[0] >= b.X0 && p[0] < b.X1 && p[1] >= b.Y0 && p[1] < b.Y1 {
				pts = append(pts, p)
			}
		}
	}
	return [][]orb.Point{pts}
}

// byTileOrder returns the features in the order GL draws circles: tile by
// tile, from the bottom row of tiles up and right to left within a row,
// each tile's features in their order. GeoJSON features (without a tile)
// are cut into the view's tiles: each copy keeps the points of one.
func byTileOrder(feats []scene.Feature, viewTiles func() []scene.Box) []scene.Feature {
	type entry struct {
		tile scene.Box
		i    int
	}
	var entries []entry
	for i, f := range feats {
		if f.Clip != nil {
			entries = append(entries, entry{*f.Clip, i})
			continue
		}
		for _, t := range viewTiles() {
			entries = append(entries, entry{t, i})
		}
	}
	sort.SliceStable(entries, func(a, b int) bool {
		ta, tb := entries[a].tile, entries[b].tile
		if ta.Y0 != tb.Y0 {
			return ta.Y0 > tb.Y0
		}
		return ta.X0 > tb.X0
	})
	out := make([]scene.Feature, 0, len(entries))
	for _, e := range entries {
		f := feats[e.i]
		if f.Clip == nil {
			tile := e.tile
			f.Clip = &tile
		}
		out = append(out, f)
	}
	return out
}
