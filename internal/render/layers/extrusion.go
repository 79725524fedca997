package layers

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// GL's fill-extrusion: each polygon becomes a roof at its height and a
// wall along each edge from its base to its height, seen by the camera in
// perspective (at any pitch, 0 too) and kept by a per-pixel depth test:
// every pixel shows its nearest face, and the layer's opacity applies to
// that face alone (GL draws depth first, then each pixel once). Faces are
// lit per vertex as GL's shader lights them, from the style's light.

// EarthCircumference is GL's, in metres.
const EarthCircumference = 2 * math.Pi * 6371008.8

// Camera is GL's perspective camera over the plane of the map (device
// pixels, centre (CX, CY)): it stands Dist pixels from the centre, tilted
// toward the bottom of the image by the pitch.
type Camera struct {
	cx, cy, dist, sin, cos float64
}

// Camera returns the view's camera; without pitch it looks straight down
// (heights still grow toward it).
func (lr *Painter) Camera() Camera {
	fr := lr.Frame
	if t := fr.Tilt; t != nil {
		return Camera{t.CX, t.CY, t.Dist, t.Sin, t.Cos}
	}
	return Camera{fr.W / 2, fr.H / 2, 1.5 * fr.H, 0, 1}
}

// Project maps a plane point raised z pixels to the screen, with its
// depth along the camera's axis.
func (c Camera) Project(x, y, z float64) (raster.Point, float64) {
	X, Y := x-c.cx, y-c.cy
	depth := c.dist - Y*c.sin - z*c.cos
	k := c.dist / depth
	return raster.Point{X: c.cx + X*k, Y: c.cy + (Y*c.cos-z*c.sin)*k}, depth
}

// facing tells whether the camera sees the outer side of a wall along
// a to b (plane pixels), which lies on the left of a to b (rings wound
// as GL winds them).
func (c Camera) facing(a, b raster.Point) bool {
	gx, gy := c.cx, c.cy+c.dist*c.sin // the camera's foot on the plane
	return (gx-a.X)*(b.Y-a.Y)-(gy-a.Y)*(b.X-a.X) > 0
}

// ray returns the camera's position and the direction through screen
// point (sx, sy) (plane coordinates relative to the centre, z up), the
// direction scaled so that a step of s along it is s deep.
func (c Camera) ray(sx, sy float64) (o, d [3]float64) {
	a, b := (sx-c.cx)/c.dist, (sy-c.cy)/c.dist
	o = [3]float64{0, c.dist * c.sin, c.dist * c.cos}
	d = [3]float64{a, -c.sin + b*c.cos, -c.cos - b*c.sin}
	return o, d
}

// light is the style's light as the extrusion shader takes it.
type light struct {
	pos       [3]float64 // direction, in the plane's axes (x east, y south, z up)
	color     [3]float64
	intensity float64
}

// lightSpecs are the property specs of the style's light.
var lightSpecs = sync.OnceValue(func() map[string]*expr.PropertySpec {
	return style.DefaultSpec().SectionSpecs("light")
})

// styleLight evaluates the style's light at the view's zoom (GL's
// defaults for what it leaves out).
func (lr *Painter) styleLight(st *style.Style) light {
	raw, _ := st.Doc().Get("light")
	obj, _ := raw.(*style.Object)
	c := &expr.EvalContext{Zoom: lr.Zoom}
	value := func(name string) expr.Value {
		spec := lightSpecs()[name]
		if spec == nil {
			return expr.Null()
		}
		var e *expr.Expression
		if v, ok := obj.Get(name); ok {
			e, _ = expr.CompileValue(v, spec)
		}
		if e == nil && len(spec.Default) > 0 {
			e, _ = expr.CompileValue(spec.Default, spec)
		}
		if e == nil {
			return expr.Null()
		}
		return e.EvalOrDefault(c)
	}
	l := light{color: [3]float64{1, 1, 1}, intensity: 0.5}
	pos := []float64{1.15, 210, 30}
	if p := scene.Numbers(value("position")); len(p) == 3 {
		pos = p
	}
	if v := value("intensity"); v.Kind() == expr.KindNumber {
		l.intensity = v.Num()
	}
	if v := value("color"); v.Kind() == expr.KindColor {
		col := v.Color()
		l.color = [3]float64{col.R * col.A, col.G * col.A, col.B * col.A}
	}
	// The position is radial: distance, azimuth (from north, clockwise,
	// 90 degrees added as GL adds them) and polar angle from the zenith.
	az := (pos[1] + 90) * math.Pi / 180
	polar := pos[2] * math.Pi / 180
	x, y, z := pos[0]*math.Cos(az)*math.Sin(polar), pos[0]*math.Sin(az)*math.Sin(polar), pos[0]*math.Cos(polar)
	if v := value("anchor"); v.Kind() != expr.KindString || v.Str() != "map" {
		// Anchored to the viewport: the light turns with the bearing.
		b := -math.Atan2(lr.Frame.Sin, lr.Frame.Cos)
		s, co := math.Sincos(b)
		x, y = x*co-y*s, x*s+y*co
	}
	l.pos = [3]float64{x, y, z}
	return l
}

