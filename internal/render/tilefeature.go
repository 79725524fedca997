package render

import (
	"unsafe"

	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// tileLayer is what the features of one source layer of a decoded vector
// tile share: the layer's keys and values, which their tags index.
type tileLayer struct {
	keys   []string
	values []mvt.Value
}

// size estimates the bytes of the layer's tables (its strings are counted
// with the tile's bytes).
func (l *tileLayer) size() int64 {
	return int64(unsafe.Sizeof(*l)) +
		int64(len(l.keys))*int64(unsafe.Sizeof("")) +
		int64(len(l.values))*int64(unsafe.Sizeof(mvt.Value{}))
}

// tileFeature is a vector tile feature as expressions read it. Its
// properties stay pairs of indexes into its layer's keys and values and are
// resolved as expressions ask for them: a filter reads one or two of a
// feature's many properties, and most features (buildings, house numbers)
// are read by no filter at all. Never modified once decoded.
type tileFeature struct {
	layer *tileLayer
	// tags holds the properties as indexes into layer's keys and values
	// (key, value, key, value...), checked against them.
	tags  []uint32
	id    uint64
	hasID bool
	kind  mvt.GeomType
}

// Property implements expr.Feature. When a key is repeated, its first
// value is the property's.
func (f *tileFeature) Property(key string) (expr.Value, bool) {
	keys := f.layer.keys
	for i := 0; i+1 < len(f.tags); i += 2 {
		if keys[f.tags[i]] == key {
			return tileValue(f.layer.values[f.tags[i+1]]), true
		}
	}
	return expr.Value{}, false
}

// Properties implements expr.Feature: a new object of the properties, in
// the tile's order.
func (f *tileFeature) Properties() *expr.Object {
	n := len(f.tags) / 2
	keys, vals := make([]string, n), make([]expr.Value, n)
	for k := range n {
		keys[k], vals[k] = f.layer.keys[f.tags[2*k]], tileValue(f.layer.values[f.tags[2*k+1]])
	}
	return expr.ObjectOf(keys, vals)
}

// ID implements expr.Feature.
func (f *tileFeature) ID() expr.Value {
	if !f.hasID {
		return expr.Null()
	}
	return expr.Number(float64(f.id))
}

// GeometryType implements expr.Feature.
func (f *tileFeature) GeometryType() string {
	switch f.kind {
	case mvt.Point:
		return "Point"
	case mvt.LineString:
		return "LineString"
	case mvt.Polygon:
		return "Polygon"
	}
	return ""
}

// Geometry implements expr.Feature: tile features give expressions no
// geometry.
func (f *tileFeature) Geometry() [][]expr.Point { return nil }
