package mvt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
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

	// data is the layer's message; its keys, values and features are
	// spans of it (no pointers for the collector to follow).
	data        []byte
	rawKeys     []span
	rawValues   []span
	rawFeatures []span

	once   sync.Once // decodes keys and typed
	keys   []string
	typed  []Value
	kvErr  error
	boxed  sync.Once // builds values from typed
	values []any
}

// span is where a field's bytes lie in its layer's message.
type span struct{ off, end uint32 }

// bytes returns the bytes of s.
func (l *Layer) bytes(s span) []byte { return l.data[s.off:s.end:s.end] }

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
	if uint64(len(b)) > math.MaxUint32 {
		return nil, fmt.Errorf("layer of %d bytes", len(b))
	}
	l := &Layer{Version: 1, Extent: DefaultExtent, data: b}
	nf, nk, nv := countFields(b)
	l.rawFeatures = make([]span, 0, nf)
	l.rawKeys = make([]span, 0, nk)
	l.rawValues = make([]span, 0, nv)
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
			l.rawFeatures = append(l.rawFeatures, span{uint32(r.pos - len(s)), uint32(r.pos)})
		case field == 3 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", len(l.rawKeys), err)
			}
			l.rawKeys = append(l.rawKeys, span{uint32(r.pos - len(s)), uint32(r.pos)})
		case field == 4 && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("value %d: %w", len(l.rawValues), err)
			}
			l.rawValues = append(l.rawValues, span{uint32(r.pos - len(s)), uint32(r.pos)})
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

// countFields counts the features, keys and values of a layer message b,
// for their slices to be made at their size. It stops at anything unusual
// (a field key of more than a byte, a fixed-size or malformed field),
// counting what it saw: the decoder proper reports the errors.
func countFields(b []byte) (features, keys, values int) {
	for i := 0; i < len(b); {
		k := b[i]
		if k >= 0x80 {
			return
		}
		i++
		switch k & 7 {
		case wireVarint:
			for i < len(b) && b[i] >= 0x80 {
				i++
			}
			i++
		case wireBytes:
			n, w := binary.Uvarint(b[i:])
			if w <= 0 || n > uint64(len(b)-i-w) {
				return
			}
			i += w + int(n)
			switch k {
			case 2<<3 | wireBytes:
				features++
			case 3<<3 | wireBytes:
				keys++
			case 4<<3 | wireBytes:
				values++
			}
		default:
			return
		}
	}
	return
}