// GL's extrusion lighting, parity numbers kept so that our pictures match
// its (read off its output, not derived):
const (
	// lightLift is added to each colour channel before it is lit, so that
	// a black face still shows the light's direction.
	lightLift = 0.03
	// darkestShare is the darkest a lit channel gets, as a share of what
	// the light's colour lacks of white.
	darkestShare = 0.3
	// wallFootLow and wallFootHigh are how dark the foot of a wall gets
	// under the vertical gradient, at light intensity 1 and 0.
	wallFootLow, wallFootHigh = 0.7, 0.98
	// wallGradientMetres is the height scale (metres) of the vertical
	// gradient: a wall lightens with the square root of its height over it.
	wallGradientMetres = 150
	// patternLightBase is the least a patterned face's light reaches
	// facing the light, less the intensity.
	patternLightBase = 0.5
)

// floorLit clamps a lit channel to 1 and to the darkest the light's
// channel c allows.
func floorLit(v, c float64) float64 { return math.Max(darkestShare*(1-c), math.Min(1, v)) }

// shade is GL's extrusion lighting of one vertex: premultiplied colour
// col, surface normal n; for walls t (0 at the base, 1 at the top) with
// the vertical gradient over base and height (metres).
func (l light) shade(col [3]float64, n [3]float64, wall, gradient bool, t, base, height float64) [3]float64 {
	lum := col[0]*0.2126 + col[1]*0.7152 + col[2]*0.0722 // Rec. 709 luma
	dir := l.directional(n, math.Max(1-lum+l.intensity, 1), wall, gradient, t, base, height)
	var out [3]float64
	for k := range out {
		out[k] = floorLit((col[k]+lightLift)*dir*l.color[k], l.color[k])
	}
	return out
}

// depthLayer is the layer drawn apart: the nearest face of each pixel.
type depthLayer struct {
	w, h  int
	depth []float64
	color [][4]float64 // premultiplied, before the layer's opacity
}

