package geocode

import (
	"testing"

	"github.com/paulmach/orb"
)

func TestGeometryRoundTrip(t *testing.T) {
	sq := orb.Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	hole := orb.Ring{{2, 2}, {3, 2}, {3, 3}, {2, 2}}
	tests := []orb.Geometry{
		orb.Point{7.5732, 47.5584},
		orb.LineString{{-180, -90}, {180, 90}},
		orb.Polygon{sq, hole},
		orb.MultiPoint{{1, 2}, {3, 4}},
		orb.MultiLineString{{{1, 1}, {2, 2}}, {{3, 3}, {4, 4.1234567}}},
		orb.MultiPolygon{{sq}, {hole}},
	}
	for _, g := range tests {
		b := encodeGeometry(nil, g)
		got, err := decodeGeometry(b)
		if err != nil {
			t.Fatalf("%T: %v", g, err)
		}
		if !orb.Equal(got, g) {
			t.Errorf("%T: got %v, want %v", g, got, g)
		}
	}
	if g, err := decodeGeometry(nil); g != nil || err != nil {
		t.Errorf("empty blob: %v %v", g, err)
	}
	if _, err := decodeGeometry([]byte{99}); err == nil {
		t.Error("unknown kind accepted")
	}
}

func FuzzDecodeGeometry(f *testing.F) {
	f.Add(encodeGeometry(nil, orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}))
	f.Add(encodeGeometry(nil, orb.MultiLineString{{{0, 0}, {1, 1}}}))
	f.Add([]byte{gMultiPolygon, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := decodeGeometry(b)
		if err != nil || g == nil {
			return
		}
		if _, err := MarshalGeometry(g); err != nil {
			t.Fatalf("decoded geometry does not marshal: %v", err)
		}
	})
}

func TestMarshalGeometry(t *testing.T) {
	b, err := MarshalGeometry(orb.Collection{orb.Point{1, 2}, orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},` +
		`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}]}`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
}
