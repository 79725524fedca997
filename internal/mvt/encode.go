package mvt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Feature is one feature to encode.
type Feature struct {
	// ID is the feature id; it is written only when HasID is true.
	ID    uint64
	HasID bool
	// Geometry in tile coordinates.
	Geometry Geometry
	// Properties maps attribute names to values: string, bool, int, int8..64,
	// uint, uint8..64, float32, float64. Nil values are skipped; other values
	// (slices, maps...) are written as their JSON text.
	Properties map[string]any
}

// valueKey identifies a value for deduplication.
type valueKey struct {
	kind int // field number in the Value message
	s    string
	u    uint64 // integer or float bits
}

// LayerBuilder accumulates the features of one layer.
type LayerBuilder struct {
	name     string
	extent   uint32
	keys     []string
	keyIdx   map[string]uint32
	values   []valueKey
	valueIdx map[valueKey]uint32
	features [][]byte
	tags     []uint32
	keyBuf   []string
}

// NewLayerBuilder returns a builder for a layer with the given name and
// extent (0 means DefaultExtent).
func NewLayerBuilder(name string, extent uint32) (*LayerBuilder, error) {
	if name == "" {
		return nil, errors.New("mvt: layer name is empty")
	}
	if extent == 0 {
		extent = DefaultExtent
	}
	return &LayerBuilder{
		name:     name,
		extent:   extent,
		keyIdx:   map[string]uint32{},
		valueIdx: map[valueKey]uint32{},
	}, nil
}

// Name returns the layer name.
func (b *LayerBuilder) Name() string { return b.name }

// Extent returns the layer extent.
func (b *LayerBuilder) Extent() uint32 { return b.extent }

// Len returns the number of features added so far.
func (b *LayerBuilder) Len() int { return len(b.features) }

// Add encodes f into the layer. It reports false (and no error) when the
// geometry is empty or entirely degenerate so that nothing was added.
func (b *LayerBuilder) Add(f Feature) (bool, error) {
	cmds, ok, err := encodeGeometry(f.Geometry)
	if err != nil {
		return false, fmt.Errorf("mvt: layer %q: feature %d: %w", b.name, len(b.features), err)
	}
	if !ok {
		return false, nil
	}
	b.tags = b.tags[:0]
	b.keyBuf = b.keyBuf[:0]
	for k := range f.Properties {
		b.keyBuf = append(b.keyBuf, k)
	}
	sort.Strings(b.keyBuf)
	for _, k := range b.keyBuf {
		vk, ok, err := toValueKey(f.Properties[k])
		if err != nil {
			return false, fmt.Errorf("mvt: layer %q: property %q: %w", b.name, k, err)
		}
		if !ok {
			continue
		}
		ki, found := b.keyIdx[k]
		if !found {
			ki = uint32(len(b.keys))
			b.keys = append(b.keys, k)
			b.keyIdx[k] = ki
		}
		vi, found := b.valueIdx[vk]
		if !found {
			vi = uint32(len(b.values))
			b.values = append(b.values, vk)
			b.valueIdx[vk] = vi
		}
		b.tags = append(b.tags, ki, vi)
	}

	var msg []byte
	if f.HasID {
		msg = appendVarintField(msg, 1, f.ID)
	}
	if len(b.tags) > 0 {
		msg = appendPacked(msg, 2, b.tags)
	}
	msg = appendVarintField(msg, 3, uint64(f.Geometry.Type))
	msg = appendPacked(msg, 4, cmds)
	b.features = append(b.features, msg)
	return true, nil
}

func appendPacked(b []byte, field int, vs []uint32) []byte {
	n := 0
	for _, v := range vs {
		n += varintLen(uint64(v))
	}
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(n))
	for _, v := range vs {
		b = appendVarint(b, uint64(v))
	}
	return b
}

func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Value message field numbers.
const (
	valString = 1
	valFloat  = 2
	valDouble = 3
	valInt    = 4
	valUint   = 5
	valSint   = 6
	valBool   = 7
)