// Extrusion draws a fill-extrusion layer.
func (lr *Painter) Extrusion(feats []scene.Feature, st *style.Style) {
	c0 := lr.FeatureContext(nil)
	opacity := lr.Num("fill-extrusion-opacity", c0, 1)
	if opacity <= 0 {
		return
	}
	w, h := lr.Canvas.Rect.Dx(), lr.Canvas.Rect.Dy()
	dl := &depthLayer{w: w, h: h}
	lit := lr.styleLight(st)
	cam := lr.Camera()
	gradient := lr.Bool("fill-extrusion-vertical-gradient", c0, true)
	dx, dy := lr.Translate("fill-extrusion-translate", c0)
	// Metres to device pixels, at the latitude of the view's centre.
	lat := math.Atan(math.Sinh(math.Pi * (1 - 2*lr.Frame.CY)))
	perMetre := lr.Frame.Scale / (EarthCircumference * math.Cos(lat))
	for _, f := range feats {
		if f.Kind != "Polygon" {
			continue
		}
		if lr.Canvas.Budget.Stopped() {
			return
		}
		c := lr.FeatureContext(f.Expr)
		if !lr.Keeps(c) {
			continue
		}
		col, ok := lr.Color("fill-extrusion-color", c)
		if !ok {
			continue
		}
		pre := [3]float64{col.R * col.A, col.G * col.A, col.B * col.A}
		height := math.Max(0, lr.Num("fill-extrusion-height", c, 0))
		base := math.Max(0, lr.Num("fill-extrusion-base", c, 0))
		face := extrusionFace{cam: cam, dl: dl, mask: lr.Mask, zb: base * perMetre, zt: height * perMetre, perMetre: perMetre}
		var img *sources.PatternImage
		if lr.Style.Paint != nil && lr.Style.Paint.Has("fill-extrusion-pattern") {
			if img = lr.patternImage("fill-extrusion-pattern", c); img == nil {
				continue // a pattern whose image is missing draws nothing
			}
		}
		// lightOf returns a face's colour, or with a pattern its light.
		lightOf := func(n [3]float64, wall bool, t float64) [3]float64 {
			if img != nil {
				return lit.shadePattern(n, wall, gradient, t, base, height)
			}
			return lit.shade(pre, n, wall, gradient, t, base, height)
		}
		roof := lightOf([3]float64{0, 0, 1}, false, 1)
		if f.Clip != nil {
			if kids, ok := lr.sliceTiles(f, f.Unclipped...); ok {
				// An overzoomed vector tile: GL JS 6 builds the faces in
				// each tile of the view's zoom it cuts from it, the walls'
				// pattern from that tile's corner and from where it cut
				// each ring.
				lr.cutFaces(&face, f.Unclipped, kids, scene.Sliced, img, roof, dx, dy, lightOf)
				continue
			}
		}
		if img != nil {
			face.pattern = lr.extrusionPattern(img, extrusionTile(f, sources.GeoJSONTileZoom(st, lr.Style.Source, lr.Zoom)), dx, dy)
		}
		for _, poly := range f.Polygons {
			var rings [][]raster.Point
			for k, ring := range poly {
				rings = append(rings, lr.projectPlane(ring, dx, dy))
				lr.extrusionWalls(&face, ring, k == 0, f.CutEdge(ring), nil, dx, dy, lightOf)
			}
			face.roof(rings, roof)
		}
	}
	if dl.depth == nil {
		return // nothing drawn
	}
	// The layer, each pixel its nearest face, over the map.
	for y := 0; y < h; y++ {
		if !lr.Canvas.Budget.Spend(w) {
			return
		}
		for x := 0; x < w; x++ {
			i := y*w + x
			if dl.depth[i] == 0 {
				continue
			}
			c := dl.color[i]
			lr.Canvas.BlendPremul(x, y, c[0]*opacity, c[1]*opacity, c[2]*opacity, c[3]*opacity)
		}
	}
}

// cutFaces draws the faces of polygons (world units) as the tiles cut
// them: in each tile the rings cut to its buffered square, a roof over
// them and a wall along each edge but those along a line outside its
// square (so the part of a building in a tile not drawn is open, as in
// GL). Two tiles both build the part of a wall in their buffers; which of
// the two GL shows there falls as its depth precision does (by triangle,
// sometimes in stipples). Here the tiles are drawn from the farthest from
// the camera to the nearest, the nearer one's wall winning the exact tie:
// the order that matched GL's pictures best.
func (lr *Painter) cutFaces(face *extrusionFace, polys [][][]orb.Point, tiles [][3]int, cut scene.Cut, img *sources.PatternImage, roof [3]float64, dx, dy float64, lightOf func(n [3]float64, wall bool, t float64) [3]float64) {
	sortFarFirst(tiles, lr.Frame, face.cam)
	for _, t := range tiles {
		if img != nil {
			face.pattern = lr.extrusionPattern(img, t, dx, dy)
		}
		for _, poly := range polys {
			var top [][]raster.Point
			for k, ring := range poly {
				piece, from := cut.Ring(ring, t)
				if len(piece) == 0 {
					if k == 0 {
						break // the outer ring, and so the holes, are outside
					}
					continue
				}
				top = append(top, lr.projectPlane(piece, dx, dy))
				// Each wall lies in the plane of the edge it was cut
				// from, so that where two tiles both build it the depths
				// tie exactly.
				whole := scene.CloseRing(ring)
				plane := func(i int) (orb.Point, orb.Point) {
					if i < len(from) && from[i] >= 0 {
						e := from[i]
						return whole[e], whole[e+1]
					}
					return piece[i], piece[(i+1)%len(piece)]
				}
				lr.extrusionWalls(face, piece, k == 0, scene.OutsideEdge(piece, t), plane, dx, dy, lightOf)
			}
			if len(top) > 0 {
				face.roof(top, roof)
			}
		}
	}
}

