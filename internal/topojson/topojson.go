// Package topojson decodes TopoJSON topologies (the format of
// https://github.com/topojson/topojson-specification) into orb geometries.
//
// A Topology holds shared arcs (optionally quantized and delta-encoded with a
// transform) and named objects whose geometries reference the arcs by index;
// a negative index ~i (that is -i-1) means arc i reversed. Decode validates the
// document and decodes every arc to absolute longitude/latitude positions;
// Features turns one object into features with their ids and properties; Mesh
// and MeshLines extract the arcs of an object with the features on each side,
// which is how internal boundaries (arcs shared by two features) are told from
// outer edges such as coastlines (arcs used by one feature only).
//
// Bad input never panics: indexes are checked, nesting is bounded and the
// number of positions a decode may produce is capped (Topology.MaxPoints), so
// a small document that references a long arc many times cannot make it
// allocate without bound.
package topojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sort"

	"github.com/paulmach/orb"
)

// Limits applied by Decode and Features.
const (
	// MaxDepth is the deepest nesting of GeometryCollections accepted.
	MaxDepth = 32
	// DefaultMaxPoints is the default cap on the number of positions one
	// Features or Mesh call may produce (see Topology.MaxPoints).
	DefaultMaxPoints = 50_000_000
)

// ErrInvalid is wrapped by every error about a malformed topology.
var ErrInvalid = errors.New("invalid topojson")

// Transform is the quantization transform of a topology: a quantized position
// (x, y) stands for (x*Scale[0]+Translate[0], y*Scale[1]+Translate[1]), and arc
// positions are delta-encoded.
type Transform struct {
	Scale     [2]float64
	Translate [2]float64
}

// Feature is one geometry of an object with its identifier and properties.
type Feature struct {
	// ID is the geometry's "id" member: strings as they are, numbers in their
	// JSON text; "" when absent.
	ID string
	// Properties are the geometry's "properties" member as decoded by
	// encoding/json (numbers are float64); never nil. Each call of Features
	// returns fresh maps, which the caller may modify.
	Properties map[string]any
	// Geometry is an orb.Point, MultiPoint, LineString, MultiLineString,
	// Polygon, MultiPolygon or Collection in longitude/latitude.
	Geometry orb.Geometry
}

// Topology is a decoded TopoJSON Topology.
type Topology struct {
	// BBox is the topology's "bbox" member when present (zero otherwise).
	BBox orb.Bound
	// HasBBox reports whether the document had a valid 2D bbox.
	HasBBox bool
	// Transform is the quantization transform, nil for unquantized topologies.
	Transform *Transform
	// MaxPoints caps the positions one Features/Mesh/MeshLines call may
	// produce; Decode sets it to DefaultMaxPoints. Zero or less means the
	// default.
	MaxPoints int

	arcs    [][]orb.Point
	objects map[string]*geometry
}

// geometry is one TopoJSON geometry object as found in the document.
type geometry struct {
	Type        string          `json:"type"`
	ID          json.RawMessage `json:"id"`
	Properties  map[string]any  `json:"properties"`
	Arcs        json.RawMessage `json:"arcs"`
	Coordinates json.RawMessage `json:"coordinates"`
	Geometries  []*geometry     `json:"geometries"`
}

type document struct {
	Type      string               `json:"type"`
	BBox      []float64            `json:"bbox"`
	Transform *rawTransform        `json:"transform"`
	Objects   map[string]*geometry `json:"objects"`
	Arcs      [][][]float64        `json:"arcs"`
}

