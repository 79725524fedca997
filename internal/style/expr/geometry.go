package expr

import (
	"fmt"
	"math"
	"sync"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geo"
)

// The "within" and "distance" expressions compare a feature's geometry
// (tile coordinates of EvalContext.Canonical) with GeoJSON given in the
// expression (longitude/latitude). The geometry itself lives in package
// geo; this file reads the GeoJSON and moves the feature between the two
// coordinate systems.

// geoJSONShapes are the geometries of a GeoJSON value in longitude and
// latitude: point sets and polylines, and polygons (outer ring and holes).
type geoJSONShapes struct {
	parts    []geo.Part
	polygons [][]orb.Ring
}

func (s geoJSONShapes) empty() bool { return len(s.parts) == 0 && len(s.polygons) == 0 }

// readGeoJSONShapes reads a geometry, a Feature or a FeatureCollection.
// Geometries it cannot read are left out.
func readGeoJSONShapes(v any) geoJSONShapes {
	var out geoJSONShapes
	o, ok := v.(*jobj)
	if !ok {
		return out
	}
	switch t, _ := o.get("type"); t {
	case "FeatureCollection":
		features, _ := o.get("features")
		list, _ := features.([]any)
		for _, f := range list {
			if fo, ok := f.(*jobj); ok {
				g, _ := fo.get("geometry")
				out.addGeometry(g)
			}
		}
	case "Feature":
		g, _ := o.get("geometry")
		out.addGeometry(g)
	default:
		out.addGeometry(o)
	}
	return out
}

// addGeometry adds one GeoJSON geometry object.
func (s *geoJSONShapes) addGeometry(v any) {
	o, ok := v.(*jobj)
	if !ok {
		return
	}
	t, _ := o.get("type")
	coords, _ := o.get("coordinates")
	switch t {
	case "Point":
		if p, ok := position(coords); ok {
			s.parts = append(s.parts, geo.Part{Points: []orb.Point{p}})
		}
	case "MultiPoint", "LineString":
		if ps, ok := positions(coords); ok {
			s.parts = append(s.parts, geo.Part{Points: ps, Line: t == "LineString"})
		}
	case "MultiLineString":
		if lines, ok := nested(coords, positions); ok {
			for _, l := range lines {
				s.parts = append(s.parts, geo.Part{Points: l, Line: true})
			}
		}
	case "Polygon":
		if rings, ok := ringsOf(coords); ok {
			s.polygons = append(s.polygons, rings)
		}
	case "MultiPolygon":
		if polys, ok := nested(coords, ringsOf); ok {
			s.polygons = append(s.polygons, polys...)
		}
	}
}

// position reads [lon, lat, ...].
func position(v any) (orb.Point, bool) {
	a, ok := v.([]any)
	if !ok || len(a) < 2 {
		return orb.Point{}, false
	}
	x, okx := a[0].(float64)
	y, oky := a[1].(float64)
	return orb.Point{x, y}, okx && oky
}

// positions reads an array of positions.
func positions(v any) ([]orb.Point, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]orb.Point, len(a))
	for i, x := range a {
		if out[i], ok = position(x); !ok {
			return nil, false
		}
	}
	return out, true
}

// ringsOf reads a polygon's rings.
func ringsOf(v any) ([]orb.Ring, bool) {
	ls, ok := nested(v, positions)
	if !ok {
		return nil, false
	}
	rings := make([]orb.Ring, len(ls))
	for i, l := range ls {
		rings[i] = orb.Ring(l)
	}
	return rings, true
}

// nested reads an array whose elements each read with one.
func nested[T any](v any, one func(any) (T, bool)) ([]T, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]T, len(a))
	for i, x := range a {
		if out[i], ok = one(x); !ok {
			return nil, false
		}
	}
	return out, true
}

// withinNode: ["within", geojson]: whether the feature (points or lines)
// lies strictly inside the GeoJSON's polygons.
type withinNode struct {
	nodeBase
	polygons [][]orb.Ring // longitude/latitude
	byZoom   sync.Map     // zoom -> *worldPolygons
}

// worldPolygons are the polygons in the world pixel grid of one zoom
// (8192 units per tile, rounded as tile geometry is) with their box.
type worldPolygons struct {
	polygons [][]orb.Ring
	box      orb.Bound
}

// tileUnits is the tile resolution world coordinates are counted in.
const tileUnits = 8192

