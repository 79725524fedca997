// Package geojson reads GeoJSON (RFC 7946) into tiler features with a
// streaming, bounded and validating decoder.
//
// Read accepts a FeatureCollection, a single Feature, a bare geometry
// (including GeometryCollection) or a sequence of those (newline-delimited
// GeoJSON, or GeoJSON text sequences per RFC 8142). Features are decoded one at a time from the token stream, so a
// large upload is never held in memory twice. Coordinates are checked
// (finite, longitude -180..180, latitude -90..90, line strings with at least
// two positions, rings with at least four; open rings are closed) and the
// Limits bound the input size, the number of features and positions, and the
// nesting depth. Errors say which feature (by index in the input) and which
// part of it is wrong.
package geojson

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/tiler"
)

// Limits bounds what Read accepts. Zero fields take the DefaultLimits value.
type Limits struct {
	// MaxBytes is the largest input size in bytes.
	MaxBytes int64
	// MaxFeatures is the largest number of features.
	MaxFeatures int
	// MaxCoordinates is the largest total number of positions.
	MaxCoordinates int64
	// MaxDepth is the deepest nesting of JSON arrays and objects.
	MaxDepth int
}

// DefaultLimits returns the limits used for zero fields: 1 GiB, 10 million
// features, 50 million positions, depth 64.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 1 << 30, MaxFeatures: 10_000_000, MaxCoordinates: 50_000_000, MaxDepth: 64}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxFeatures <= 0 {
		l.MaxFeatures = d.MaxFeatures
	}
	if l.MaxCoordinates <= 0 {
		l.MaxCoordinates = d.MaxCoordinates
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	return l
}

// ErrLimit is wrapped by errors caused by exceeding a limit.
var ErrLimit = errors.New("limit exceeded")

// Error is a GeoJSON decoding or validation error.
type Error struct {
	// Feature is the index of the feature in the input (counting every
	// feature, also those without geometry), or -1 outside any feature.
	Feature int
	// Offset is the input byte offset near which the error was found.
	Offset int64
	// Err is the cause.
	Err error
}

