package mvt

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Tile is a decoded vector tile. Only the layer structure is decoded by
// Decode; everything else is decoded on demand.
type Tile struct {
	Layers []*Layer
}

// Layer returns the layer with the given name, or nil.
func (t *Tile) Layer(name string) *Layer {
	for _, l := range t.Layers {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// Layer is one layer of a decoded tile. Its methods are safe for concurrent
// use.
type Layer struct {
	Name    string
	Version uint32
	Extent  uint32

	rawKeys     [][]byte
	rawValues   [][]byte
	rawFeatures [][]byte

	once   sync.Once
	keys   []string
	values []any
	kvErr  error
}

// Len returns the number of features in the layer.
func (l *Layer) Len() int { return len(l.rawFeatures) }

// Decode indexes a vector tile. data must not be gzip-compressed and must not
// be modified while the Tile is in use (decoded values point into it).
func Decode(data []byte) (*Tile, error) {
	t := &Tile{}
	names := map[string]bool{}
	r := reader{b: data}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return nil, fmt.Errorf("mvt: tile: %w", err)
		}
		if field != 3 || wire != wireBytes {
			if err := r.skip(wire); err != nil {
				return nil, fmt.Errorf("mvt: tile field %d: %w", field, err)
			}
			continue
		}
		b, err := r.bytes()
		if err != nil {
			return nil, fmt.Errorf("mvt: layer %d: %w", len(t.Layers), err)
		}
		l, err := decodeLayer(b)
		if err != nil {
			return nil, fmt.Errorf("mvt: layer %d: %w", len(t.Layers), err)
		}
		if names[l.Name] {
			return nil, fmt.Errorf("mvt: duplicate layer name %q", l.Name)
		}
		names[l.Name] = true
		t.Layers = append(t.Layers, l)
	}
	return t, nil
}

func decodeLayer(b []byte) (*Layer, error) {
	l := &Layer{Version: 1, Extent: DefaultExtent}
	hasName := false
	r := reader{b: b}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return nil, err
		}
		switch {
		case field == 15 && wire == wireVarint:
			v, err := r.varint()
			if err != nil {
				return nil, fmt.Errorf("version: %w", err)
			}
			if v != 1 && v != 2 {
				return nil, fmt.Errorf("unsupported version %d", v)
			}
			l.Version = uint32(v)
		case field == 1 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("name: %w", err)
			}
			l.Name = string(s)
			hasName = true
		case field == 2 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("feature %d: %w", len(l.rawFeatures), err)
			}
			l.rawFeatures = append(l.rawFeatures, s)
		case field == 3 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", len(l.rawKeys), err)
			}
			l.rawKeys = append(l.rawKeys, s)
		case field == 4 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("value %d: %w", len(l.rawValues), err)
			}
			l.rawValues = append(l.rawValues, s)
		case field == 5 && wire == wireVarint:
			v, err := r.varint()
			if err != nil {
				return nil, fmt.Errorf("extent: %w", err)
			}
			if v == 0 || v > 1<<30 {
				return nil, fmt.Errorf("invalid extent %d", v)
			}
			l.Extent = uint32(v)
		default:
			if err := r.skip(wire); err != nil {
				return nil, fmt.Errorf("field %d: %w", field, err)
			}
		}
	}
	if !hasName || l.Name == "" {
		return nil, errors.New("layer has no name")
	}
	return l, nil
}

func (l *Layer) decodeKV() {
	l.keys = make([]string, len(l.rawKeys))
	for i, k := range l.rawKeys {
		l.keys[i] = string(k)
	}
	l.values = make([]any, len(l.rawValues))
	for i, v := range l.rawValues {
		val, err := decodeValue(v)
		if err != nil {
			l.kvErr = fmt.Errorf("mvt: layer %q: value %d: %w", l.Name, i, err)
			return
		}
		l.values[i] = val
	}
}

// Keys returns the layer's attribute keys.
func (l *Layer) Keys() ([]string, error) {
	l.once.Do(l.decodeKV)
	return l.keys, l.kvErr
}

// Values returns the layer's attribute values: string, float32, float64,
// int64, uint64 or bool.
func (l *Layer) Values() ([]any, error) {
	l.once.Do(l.decodeKV)
	return l.values, l.kvErr
}

func decodeValue(b []byte) (any, error) {
	var v any
	r := reader{b: b}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return nil, err
		}
		switch {
		case field == valString && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, err
			}
			v = string(s)
		case field == valFloat && wire == wireFixed32:
			u, err := r.fixed32()
			if err != nil {
				return nil, err
			}
			v = math.Float32frombits(u)
		case field == valDouble && wire == wireFixed64:
			u, err := r.fixed64()
			if err != nil {
				return nil, err
			}
			v = math.Float64frombits(u)
		case field == valInt && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return nil, err
			}
			v = int64(u)
		case field == valUint && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return nil, err
			}
			v = u
		case field == valSint && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return nil, err
			}
			v = unzigzag64(u)
		case field == valBool && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return nil, err
			}
			v = u != 0
		default:
			if err := r.skip(wire); err != nil {
				return nil, err
			}
		}
	}
	if v == nil {
		return nil, errors.New("value has no known field")
	}
	return v, nil
}

