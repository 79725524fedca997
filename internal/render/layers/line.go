package layers

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

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
				pieces := scene.Sliced.Parts(lines, t, rings)
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
// tile into that are in view and that the feature's lines or rings (world
// units, buffer included; in groups, as a polygon's rings) reach; ok is
// false when the tile is drawn as it is.
func (lr *Painter) sliceTiles(f scene.Feature, groups ...[][]orb.Point) ([][3]int, bool) {
	z, ok := scene.SliceZoom(lr.Zoom, f.Tile[2])
	if !ok || len(groups) == 0 {
		return nil, false
	}
	var view scene.Box
	view.X0, view.Y0, view.X1, view.Y1 = lr.Frame.ViewBox()
	fb := scene.Box{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}
	for _, lines := range groups {
		for _, l := range lines {
			for _, p := range l {
				fb.X0, fb.X1 = min(fb.X0, p[0]), max(fb.X1, p[0])
				fb.Y0, fb.Y1 = min(fb.Y0, p[1]), max(fb.Y1, p[1])
			}
		}
	}
	if fb.X1 < fb.X0 {
		return nil, true
	}
	return scene.Sliced.Tiles(f.Tile, z, view, fb, sources.MaxTiles)
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