type rawTransform struct {
	Scale     []float64 `json:"scale"`
	Translate []float64 `json:"translate"`
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Decode parses and validates a TopoJSON Topology document.
func Decode(data []byte) (*Topology, error) {
	var doc document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: decode json: %v", ErrInvalid, err)
	}
	if doc.Type != "Topology" {
		return nil, invalid("type is %q, want \"Topology\"", doc.Type)
	}
	t := &Topology{MaxPoints: DefaultMaxPoints, objects: make(map[string]*geometry, len(doc.Objects))}
	if len(doc.BBox) >= 4 {
		n := len(doc.BBox) / 2
		b := orb.Bound{Min: orb.Point{doc.BBox[0], doc.BBox[1]}, Max: orb.Point{doc.BBox[n], doc.BBox[n+1]}}
		if finite(b.Min) && finite(b.Max) {
			t.BBox, t.HasBBox = b, true
		}
	}
	if doc.Transform != nil {
		tr := doc.Transform
		if len(tr.Scale) != 2 || len(tr.Translate) != 2 {
			return nil, invalid("transform needs two scale and two translate values")
		}
		t.Transform = &Transform{Scale: [2]float64{tr.Scale[0], tr.Scale[1]}, Translate: [2]float64{tr.Translate[0], tr.Translate[1]}}
		if !finite(orb.Point(t.Transform.Scale)) || !finite(orb.Point(t.Transform.Translate)) {
			return nil, invalid("transform is not finite")
		}
	}
	t.arcs = make([][]orb.Point, len(doc.Arcs))
	for i, arc := range doc.Arcs {
		if len(arc) < 2 {
			return nil, invalid("arc %d has %d positions, want at least 2", i, len(arc))
		}
		pts := make([]orb.Point, len(arc))
		var x, y float64
		for j, pos := range arc {
			if len(pos) < 2 {
				return nil, invalid("arc %d position %d has %d values", i, j, len(pos))
			}
			var p orb.Point
			if t.Transform != nil {
				x += pos[0]
				y += pos[1]
				p = t.Transform.apply(x, y)
			} else {
				p = orb.Point{pos[0], pos[1]}
			}
			if !finite(p) {
				return nil, invalid("arc %d position %d is not finite", i, j)
			}
			pts[j] = p
		}
		t.arcs[i] = pts
	}
	for name, g := range doc.Objects {
		if g == nil {
			return nil, invalid("object %q is null", name)
		}
		if err := t.validate(g, 0); err != nil {
			return nil, fmt.Errorf("object %q: %w", name, err)
		}
		t.objects[name] = g
	}
	return t, nil
}

func (tr *Transform) apply(x, y float64) orb.Point {
	return orb.Point{x*tr.Scale[0] + tr.Translate[0], y*tr.Scale[1] + tr.Translate[1]}
}

func finite(p orb.Point) bool {
	return !math.IsNaN(p[0]) && !math.IsInf(p[0], 0) && !math.IsNaN(p[1]) && !math.IsInf(p[1], 0)
}