// decodeKV decodes the layer's keys and values. Their strings are cut
// from one copy of the keys' and values' bytes: a layer has thousands of
// values (names, house numbers), one allocation each otherwise.
func (l *Layer) decodeKV() {
	n := 0
	for _, k := range l.rawKeys {
		n += int(k.end - k.off)
	}
	for _, v := range l.rawValues {
		n += int(v.end - v.off)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, k := range l.rawKeys {
		sb.Write(l.bytes(k))
	}
	for _, v := range l.rawValues {
		sb.Write(l.bytes(v))
	}
	all := sb.String()
	l.keys = make([]string, len(l.rawKeys))
	for i, k := range l.rawKeys {
		n := int(k.end - k.off)
		l.keys[i], all = all[:n], all[n:]
	}
	l.typed = make([]Value, len(l.rawValues))
	for i, v := range l.rawValues {
		v := l.bytes(v)
		val, err := decodeValue(v, all[:len(v)])
		if err != nil {
			l.kvErr = fmt.Errorf("mvt: layer %q: value %d: %w", l.Name, i, err)
			return
		}
		l.typed[i], all = val, all[len(v):]
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
	l.boxed.Do(func() {
		l.values = make([]any, len(l.typed))
		for i, v := range l.typed {
			l.values[i] = v.Any()
		}
	})
	return l.values, l.kvErr
}

// TypedValues returns the layer's attribute values as Values does, each
// without the allocation of an interface. Callers must not modify them.
func (l *Layer) TypedValues() ([]Value, error) {
	l.once.Do(l.decodeKV)
	return l.typed, l.kvErr
}

// ValueType is the type of an attribute value, as the tile stores it.
type ValueType uint8

// Value types: the fields of the specification's Value message.
const (
	StringValue ValueType = valString
	FloatValue  ValueType = valFloat
	DoubleValue ValueType = valDouble
	IntValue    ValueType = valInt
	UintValue   ValueType = valUint
	SintValue   ValueType = valSint
	BoolValue   ValueType = valBool
)

// Value is an attribute value held without an interface: Str holds a
// StringValue, Bits the others (a FloatValue's math.Float32bits, a
// DoubleValue's math.Float64bits, the two's complement of an IntValue or
// SintValue, a UintValue, 1 or 0 for a BoolValue).
type Value struct {
	Type ValueType
	Str  string
	Bits uint64
}

// Any returns the value as Values gives it: string, float32, float64,
// int64, uint64 or bool (nil for a Value of no type).
func (v Value) Any() any {
	switch v.Type {
	case StringValue:
		return v.Str
	case FloatValue:
		return math.Float32frombits(uint32(v.Bits))
	case DoubleValue:
		return math.Float64frombits(v.Bits)
	case IntValue, SintValue:
		return int64(v.Bits)
	case UintValue:
		return v.Bits
	case BoolValue:
		return v.Bits != 0
	}
	return nil
}

// decodeValue decodes a Value message b; str holds the same bytes, and a
// string value is cut from it. When the message has several fields, the
// last is the value.
func decodeValue(b []byte, str string) (Value, error) {
	if v, ok := decodeValueFast(b, str); ok {
		return v, nil
	}
	return decodeValueFields(b, str)
}

// decodeValueFields decodes any Value message, field by field.
func decodeValueFields(b []byte, str string) (Value, error) {
	var v Value
	r := reader{b: b}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return Value{}, err
		}
		switch {
		case field == valString && wire == wireBytes:
			s, err := r.bytes()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: StringValue, Str: str[r.pos-len(s) : r.pos]}
		case field == valFloat && wire == wireFixed32:
			u, err := r.fixed32()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: FloatValue, Bits: uint64(u)}
		case field == valDouble && wire == wireFixed64:
			u, err := r.fixed64()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: DoubleValue, Bits: u}
		case field == valInt && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: IntValue, Bits: u}
		case field == valUint && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: UintValue, Bits: u}
		case field == valSint && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: SintValue, Bits: uint64(unzigzag64(u))}
		case field == valBool && wire == wireVarint:
			u, err := r.varint()
			if err != nil {
				return Value{}, err
			}
			v = Value{Type: BoolValue}
			if u != 0 {
				v.Bits = 1
			}
		default:
			if err := r.skip(wire); err != nil {
				return Value{}, err
			}
		}
	}
	if v.Type == 0 {
		return Value{}, errors.New("value has no known field")
	}
	return v, nil
}

// decodeValueFast decodes the usual Value message, of one field (a string
// shorter than 128 bytes, a number or a bool), as decodeValue does; ok is
// false for any other message.
func decodeValueFast(b []byte, str string) (v Value, ok bool) {
	if len(b) < 2 {
		return Value{}, false
	}
	switch key := b[0]; key {
	case valString<<3 | wireBytes:
		if b[1] < 0x80 && int(b[1]) == len(b)-2 {
			return Value{Type: StringValue, Str: str[2:]}, true
		}
	case valFloat<<3 | wireFixed32:
		if len(b) == 5 {
			return Value{Type: FloatValue, Bits: uint64(binary.LittleEndian.Uint32(b[1:]))}, true
		}
	case valDouble<<3 | wireFixed64:
		if len(b) == 9 {
			return Value{Type: DoubleValue, Bits: binary.LittleEndian.Uint64(b[1:])}, true
		}
	case valInt<<3 | wireVarint, valUint<<3 | wireVarint, valSint<<3 | wireVarint, valBool<<3 | wireVarint:
		u, n := binary.Uvarint(b[1:])
		if n != len(b)-1 {
			return Value{}, false // several fields, or a bad varint
		}
		switch key >> 3 {
		case valInt:
			return Value{Type: IntValue, Bits: u}, true
		case valUint:
			return Value{Type: UintValue, Bits: u}, true
		case valSint:
			return Value{Type: SintValue, Bits: uint64(unzigzag64(u))}, true
		default:
			v = Value{Type: BoolValue}
			if u != 0 {
				v.Bits = 1
			}
			return v, true
		}
	}
	return Value{}, false
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
	f := &DecodedFeature{}
	if err := l.FeatureInto(i, f); err != nil {
		return nil, err
	}
	return f, nil
}