// DecodedFeature is one feature of a decoded layer. Its geometry and
// properties are decoded on demand.
type DecodedFeature struct {
	ID    uint64
	HasID bool
	Type  GeomType

	layer *Layer
	tags  []uint32
	geom  []uint32 // unpacked geometry, when the tile did not pack it
	raw   []byte   // packed geometry
}

// Feature decodes the header (id, type, tags) of feature i.
func (l *Layer) Feature(i int) (*DecodedFeature, error) {
	if i < 0 || i >= len(l.rawFeatures) {
		return nil, fmt.Errorf("mvt: layer %q: feature index %d out of range [0,%d)", l.Name, i, len(l.rawFeatures))
	}
	f := &DecodedFeature{layer: l}
	r := reader{b: l.rawFeatures[i]}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return nil, fmt.Errorf("mvt: layer %q: feature %d: %w", l.Name, i, err)
		}
		switch {
		case field == 1 && wire == wireVarint:
			f.ID, err = r.varint()
			f.HasID = true
		case field == 2 && wire == wireBytes:
			var b []byte
			if b, err = r.bytes(); err == nil {
				f.tags, err = packedUint32(f.tags, b)
			}
		case field == 2 && wire == wireVarint:
			var v uint64
			if v, err = r.varint(); err == nil {
				f.tags = append(f.tags, uint32(v))
			}
		case field == 3 && wire == wireVarint:
			var v uint64
			if v, err = r.varint(); err == nil {
				if v > 3 {
					err = fmt.Errorf("unknown geometry type %d", v)
				}
				f.Type = GeomType(v)
			}
		case field == 4 && wire == wireBytes:
			var b []byte
			if b, err = r.bytes(); err == nil {
				if f.raw == nil && f.geom == nil {
					f.raw = b
				} else {
					if f.raw != nil {
						f.geom, err = packedUint32(f.geom, f.raw)
						f.raw = nil
					}
					if err == nil {
						f.geom, err = packedUint32(f.geom, b)
					}
				}
			}
		case field == 4 && wire == wireVarint:
			var v uint64
			if v, err = r.varint(); err == nil {
				if f.raw != nil {
					f.geom, err = packedUint32(f.geom, f.raw)
					f.raw = nil
				}
				f.geom = append(f.geom, uint32(v))
			}
		default:
			err = r.skip(wire)
		}
		if err != nil {
			return nil, fmt.Errorf("mvt: layer %q: feature %d: %w", l.Name, i, err)
		}
	}
	if len(f.tags)%2 != 0 {
		return nil, fmt.Errorf("mvt: layer %q: feature %d: odd number of tags (%d)", l.Name, i, len(f.tags))
	}
	return f, nil
}

// Properties decodes the feature's attributes.
func (f *DecodedFeature) Properties() (map[string]any, error) {
	keys, err := f.layer.Keys()
	if err != nil {
		return nil, err
	}
	values, err := f.layer.Values()
	if err != nil {
		return nil, err
	}
	props := make(map[string]any, len(f.tags)/2)
	for i := 0; i+1 < len(f.tags); i += 2 {
		k, v := f.tags[i], f.tags[i+1]
		if int64(k) >= int64(len(keys)) {
			return nil, fmt.Errorf("mvt: layer %q: key index %d out of range (%d keys)", f.layer.Name, k, len(keys))
		}
		if int64(v) >= int64(len(values)) {
			return nil, fmt.Errorf("mvt: layer %q: value index %d out of range (%d values)", f.layer.Name, v, len(values))
		}
		props[keys[k]] = values[v]
	}
	return props, nil
}

// Tags returns the feature's properties as pairs of indexes into its
// layer's Keys and Values (key, value, key, value...), checked against
// them: a caller that converts the layer's values once can then build each
// feature's properties without a map.
func (f *DecodedFeature) Tags() ([]uint32, error) {
	keys, err := f.layer.Keys()
	if err != nil {
		return nil, err
	}
	values, err := f.layer.Values()
	if err != nil {
		return nil, err
	}
	if len(f.tags)%2 != 0 {
		return nil, fmt.Errorf("mvt: layer %q: odd number of tags", f.layer.Name)
	}
	for i := 0; i+1 < len(f.tags); i += 2 {
		if int64(f.tags[i]) >= int64(len(keys)) || int64(f.tags[i+1]) >= int64(len(values)) {
			return nil, fmt.Errorf("mvt: layer %q: tag %d/%d out of range (%d keys, %d values)", f.layer.Name, f.tags[i], f.tags[i+1], len(keys), len(values))
		}
	}
	return f.tags, nil
}

// Geometry decodes the feature's geometry into tile coordinates.
func (f *DecodedFeature) Geometry() (Geometry, error) {
	cmds := f.geom
	if f.raw != nil {
		var err error
		cmds, err = packedUint32(make([]uint32, 0, len(f.raw)), f.raw)
		if err != nil {
			return Geometry{}, fmt.Errorf("mvt: layer %q: geometry: %w", f.layer.Name, err)
		}
	}
	g, err := decodeGeometry(f.Type, cmds)
	if err != nil {
		return Geometry{}, fmt.Errorf("mvt: layer %q: geometry: %w", f.layer.Name, err)
	}
	return g, nil
}

