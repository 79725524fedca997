package sources

import (
	"math"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func TestTileFeature(t *testing.T) {
	layer := &tileLayer{
		keys: []string{"class", "name", "rank"},
		values: []mvt.Value{
			{Type: mvt.StringValue, Str: "street"},
			{Type: mvt.StringValue, Str: "Oranienstraße"},
			{Type: mvt.IntValue, Bits: 3},
			{Type: mvt.StringValue, Str: "path"},
			{Type: mvt.FloatValue, Bits: uint64(math.Float32bits(1.5))},
		},
	}
	tests := []struct {
		name  string
		f     tileFeature
		key   string
		want  expr.Value
		found bool
		id    expr.Value
		typ   string
	}{
		{"first key", tileFeature{layer: layer, tags: []uint32{0, 0, 1, 1}, kind: uint8(mvt.LineString)}, "class", expr.String("street"), true, expr.Null(), "LineString"},
		{"later key", tileFeature{layer: layer, tags: []uint32{0, 0, 2, 2}, id: 7, hasID: true, kind: uint8(mvt.Point)}, "rank", expr.Number(3), true, expr.Number(7), "Point"},
		{"absent key", tileFeature{layer: layer, tags: []uint32{0, 0}, kind: uint8(mvt.Polygon)}, "name", expr.Value{}, false, expr.Null(), "Polygon"},
		{"no properties", tileFeature{layer: layer, id: 0, hasID: true}, "class", expr.Value{}, false, expr.Number(0), ""},
		{"a repeated key gives its first value", tileFeature{layer: layer, tags: []uint32{0, 3, 0, 0}, kind: uint8(mvt.LineString)}, "class", expr.String("path"), true, expr.Null(), "LineString"},
		{"a float value", tileFeature{layer: layer, tags: []uint32{2, 4}, kind: uint8(mvt.Point)}, "rank", expr.Number(1.5), true, expr.Null(), "Point"},
	}
	for _, tc := range tests {
		got, ok := tc.f.Property(tc.key)
		if ok != tc.found || got != tc.want {
			t.Errorf("%s: Property(%q) = %v, %v; want %v, %v", tc.name, tc.key, got, ok, tc.want, tc.found)
		}
		if id := tc.f.ID(); id != tc.id {
			t.Errorf("%s: ID() = %v, want %v", tc.name, id, tc.id)
		}
		if typ := tc.f.GeometryType(); typ != tc.typ {
			t.Errorf("%s: GeometryType() = %q, want %q", tc.name, typ, tc.typ)
		}
		// Properties holds every tag, in the tile's order, and agrees
		// with Property.
		props := tc.f.Properties()
		if props.Len() != len(tc.f.tags)/2 {
			t.Errorf("%s: %d properties, want %d", tc.name, props.Len(), len(tc.f.tags)/2)
		}
		for k, key := range props.Keys() {
			if key != layer.keys[tc.f.tags[2*k]] {
				t.Errorf("%s: property %d is %q, want %q", tc.name, k, key, layer.keys[tc.f.tags[2*k]])
			}
		}
		if got, ok := props.Get(tc.key); ok != tc.found || got != tc.want {
			t.Errorf("%s: Properties().Get(%q) = %v, %v; want %v, %v", tc.name, tc.key, got, ok, tc.want, tc.found)
		}
	}
}

// TestTileProjection holds the projection of tile positions to the
// formula (tx + x/extent) / 2^z, bit for bit.
func TestTileProjection(t *testing.T) {
	tests := []struct {
		name      string
		tx, ty, z int
		extent    uint32
		exact     bool
	}{
		{"a street tile", 8803, 5375, 14, 4096, true},
		{"the world", 0, 0, 0, 4096, true},
		{"a small extent", 3, 5, 3, 512, true},
		{"a copy of the world west", -3, 1, 1, 4096, true},
		{"a copy of the world east", 9, 1, 3, 8192, true},
		{"a deep zoom", 1<<22 - 1, 1 << 21, 22, 4096, true},
		{"an extent not a power of two", 8803, 5375, 14, 1000, false},
		{"an extent of one", 2, 2, 2, 1, true},
		{"sums too large for the exact way", 1 << 30, 1 << 30, 31, 1 << 30, false},
	}
	xy := []mvt.XY{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: -1, Y: -1}, {X: 4095, Y: 4096}, {X: -128, Y: 4224}, {X: 12345, Y: -54321}, {X: math.MaxInt32, Y: math.MinInt32}}
	for _, tc := range tests {
		p := newTileProjection(tc.tx, tc.ty, tc.z, tc.extent)
		if p.exact != tc.exact {
			t.Errorf("%s: exact %v, want %v", tc.name, p.exact, tc.exact)
		}
		got := p.world(make([]orb.Point, len(xy)), xy)
		ext, n := float64(tc.extent), float64(int(1)<<tc.z)
		for k, q := range xy {
			want := orb.Point{(float64(tc.tx) + float64(q.X)/ext) / n, (float64(tc.ty) + float64(q.Y)/ext) / n}
			if math.Float64bits(got[k][0]) != math.Float64bits(want[0]) || math.Float64bits(got[k][1]) != math.Float64bits(want[1]) {
				t.Errorf("%s: %v gives %v, want %v", tc.name, q, got[k], want)
			}
		}
	}
}

// FuzzTileProjection holds the projection to the formula, bit for bit,
// for any tile, extent and position.
func FuzzTileProjection(f *testing.F) {
	f.Add(8803, 5375, uint8(14), uint32(4096), int32(-128), int32(4224))
	f.Add(-3, 1, uint8(1), uint32(512), int32(0), int32(-1))
	f.Fuzz(func(t *testing.T, tx, ty int, z uint8, extent uint32, x, y int32) {
		if z > 40 || extent == 0 || tx > 1<<40 || tx < -1<<40 || ty > 1<<40 || ty < -1<<40 {
			return
		}
		p := newTileProjection(tx, ty, int(z), extent)
		got := p.world(make([]orb.Point, 1), []mvt.XY{{X: x, Y: y}})[0]
		ext, n := float64(extent), float64(int(1)<<z)
		want := orb.Point{(float64(tx) + float64(x)/ext) / n, (float64(ty) + float64(y)/ext) / n}
		if math.Float64bits(got[0]) != math.Float64bits(want[0]) || math.Float64bits(got[1]) != math.Float64bits(want[1]) {
			t.Fatalf("tile %d/%d/%d extent %d: (%d,%d) gives %v, want %v (exact %v)", z, tx, ty, extent, x, y, got, want, p.exact)
		}
	})
}

func TestSameSlice(t *testing.T) {
	a := []int{1, 2, 3}
	b := []int{1, 2, 3}
	tests := []struct {
		name string
		x, y []int
		want bool
	}{
		{"the same slice", a, a, true},
		{"equal elements of another array", a, b, false},
		{"a shorter slice of the array", a, a[:2], false},
		{"a slice further on", a[1:], a[1:], true},
		{"two empty slices", nil, a[:0], true},
		{"an empty and a full slice", nil, a, false},
	}
	for _, tc := range tests {
		if got := sameSlice(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