// FeatureInto decodes the header (id, type, tags) of feature i into f, as
// Feature does, reusing f's buffers: a caller that walks many features
// decodes them all into one DecodedFeature. What f held before is
// overwritten, and slices returned by its Tags are reused.
func (l *Layer) FeatureInto(i int, f *DecodedFeature) error {
	if i < 0 || i >= len(l.rawFeatures) {
		return fmt.Errorf("mvt: layer %q: feature index %d out of range [0,%d)", l.Name, i, len(l.rawFeatures))
	}
	*f = DecodedFeature{layer: l, tags: f.tags[:0], geom: f.geom[:0]}
	unpacked := false // f.geom holds the geometry
	r := reader{b: l.bytes(l.rawFeatures[i])}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return fmt.Errorf("mvt: layer %q: feature %d: %w", l.Name, i, err)
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
				if f.raw == nil && !unpacked {
					f.raw = b
				} else {
					if f.raw != nil {
						f.geom, err = packedUint32(f.geom, f.raw)
						f.raw = nil
					}
					if err == nil {
						f.geom, err = packedUint32(f.geom, b)
					}
					unpacked = true
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
				unpacked = true
			}
		default:
			err = r.skip(wire)
		}
		if err != nil {
			return fmt.Errorf("mvt: layer %q: feature %d: %w", l.Name, i, err)
		}
	}
	if len(f.tags)%2 != 0 {
		return fmt.Errorf("mvt: layer %q: feature %d: odd number of tags (%d)", l.Name, i, len(f.tags))
	}
	return nil
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
	values, err := f.layer.TypedValues()
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
	var s Shape
	if err := f.Shape(&s); err != nil {
		return Geometry{}, err
	}
	return s.geometry(), nil
}

// Shape is a feature's geometry decoded flat: every position in one slice
// and the ends of its parts, for callers that convert the positions of
// many features without a slice per part. A Shape is reused from one
// feature to the next.
type Shape struct {
	Type GeomType
	// XY holds the positions, part after part: the points of a Point
	// geometry, each line of a LineString, each ring (closed: last ==
	// first) of a Polygon.
	XY []XY
	// Ends holds where each part ends in XY (a Point geometry has one
	// part).
	Ends []int
	// Polys holds, for a Polygon, where each polygon's rings end in Ends:
	// its exterior ring first, its holes after it.
	Polys []int

	cmds []byte // an unpacked command stream packed again, reused
}

// Parts returns the number of parts (a Point geometry has one).
func (s *Shape) Parts() int { return len(s.Ends) }

// Part returns the positions of part i, without a copy.
func (s *Shape) Part(i int) []XY {
	start := 0
	if i > 0 {
		start = s.Ends[i-1]
	}
	return s.XY[start:s.Ends[i]:s.Ends[i]]
}

// Shape decodes the feature's geometry into s (in tile coordinates), as
// Geometry does, reusing s's buffers.
func (f *DecodedFeature) Shape(s *Shape) error {
	cmds := f.raw
	if cmds == nil {
		// A tile that did not pack the geometry: its integers are packed
		// for the decoder.
		s.cmds = s.cmds[:0]
		for _, c := range f.geom {
			s.cmds = appendVarint(s.cmds, uint64(c))
		}
		cmds = s.cmds
	}
	if err := decodePackedShape(f.Type, cmds, s); err != nil {
		return fmt.Errorf("mvt: layer %q: geometry: %w", f.layer.Name, err)
	}
	return nil
}