// sortFarFirst orders tiles by the distance of their centres from the
// point of the map under the camera, the farthest first.
func sortFarFirst(tiles [][3]int, fr scene.Frame, cam Camera) {
	cx, cy := fr.ToWorld(cam.cx, cam.cy+cam.dist*cam.sin)
	far := func(t [3]int) float64 {
		sq := scene.TileSquare(t, 0)
		return math.Hypot((sq.X0+sq.X1)/2-cx, (sq.Y0+sq.Y1)/2-cy)
	}
	slices.SortStableFunc(tiles, func(a, b [3]int) int { return cmp.Compare(far(b), far(a)) })
}

// extrusionWalls draws a wall along each edge of a ring (world units)
// but those cut tells are a tile's cut, along the ring as GL winds it:
// outer rings turn clockwise on the screen, holes the other way. The
// pattern runs along the walls with GL's edge distance, counted in tile
// units from the ring's first point. plane, when not nil, gives the
// points of the line each edge lies on (the edge it was cut from).
func (lr *Painter) extrusionWalls(face *extrusionFace, ring []orb.Point, outer bool, cut func(i int) bool, plane func(i int) (orb.Point, orb.Point), dx, dy float64, lightOf func(n [3]float64, wall bool, t float64) [3]float64) {
	n := len(ring)
	type edge struct{ a, b, pa, pb orb.Point }
	var edges []edge
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		if cut != nil && cut(i) {
			continue // the tile's cut: no wall, as in GL
		}
		e := edge{a: ring[i], b: ring[j], pa: ring[i], pb: ring[j]}
		if plane != nil {
			e.pa, e.pb = plane(i)
		}
		edges = append(edges, e)
	}
	if (scene.RingArea(ring) > 0) != outer {
		for i, j := 0, len(edges)-1; i < j; i, j = i+1, j-1 {
			edges[i], edges[j] = edges[j], edges[i]
		}
		for i := range edges {
			e := &edges[i]
			e.a, e.b, e.pa, e.pb = e.b, e.a, e.pb, e.pa
		}
	}
	along := 0.0 // GL's edge distance, in tile units
	for _, e := range edges {
		if e.a == e.b {
			continue
		}
		ab := lr.projectPlane([]orb.Point{e.a, e.b}, dx, dy)
		w := wallSide{a: ab[0], b: ab[1], pa: ab[0], pb: ab[1]}
		if e.pa != e.a || e.pb != e.b {
			pp := lr.projectPlane([]orb.Point{e.pa, e.pb}, dx, dy)
			w.pa, w.pb = pp[0], pp[1]
		}
		// GL's wall normal: the edge's direction turned a quarter
		// clockwise on the screen (inward for an outer ring), in the
		// map's axes (before the bearing).
		ex, ey := w.pb.X-w.pa.X, w.pb.Y-w.pa.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		nx, ny := -ey/l, ex/l
		n3 := [3]float64{nx*lr.Frame.Cos + ny*lr.Frame.Sin, -nx*lr.Frame.Sin + ny*lr.Frame.Cos, 0}
		dist := math.Hypot(e.b[0]-e.a[0], e.b[1]-e.a[1])
		if face.pattern != nil {
			dist *= face.pattern.tileUnits
			along = wallPatternStart(along, dist)
		}
		face.wall(w, along, dist, lightOf(n3, true, 0), lightOf(n3, true, 1))
		along += dist
	}
}

// wallPatternSpan is how far (tile units of the pattern) a ring's walls
// carry their pattern on before it starts again from 0: a parity number,
// 2^15, at which GL starts a ring's wall pattern again.
const wallPatternSpan = 32768

// wallPatternStart returns where along its ring's pattern a wall of
// length dist starts when the walls before it end at along: there, unless
// the wall would run past wallPatternSpan, when it starts the pattern
// again.
func wallPatternStart(along, dist float64) float64 {
	if along+dist > wallPatternSpan {
		return 0
	}
	return along
}

