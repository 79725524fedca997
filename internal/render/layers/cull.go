package layers

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

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