func toValueKey(v any) (valueKey, bool, error) {
	switch x := v.(type) {
	case nil:
		return valueKey{}, false, nil
	case string:
		return valueKey{kind: valString, s: x}, true, nil
	case bool:
		u := uint64(0)
		if x {
			u = 1
		}
		return valueKey{kind: valBool, u: u}, true, nil
	case float64:
		return valueKey{kind: valDouble, u: math.Float64bits(x)}, true, nil
	case float32:
		return valueKey{kind: valFloat, u: uint64(math.Float32bits(x))}, true, nil
	case int:
		return intKey(int64(x)), true, nil
	case int8:
		return intKey(int64(x)), true, nil
	case int16:
		return intKey(int64(x)), true, nil
	case int32:
		return intKey(int64(x)), true, nil
	case int64:
		return intKey(x), true, nil
	case uint:
		return valueKey{kind: valUint, u: uint64(x)}, true, nil
	case uint8:
		return valueKey{kind: valUint, u: uint64(x)}, true, nil
	case uint16:
		return valueKey{kind: valUint, u: uint64(x)}, true, nil
	case uint32:
		return valueKey{kind: valUint, u: uint64(x)}, true, nil
	case uint64:
		return valueKey{kind: valUint, u: x}, true, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return intKey(i), true, nil
		}
		f, err := x.Float64()
		if err != nil {
			return valueKey{}, false, fmt.Errorf("number %q: %w", x, err)
		}
		return valueKey{kind: valDouble, u: math.Float64bits(f)}, true, nil
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return valueKey{}, false, fmt.Errorf("value of type %T: %w", v, err)
		}
		return valueKey{kind: valString, s: string(b)}, true, nil
	}
}

// intKey stores non-negative integers as uint_value and negative ones as
// sint_value (zigzag), the compact choices of the specification.
func intKey(i int64) valueKey {
	if i >= 0 {
		return valueKey{kind: valUint, u: uint64(i)}
	}
	return valueKey{kind: valSint, u: zigzag64(i)}
}

func (v valueKey) appendTo(b []byte) []byte {
	var msg []byte
	switch v.kind {
	case valString:
		msg = appendStringField(nil, valString, v.s)
	case valFloat:
		msg = appendTag(nil, valFloat, wireFixed32)
		u := uint32(v.u)
		msg = append(msg, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	case valDouble:
		msg = appendTag(nil, valDouble, wireFixed64)
		for i := 0; i < 8; i++ {
			msg = append(msg, byte(v.u>>(8*i)))
		}
	default: // int, uint, sint, bool: varints
		msg = appendVarintField(nil, v.kind, v.u)
	}
	return appendBytesField(b, 4, msg)
}

// appendLayer appends the Layer message of b (without the Tile field key).
func (b *LayerBuilder) appendLayer(dst []byte) []byte {
	dst = appendVarintField(dst, 15, 2)
	dst = appendStringField(dst, 1, b.name)
	for _, f := range b.features {
		dst = appendBytesField(dst, 2, f)
	}
	for _, k := range b.keys {
		dst = appendStringField(dst, 3, k)
	}
	for _, v := range b.values {
		dst = v.appendTo(dst)
	}
	dst = appendVarintField(dst, 5, uint64(b.extent))
	return dst
}

// EncodeTile returns the vector tile holding the given layers. Layers without
// features are left out; layer names must be unique.
func EncodeTile(layers ...*LayerBuilder) ([]byte, error) {
	seen := make(map[string]bool, len(layers))
	var out []byte
	for _, l := range layers {
		if l == nil || len(l.features) == 0 {
			continue
		}
		if seen[l.name] {
			return nil, fmt.Errorf("mvt: duplicate layer name %q", l.name)
		}
		seen[l.name] = true
		out = appendBytesField(out, 3, l.appendLayer(nil))
	}
	return out, nil
}