// geometry returns s as a Geometry, its slices over s.XY.
func (s *Shape) geometry() Geometry {
	g := Geometry{Type: s.Type}
	switch s.Type {
	case Point:
		g.Points = s.Part(0)
	case LineString:
		g.Lines = make([][]XY, s.Parts())
		for i := range g.Lines {
			g.Lines[i] = s.Part(i)
		}
	case Polygon:
		if len(s.Polys) == 0 {
			break // every ring was degenerate
		}
		rings := make([][]XY, s.Parts())
		for i := range rings {
			rings[i] = s.Part(i)
		}
		g.Polygons = make([][][]XY, len(s.Polys))
		start := 0
		for i, end := range s.Polys {
			g.Polygons[i] = rings[start:end:end]
			start = end
		}
	}
	return g
}

// geomDecoder walks a packed command stream: the integers are read from
// their varints as they are needed.
type geomDecoder struct {
	b      []byte
	pos    int
	cx, cy int64
}

// done tells whether the stream is read.
func (d *geomDecoder) done() bool { return d.pos >= len(d.b) }

// next reads an integer of the stream.
func (d *geomDecoder) next() (uint32, error) {
	if p := d.pos; p < len(d.b) && d.b[p] < 0x80 {
		d.pos = p + 1
		return uint32(d.b[p]), nil
	}
	return d.nextLong()
}

// nextLong reads an integer of more than one byte.
func (d *geomDecoder) nextLong() (uint32, error) {
	if p := d.pos; p+1 < len(d.b) && d.b[p+1] < 0x80 {
		d.pos = p + 2
		return uint32(d.b[p]&0x7f) | uint32(d.b[p+1])<<7, nil
	}
	r := reader{b: d.b, pos: d.pos}
	v, err := r.varintLong()
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint32 {
		return 0, fmt.Errorf("value %d overflows uint32", v)
	}
	d.pos = r.pos
	return uint32(v), nil
}

func (d *geomDecoder) command() (id, count int, err error) {
	at := d.pos
	c, err := d.next()
	if err != nil {
		return 0, 0, err
	}
	id, count = int(c&7), int(c>>3)
	if id != cmdMoveTo && id != cmdLineTo && id != cmdClosePath {
		return 0, 0, fmt.Errorf("unknown command %d at byte %d", id, at)
	}
	// Each parameter takes a byte at least.
	if id != cmdClosePath && count*2 > len(d.b)-d.pos {
		return 0, 0, fmt.Errorf("command count %d exceeds remaining parameters at byte %d", count, at)
	}
	return id, count, nil
}

func (d *geomDecoder) point() (XY, error) {
	var p [1]XY
	_, err := d.points(p[:0], 1)
	return p[0], err
}

// points appends count positions to xy. Their integers are read inline,
// those of one and two bytes (most) without a call.
func (d *geomDecoder) points(xy []XY, count int) ([]XY, error) {
	xy = slices.Grow(xy, count)
	b, pos, cx, cy := d.b, d.pos, d.cx, d.cy
	for range count {
		var u [2]uint32
		for k := range u {
			if pos < len(b) && b[pos] < 0x80 {
				u[k] = uint32(b[pos])
				pos++
			} else if pos+1 < len(b) && b[pos+1] < 0x80 {
				u[k] = uint32(b[pos]&0x7f) | uint32(b[pos+1])<<7
				pos += 2
			} else {
				d.pos = pos
				v, err := d.nextLong()
				if err != nil {
					return xy, err
				}
				u[k], pos = v, d.pos
			}
		}
		cx += int64(unzigzag32(u[0]))
		cy += int64(unzigzag32(u[1]))
		if cx < math.MinInt32 || cx > math.MaxInt32 || cy < math.MinInt32 || cy > math.MaxInt32 {
			return xy, errors.New("cursor overflows 32 bits")
		}
		xy = append(xy, XY{int32(cx), int32(cy)})
	}
	d.pos, d.cx, d.cy = pos, cx, cy
	return xy, nil
}