// validate checks a geometry's type, arc indexes, coordinates and nesting so
// that later conversions cannot fail on structure.
func (t *Topology) validate(g *geometry, depth int) error {
	if depth > MaxDepth {
		return invalid("geometry collections nested deeper than %d", MaxDepth)
	}
	if len(g.ID) > 0 {
		if _, err := idString(g.ID); err != nil {
			return err
		}
	}
	switch g.Type {
	case "GeometryCollection":
		for i, c := range g.Geometries {
			if c == nil {
				return invalid("geometry %d of collection is null", i)
			}
			if err := t.validate(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	case "", "null":
		// A null geometry: a feature without geometry.
		return nil
	case "Point":
		_, err := t.point(g.Coordinates)
		return err
	case "MultiPoint":
		_, err := t.multiPoint(g.Coordinates)
		return err
	case "LineString":
		var a []int
		return t.arcList(g.Arcs, &a, func() error { return t.checkArcs(a) })
	case "MultiLineString", "Polygon":
		var a [][]int
		return t.arcList(g.Arcs, &a, func() error {
			for _, l := range a {
				if err := t.checkArcs(l); err != nil {
					return err
				}
			}
			return nil
		})
	case "MultiPolygon":
		var a [][][]int
		return t.arcList(g.Arcs, &a, func() error {
			for _, p := range a {
				for _, l := range p {
					if err := t.checkArcs(l); err != nil {
						return err
					}
				}
			}
			return nil
		})
	default:
		return invalid("unknown geometry type %q", g.Type)
	}
}

func (t *Topology) arcList(raw json.RawMessage, dst any, check func() error) error {
	if len(raw) == 0 {
		return invalid("geometry has no arcs")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: arcs: %v", ErrInvalid, err)
	}
	return check()
}

func (t *Topology) checkArcs(idx []int) error {
	if len(idx) == 0 {
		return invalid("empty arc list")
	}
	for _, i := range idx {
		if i < 0 {
			i = ^i
		}
		if i >= len(t.arcs) {
			return invalid("arc index %d out of range (%d arcs)", i, len(t.arcs))
		}
	}
	return nil
}

func (t *Topology) position(pos []float64) (orb.Point, error) {
	if len(pos) < 2 {
		return orb.Point{}, invalid("position has %d values", len(pos))
	}
	p := orb.Point{pos[0], pos[1]}
	if t.Transform != nil {
		p = t.Transform.apply(pos[0], pos[1])
	}
	if !finite(p) {
		return orb.Point{}, invalid("position is not finite")
	}
	return p, nil
}

func (t *Topology) point(raw json.RawMessage) (orb.Point, error) {
	var pos []float64
	if err := json.Unmarshal(raw, &pos); err != nil {
		return orb.Point{}, fmt.Errorf("%w: point coordinates: %v", ErrInvalid, err)
	}
	return t.position(pos)
}

func (t *Topology) multiPoint(raw json.RawMessage) (orb.MultiPoint, error) {
	var pos [][]float64
	if err := json.Unmarshal(raw, &pos); err != nil {
		return nil, fmt.Errorf("%w: multipoint coordinates: %v", ErrInvalid, err)
	}
	mp := make(orb.MultiPoint, 0, len(pos))
	for _, p := range pos {
		pt, err := t.position(p)
		if err != nil {
			return nil, err
		}
		mp = append(mp, pt)
	}
	return mp, nil
}

func idString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%w: id: %v", ErrInvalid, err)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", invalid("id must be a string or a number")
	}
	return n.String(), nil
}