// wallSide is a wall's edge on the plane of the map (device pixels): a to
// b, lying on the line through pa and pb.
type wallSide struct{ a, b, pa, pb raster.Point }

// extrusionFace draws the faces of one feature into the depth layer.
type extrusionFace struct {
	cam      Camera
	dl       *depthLayer
	mask     *raster.Mask
	zb, zt   float64 // base and top, device pixels
	perMetre float64 // device pixels a metre
	// pattern is the feature's fill-extrusion-pattern, nil for none.
	pattern *extrusionPattern
}

// put keeps a face's colour at pixel x, y when it is nearest (GL's LEQUAL
// test: a later face at the same depth wins). Depths are stored inverted
// so that 0 means empty.
func (e *extrusionFace) put(x, y int, depth float64, c [4]float64) {
	dl := e.dl
	if dl.depth == nil {
		dl.depth = make([]float64, dl.w*dl.h)
		dl.color = make([][4]float64, dl.w*dl.h)
	}
	i := y*dl.w + x
	inv := 1 / depth
	if inv >= dl.depth[i] {
		dl.depth[i], dl.color[i] = inv, c
	}
}

// cover fills the screen polygon and calls fn for each pixel inside it.
func (e *extrusionFace) cover(rings [][]raster.Point, fn func(x, y int)) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, r := range rings {
		for _, p := range r {
			x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
		}
	}
	ix0, iy0 := max(0, int(math.Floor(x0))), max(0, int(math.Floor(y0)))
	ix1, iy1 := min(e.dl.w-1, int(math.Ceil(x1))), min(e.dl.h-1, int(math.Ceil(y1)))
	if ix0 > ix1 || iy0 > iy1 || !e.mask.Budget.SpendArea(ix0, iy0, ix1+1, iy1+1, 1) {
		return
	}
	e.mask.FillPolygon(rings)
	for y := iy0; y <= iy1; y++ {
		if y&15 == 0 && e.mask.Budget.Stopped() {
			break
		}
		row := e.mask.Cov[y*e.mask.W:]
		for x := ix0; x <= ix1; x++ {
			if row[x] > 0 {
				fn(x, y)
			}
		}
	}
	e.mask.Reset()
}

// inFront tells whether the camera sees every point (a face crossing the
// camera's plane is left out).
func inFront(depths ...float64) bool {
	for _, d := range depths {
		if !(d > 1) {
			return false
		}
	}
	return true
}

// roof draws the top of a polygon (rings in plane pixels) at zt.
func (e *extrusionFace) roof(rings [][]raster.Point, col [3]float64) {
	screen := make([][]raster.Point, len(rings))
	for k, r := range rings {
		screen[k] = make([]raster.Point, len(r))
		for i, p := range r {
			q, d := e.cam.Project(p.X, p.Y, e.zt)
			if !inFront(d) {
				return
			}
			screen[k][i] = q
		}
	}
	e.cover(screen, func(x, y int) {
		o, d := e.cam.ray(float64(x)+0.5, float64(y)+0.5)
		if d[2] == 0 {
			return
		}
		s := (e.zt - o[2]) / d[2]
		if s <= 0 {
			return
		}
		if e.pattern == nil {
			e.put(x, y, s, [4]float64{col[0], col[1], col[2], 1})
			return
		}
		// The pattern lies on the roof as on the ground under it.
		tex := e.pattern.roof(o[0]+s*d[0]+e.cam.cx, o[1]+s*d[1]+e.cam.cy)
		e.put(x, y, s, lightTexel(tex, col))
	})
}

// lightTexel lights a premultiplied texel (0..1).
func lightTexel(tex [4]float64, l [3]float64) [4]float64 {
	return [4]float64{tex[0] * l[0], tex[1] * l[1], tex[2] * l[2], tex[3]}
}