// decodeGeometry decodes an unpacked command stream into a Geometry.
func decodeGeometry(t GeomType, cmds []uint32) (Geometry, error) {
	var s Shape
	if err := decodeShape(t, cmds, &s); err != nil {
		return Geometry{Type: t}, err
	}
	return s.geometry(), nil
}

// decodeShape decodes an unpacked command stream into s, reusing its
// buffers.
func decodeShape(t GeomType, cmds []uint32, s *Shape) error {
	var b []byte
	for _, c := range cmds {
		b = appendVarint(b, uint64(c))
	}
	return decodePackedShape(t, b, s)
}

// decodePackedShape decodes a packed command stream into s, reusing its
// buffers.
func decodePackedShape(t GeomType, cmds []byte, s *Shape) error {
	s.Type = t
	s.XY, s.Ends, s.Polys = s.XY[:0], s.Ends[:0], s.Polys[:0]
	d := geomDecoder{b: cmds}
	switch t {
	case Point:
		id, count, err := d.firstCommand()
		if err != nil {
			return err
		}
		if id != cmdMoveTo || count == 0 {
			return fmt.Errorf("point geometry must start with MoveTo with count > 0, got command %d count %d", id, count)
		}
		if s.XY, err = d.points(s.XY, count); err != nil {
			return err
		}
		if !d.done() {
			return fmt.Errorf("point geometry has %d trailing bytes", len(cmds)-d.pos)
		}
		s.Ends = append(s.Ends, len(s.XY))
	case LineString:
		for !d.done() {
			start, err := d.moveTo()
			if err != nil {
				return err
			}
			if d.done() {
				return errors.New("line string ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return err
			}
			if id != cmdLineTo || count == 0 {
				return fmt.Errorf("expected LineTo with count > 0, got command %d count %d", id, count)
			}
			s.XY = append(s.XY, start)
			if s.XY, err = d.points(s.XY, count); err != nil {
				return err
			}
			s.Ends = append(s.Ends, len(s.XY))
		}
		if len(s.Ends) == 0 {
			return errors.New("empty line string geometry")
		}
	case Polygon:
		sign := int64(0) // sign of exterior rings, from the first ring
		for !d.done() {
			start, err := d.moveTo()
			if err != nil {
				return err
			}
			if d.done() {
				return errors.New("polygon ring ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return err
			}
			if id != cmdLineTo || count < 2 {
				return fmt.Errorf("expected LineTo with count >= 2 in ring, got command %d count %d", id, count)
			}
			first := len(s.XY)
			s.XY = append(s.XY, start)
			if s.XY, err = d.points(s.XY, count); err != nil {
				return err
			}
			if d.done() {
				return errors.New("polygon ring is not closed with ClosePath")
			}
			id, count, err = d.command()
			if err != nil {
				return err
			}
			if id != cmdClosePath || count != 1 {
				return fmt.Errorf("expected ClosePath with count 1, got command %d count %d", id, count)
			}
			a := RingArea(s.XY[first:])
			if a == 0 {
				s.XY = s.XY[:first] // degenerate ring: no area to draw
				continue
			}
			s.XY = append(s.XY, start)
			s.Ends = append(s.Ends, len(s.XY))
			if sign == 0 {
				sign = a
			}
			if (a > 0) == (sign > 0) {
				s.Polys = append(s.Polys, len(s.Ends))
			} else {
				s.Polys[len(s.Polys)-1] = len(s.Ends)
			}
		}
	default:
		return fmt.Errorf("unknown geometry type %d", t)
	}
	return nil
}

func (d *geomDecoder) firstCommand() (int, int, error) {
	if d.done() {
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
