package expr

import (
	"fmt"
	"math"
	"sync"
)

// Geometry helpers for within and distance. Polygons given in the expression
// are GeoJSON (longitude/latitude); feature geometry is in tile coordinates
// of EvalContext.Canonical.

type lngLat = [2]float64

type geoGeometry struct {
	typ    string       // Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon
	points []lngLat     // Point, MultiPoint, LineString
	lines  [][]lngLat   // MultiLineString, Polygon rings
	polys  [][][]lngLat // MultiPolygon
}

func jsonCoord(v any) (lngLat, bool) {
	a, ok := v.([]any)
	if !ok || len(a) < 2 {
		return lngLat{}, false
	}
	x, ok1 := a[0].(float64)
	y, ok2 := a[1].(float64)
	return lngLat{x, y}, ok1 && ok2
}

func jsonCoords(v any) ([]lngLat, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]lngLat, 0, len(a))
	for _, x := range a {
		c, ok := jsonCoord(x)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

func jsonCoords2(v any) ([][]lngLat, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([][]lngLat, 0, len(a))
	for _, x := range a {
		c, ok := jsonCoords(x)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

func jsonCoords3(v any) ([][][]lngLat, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([][][]lngLat, 0, len(a))
	for _, x := range a {
		c, ok := jsonCoords2(x)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// parseGeoGeometry reads a GeoJSON geometry object.
func parseGeoGeometry(v any) (geoGeometry, bool) {
	o, ok := v.(*jobj)
	if !ok {
		return geoGeometry{}, false
	}
	t, _ := o.get("type")
	typ, _ := t.(string)
	coords, has := o.get("coordinates")
	if !has {
		return geoGeometry{}, false
	}
	g := geoGeometry{typ: typ}
	switch typ {
	case "Point":
		p, ok := jsonCoord(coords)
		g.points = []lngLat{p}
		return g, ok
	case "MultiPoint", "LineString":
		g.points, ok = jsonCoords(coords)
		return g, ok
	case "MultiLineString", "Polygon":
		g.lines, ok = jsonCoords2(coords)
		return g, ok
	case "MultiPolygon":
		g.polys, ok = jsonCoords3(coords)
		return g, ok
	}
	return geoGeometry{}, false
}

func mercatorX(lng float64) float64 { return (180 + lng) / 360 }
func mercatorY(lat float64) float64 {
	return (180 - (180 / math.Pi * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)))) / 360
}
func lngFromMercatorX(x float64) float64 { return x*360 - 180 }
func latFromMercatorY(y float64) float64 {
	return 360/math.Pi*math.Atan(math.Exp((180-y*360)*math.Pi/180)) - 90
}

// withinNode: ["within", geojson].
type withinNode struct {
	nodeBase
	polys [][][]lngLat // always a multipolygon
	cache sync.Map     // zoom -> *projectedPolys
}

// projectedPolys are the polygons in world tile coordinates at one zoom.
type projectedPolys struct {
	polys [][][][2]float64
	box   bbox
}

// projected returns the polygons projected to world coordinates of zoom z
// (extent 8192 per tile), rounded like tile geometry; cached per zoom.
func (n *withinNode) projected(z int) *projectedPolys {
	if p, ok := n.cache.Load(z); ok {
		return p.(*projectedPolys)
	}
	scale := math.Exp2(float64(z)) * 8192
	p := &projectedPolys{box: newBBox(), polys: make([][][][2]float64, len(n.polys))}
	for i, poly := range n.polys {
		p.polys[i] = make([][][2]float64, len(poly))
		for j, ring := range poly {
			r := make([][2]float64, len(ring))
			for k, q := range ring {
				r[k] = [2]float64{jsRound(mercatorX(q[0]) * scale), jsRound(mercatorY(q[1]) * scale)}
				p.box.add(r[k])
			}
			p.polys[i][j] = r
		}
	}
	if z >= 0 && z <= 32 {
		n.cache.Store(z, p)
	}
	return p
}

func (n *withinNode) each(func(node)) {}

func parseWithin(args []any, c *pctx) node {
	if len(args) != 2 {
		return c.error(fmt.Sprintf("'within' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	const msg = "'within' expression requires valid geojson object that contains polygon geometry type."
	o, ok := args[1].(*jobj)
	if !ok {
		return c.error(msg)
	}
	var polys [][][]lngLat
	add := func(g geoGeometry) {
		switch g.typ {
		case "Polygon":
			polys = append(polys, g.lines)
		case "MultiPolygon":
			polys = append(polys, g.polys...)
		}
	}
	t, _ := o.get("type")
	switch t {
	case "FeatureCollection":
		fs, _ := o.get("features")
		arr, _ := fs.([]any)
		for _, f := range arr {
			fo, ok := f.(*jobj)
			if !ok {
				continue
			}
			geom, _ := fo.get("geometry")
			if g, ok := parseGeoGeometry(geom); ok {
				add(g)
			}
		}
	case "Feature":
		geom, _ := o.get("geometry")
		if g, ok := parseGeoGeometry(geom); ok {
			add(g)
		}
	case "Polygon", "MultiPolygon":
		if g, ok := parseGeoGeometry(o); ok {
			add(g)
		}
	}
	if len(polys) == 0 {
		return c.error(msg)
	}
	return &withinNode{nodeBase: nodeBase{t: BooleanType}, polys: polys}
}

type bbox [4]float64

func newBBox() bbox { return bbox{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} }

func (b *bbox) add(p [2]float64) {
	b[0] = math.Min(b[0], p[0])
	b[1] = math.Min(b[1], p[1])
	b[2] = math.Max(b[2], p[0])
	b[3] = math.Max(b[3], p[1])
}

func boxWithinBox(a, b bbox) bool {
	return !(a[0] <= b[0] || a[2] >= b[2] || a[1] <= b[1] || a[3] >= b[3])
}

func onBoundary(p, p1, p2 [2]float64) bool {
	x1, y1 := p[0]-p1[0], p[1]-p1[1]
	x2, y2 := p[0]-p2[0], p[1]-p2[1]
	return x1*y2-x2*y1 == 0 && x1*x2 <= 0 && y1*y2 <= 0
}

func rayIntersect(p, p1, p2 [2]float64) bool {
	return (p1[1] > p[1]) != (p2[1] > p[1]) && p[0] < (p2[0]-p1[0])*(p[1]-p1[1])/(p2[1]-p1[1])+p1[0]
}

func pointWithinPolygon(p [2]float64, rings [][][2]float64, trueOnBoundary bool) bool {
	inside := false
	for _, ring := range rings {
		for j := 0; j+1 < len(ring); j++ {
			if onBoundary(p, ring[j], ring[j+1]) {
				return trueOnBoundary
			}
			if rayIntersect(p, ring[j], ring[j+1]) {
				inside = !inside
			}
		}
	}
	return inside
}

func perp(a, b [2]float64) float64 { return a[0]*b[1] - a[1]*b[0] }

func twoSided(p1, p2, q1, q2 [2]float64) bool {
	x1, y1 := p1[0]-q1[0], p1[1]-q1[1]
	x2, y2 := p2[0]-q1[0], p2[1]-q1[1]
	x3, y3 := q2[0]-q1[0], q2[1]-q1[1]
	d1 := x1*y3 - x3*y1
	d2 := x2*y3 - x3*y2
	return (d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)
}

func lineIntersectLine(a, b, c, d [2]float64) bool {
	vp := [2]float64{b[0] - a[0], b[1] - a[1]}
	vq := [2]float64{d[0] - c[0], d[1] - c[1]}
	if perp(vq, vp) == 0 {
		return false
	}
	return twoSided(a, b, c, d) && twoSided(c, d, a, b)
}

func lineIntersectPolygon(p1, p2 [2]float64, poly [][][2]float64) bool {
	for _, ring := range poly {
		for j := 0; j+1 < len(ring); j++ {
			if lineIntersectLine(p1, p2, ring[j], ring[j+1]) {
				return true
			}
		}
	}
	return false
}

func lineWithinPolygon(line [][2]float64, poly [][][2]float64) bool {
	for _, p := range line {
		if !pointWithinPolygon(p, poly, false) {
			return false
		}
	}
	for i := 0; i+1 < len(line); i++ {
		if lineIntersectPolygon(line[i], line[i+1], poly) {
			return false
		}
	}
	return true
}

func (n *withinNode) eval(c *EvalContext) (Value, error) {
	if c.Feature == nil || c.Canonical == nil {
		return Bool(false), nil
	}
	geom := c.Feature.Geometry()
	if geom == nil {
		return Bool(false), nil
	}
	typ := c.geometryType()
	if typ != "Point" && typ != "LineString" {
		return Bool(false), nil
	}
	can := *c.Canonical
	ext := c.extent()
	worldSize := math.Exp2(float64(can.Z)) * 8192
	proj := n.projected(can.Z)
	polys, polyBox := proj.polys, proj.box
	k := 8192 / ext
	shiftX, shiftY := float64(can.X)*8192, float64(can.Y)*8192
	updatePoint := func(p *[2]float64, box *bbox) {
		if p[0] < polyBox[0] || p[0] > polyBox[2] {
			half := worldSize * 0.5
			shift := 0.0
			switch {
			case p[0]-polyBox[0] > half:
				shift = -worldSize
			case polyBox[0]-p[0] > half:
				shift = worldSize
			}
			if shift == 0 {
				switch {
				case p[0]-polyBox[2] > half:
					shift = -worldSize
				case polyBox[2]-p[0] > half:
					shift = worldSize
				}
			}
			p[0] += shift
		}
		box.add(*p)
	}
	withinAny := func(f func(poly [][][2]float64) bool) bool {
		for _, poly := range polys {
			if f(poly) {
				return true
			}
		}
		return false
	}
	if typ == "Point" {
		box := newBBox()
		var pts [][2]float64
		for _, part := range geom {
			for _, q := range part {
				p := [2]float64{q.X*k + shiftX, q.Y*k + shiftY}
				updatePoint(&p, &box)
				pts = append(pts, p)
			}
		}
		if !boxWithinBox(box, polyBox) {
			return Bool(false), nil
		}
		for _, p := range pts {
			if !withinAny(func(poly [][][2]float64) bool { return pointWithinPolygon(p, poly, false) }) {
				return Bool(false), nil
			}
		}
		return Bool(true), nil
	}
	box := newBBox()
	lines := make([][][2]float64, len(geom))
	for i, part := range geom {
		for _, q := range part {
			p := [2]float64{q.X*k + shiftX, q.Y*k + shiftY}
			box.add(p)
			lines[i] = append(lines[i], p)
		}
	}
	if box[2]-box[0] <= worldSize/2 {
		box = newBBox()
		for _, l := range lines {
			for j := range l {
				updatePoint(&l[j], &box)
			}
		}
	}
	if !boxWithinBox(box, polyBox) {
		return Bool(false), nil
	}
	for _, l := range lines {
		if !withinAny(func(poly [][][2]float64) bool { return lineWithinPolygon(l, poly) }) {
			return Bool(false), nil
		}
	}
	return Bool(true), nil
}

// distanceNode: ["distance", geojson] — the shortest distance in meters.
type distanceNode struct {
	nodeBase
	geoms []geoGeometry
}

func (n *distanceNode) each(func(node)) {}

func parseDistance(args []any, c *pctx) node {
	if len(args) != 2 {
		return c.error(fmt.Sprintf("'distance' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	const msg = "'distance' expression requires valid geojson object that contains polygon geometry type."
	o, ok := args[1].(*jobj)
	if !ok {
		return c.error(msg)
	}
	var geoms []geoGeometry
	t, _ := o.get("type")
	switch t {
	case "FeatureCollection":
		fs, _ := o.get("features")
		arr, _ := fs.([]any)
		for _, f := range arr {
			if fo, ok := f.(*jobj); ok {
				geom, _ := fo.get("geometry")
				if g, ok := parseGeoGeometry(geom); ok {
					geoms = append(geoms, g)
				}
			}
		}
	case "Feature":
		geom, _ := o.get("geometry")
		if g, ok := parseGeoGeometry(geom); ok {
			geoms = append(geoms, g)
		}
	default:
		if g, ok := parseGeoGeometry(o); ok {
			geoms = append(geoms, g)
		}
	}
	if len(geoms) == 0 {
		return c.error(msg)
	}
	return &distanceNode{nodeBase: nodeBase{t: NumberType}, geoms: geoms}
}

// cheapRuler approximates distances in meters near a latitude.
type cheapRuler struct{ kx, ky float64 }

func newCheapRuler(lat float64) cheapRuler {
	const re = 6378.137
	const fe = 1 / 298.257223563
	const e2 = fe * (2 - fe)
	m := math.Pi / 180 * re * 1000
	coslat := math.Cos(lat * math.Pi / 180)
	w2 := 1 / (1 - e2*(1-coslat*coslat))
	w := math.Sqrt(w2)
	return cheapRuler{kx: m * w * coslat, ky: m * w * w2 * (1 - e2)}
}

func wrapDeg(d float64) float64 {
	for d < -180 {
		d += 360
	}
	for d > 180 {
		d -= 360
	}
	return d
}

func (r cheapRuler) distance(a, b lngLat) float64 {
	dx := wrapDeg(a[0]-b[0]) * r.kx
	dy := (a[1] - b[1]) * r.ky
	return math.Sqrt(dx*dx + dy*dy)
}

func (r cheapRuler) pointOnLine(line []lngLat, p lngLat) lngLat {
	minDist := math.Inf(1)
	var best lngLat
	for i := 0; i+1 < len(line); i++ {
		x, y := line[i][0], line[i][1]
		dx := wrapDeg(line[i+1][0]-x) * r.kx
		dy := (line[i+1][1] - y) * r.ky
		if dx != 0 || dy != 0 {
			t := (wrapDeg(p[0]-x)*r.kx*dx + (p[1]-y)*r.ky*dy) / (dx*dx + dy*dy)
			if t > 1 {
				x, y = line[i+1][0], line[i+1][1]
			} else if t > 0 {
				x += dx / r.kx * t
				y += dy / r.ky * t
			}
		}
		dx = wrapDeg(p[0]-x) * r.kx
		dy = (p[1] - y) * r.ky
		if d := dx*dx + dy*dy; d < minDist {
			minDist = d
			best = lngLat{x, y}
		}
	}
	return best
}

func (r cheapRuler) pointToLine(p lngLat, line []lngLat) float64 {
	if len(line) == 1 {
		return r.distance(p, line[0])
	}
	return r.distance(p, r.pointOnLine(line, p))
}

func segmentsIntersect(p1, p2, q1, q2 lngLat) bool {
	return twoSided(p1, p2, q1, q2) && twoSided(q1, q2, p1, p2)
}

func (r cheapRuler) segmentToSegment(p1, p2, q1, q2 lngLat) float64 {
	if segmentsIntersect(p1, p2, q1, q2) {
		return 0
	}
	return math.Min(math.Min(r.pointToLine(p1, []lngLat{q1, q2}), r.pointToLine(p2, []lngLat{q1, q2})),
		math.Min(r.pointToLine(q1, []lngLat{p1, p2}), r.pointToLine(q2, []lngLat{p1, p2})))
}

func (r cheapRuler) pointsToPoints(a, b []lngLat) float64 {
	d := math.Inf(1)
	for _, p := range a {
		for _, q := range b {
			d = math.Min(d, r.distance(p, q))
			if d == 0 {
				return 0
			}
		}
	}
	return d
}

func (r cheapRuler) pointsToLine(pts, line []lngLat) float64 {
	d := math.Inf(1)
	for _, p := range pts {
		d = math.Min(d, r.pointToLine(p, line))
		if d == 0 {
			return 0
		}
	}
	return d
}

func (r cheapRuler) lineToLine(a, b []lngLat) float64 {
	if len(a) == 1 {
		return r.pointsToLine(a, b)
	}
	if len(b) == 1 {
		return r.pointsToLine(b, a)
	}
	d := math.Inf(1)
	for i := 0; i+1 < len(a); i++ {
		for j := 0; j+1 < len(b); j++ {
			d = math.Min(d, r.segmentToSegment(a[i], a[i+1], b[j], b[j+1]))
			if d == 0 {
				return 0
			}
		}
	}
	return d
}

func closedRing(ring []lngLat) []lngLat {
	if len(ring) > 1 && ring[0] != ring[len(ring)-1] {
		return append(append([]lngLat(nil), ring...), ring[0])
	}
	return ring
}

func (r cheapRuler) pointToPolygon(p lngLat, poly [][]lngLat) float64 {
	if pointWithinPolygon(p, poly, true) {
		return 0
	}
	d := math.Inf(1)
	for _, ring := range poly {
		d = r.setDistance([]lngLat{p}, false, closedRing(ring), true, d)
		if d == 0 {
			return 0
		}
	}
	return d
}

func (r cheapRuler) lineToPolygon(line []lngLat, poly [][]lngLat) float64 {
	for _, p := range line {
		if pointWithinPolygon(p, poly, true) {
			return 0
		}
	}
	d := math.Inf(1)
	for _, ring := range poly {
		d = r.setDistance(line, true, closedRing(ring), true, d)
		if d == 0 {
			return 0
		}
	}
	return d
}

func polyBBox(poly [][]lngLat) bbox {
	b := newBBox()
	for _, ring := range poly {
		for _, p := range ring {
			b.add(p)
		}
	}
	return b
}

func polygonIntersect(a, b [][]lngLat) bool {
	for _, ring := range a {
		for _, p := range ring {
			if pointWithinPolygon(p, b, true) {
				return true
			}
		}
	}
	return false
}

func (r cheapRuler) polygonToPolygon(a, b [][]lngLat) float64 {
	if boxWithinBox(polyBBox(a), polyBBox(b)) {
		if polygonIntersect(a, b) {
			return 0
		}
	} else if polygonIntersect(b, a) {
		return 0
	}
	d := math.Inf(1)
	for _, r1 := range a {
		for _, r2 := range b {
			d = r.setDistance(closedRing(r1), true, closedRing(r2), true, d)
			if d == 0 {
				return 0
			}
		}
	}
	return d
}

// leafSize is the set size below which distances are computed pairwise.
const leafSize = 32

func setBBox(s []lngLat) bbox {
	b := newBBox()
	for _, p := range s {
		b.add(p)
	}
	return b
}

// boxDistance is a lower bound of the distance between two boxes (0 when
// they are close to the antimeridian wrap, where it would not be one).
func (r cheapRuler) boxDistance(a, b bbox) float64 {
	if math.Max(a[2], b[2])-math.Min(a[0], b[0]) > 180 {
		return 0
	}
	dx := math.Max(0, math.Max(a[0]-b[2], b[0]-a[2])) * r.kx
	dy := math.Max(0, math.Max(a[1]-b[3], b[1]-a[3])) * r.ky
	return math.Sqrt(dx*dx + dy*dy)
}

func splitSet(s []lngLat, line bool) ([]lngLat, []lngLat) {
	mid := len(s) / 2
	if line {
		return s[:mid+1], s[mid:]
	}
	return s[:mid], s[mid:]
}

// setDistance returns min(best, the shortest distance between a and b),
// where each set is either points or a polyline. Large sets are split in
// halves that are skipped when their bounding boxes are farther than best.
func (r cheapRuler) setDistance(a []lngLat, aLine bool, b []lngLat, bLine bool, best float64) float64 {
	if len(a) == 0 || len(b) == 0 || best == 0 {
		return best
	}
	if len(a) <= leafSize && len(b) <= leafSize {
		var d float64
		switch {
		case aLine && bLine:
			d = r.lineToLine(a, b)
		case aLine:
			d = r.pointsToLine(b, a)
		case bLine:
			d = r.pointsToLine(a, b)
		default:
			d = r.pointsToPoints(a, b)
		}
		return math.Min(best, d)
	}
	split, other, splitLine, otherLine, swapped := a, b, aLine, bLine, false
	if len(b) > len(a) {
		split, other, splitLine, otherLine, swapped = b, a, bLine, aLine, true
	}
	h1, h2 := splitSet(split, splitLine)
	ob := setBBox(other)
	d1, d2 := r.boxDistance(setBBox(h1), ob), r.boxDistance(setBBox(h2), ob)
	if d2 < d1 {
		h1, h2, d1, d2 = h2, h1, d2, d1
	}
	for _, h := range []struct {
		s []lngLat
		d float64
	}{{h1, d1}, {h2, d2}} {
		if h.d >= best {
			continue
		}
		if swapped {
			best = r.setDistance(other, otherLine, h.s, splitLine, best)
		} else {
			best = r.setDistance(h.s, splitLine, other, otherLine, best)
		}
		if best == 0 {
			return 0
		}
	}
	return best
}

// shape is one feature part in longitude/latitude: points, a line or a polygon.
type shape struct {
	kind   int // 0 points, 1 line, 2 polygon
	points []lngLat
	poly   [][]lngLat
}

func (r cheapRuler) shapeToGeom(s shape, g geoGeometry) float64 {
	var targets []shape
	switch g.typ {
	case "Point", "MultiPoint":
		targets = []shape{{kind: 0, points: g.points}}
	case "LineString":
		targets = []shape{{kind: 1, points: g.points}}
	case "MultiLineString":
		for _, l := range g.lines {
			targets = append(targets, shape{kind: 1, points: l})
		}
	case "Polygon":
		targets = []shape{{kind: 2, poly: g.lines}}
	case "MultiPolygon":
		for _, p := range g.polys {
			targets = append(targets, shape{kind: 2, poly: p})
		}
	}
	d := math.Inf(1)
	for _, t := range targets {
		d = math.Min(d, r.shapeToShape(s, t))
		if d == 0 {
			return 0
		}
	}
	return d
}

func (r cheapRuler) shapeToShape(a, b shape) float64 {
	if a.kind > b.kind {
		a, b = b, a
	}
	switch {
	case a.kind < 2 && b.kind < 2:
		return r.setDistance(a.points, a.kind == 1, b.points, b.kind == 1, math.Inf(1))
	case a.kind == 0 && b.kind == 2:
		d := math.Inf(1)
		for _, p := range a.points {
			d = math.Min(d, r.pointToPolygon(p, b.poly))
			if d == 0 {
				return 0
			}
		}
		return d
	case a.kind == 1 && b.kind == 2:
		return r.lineToPolygon(a.points, b.poly)
	}
	return r.polygonToPolygon(a.poly, b.poly)
}

func signedArea(ring []Point) float64 {
	sum := 0.0
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		sum += (ring[j].X - ring[i].X) * (ring[i].Y + ring[j].Y)
	}
	return sum
}

// classifyRings groups polygon rings into polygons by winding order.
func classifyRings(rings [][]Point) [][][]Point {
	if len(rings) <= 1 {
		return [][][]Point{rings}
	}
	var polys [][][]Point
	var cur [][]Point
	ccwSet, ccw := false, false
	for _, ring := range rings {
		a := signedArea(ring)
		if a == 0 {
			continue
		}
		if !ccwSet {
			ccw, ccwSet = a < 0, true
		}
		if ccw == (a < 0) {
			if cur != nil {
				polys = append(polys, cur)
			}
			cur = [][]Point{ring}
		} else if cur != nil {
			cur = append(cur, ring)
		}
	}
	if cur != nil {
		polys = append(polys, cur)
	}
	return polys
}

func (n *distanceNode) eval(c *EvalContext) (Value, error) {
	if c.Feature == nil || c.Canonical == nil {
		return Number(math.NaN()), nil
	}
	geom := c.Feature.Geometry()
	typ := c.geometryType()
	if len(geom) == 0 {
		return Number(math.NaN()), nil
	}
	can := *c.Canonical
	ext := c.extent()
	tiles := math.Exp2(float64(can.Z))
	toLL := func(p Point) lngLat {
		x := (p.X/ext + float64(can.X)) / tiles
		y := (p.Y/ext + float64(can.Y)) / tiles
		return lngLat{lngFromMercatorX(x), latFromMercatorY(y)}
	}
	var shapes []shape
	switch typ {
	case "Point":
		var pts []lngLat
		for _, part := range geom {
			for _, p := range part {
				pts = append(pts, toLL(p))
			}
		}
		shapes = []shape{{kind: 0, points: pts}}
	case "LineString":
		for _, part := range geom {
			l := make([]lngLat, len(part))
			for i, p := range part {
				l[i] = toLL(p)
			}
			shapes = append(shapes, shape{kind: 1, points: l})
		}
	case "Polygon":
		for _, poly := range classifyRings(geom) {
			pp := make([][]lngLat, len(poly))
			for i, ring := range poly {
				pp[i] = make([]lngLat, len(ring))
				for j, p := range ring {
					pp[i][j] = toLL(p)
				}
			}
			shapes = append(shapes, shape{kind: 2, poly: pp})
		}
	default:
		return Number(math.NaN()), nil
	}
	if len(shapes) == 0 {
		return Number(math.NaN()), nil
	}
	var lat float64
	switch s := shapes[0]; s.kind {
	case 2:
		if len(s.poly) == 0 || len(s.poly[0]) == 0 {
			return Number(math.NaN()), nil
		}
		lat = s.poly[0][0][1]
	default:
		if len(s.points) == 0 {
			return Number(math.NaN()), nil
		}
		lat = s.points[0][1]
	}
	r := newCheapRuler(lat)
	d := math.Inf(1)
	for _, g := range n.geoms {
		for _, s := range shapes {
			d = math.Min(d, r.shapeToGeom(s, g))
			if d == 0 {
				return Number(0), nil
			}
		}
	}
	return Number(d), nil
}