// wall draws the wall over the edge a-b (plane pixels), coloured bottom
// at the base and top at the top, in between as GL interpolates.
// along is GL's edge distance at b and along+dist at a (tile units, for
// patterns).
func (e *extrusionFace) wall(w wallSide, along, dist float64, bottom, top [3]float64) {
	if e.zt <= e.zb {
		return
	}
	a, b := w.a, w.b
	if !e.cam.facing(a, b) {
		return // GL culls the walls that face away from the camera
	}
	ab, d0 := e.cam.Project(a.X, a.Y, e.zb)
	bb, d1 := e.cam.Project(b.X, b.Y, e.zb)
	bt, d2 := e.cam.Project(b.X, b.Y, e.zt)
	at, d3 := e.cam.Project(a.X, a.Y, e.zt)
	if !inFront(d0, d1, d2, d3) {
		return
	}
	// The wall's plane: n . (X, Y) = k, relative to the centre.
	nx, ny := -(w.pb.Y - w.pa.Y), w.pb.X-w.pa.X
	k := nx*(w.pa.X-e.cam.cx) + ny*(w.pa.Y-e.cam.cy)
	e.cover([][]raster.Point{{ab, bb, bt, at}}, func(x, y int) {
		o, d := e.cam.ray(float64(x)+0.5, float64(y)+0.5)
		den := nx*d[0] + ny*d[1]
		if den == 0 {
			return
		}
		s := (k - nx*o[0] - ny*o[1]) / den
		if s <= 0 {
			return
		}
		z := o[2] + s*d[2]
		t := math.Max(0, math.Min(1, (z-e.zb)/(e.zt-e.zb)))
		col := [3]float64{bottom[0] + (top[0]-bottom[0])*t, bottom[1] + (top[1]-bottom[1])*t, bottom[2] + (top[2]-bottom[2])*t}
		if e.pattern == nil {
			e.put(x, y, s, [4]float64{col[0], col[1], col[2], 1})
			return
		}
		// Across the wall the pattern runs with the edge distance, up it
		// with the height.
		hx, hy := o[0]+s*d[0]+e.cam.cx, o[1]+s*d[1]+e.cam.cy
		f := ((hx-a.X)*(b.X-a.X) + (hy-a.Y)*(b.Y-a.Y)) / ((b.X-a.X)*(b.X-a.X) + (b.Y-a.Y)*(b.Y-a.Y))
		tex := e.pattern.wall(along+dist*(1-f), z/e.perMetre)
		e.put(x, y, s, lightTexel(tex, col))
	})
}

// directional is the light's directional term of a face with normal n:
// from 1 - intensity facing away up to hi facing the light, darkened
// towards the base of a wall when the vertical gradient is on (t, base
// and height as for shade).
func (l light) directional(n [3]float64, hi float64, wall, gradient bool, t, base, height float64) float64 {
	dir := math.Max(0, math.Min(1, n[0]*l.pos[0]+n[1]*l.pos[1]+n[2]*l.pos[2]))
	lo := 1 - l.intensity
	dir = lo + (hi-lo)*dir
	if wall && gradient {
		floor := wallFootLow + (wallFootHigh-wallFootLow)*(1-l.intensity)
		dir *= math.Max(floor, math.Min(1, (t+base)*math.Sqrt(height/wallGradientMetres)))
	}
	return dir
}

// shadePattern is GL's lighting of a patterned face: the light's colour
// to multiply the pattern's texels by.
func (l light) shadePattern(n [3]float64, wall, gradient bool, t, base, height float64) [3]float64 {
	dir := l.directional(n, math.Max(patternLightBase+l.intensity, 1), wall, gradient, t, base, height)
	var out [3]float64
	for k := range out {
		out[k] = floorLit(dir*l.color[k], l.color[k])
	}
	return out
}

// extrusionPattern places a pattern image on roofs and walls as GL does:
// on roofs by the world's pixels at the zoom's floor (as fill patterns),
// on walls by the edge distance across and the height up, from the
// corner of the feature's tile.
type extrusionPattern struct {
	img *sources.PatternImage
	fr  scene.Frame
	// cssPerWorld is CSS pixels of the zoom's floor a world unit.
	cssPerWorld float64
	dx, dy      float64 // the layer's translation, device pixels
	// tileUnits is the tile units (8192 a tile) a world unit; tileZ the
	// tile's zoom and offX, offY its corner in CSS pixels.
	tileUnits, tileZ float64
	offX, offY       float64
}