// geomDecoder walks a command stream.
type geomDecoder struct {
	cmds   []uint32
	pos    int
	cx, cy int64
}

func (d *geomDecoder) command() (id, count int, err error) {
	c := d.cmds[d.pos]
	d.pos++
	id, count = int(c&7), int(c>>3)
	if id != cmdMoveTo && id != cmdLineTo && id != cmdClosePath {
		return 0, 0, fmt.Errorf("unknown command %d at %d", id, d.pos-1)
	}
	if id != cmdClosePath && count*2 > len(d.cmds)-d.pos {
		return 0, 0, fmt.Errorf("command count %d exceeds remaining parameters at %d", count, d.pos-1)
	}
	return id, count, nil
}

func (d *geomDecoder) point() (XY, error) {
	dx, dy := unzigzag32(d.cmds[d.pos]), unzigzag32(d.cmds[d.pos+1])
	d.pos += 2
	d.cx += int64(dx)
	d.cy += int64(dy)
	if d.cx < math.MinInt32 || d.cx > math.MaxInt32 || d.cy < math.MinInt32 || d.cy > math.MaxInt32 {
		return XY{}, errors.New("cursor overflows 32 bits")
	}
	return XY{int32(d.cx), int32(d.cy)}, nil
}

func decodeGeometry(t GeomType, cmds []uint32) (Geometry, error) {
	g := Geometry{Type: t}
	d := geomDecoder{cmds: cmds}
	switch t {
	case Point:
		id, count, err := d.firstCommand()
		if err != nil {
			return g, err
		}
		if id != cmdMoveTo || count == 0 {
			return g, fmt.Errorf("point geometry must start with MoveTo with count > 0, got command %d count %d", id, count)
		}
		g.Points = make([]XY, 0, count)
		for i := 0; i < count; i++ {
			p, err := d.point()
			if err != nil {
				return g, err
			}
			g.Points = append(g.Points, p)
		}
		if d.pos != len(cmds) {
			return g, fmt.Errorf("point geometry has %d trailing integers", len(cmds)-d.pos)
		}
	case LineString:
		for d.pos < len(cmds) {
			start, err := d.moveTo()
			if err != nil {
				return g, err
			}
			if d.pos >= len(cmds) {
				return g, errors.New("line string ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return g, err
			}
			if id != cmdLineTo || count == 0 {
				return g, fmt.Errorf("expected LineTo with count > 0, got command %d count %d", id, count)
			}
			line := make([]XY, 0, count+1)
			line = append(line, start)
			for i := 0; i < count; i++ {
				p, err := d.point()
				if err != nil {
					return g, err
				}
				line = append(line, p)
			}
			g.Lines = append(g.Lines, line)
		}
		if len(g.Lines) == 0 {
			return g, errors.New("empty line string geometry")
		}
	case Polygon:
		sign := int64(0) // sign of exterior rings, from the first ring
		for d.pos < len(cmds) {
			start, err := d.moveTo()
			if err != nil {
				return g, err
			}
			if d.pos >= len(cmds) {
				return g, errors.New("polygon ring ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return g, err
			}
			if id != cmdLineTo || count < 2 {
				return g, fmt.Errorf("expected LineTo with count >= 2 in ring, got command %d count %d", id, count)
			}
			ring := make([]XY, 0, count+2)
			ring = append(ring, start)
			for i := 0; i < count; i++ {
				p, err := d.point()
				if err != nil {
					return g, err
				}
				ring = append(ring, p)
			}
			if d.pos >= len(cmds) {
				return g, errors.New("polygon ring is not closed with ClosePath")
			}
			id, count, err = d.command()
			if err != nil {
				return g, err
			}
			if id != cmdClosePath || count != 1 {
				return g, fmt.Errorf("expected ClosePath with count 1, got command %d count %d", id, count)
			}
			a := RingArea(ring)
			if a == 0 {
				continue // degenerate ring: no area to draw
			}
			ring = append(ring, ring[0])
			if sign == 0 {
				sign = a
			}
			if (a > 0) == (sign > 0) {
				g.Polygons = append(g.Polygons, [][]XY{ring})
			} else {
				last := len(g.Polygons) - 1
				g.Polygons[last] = append(g.Polygons[last], ring)
			}
		}
	default:
		return g, fmt.Errorf("unknown geometry type %d", t)
	}
	return g, nil
}

func (d *geomDecoder) firstCommand() (int, int, error) {
	if d.pos >= len(d.cmds) {
		return 0, 0, errors.New("empty geometry")
	}
	return d.command()
}

func (d *geomDecoder) moveTo() (XY, error) {
	id, count, err := d.command()
	if err != nil {
		return XY{}, err
	}
	if id != cmdMoveTo || count != 1 {
		return XY{}, fmt.Errorf("expected MoveTo with count 1, got command %d count %d", id, count)
	}
	return d.point()
}