// atZoom returns the polygons projected for zoom z, cached.
func (n *withinNode) atZoom(z int) *worldPolygons {
	if w, ok := n.byZoom.Load(z); ok {
		return w.(*worldPolygons)
	}
	scale := math.Exp2(float64(z)) * tileUnits
	w := &worldPolygons{polygons: make([][]orb.Ring, len(n.polygons))}
	first := true
	for i, poly := range n.polygons {
		w.polygons[i] = make([]orb.Ring, len(poly))
		for j, ring := range poly {
			r := make(orb.Ring, len(ring))
			for k, q := range ring {
				x, y := geo.LonLatToWorld(q[0], q[1])
				r[k] = orb.Point{jsRound(x * scale), jsRound(y * scale)}
				if first {
					w.box, first = orb.Bound{Min: r[k], Max: r[k]}, false
				}
				w.box = w.box.Extend(r[k])
			}
			w.polygons[i][j] = r
		}
	}
	if z >= 0 && z <= 32 {
		n.byZoom.Store(z, w)
	}
	return w
}

func (n *withinNode) each(func(node)) {}

func parseWithin(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("'within' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	shapes := readGeoJSONShapes(args[1])
	if t := geoJSONType(args[1]); len(shapes.polygons) == 0 || t != "FeatureCollection" && t != "Feature" && t != "Polygon" && t != "MultiPolygon" {
		return c.fail("'within' expression requires valid geojson object that contains polygon geometry type.")
	}
	return &withinNode{nodeBase: nodeBase{t: BooleanType}, polygons: shapes.polygons}
}

// geoJSONType is the "type" member of a GeoJSON object ("" otherwise).
func geoJSONType(v any) string {
	o, ok := v.(*jobj)
	if !ok {
		return ""
	}
	t, _ := o.get("type")
	s, _ := t.(string)
	return s
}

// strictlyInside reports whether box a lies inside box b without touching
// its edges.
func strictlyInside(a, b orb.Bound) bool {
	return a.Min[0] > b.Min[0] && a.Max[0] < b.Max[0] && a.Min[1] > b.Min[1] && a.Max[1] < b.Max[1]
}

func (n *withinNode) eval(c *EvalContext) (Value, error) {
	if c.Feature == nil || c.Canonical == nil {
		return Bool(false), nil
	}
	typ := c.geometryType()
	parts := c.Feature.Geometry()
	if len(parts) == 0 || typ != "Point" && typ != "LineString" {
		return Bool(false), nil
	}
	tile := *c.Canonical
	world := n.atZoom(tile.Z)
	worldWidth := math.Exp2(float64(tile.Z)) * tileUnits
	k := tileUnits / c.extent()
	toWorld := func(p Point) orb.Point {
		return orb.Point{p.X*k + float64(tile.X)*tileUnits, p.Y*k + float64(tile.Y)*tileUnits}
	}
	// nearCopy moves a point beside the polygons to the copy of the world
	// nearer them: when the far edge of their box is more than half a
	// world away, the next copy towards it is the one meant.
	nearCopy := func(p orb.Point) orb.Point {
		switch {
		case p[0] > world.box.Max[0] && p[0]-world.box.Min[0] > worldWidth/2:
			p[0] -= worldWidth
		case p[0] < world.box.Min[0] && world.box.Max[0]-p[0] > worldWidth/2:
			p[0] += worldWidth
		}
		return p
	}
	lines := make([][]orb.Point, len(parts))
	var box orb.Bound
	for i, part := range parts {
		for j, q := range part {
			p := toWorld(q)
			if i == 0 && j == 0 {
				box = orb.Bound{Min: p, Max: p}
			}
			box = box.Extend(p)
			lines[i] = append(lines[i], p)
		}
	}
	// Points are each moved to their nearer copy; lines only when they
	// are short (a long line is taken where it is).
	if typ == "Point" || box.Max[0]-box.Min[0] <= worldWidth/2 {
		first := true
		for _, l := range lines {
			for j := range l {
				l[j] = nearCopy(l[j])
				if first {
					box, first = orb.Bound{Min: l[j], Max: l[j]}, false
				}
				box = box.Extend(l[j])
			}
		}
	}
	if !strictlyInside(box, world.box) {
		return Bool(false), nil
	}
	inSome := func(ok func(poly []orb.Ring) bool) bool {
		for _, poly := range world.polygons {
			if ok(poly) {
				return true
			}
		}
		return false
	}
	for _, l := range lines {
		if typ == "Point" {
			for _, p := range l {
				if !inSome(func(poly []orb.Ring) bool { return geo.Locate(p, poly) == geo.Inside }) {
					return Bool(false), nil
				}
			}
			continue
		}
		if !inSome(func(poly []orb.Ring) bool { return lineInside(l, poly) }) {
			return Bool(false), nil
		}
	}
	return Bool(true), nil
}

// lineInside reports whether every vertex of a polyline lies strictly
// inside the polygon and no segment crosses its boundary.
func lineInside(line []orb.Point, poly []orb.Ring) bool {
	for _, p := range line {
		if geo.Locate(p, poly) != geo.Inside {
			return false
		}
	}
	for i := 0; i+1 < len(line); i++ {
		if geo.RingsCrossedBy(line[i], line[i+1], poly) {
			return false
		}
	}
	return true
}

// distanceNode: ["distance", geojson]: the shortest distance in metres
// from the feature to the GeoJSON's geometries.
type distanceNode struct {
	nodeBase
	target geoJSONShapes
}

func (n *distanceNode) each(func(node)) {}

func parseDistance(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("'distance' expression requires exactly one argument, but found %d instead.", len(args)-1))
	}
	shapes := readGeoJSONShapes(args[1])
	if shapes.empty() {
		return c.fail("'distance' expression requires valid geojson object that contains polygon geometry type.")
	}
	return &distanceNode{nodeBase: nodeBase{t: NumberType}, target: shapes}
}