func (e *Error) Error() string {
	if e.Feature >= 0 {
		return fmt.Sprintf("geojson: feature %d (near byte %d): %v", e.Feature, e.Offset, e.Err)
	}
	return fmt.Sprintf("geojson: near byte %d: %v", e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// within prefixes the cause of an *Error with the member it was found in.
func within(err error, where string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Err = fmt.Errorf("%s: %w", where, e.Err)
		return e
	}
	return fmt.Errorf("%s: %w", where, err)
}

// Read decodes all features of a GeoJSON document. Features whose geometry
// is null are skipped.
func Read(ctx context.Context, r io.Reader, limits Limits) ([]tiler.Feature, error) {
	var out []tiler.Feature
	err := ReadFunc(ctx, r, limits, func(f tiler.Feature) error {
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFunc decodes a GeoJSON document and calls fn for each feature as soon
// as it is decoded. An error from fn stops the reading and is returned.
//
// Feature ids that are non-negative integers become tiler.Feature.ID (other
// ids are dropped). A "tippecanoe" member with "minzoom"/"maxzoom" sets the
// feature's zoom range.
func ReadFunc(ctx context.Context, r io.Reader, limits Limits, fn func(tiler.Feature) error) error {
	limits = limits.withDefaults()
	cr := &countingReader{r: r, max: limits.MaxBytes}
	dec := json.NewDecoder(cr)
	dec.UseNumber()
	p := &parser{ctx: ctx, dec: dec, limits: limits, fn: fn, feature: -1, cr: cr}
	values := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.wrap(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return p.fail("top-level value must be a JSON object, found %s", describe(tok))
		}
		if err := p.topObject(); err != nil {
			return err
		}
		values++
	}
	if values == 0 {
		return p.fail("empty input: no GeoJSON object")
	}
	return nil
}

type countingReader struct {
	r   io.Reader
	n   int64
	max int64
}

var errTooLarge = errors.New("input too large")

func (c *countingReader) Read(b []byte) (int, error) {
	if c.n > c.max {
		return 0, errTooLarge
	}
	if int64(len(b)) > c.max-c.n+1 {
		b = b[:c.max-c.n+1]
	}
	n, err := c.r.Read(b)
	c.n += int64(n)
	if c.n > c.max {
		return n, errTooLarge
	}
	// GeoJSON text sequences (RFC 8142) start each text with an ASCII
	// record separator: read it as white space.
	for i := range b[:n] {
		if b[i] == 0x1e {
			b[i] = ' '
		}
	}
	return n, err
}

type parser struct {
	ctx      context.Context
	dec      *json.Decoder
	cr       *countingReader
	limits   Limits
	fn       func(tiler.Feature) error
	feature  int // index of the feature being read, -1 outside
	features int // features seen
	coords   int64
	depth    int
}

func (p *parser) errAt(err error) error {
	return &Error{Feature: p.feature, Offset: p.dec.InputOffset(), Err: err}
}

func (p *parser) fail(format string, args ...any) error {
	return p.errAt(fmt.Errorf(format, args...))
}

// wrap turns a decoder error into an Error, recognising the size limit.
func (p *parser) wrap(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, errTooLarge) {
		return p.errAt(fmt.Errorf("%w: input larger than %d bytes", ErrLimit, p.limits.MaxBytes))
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return p.errAt(fmt.Errorf("invalid JSON: %w", err))
}

func (p *parser) token() (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.wrap(err)
	}
	return tok, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.limits.MaxDepth {
		return p.errAt(fmt.Errorf("%w: nesting deeper than %d", ErrLimit, p.limits.MaxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{', '}':
			return "an object"
		default:
			return "an array"
		}
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// object holds the members of a GeoJSON object of any kind.
type object struct {
	typ        string
	hasType    bool
	geometry   orb.Geometry
	hasGeom    bool
	props      map[string]any
	id         any
	coords     *node
	geometries []orb.Geometry
	hasGeoms   bool
	hasFeats   bool
	minZoom    int
	maxZoom    int
}

// topObject reads a top-level object whose '{' has been consumed.
func (p *parser) topObject() error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	var o object
	startFeature := p.features
	p.feature = startFeature
	defer func() { p.feature = -1 }()
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return err
		}
		if key == "features" {
			if o.hasType && o.typ != "FeatureCollection" {
				return p.fail("member \"features\" in an object of type %q", o.typ)
			}
			o.hasFeats = true
			if err := p.features_(); err != nil {
				return err
			}
			continue
		}
		if err := p.member(&o, key, true); err != nil {
			return err
		}
	}
	if _, err := p.token(); err != nil { // '}'
		return err
	}
	if !o.hasType {
		return p.fail("object has no \"type\" member")
	}
	switch o.typ {
	case "FeatureCollection":
		p.feature = -1
		if !o.hasFeats {
			return p.fail("FeatureCollection has no \"features\" member")
		}
		return nil
	case "Feature":
		if o.hasFeats {
			return p.fail("member \"features\" in an object of type \"Feature\"")
		}
		p.feature = startFeature
		return p.emit(&o)
	default:
		if o.hasFeats {
			return p.fail("member \"features\" in an object of type %q", o.typ)
		}
		p.feature = startFeature
		g, err := p.buildGeometry(&o)
		if err != nil {
			return err
		}
		return p.emitGeometry(g, nil, nil, 0, 0)
	}
}

func (p *parser) key() (string, error) {
	tok, err := p.token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", p.fail("object key expected")
	}
	return k, nil
}

// features_ reads the array of a FeatureCollection.
func (p *parser) features_() error {
	p.feature = -1
	tok, err := p.token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return p.fail("\"features\" must be an array, found %s", describe(tok))
	}
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	for p.dec.More() {
		if err := p.ctx.Err(); err != nil {
			return err
		}
		tok, err := p.token()
		if err != nil {
			return err
		}
		p.feature = p.features
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return p.fail("feature must be an object, found %s", describe(tok))
		}
		if err := p.featureObject(); err != nil {
			return err
		}
		p.feature = -1
	}
	_, err = p.token() // ']'
	return err
}

