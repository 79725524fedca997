package render

import (
	"math"
	"testing"

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
		{"first key", tileFeature{layer: layer, tags: []uint32{0, 0, 1, 1}, kind: mvt.LineString}, "class", expr.String("street"), true, expr.Null(), "LineString"},
		{"later key", tileFeature{layer: layer, tags: []uint32{0, 0, 2, 2}, id: 7, hasID: true, kind: mvt.Point}, "rank", expr.Number(3), true, expr.Number(7), "Point"},
		{"absent key", tileFeature{layer: layer, tags: []uint32{0, 0}, kind: mvt.Polygon}, "name", expr.Value{}, false, expr.Null(), "Polygon"},
		{"no properties", tileFeature{layer: layer, id: 0, hasID: true}, "class", expr.Value{}, false, expr.Number(0), ""},
		{"a repeated key gives its first value", tileFeature{layer: layer, tags: []uint32{0, 3, 0, 0}, kind: mvt.LineString}, "class", expr.String("path"), true, expr.Null(), "LineString"},
		{"a float value", tileFeature{layer: layer, tags: []uint32{2, 4}, kind: mvt.Point}, "rank", expr.Number(1.5), true, expr.Null(), "Point"},
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
