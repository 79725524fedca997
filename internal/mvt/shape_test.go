package mvt

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestDecodeShape(t *testing.T) {
	tests := []struct {
		name  string
		typ   GeomType
		cmds  []uint32
		want  Shape
		fails bool
	}{
		{name: "point", typ: Point, cmds: []uint32{9, 4, 6},
			want: Shape{Type: Point, XY: []XY{{2, 3}}, Ends: []int{1}}},
		{name: "multipoint", typ: Point, cmds: []uint32{17, 10, 14, 3, 9},
			want: Shape{Type: Point, XY: []XY{{5, 7}, {3, 2}}, Ends: []int{2}}},
		{name: "line", typ: LineString, cmds: []uint32{9, 4, 4, 18, 0, 16, 16, 0},
			want: Shape{Type: LineString, XY: []XY{{2, 2}, {2, 10}, {10, 10}}, Ends: []int{3}}},
		{name: "multiline", typ: LineString, cmds: []uint32{9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8},
			want: Shape{Type: LineString, XY: []XY{{2, 2}, {2, 10}, {10, 10}, {1, 1}, {3, 5}}, Ends: []int{3, 5}}},
		{name: "polygon with a hole and a second polygon", typ: Polygon, cmds: []uint32{
			9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, // exterior (0,0) (10,0) (10,10) (0,10)
			9, 2, 3, 26, 0, 12, 12, 0, 0, 11, 15, // hole (1,8) (1,14) (7,14) (7,8): the other winding
			9, 38, 11, 26, 4, 0, 0, 4, 3, 0, 15, // exterior (26,2) (28,2) (28,4) (26,4)
		},
			want: Shape{Type: Polygon,
				XY: []XY{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0},
					{1, 8}, {1, 14}, {7, 14}, {7, 8}, {1, 8},
					{26, 2}, {28, 2}, {28, 4}, {26, 4}, {26, 2}},
				Ends: []int{5, 10, 15}, Polys: []int{2, 3}}},
		{name: "degenerate ring dropped", typ: Polygon, cmds: []uint32{9, 0, 0, 18, 2, 2, 2, 2, 15},
			want: Shape{Type: Polygon}},
		{name: "empty point", typ: Point, fails: true},
		{name: "ring not closed", typ: Polygon, cmds: []uint32{9, 0, 0, 18, 10, 0, 0, 10}, fails: true},
		{name: "unknown type", typ: Unknown, cmds: []uint32{9, 2, 2}, fails: true},
	}
	var s Shape // reused from case to case, as callers do
	for _, tc := range tests {
		err := decodeShape(tc.typ, tc.cmds, &s)
		if tc.fails {
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := Shape{Type: s.Type, XY: s.XY, Ends: s.Ends, Polys: s.Polys}
		if len(got.XY) == 0 {
			got.XY, got.Ends, got.Polys = nil, nil, nil
		}
		if len(got.Polys) == 0 {
			got.Polys = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
		// The Geometry of the same stream has the same positions.
		g, err := decodeGeometry(tc.typ, tc.cmds)
		if err != nil {
			t.Fatalf("%s: geometry: %v", tc.name, err)
		}
		var flat []XY
		flat = append(flat, g.Points...)
		for _, l := range g.Lines {
			flat = append(flat, l...)
		}
		for _, p := range g.Polygons {
			for _, r := range p {
				flat = append(flat, r...)
			}
		}
		if !reflect.DeepEqual(flat, tc.want.XY) {
			t.Errorf("%s: geometry positions %v, want %v", tc.name, flat, tc.want.XY)
		}
	}
}

// TestFeatureIntoReuse decodes every feature of real tiles into one
// DecodedFeature and Shape and checks them against Feature and Geometry.
func TestFeatureIntoReuse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir(t), "render-tests/tiles/*.mvt"))
	if len(files) == 0 {
		t.Skip("no tiles")
	}
	var df DecodedFeature
	var s Shape
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tile, err := Decode(data)
		if err != nil {
			continue
		}
		for _, l := range tile.Layers {
			for i := 0; i < l.Len(); i++ {
				f, err := l.Feature(i)
				err2 := l.FeatureInto(i, &df)
				if (err == nil) != (err2 == nil) {
					t.Fatalf("%s %s %d: %v vs %v", path, l.Name, i, err, err2)
				}
				if err != nil {
					continue
				}
				if f.ID != df.ID || f.HasID != df.HasID || f.Type != df.Type || !slices.Equal(f.tags, df.tags) {
					t.Fatalf("%s %s %d: header %+v vs %+v", path, l.Name, i, f, &df)
				}
				g, err := f.Geometry()
				err2 = df.Shape(&s)
				if (err == nil) != (err2 == nil) {
					t.Fatalf("%s %s %d: %v vs %v", path, l.Name, i, err, err2)
				}
				if err == nil && !reflect.DeepEqual(g, s.geometry()) {
					t.Fatalf("%s %s %d: geometry differs", path, l.Name, i)
				}
			}
		}
	}
}

// FuzzPackedShape holds the decoder of packed geometry to the decoder of
// the unpacked integers (refDecodeShape): both fail, or both give the same
// shape.
func FuzzPackedShape(f *testing.F) {
	pack := func(cmds ...uint32) []byte {
		var b []byte
		for _, c := range cmds {
			b = appendVarint(b, uint64(c))
		}
		return b
	}
	f.Add(uint8(Point), pack(9, 4, 6))
	f.Add(uint8(Point), pack(17, 10, 14, 3, 9))
	f.Add(uint8(Point), pack(17, 10, 14, 3))
	f.Add(uint8(LineString), pack(9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8))
	f.Add(uint8(LineString), pack(9, 400, 4, 26, 1000, 16, 16, 0, 3000, 2))
	f.Add(uint8(Polygon), pack(9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 2, 3, 26, 0, 12, 12, 0, 0, 11, 15))
	f.Add(uint8(Polygon), pack(9, 0, 0, 18, 2, 2, 2, 2, 15))
	f.Add(uint8(LineString), pack(9, 0xfffffffe, 0, 10, 0xfffffffe, 0))
	f.Add(uint8(Point), []byte{9, 0xff, 0xff, 0xff, 0xff, 0x1f, 0})
	f.Fuzz(func(t *testing.T, typ uint8, b []byte) {
		var got, want Shape
		err := decodePackedShape(GeomType(typ), b, &got)
		cmds, wantErr := packedUint32(nil, b)
		if wantErr == nil {
			wantErr = refDecodeShape(GeomType(typ), cmds, &want)
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("type %d % x: packed decoder: %v; unpacked: %v", typ, b, err, wantErr)
		}
		if err != nil {
			return
		}
		if got.Type != want.Type || !slices.Equal(got.XY, want.XY) || !slices.Equal(got.Ends, want.Ends) || !slices.Equal(got.Polys, want.Polys) {
			t.Fatalf("type %d % x: packed decoder gives %+v, unpacked %+v", typ, b, got, want)
		}
	})
}