// featureObject reads a Feature whose '{' has been consumed and emits it.
func (p *parser) featureObject() error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	var o object
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return err
		}
		if err := p.member(&o, key, true); err != nil {
			return err
		}
	}
	if _, err := p.token(); err != nil {
		return err
	}
	if !o.hasType {
		return p.fail("feature has no \"type\" member")
	}
	if o.typ != "Feature" {
		return p.fail("feature has type %q, want \"Feature\"", o.typ)
	}
	return p.emit(&o)
}

// member reads the value of one member into o.
func (p *parser) member(o *object, key string, allowFeature bool) error {
	switch key {
	case "type":
		tok, err := p.token()
		if err != nil {
			return err
		}
		s, ok := tok.(string)
		if !ok {
			return p.fail("\"type\" must be a string, found %s", describe(tok))
		}
		o.typ, o.hasType = s, true
	case "coordinates":
		n, err := p.coordinates()
		if err != nil {
			return err
		}
		o.coords = n
	case "geometries":
		gs, err := p.geometryArray()
		if err != nil {
			return err
		}
		o.geometries, o.hasGeoms = gs, true
	case "geometry":
		if !allowFeature {
			return p.skipValue()
		}
		g, err := p.geometryValue()
		if err != nil {
			return within(err, "geometry")
		}
		o.geometry, o.hasGeom = g, true
	case "properties":
		if !allowFeature {
			return p.skipValue()
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		switch pv := v.(type) {
		case nil:
		case map[string]any:
			o.props = pv
		default:
			return p.fail("\"properties\" must be an object or null")
		}
	case "id":
		v, err := p.value()
		if err != nil {
			return err
		}
		o.id = v
	case "tippecanoe":
		v, err := p.value()
		if err != nil {
			return err
		}
		if m, ok := v.(map[string]any); ok {
			o.minZoom = zoomValue(m["minzoom"])
			o.maxZoom = zoomValue(m["maxzoom"])
		}
	default:
		return p.skipValue()
	}
	return nil
}

func zoomValue(v any) int {
	if i, ok := v.(int64); ok && i >= 0 && i <= 30 {
		return int(i)
	}
	return 0
}

// geometryValue reads a geometry object or null.
func (p *parser) geometryValue() (orb.Geometry, error) {
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.fail("geometry must be an object or null, found %s", describe(tok))
	}
	return p.geometryObject()
}

// geometryObject reads a geometry whose '{' has been consumed.
func (p *parser) geometryObject() (orb.Geometry, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var o object
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if err := p.member(&o, key, false); err != nil {
			return nil, err
		}
	}
	if _, err := p.token(); err != nil {
		return nil, err
	}
	return p.buildGeometry(&o)
}

func (p *parser) geometryArray() ([]orb.Geometry, error) {
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, p.fail("\"geometries\" must be an array, found %s", describe(tok))
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var gs []orb.Geometry
	for p.dec.More() {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return nil, p.fail("geometries[%d] must be an object, found %s", len(gs), describe(tok))
		}
		g, err := p.geometryObject()
		if err != nil {
			return nil, within(err, fmt.Sprintf("geometries[%d]", len(gs)))
		}
		gs = append(gs, g)
	}
	_, err = p.token()
	return gs, err
}

func (p *parser) emit(o *object) error {
	if !o.hasGeom {
		return p.fail("feature has no \"geometry\" member")
	}
	var id any = o.id
	return p.emitGeometry(o.geometry, o.props, id, o.minZoom, o.maxZoom)
}

func (p *parser) emitGeometry(g orb.Geometry, props map[string]any, id any, minZoom, maxZoom int) error {
	p.features++
	if p.features > p.limits.MaxFeatures {
		return p.errAt(fmt.Errorf("%w: more than %d features", ErrLimit, p.limits.MaxFeatures))
	}
	if g == nil {
		return nil
	}
	f := tiler.Feature{Geometry: g, Properties: props, MinZoom: minZoom, MaxZoom: maxZoom}
	if f.Properties == nil {
		f.Properties = map[string]any{}
	}
	if i, ok := id.(int64); ok && i > 0 {
		f.ID = uint64(i)
	}
	if err := p.fn(f); err != nil {
		return err
	}
	return nil
}