// extrusionTile returns the tile ([y, x, z]) a feature's walls take
// their pattern from: a vector tile's own, or for GeoJSON the tile of zoom
// geoZ under the feature's first point.
func extrusionTile(f scene.Feature, geoZ float64) [3]int {
	if f.Clip != nil {
		n := 1 / (f.Clip.X1 - f.Clip.X0)
		return [3]int{int(math.Round(f.Clip.Y0 * n)), int(math.Round(f.Clip.X0 * n)), int(math.Round(math.Log2(n)))}
	}
	n := math.Exp2(geoZ)
	var tx, ty float64
	if len(f.Polygons) > 0 && len(f.Polygons[0]) > 0 && len(f.Polygons[0][0]) > 0 {
		q := f.Polygons[0][0][0]
		tx, ty = math.Floor(q[0]*n), math.Floor(q[1]*n)
	}
	return [3]int{int(ty), int(tx), int(geoZ)}
}

// extrusionPattern returns the pattern of the walls built in tile t
// ([y, x, z]).
func (lr *Painter) extrusionPattern(img *sources.PatternImage, t [3]int, dx, dy float64) *extrusionPattern {
	fz := math.Floor(lr.Zoom)
	n := math.Exp2(float64(t[2]))
	p := &extrusionPattern{img: img, fr: lr.Frame, cssPerWorld: 512 * math.Exp2(fz), dx: dx, dy: dy, tileZ: float64(t[2]), tileUnits: 8192 * n}
	// A tile's corner at the zoom's floor, in CSS pixels.
	size := 512 * math.Exp2(fz) / n
	p.offX, p.offY = size*float64(t[1]), size*float64(t[0])
	return p
}

// roof returns the texel under plane point (x, y) (device pixels).
func (p *extrusionPattern) roof(x, y float64) [4]float64 {
	// Back through the translation and the bearing to the world.
	ox, oy := x-p.dx-p.fr.W/2, y-p.dy-p.fr.H/2
	wx := p.fr.CX + (ox*p.fr.Cos+oy*p.fr.Sin)/p.fr.Scale
	wy := p.fr.CY + (-ox*p.fr.Sin+oy*p.fr.Cos)/p.fr.Scale
	return p.sample(wx*p.cssPerWorld, wy*p.cssPerWorld)
}

// wall returns the texel at an edge distance (tile units) and height
// (metres): GL scales the height by -2^z/4096 tile units a metre.
func (p *extrusionPattern) wall(along, metres float64) [4]float64 {
	perUnit := p.cssPerWorld / p.tileUnits
	return p.sample(p.offX+along*perUnit, p.offY-metres*math.Exp2(p.tileZ)/4096*perUnit)
}

// sample returns the image's texel at CSS pixel (u, v) of the repeated
// pattern, bilinearly, premultiplied 0..1.
func (p *extrusionPattern) sample(u, v float64) [4]float64 {
	r := p.img.Rect
	w, h := float64(r.Dx()), float64(r.Dy())
	u = math.Mod(u*p.img.Ratio, w)
	v = math.Mod(v*p.img.Ratio, h)
	if u < 0 {
		u += w
	}
	if v < 0 {
		v += h
	}
	u, v = u-0.5, v-0.5
	u0, v0 := math.Floor(u), math.Floor(v)
	fu, fv := u-u0, v-v0
	pix := p.img.Sheet
	texel := func(i, j int) [4]float64 {
		i, j = ((i%r.Dx())+r.Dx())%r.Dx(), ((j%r.Dy())+r.Dy())%r.Dy()
		o := pix.PixOffset(r.Min.X+i, r.Min.Y+j)
		c := pix.Pix[o : o+4]
		return [4]float64{float64(c[0]) / 255, float64(c[1]) / 255, float64(c[2]) / 255, float64(c[3]) / 255}
	}
	i, j := int(u0), int(v0)
	a, b, c, d := texel(i, j), texel(i+1, j), texel(i, j+1), texel(i+1, j+1)
	var out [4]float64
	for k := range out {
		out[k] = (a[k]*(1-fu)+b[k]*fu)*(1-fv) + (c[k]*(1-fu)+d[k]*fu)*fv
	}
	return out
}