// polygonsOfRings groups a tile polygon's rings into polygons: a ring
// wound like the first ring starts a polygon, a ring wound the other way
// is a hole of the polygon before it; rings of no area are left out.
func polygonsOfRings(rings []orb.Ring) [][]orb.Ring {
	var out [][]orb.Ring
	outerSign := 0.0
	for _, r := range rings {
		a := geo.SignedArea(r)
		if a == 0 {
			continue
		}
		if outerSign == 0 {
			outerSign = math.Copysign(1, a)
		}
		if math.Copysign(1, a) == outerSign {
			out = append(out, []orb.Ring{r})
		} else if len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], r)
		}
	}
	return out
}

func (n *distanceNode) eval(c *EvalContext) (Value, error) {
	nan := Number(math.NaN())
	if c.Feature == nil || c.Canonical == nil {
		return nan, nil
	}
	parts := c.Feature.Geometry()
	if len(parts) == 0 {
		return nan, nil
	}
	tile := *c.Canonical
	tiles := math.Exp2(float64(tile.Z))
	ext := c.extent()
	toLonLat := func(p Point) orb.Point {
		lon, lat := geo.WorldToLonLat((p.X/ext+float64(tile.X))/tiles, (p.Y/ext+float64(tile.Y))/tiles)
		return orb.Point{lon, lat}
	}
	var feature geoJSONShapes
	switch c.geometryType() {
	case "Point":
		var pts []orb.Point
		for _, part := range parts {
			for _, p := range part {
				pts = append(pts, toLonLat(p))
			}
		}
		feature.parts = []geo.Part{{Points: pts}}
	case "LineString":
		for _, part := range parts {
			l := make([]orb.Point, len(part))
			for i, p := range part {
				l[i] = toLonLat(p)
			}
			feature.parts = append(feature.parts, geo.Part{Points: l, Line: true})
		}
	case "Polygon":
		rings := make([]orb.Ring, len(parts))
		for i, part := range parts {
			rings[i] = make(orb.Ring, len(part))
			for j, p := range part {
				rings[i][j] = toLonLat(p)
			}
		}
		feature.polygons = polygonsOfRings(rings)
	default:
		return nan, nil
	}
	// Distances are measured in the scale of the feature's first vertex.
	var origin orb.Point
	switch {
	case len(feature.parts) > 0 && len(feature.parts[0].Points) > 0:
		origin = feature.parts[0].Points[0]
	case len(feature.polygons) > 0 && len(feature.polygons[0]) > 0 && len(feature.polygons[0][0]) > 0:
		origin = feature.polygons[0][0][0]
	default:
		return nan, nil
	}
	return Number(shapesDistance(geo.NewLocalScale(origin[1]), feature, n.target)), nil
}

// shapesDistance is the least distance between any shape of a and any of b.
func shapesDistance(s geo.LocalScale, a, b geoJSONShapes) float64 {
	d := math.Inf(1)
	keep := func(v float64) bool {
		d = math.Min(d, v)
		return d == 0
	}
	for _, pa := range a.parts {
		for _, pb := range b.parts {
			if keep(s.PartDistance(pa, pb)) {
				return 0
			}
		}
		for _, poly := range b.polygons {
			if keep(s.PolygonDistance(pa, poly)) {
				return 0
			}
		}
	}
	for _, poly := range a.polygons {
		for _, pb := range b.parts {
			if keep(s.PolygonDistance(pb, poly)) {
				return 0
			}
		}
		for _, other := range b.polygons {
			if keep(s.PolygonsDistance(poly, other)) {
				return 0
			}
		}
	}
	return d
}