// skipValue skips one JSON value, enforcing the depth limit.
func (p *parser) skipValue() error {
	_, err := p.value()
	return err
}

// value reads any JSON value. Objects become map[string]any, arrays []any,
// integral number literals int64 (uint64 above the int64 range, float64 when
// they overflow that too), other numbers float64.
func (p *parser) value() (any, error) {
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(tok)
}

func (p *parser) valueFrom(tok json.Token) (any, error) {
	switch v := tok.(type) {
	case json.Delim:
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		if v == '{' {
			m := map[string]any{}
			for p.dec.More() {
				k, err := p.key()
				if err != nil {
					return nil, err
				}
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				m[k] = val
			}
			_, err := p.token()
			return m, err
		}
		a := []any{}
		for p.dec.More() {
			val, err := p.value()
			if err != nil {
				return nil, err
			}
			a = append(a, val)
		}
		_, err := p.token()
		return a, err
	case json.Number:
		return number(v), nil
	default:
		return v, nil
	}
}

func number(n json.Number) any {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // only overflow reaches here; keep the text
		return s
	}
	return f
}

// node is a parsed coordinates array: a position (leaf) or an array of nodes.
type node struct {
	leaf bool
	pos  orb.Point
	kids []node
}

// coordinates reads a "coordinates" value. The value is taken whole from
// the decoder (a cheap syntax scan) and parsed here, which avoids the cost
// of one decoder token per number.
func (p *parser) coordinates() (*node, error) {
	var raw json.RawMessage
	if err := p.dec.Decode(&raw); err != nil {
		return nil, p.wrap(err)
	}
	c := coordParser{b: raw, p: p}
	c.space()
	if c.i >= len(c.b) || c.b[c.i] != '[' {
		return nil, p.fail("\"coordinates\" must be an array")
	}
	c.i++
	n, err := c.array()
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// coordParser parses a coordinates value that encoding/json has already
// checked to be valid JSON.
type coordParser struct {
	b []byte
	i int
	p *parser
}

func (c *coordParser) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// array parses an array whose '[' has been consumed.
func (c *coordParser) array() (node, error) {
	p := c.p
	if err := p.enter(); err != nil {
		return node{}, err
	}
	defer p.leave()
	var n node
	var nums [4]float64
	count := 0
	for first := true; ; first = false {
		c.space()
		if c.i >= len(c.b) {
			return n, p.fail("unterminated coordinates")
		}
		ch := c.b[c.i]
		if ch == ']' {
			c.i++
			break
		}
		if !first {
			if ch != ',' {
				return n, p.fail("malformed coordinates")
			}
			c.i++
			c.space()
			if c.i >= len(c.b) {
				return n, p.fail("unterminated coordinates")
			}
			ch = c.b[c.i]
		}
		switch {
		case ch == '[':
			if n.leaf {
				return n, p.fail("coordinates mix numbers and arrays")
			}
			c.i++
			kid, err := c.array()
			if err != nil {
				return n, err
			}
			n.kids = append(n.kids, kid)
		case ch == '-' || (ch >= '0' && ch <= '9'):
			if !first && !n.leaf {
				return n, p.fail("coordinates mix numbers and arrays")
			}
			n.leaf = true
			start := c.i
			for c.i < len(c.b) && strings.IndexByte("0123456789+-.eE", c.b[c.i]) >= 0 {
				c.i++
			}
			f, err := strconv.ParseFloat(string(c.b[start:c.i]), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return n, p.fail("coordinate %s is not a finite number", c.b[start:c.i])
			}
			if count == len(nums) {
				return n, p.fail("position with more than %d numbers", len(nums))
			}
			nums[count] = f
			count++
		default:
			return n, p.fail("unexpected %q in coordinates", ch)
		}
	}
	if n.leaf {
		if count < 2 {
			return n, p.fail("position with %d numbers, need at least 2", count)
		}
		n.pos = orb.Point{nums[0], nums[1]}
		if err := checkPosition(n.pos); err != nil {
			return n, p.errAt(err)
		}
		p.coords++
		if p.coords > p.limits.MaxCoordinates {
			return n, p.errAt(fmt.Errorf("%w: more than %d positions", ErrLimit, p.limits.MaxCoordinates))
		}
	}
	return n, nil
}

func checkPosition(pt orb.Point) error {
	if pt[0] < -180 || pt[0] > 180 {
		return fmt.Errorf("longitude %v out of range [-180, 180]", pt[0])
	}
	if pt[1] < -90 || pt[1] > 90 {
		return fmt.Errorf("latitude %v out of range [-90, 90]", pt[1])
	}
	return nil
}

// buildGeometry turns the members of a geometry object into an orb geometry.
func (p *parser) buildGeometry(o *object) (orb.Geometry, error) {
	if !o.hasType {
		return nil, p.fail("geometry has no \"type\" member")
	}
	if o.typ == "GeometryCollection" {
		if !o.hasGeoms {
			return nil, p.fail("GeometryCollection has no \"geometries\" member")
		}
		return orb.Collection(o.geometries), nil
	}
	if o.coords == nil {
		switch o.typ {
		case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon":
			return nil, p.fail("%s has no \"coordinates\" member", o.typ)
		default:
			return nil, p.fail("unknown geometry type %q", o.typ)
		}
	}
	g, err := convert(o.typ, *o.coords)
	if err != nil {
		return nil, p.errAt(err)
	}
	return g, nil
}

func convert(typ string, n node) (orb.Geometry, error) {
	switch typ {
	case "Point":
		if !n.leaf {
			return nil, errors.New("Point coordinates must be a position")
		}
		return n.pos, nil
	case "MultiPoint":
		pts, err := positions(n, "MultiPoint")
		return orb.MultiPoint(pts), err
	case "LineString":
		return lineString(n, "LineString")
	case "MultiLineString":
		if n.leaf {
			return nil, errors.New("MultiLineString coordinates must be an array of line strings")
		}
		ml := make(orb.MultiLineString, 0, len(n.kids))
		for i, k := range n.kids {
			l, err := lineString(k, fmt.Sprintf("MultiLineString line %d", i))
			if err != nil {
				return nil, err
			}
			ml = append(ml, l)
		}
		return ml, nil
	case "Polygon":
		return polygon(n, "Polygon")
	case "MultiPolygon":
		if n.leaf {
			return nil, errors.New("MultiPolygon coordinates must be an array of polygons")
		}
		mp := make(orb.MultiPolygon, 0, len(n.kids))
		for i, k := range n.kids {
			pg, err := polygon(k, fmt.Sprintf("MultiPolygon polygon %d", i))
			if err != nil {
				return nil, err
			}
			mp = append(mp, pg)
		}
		return mp, nil
	default:
		return nil, fmt.Errorf("unknown geometry type %q", typ)
	}
}

func positions(n node, what string) ([]orb.Point, error) {
	if n.leaf {
		return nil, fmt.Errorf("%s coordinates must be an array of positions", what)
	}
	pts := make([]orb.Point, len(n.kids))
	for i, k := range n.kids {
		if !k.leaf {
			return nil, fmt.Errorf("%s position %d is not a position", what, i)
		}
		pts[i] = k.pos
	}
	return pts, nil
}

func lineString(n node, what string) (orb.LineString, error) {
	pts, err := positions(n, what)
	if err != nil {
		return nil, err
	}
	if len(pts) < 2 {
		return nil, fmt.Errorf("%s has %d positions, need at least 2", what, len(pts))
	}
	return orb.LineString(pts), nil
}

func polygon(n node, what string) (orb.Polygon, error) {
	if n.leaf {
		return nil, fmt.Errorf("%s coordinates must be an array of rings", what)
	}
	pg := make(orb.Polygon, 0, len(n.kids))
	for i, k := range n.kids {
		pts, err := positions(k, fmt.Sprintf("%s ring %d", what, i))
		if err != nil {
			return nil, err
		}
		if len(pts) > 0 && pts[0] != pts[len(pts)-1] {
			pts = append(pts, pts[0]) // close an open ring
		}
		if len(pts) < 4 {
			return nil, fmt.Errorf("%s ring %d has %d positions (closed), need at least 4", what, i, len(pts))
		}
		pg = append(pg, orb.Ring(pts))
	}
	return pg, nil
}
