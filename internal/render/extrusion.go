package render

import (
	"encoding/json"
	"math"
	"sync"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// GL's fill-extrusion: each polygon becomes a roof at its height and a
// wall along each edge from its base to its height, seen by the camera in
// perspective (at any pitch, 0 too) and kept by a per-pixel depth test:
// every pixel shows its nearest face, and the layer's opacity applies to
// that face alone (GL draws depth first, then each pixel once). Faces are
// lit per vertex as GL's shader lights them, from the style's light.

// earthCircumference is GL's, in metres.
const earthCircumference = 2 * math.Pi * 6371008.8

// camera3D is GL's perspective camera over the plane of the map (device
// pixels, centre (CX, CY)): it stands Dist pixels from the centre, tilted
// toward the bottom of the image by the pitch.
type camera3D struct {
	cx, cy, dist, sin, cos float64
}

// camera returns the view's camera; without pitch it looks straight down
// (heights still grow toward it).
func (lr *layerRender) camera() camera3D {
	fr := lr.fr
	if t := fr.tilt; t != nil {
		return camera3D{t.CX, t.CY, t.Dist, t.Sin, t.Cos}
	}
	return camera3D{fr.w / 2, fr.h / 2, 1.5 * fr.h, 0, 1}
}

// project maps a plane point raised z pixels to the screen, with its
// depth along the camera's axis.
func (c camera3D) project(x, y, z float64) (raster.Point, float64) {
	X, Y := x-c.cx, y-c.cy
	depth := c.dist - Y*c.sin - z*c.cos
	k := c.dist / depth
	return raster.Point{X: c.cx + X*k, Y: c.cy + (Y*c.cos-z*c.sin)*k}, depth
}

// ray returns the camera's position and the direction through screen
// point (sx, sy) (plane coordinates relative to the centre, z up), the
// direction scaled so that a step of s along it is s deep.
func (c camera3D) ray(sx, sy float64) (o, d [3]float64) {
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

var (
	lightSpecsOnce sync.Once
	lightSpecs     map[string]*expr.PropertySpec
)

// styleLight evaluates the style's light at the view's zoom (GL's
// defaults for what it leaves out).
func (lr *layerRender) styleLight(st *style.Style) light {
	lightSpecsOnce.Do(func() {
		var root struct {
			Light map[string]*expr.PropertySpec `json:"light"`
		}
		if err := json.Unmarshal(style.SpecJSON(), &root); err == nil {
			lightSpecs = root.Light
		}
	})
	raw, _ := st.Doc().Get("light")
	obj, _ := raw.(*style.Object)
	c := &expr.EvalContext{Zoom: lr.zoom}
	value := func(name string) expr.Value {
		spec := lightSpecs[name]
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
	if p := numbers(value("position")); len(p) == 3 {
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
		b := -math.Atan2(lr.fr.sin, lr.fr.cos)
		s, co := math.Sincos(b)
		x, y = x*co-y*s, x*s+y*co
	}
	l.pos = [3]float64{x, y, z}
	return l
}

// shade is GL's extrusion lighting of one vertex: premultiplied colour
// col, surface normal n; for walls t (0 at the base, 1 at the top) with
// the vertical gradient over base and height (metres).
func (l light) shade(col [3]float64, n [3]float64, wall, gradient bool, t, base, height float64) [3]float64 {
	lum := col[0]*0.2126 + col[1]*0.7152 + col[2]*0.0722
	dir := math.Max(0, math.Min(1, n[0]*l.pos[0]+n[1]*l.pos[1]+n[2]*l.pos[2]))
	lo, hi := 1-l.intensity, math.Max(1-lum+l.intensity, 1)
	dir = lo + (hi-lo)*dir
	if wall && gradient {
		floor := 0.7 + (0.98-0.7)*(1-l.intensity)
		dir *= math.Max(floor, math.Min(1, (t+base)*math.Sqrt(height/150)))
	}
	var out [3]float64
	for k := range out {
		v := (col[k] + 0.03) * dir * l.color[k]
		out[k] = math.Max(0.3*(1-l.color[k]), math.Min(1, v))
	}
	return out
}

// depthLayer is the layer drawn apart: the nearest face of each pixel.
type depthLayer struct {
	w, h  int
	depth []float64
	color [][3]float64
}

// extrusion draws a fill-extrusion layer.
func (lr *layerRender) extrusion(feats []sourceFeature, st *style.Style) {
	c0 := lr.ctx(nil)
	opacity := lr.num("fill-extrusion-opacity", c0, 1)
	if opacity <= 0 {
		return
	}
	w, h := lr.cv.Rect.Dx(), lr.cv.Rect.Dy()
	dl := &depthLayer{w: w, h: h}
	lit := lr.styleLight(st)
	cam := lr.camera()
	gradient := lr.boolean("fill-extrusion-vertical-gradient", c0, true)
	dx, dy := lr.translate("fill-extrusion-translate", c0)
	// Metres to device pixels, at the latitude of the view's centre.
	lat := math.Atan(math.Sinh(math.Pi * (1 - 2*lr.fr.cy)))
	perMetre := lr.fr.scale / (earthCircumference * math.Cos(lat))
	for _, f := range feats {
		if f.kind != "Polygon" {
			continue
		}
		c := lr.ctx(f.feat)
		if lr.filter != nil {
			v := lr.filter.EvalOrDefault(c)
			if v.Kind() != expr.KindBoolean || !v.Boolean() {
				continue
			}
		}
		col, ok := lr.color("fill-extrusion-color", c)
		if !ok {
			continue
		}
		pre := [3]float64{col.R * col.A, col.G * col.A, col.B * col.A}
		height := math.Max(0, lr.num("fill-extrusion-height", c, 0))
		base := math.Max(0, lr.num("fill-extrusion-base", c, 0))
		face := extrusionFace{cam: cam, dl: dl, mask: lr.mask, zb: base * perMetre, zt: height * perMetre}
		roof := lit.shade(pre, [3]float64{0, 0, 1}, false, gradient, 1, base, height)
		for _, poly := range f.polygons {
			var rings [][]raster.Point
			for k, ring := range poly {
				plane := lr.projectPlane(ring, dx, dy)
				rings = append(rings, plane)
				// Walls, along the ring as GL winds it: outer rings turn
				// clockwise on the screen, holes the other way.
				cut := f.cutEdge(ring)
				flip := (ringArea(ring) > 0) != (k == 0)
				n := len(ring)
				for i := 0; i < n; i++ {
					j := (i + 1) % n
					if ring[i] == ring[j] || (cut != nil && cut(i)) {
						continue
					}
					a, b := plane[i], plane[j]
					if flip {
						a, b = b, a
					}
					// GL's wall normal: the edge's direction turned a
					// quarter clockwise on the screen (inward for an
					// outer ring).
					ex, ey := b.X-a.X, b.Y-a.Y
					l := math.Hypot(ex, ey)
					nx, ny := -ey/l, ex/l
					// The normal is in the map's axes (before the bearing).
					mx, my := nx*lr.fr.cos+ny*lr.fr.sin, -nx*lr.fr.sin+ny*lr.fr.cos
					n3 := [3]float64{mx, my, 0}
					face.wall(a, b, lit.shade(pre, n3, true, gradient, 0, base, height), lit.shade(pre, n3, true, gradient, 1, base, height))
				}
			}
			face.roof(rings, roof)
		}
	}
	// The layer, each pixel its nearest face, over the map.
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if dl.depth == nil || dl.depth[i] == 0 {
				continue
			}
			c := dl.color[i]
			lr.cv.BlendPremul(x, y, c[0]*opacity, c[1]*opacity, c[2]*opacity, opacity)
		}
	}
}

// ringArea returns twice the signed area of a ring in world coordinates
// (y down): positive when it turns clockwise on the screen.
func ringArea(r []orb.Point) float64 {
	a := 0.0
	for i := range r {
		p, q := r[i], r[(i+1)%len(r)]
		a += p[0]*q[1] - q[0]*p[1]
	}
	return a
}

// extrusionFace draws the faces of one feature into the depth layer.
type extrusionFace struct {
	cam    camera3D
	dl     *depthLayer
	mask   *raster.Mask
	zb, zt float64 // base and top, device pixels
}

// put keeps a face's colour at pixel x, y when it is nearest (GL's LEQUAL
// test: a later face at the same depth wins). Depths are stored inverted
// so that 0 means empty.
func (e *extrusionFace) put(x, y int, depth float64, c [3]float64) {
	dl := e.dl
	if dl.depth == nil {
		dl.depth = make([]float64, dl.w*dl.h)
		dl.color = make([][3]float64, dl.w*dl.h)
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
	if ix0 > ix1 || iy0 > iy1 {
		return
	}
	e.mask.FillPolygon(rings)
	for y := iy0; y <= iy1; y++ {
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
			q, d := e.cam.project(p.X, p.Y, e.zt)
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
		if s > 0 {
			e.put(x, y, s, col)
		}
	})
}

// wall draws the wall over the edge a-b (plane pixels), coloured bottom
// at the base and top at the top, in between as GL interpolates.
func (e *extrusionFace) wall(a, b raster.Point, bottom, top [3]float64) {
	if e.zt <= e.zb {
		return
	}
	ab, d0 := e.cam.project(a.X, a.Y, e.zb)
	bb, d1 := e.cam.project(b.X, b.Y, e.zb)
	bt, d2 := e.cam.project(b.X, b.Y, e.zt)
	at, d3 := e.cam.project(a.X, a.Y, e.zt)
	if !inFront(d0, d1, d2, d3) {
		return
	}
	// The wall's plane: n . (X, Y) = k, relative to the centre.
	nx, ny := -(b.Y - a.Y), b.X-a.X
	k := nx*(a.X-e.cam.cx) + ny*(a.Y-e.cam.cy)
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
		t := math.Max(0, math.Min(1, (o[2]+s*d[2]-e.zb)/(e.zt-e.zb)))
		e.put(x, y, s, [3]float64{bottom[0] + (top[0]-bottom[0])*t, bottom[1] + (top[1]-bottom[1])*t, bottom[2] + (top[2]-bottom[2])*t})
	})
}