// Objects returns the names of the topology's objects, sorted.
func (t *Topology) Objects() []string {
	names := make([]string, 0, len(t.objects))
	for n := range t.objects {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ArcCount returns the number of arcs of the topology.
func (t *Topology) ArcCount() int { return len(t.arcs) }

// Arc returns a copy of arc i in longitude/latitude; a negative i (~j) returns
// arc j reversed. It returns nil when i is out of range.
func (t *Topology) Arc(i int) orb.LineString {
	j := i
	if j < 0 {
		j = ^j
	}
	if j >= len(t.arcs) {
		return nil
	}
	ls := make(orb.LineString, len(t.arcs[j]))
	copy(ls, t.arcs[j])
	if i < 0 {
		ls.Reverse()
	}
	return ls
}

// budget counts the positions produced by one call against MaxPoints.
type budget struct{ left int }

func (t *Topology) newBudget() *budget {
	n := t.MaxPoints
	if n <= 0 {
		n = DefaultMaxPoints
	}
	return &budget{left: n}
}

func (b *budget) take(n int) error {
	if n > b.left {
		return invalid("topology expands to too many positions")
	}
	b.left -= n
	return nil
}

// line stitches arcs into one sequence of positions; the first position of
// every arc after the first repeats the previous arc's last and is dropped.
func (t *Topology) line(idx []int, b *budget) ([]orb.Point, error) {
	n := 0
	for _, i := range idx {
		if i < 0 {
			i = ^i
		}
		n += len(t.arcs[i])
	}
	if err := b.take(n); err != nil {
		return nil, err
	}
	pts := make([]orb.Point, 0, n)
	for k, i := range idx {
		arc := t.arcs[max(i, ^i)]
		if k > 0 && len(pts) > 0 {
			pts = pts[:len(pts)-1]
		}
		if i >= 0 {
			pts = append(pts, arc...)
		} else {
			for j := len(arc) - 1; j >= 0; j-- {
				pts = append(pts, arc[j])
			}
		}
	}
	return pts, nil
}

// ring is like line but closes the ring and pads degenerate rings to four
// positions, as the reference client does.
func (t *Topology) ring(idx []int, b *budget) (orb.Ring, error) {
	pts, err := t.line(idx, b)
	if err != nil {
		return nil, err
	}
	if len(pts) > 0 && pts[0] != pts[len(pts)-1] {
		pts = append(pts, pts[0])
	}
	for len(pts) > 0 && len(pts) < 4 {
		pts = append(pts, pts[0])
	}
	return orb.Ring(pts), nil
}

func (t *Topology) polygon(rings [][]int, b *budget) (orb.Polygon, error) {
	p := make(orb.Polygon, 0, len(rings))
	for _, r := range rings {
		ring, err := t.ring(r, b)
		if err != nil {
			return nil, err
		}
		p = append(p, ring)
	}
	return p, nil
}

// geometry converts a validated geometry; it returns nil for null geometries.
func (t *Topology) geometry(g *geometry, b *budget) (orb.Geometry, error) {
	switch g.Type {
	case "GeometryCollection":
		c := make(orb.Collection, 0, len(g.Geometries))
		for _, child := range g.Geometries {
			cg, err := t.geometry(child, b)
			if err != nil {
				return nil, err
			}
			if cg != nil {
				c = append(c, cg)
			}
		}
		return c, nil
	case "Point":
		if err := b.take(1); err != nil {
			return nil, err
		}
		return t.point(g.Coordinates)
	case "MultiPoint":
		mp, err := t.multiPoint(g.Coordinates)
		if err != nil {
			return nil, err
		}
		return mp, b.take(len(mp))
	case "LineString":
		var a []int
		if err := unmarshalArcs(g, &a); err != nil {
			return nil, err
		}
		pts, err := t.line(a, b)
		return orb.LineString(pts), err
	case "MultiLineString":
		var a [][]int
		if err := unmarshalArcs(g, &a); err != nil {
			return nil, err
		}
		mls := make(orb.MultiLineString, 0, len(a))
		for _, l := range a {
			pts, err := t.line(l, b)
			if err != nil {
				return nil, err
			}
			mls = append(mls, pts)
		}
		return mls, nil
	case "Polygon":
		var a [][]int
		if err := unmarshalArcs(g, &a); err != nil {
			return nil, err
		}
		return t.polygon(a, b)
	case "MultiPolygon":
		var a [][][]int
		if err := unmarshalArcs(g, &a); err != nil {
			return nil, err
		}
		mp := make(orb.MultiPolygon, 0, len(a))
		for _, p := range a {
			poly, err := t.polygon(p, b)
			if err != nil {
				return nil, err
			}
			mp = append(mp, poly)
		}
		return mp, nil
	}
	return nil, nil
}

// members returns the geometries that make up the object's features: the
// children of a top-level GeometryCollection, or the object itself.
func (t *Topology) members(object string) ([]*geometry, error) {
	g, ok := t.objects[object]
	if !ok {
		return nil, fmt.Errorf("topojson: no object %q", object)
	}
	if g.Type == "GeometryCollection" {
		return g.Geometries, nil
	}
	return []*geometry{g}, nil
}

// Features returns the features of an object: one per member of a top-level
// GeometryCollection (nested collections become orb.Collection geometries),
// or a single feature for any other object. Members with a null geometry are
// skipped.
func (t *Topology) Features(object string) ([]Feature, error) {
	members, err := t.members(object)
	if err != nil {
		return nil, err
	}
	b := t.newBudget()
	out := make([]Feature, 0, len(members))
	for _, g := range members {
		f, ok, err := t.feature(g, b)
		if err != nil {
			return nil, fmt.Errorf("object %q: %w", object, err)
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

func (t *Topology) feature(g *geometry, b *budget) (Feature, bool, error) {
	geom, err := t.geometry(g, b)
	if err != nil || geom == nil {
		return Feature{}, false, err
	}
	id, err := idString(g.ID)
	if err != nil {
		return Feature{}, false, err
	}
	props := maps.Clone(g.Properties)
	if props == nil {
		props = map[string]any{}
	}
	return Feature{ID: id, Properties: props, Geometry: geom}, true, nil
}

func unmarshalArcs(g *geometry, dst any) error {
	if err := json.Unmarshal(g.Arcs, dst); err != nil {
		return fmt.Errorf("%w: arcs: %v", ErrInvalid, err)
	}
	return nil
}
