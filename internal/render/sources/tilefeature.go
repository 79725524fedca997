package sources

import (
	"unsafe"

	"github.com/paulmach/orb"
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
	kind  uint8 // an mvt.GeomType
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
	switch mvt.GeomType(f.kind) {
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

// tileProjection converts the positions of a tile z/tx/ty of an extent to
// world coordinates: (tx + x/extent) / 2^z.
type tileProjection struct {
	tx, ty int
	ext, n float64
	// exact: the extent is a power of two (as tiles have), and the sums
	// are exact, so that (tx*extent + x) / (extent*2^z), an integer sum
	// and a multiplication by a power of two, gives the same bits as the
	// formula, without its two divisions.
	exact bool
	scale float64 // 1 / (extent*2^z)
}

func newTileProjection(tx, ty, z int, extent uint32) tileProjection {
	p := tileProjection{tx: tx, ty: ty, ext: float64(extent), n: float64(int(1) << z)}
	// tx*extent + x stays below 2^53: float64 holds it exactly.
	const limit = 1 << 52
	e := int64(extent)
	p.exact = extent&(extent-1) == 0 && z <= 62 &&
		(max(abs64(int64(tx)), abs64(int64(ty)))+1)*e < limit-(1<<31) && e < 1<<31
	p.scale = 1 / (p.ext * p.n)
	return p
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// world converts positions to world coordinates, into dst (of the same
// length).
func (p tileProjection) world(dst []orb.Point, src []mvt.XY) []orb.Point {
	dst = dst[:len(src)]
	if p.exact {
		ox, oy, e := int64(p.tx)*int64(p.ext), int64(p.ty)*int64(p.ext), p.scale
		for k, q := range src {
			dst[k] = orb.Point{float64(ox+int64(q.X)) * e, float64(oy+int64(q.Y)) * e}
		}
		return dst
	}
	for k, q := range src {
		dst[k] = orb.Point{(float64(p.tx) + float64(q.X)/p.ext) / p.n, (float64(p.ty) + float64(q.Y)/p.ext) / p.n}
	}
	return dst
}

// sameSlice tells whether a and b are the same slice: the same elements of
// the same array (two empty slices are the same).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
