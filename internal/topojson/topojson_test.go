package topojson

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/paulmach/orb"
)

const twoSquares = `{
  "type": "Topology",
  "bbox": [0, 0, 2, 1],
  "objects": {
    "squares": {"type": "GeometryCollection", "geometries": [
      {"type": "Polygon", "id": "WEST", "properties": {"name": "West"}, "arcs": [[1, 0]]},
      {"type": null, "properties": {"name": "Nowhere"}},
      {"type": "Polygon", "id": 528, "arcs": [[2, -1]]}
    ]},
    "misc": {"type": "GeometryCollection", "geometries": [
      {"type": "MultiLineString", "arcs": [[0], [-3]]},
      {"type": "MultiPoint", "coordinates": [[5, 6], [7, 8]]},
      {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [1, 2]}, {"type": "LineString", "arcs": [1, 0]}]},
      {"type": "MultiPolygon", "arcs": [[[1, 0]], [[2, -1]]]}
    ]},
    "single": {"type": "LineString", "id": 7.5, "arcs": [0]}
  },
  "arcs": [
    [[1, 0], [1, 1]],
    [[1, 1], [0, 1], [0, 0], [1, 0]],
    [[1, 0], [2, 0], [2, 1], [1, 1]]
  ]
}`

func mustDecode(t *testing.T, s string) *Topology {
	t.Helper()
	top, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return top
}

func near(a, b orb.Point) bool {
	return math.Abs(a[0]-b[0]) < 1e-3 && math.Abs(a[1]-b[1]) < 1e-3
}

func sameLine(t *testing.T, what string, got []orb.Point, want []orb.Point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d points %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if !near(got[i], want[i]) {
			t.Fatalf("%s: point %d = %v, want %v (all %v)", what, i, got[i], want[i], got)
		}
	}
}

// TestSpecExample decodes the example topology of the TopoJSON specification
// and compares with the GeoJSON the specification gives for it.
func TestSpecExample(t *testing.T) {
	data, err := os.ReadFile("testdata/spec_example.json")
	if err != nil {
		t.Fatal(err)
	}
	top := mustDecode(t, string(data))
	if top.Transform == nil || top.Transform.Translate != [2]float64{100, 0} {
		t.Fatalf("transform = %+v", top.Transform)
	}
	feats, err := top.Features("example")
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) != 3 {
		t.Fatalf("got %d features, want 3", len(feats))
	}
	pt, ok := feats[0].Geometry.(orb.Point)
	if !ok || !near(pt, orb.Point{102, 0.5}) {
		t.Errorf("point = %#v, want [102 0.5]", feats[0].Geometry)
	}
	if feats[0].Properties["prop0"] != "value0" {
		t.Errorf("point properties = %v", feats[0].Properties)
	}
	ls, ok := feats[1].Geometry.(orb.LineString)
	if !ok {
		t.Fatalf("feature 1 is %T", feats[1].Geometry)
	}
	sameLine(t, "linestring", ls, []orb.Point{{102, 0}, {103, 1}, {104, 0}, {105, 1}})
	if feats[1].Properties["prop1"] != float64(0) {
		t.Errorf("prop1 = %#v", feats[1].Properties["prop1"])
	}
	poly, ok := feats[2].Geometry.(orb.Polygon)
	if !ok || len(poly) != 1 {
		t.Fatalf("feature 2 is %#v", feats[2].Geometry)
	}
	sameLine(t, "polygon", poly[0], []orb.Point{{100, 0}, {101, 0}, {101, 1}, {100, 1}, {100, 0}})
}

func TestFeaturesUnquantized(t *testing.T) {
	top := mustDecode(t, twoSquares)
	if got := strings.Join(top.Objects(), ","); got != "misc,single,squares" {
		t.Errorf("Objects() = %s", got)
	}
	if !top.HasBBox || top.BBox.Max != (orb.Point{2, 1}) {
		t.Errorf("bbox = %v %v", top.HasBBox, top.BBox)
	}
	feats, err := top.Features("squares")
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) != 2 {
		t.Fatalf("got %d features, want 2 (null geometry skipped)", len(feats))
	}
	tests := []struct {
		id   string
		name any
		ring []orb.Point
	}{
		{"WEST", "West", []orb.Point{{1, 1}, {0, 1}, {0, 0}, {1, 0}, {1, 1}}},
		{"528", nil, []orb.Point{{1, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 0}}},
	}
	for i, tc := range tests {
		f := feats[i]
		if f.ID != tc.id || f.Properties["name"] != tc.name {
			t.Errorf("feature %d: id %q name %v, want %q %v", i, f.ID, f.Properties["name"], tc.id, tc.name)
		}
		if f.Properties == nil {
			t.Errorf("feature %d: nil properties", i)
		}
		p, ok := f.Geometry.(orb.Polygon)
		if !ok || len(p) != 1 {
			t.Fatalf("feature %d geometry %#v", i, f.Geometry)
		}
		sameLine(t, tc.id, p[0], tc.ring)
	}

	misc, err := top.Features("misc")
	if err != nil {
		t.Fatal(err)
	}
	if len(misc) != 4 {
		t.Fatalf("misc: %d features", len(misc))
	}
	mls := misc[0].Geometry.(orb.MultiLineString)
	sameLine(t, "mls[0]", mls[0], []orb.Point{{1, 0}, {1, 1}})
	sameLine(t, "mls[1] reversed", mls[1], []orb.Point{{1, 1}, {2, 1}, {2, 0}, {1, 0}})
	sameLine(t, "multipoint", misc[1].Geometry.(orb.MultiPoint), []orb.Point{{5, 6}, {7, 8}})
	coll := misc[2].Geometry.(orb.Collection)
	if len(coll) != 2 || coll[0].(orb.Point) != (orb.Point{1, 2}) {
		t.Errorf("collection = %#v", coll)
	}
	sameLine(t, "collection line", coll[1].(orb.LineString), []orb.Point{{1, 1}, {0, 1}, {0, 0}, {1, 0}, {1, 1}})
	if mp := misc[3].Geometry.(orb.MultiPolygon); len(mp) != 2 || len(mp[1][0]) != 5 {
		t.Errorf("multipolygon = %#v", mp)
	}

	single, err := top.Features("single")
	if err != nil || len(single) != 1 || single[0].ID != "7.5" {
		t.Fatalf("single = %+v, %v", single, err)
	}
	if _, err := top.Features("nope"); err == nil {
		t.Error("Features of a missing object: no error")
	}
}

func TestMesh(t *testing.T) {
	top := mustDecode(t, twoSquares)
	lines, err := top.MeshLines("squares")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ arc, a, b int }{{0, 0, 1}, {1, 0, 0}, {2, 1, 1}}
	if len(lines) != len(want) {
		t.Fatalf("got %d mesh lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i, w := range want {
		if lines[i].Arc != w.arc || lines[i].A != w.a || lines[i].B != w.b {
			t.Errorf("line %d = arc %d (%d,%d), want arc %d (%d,%d)", i, lines[i].Arc, lines[i].A, lines[i].B, w.arc, w.a, w.b)
		}
	}
	inner, err := top.Mesh("squares", func(a, b *Feature) bool { return a != b })
	if err != nil {
		t.Fatal(err)
	}
	if len(inner) != 1 {
		t.Fatalf("inner mesh = %v", inner)
	}
	sameLine(t, "inner boundary", inner[0], []orb.Point{{1, 0}, {1, 1}})
	outer, err := top.Mesh("squares", func(a, b *Feature) bool { return a == b })
	if err != nil || len(outer) != 2 {
		t.Fatalf("outer mesh = %v, %v", outer, err)
	}
	all, err := top.Mesh("squares", nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("full mesh = %v, %v", all, err)
	}
	named, err := top.Mesh("squares", func(a, b *Feature) bool { return a.ID == "WEST" && b.ID == "528" })
	if err != nil || len(named) != 1 {
		t.Fatalf("mesh between WEST and 528 = %v, %v", named, err)
	}
}

func TestDegenerateRingPadded(t *testing.T) {
	top := mustDecode(t, `{"type":"Topology","objects":{"o":{"type":"Polygon","arcs":[[0]]}},"arcs":[[[0,0],[1,1]]]}`)
	f, err := top.Features("o")
	if err != nil {
		t.Fatal(err)
	}
	r := f[0].Geometry.(orb.Polygon)[0]
	if len(r) != 4 || r[0] != r[len(r)-1] {
		t.Errorf("ring = %v, want 4 closed positions", r)
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := `{"type":"Topology","objects":{"o":` + strings.Repeat(`{"type":"GeometryCollection","geometries":[`, MaxDepth+2) +
		strings.Repeat(`]}`, MaxDepth+2) + `},"arcs":[]}`
	tests := []struct {
		name string
		doc  string
	}{
		{"not json", `{`},
		{"wrong type", `{"type":"FeatureCollection","objects":{},"arcs":[]}`},
		{"missing type", `{"objects":{},"arcs":[]}`},
		{"arc index out of range", `{"type":"Topology","objects":{"o":{"type":"LineString","arcs":[1]}},"arcs":[[[0,0],[1,1]]]}`},
		{"reversed arc index out of range", `{"type":"Topology","objects":{"o":{"type":"LineString","arcs":[-2]}},"arcs":[[[0,0],[1,1]]]}`},
		{"empty arc list", `{"type":"Topology","objects":{"o":{"type":"Polygon","arcs":[[]]}},"arcs":[[[0,0],[1,1]]]}`},
		{"missing arcs", `{"type":"Topology","objects":{"o":{"type":"LineString"}},"arcs":[[[0,0],[1,1]]]}`},
		{"wrong arcs nesting", `{"type":"Topology","objects":{"o":{"type":"Polygon","arcs":[0]}},"arcs":[[[0,0],[1,1]]]}`},
		{"unknown geometry type", `{"type":"Topology","objects":{"o":{"type":"Circle"}},"arcs":[]}`},
		{"short arc", `{"type":"Topology","objects":{},"arcs":[[[0,0]]]}`},
		{"short position", `{"type":"Topology","objects":{},"arcs":[[[0,0],[1]]]}`},
		{"bad transform", `{"type":"Topology","transform":{"scale":[1],"translate":[0,0]},"objects":{},"arcs":[]}`},
		{"overflowing deltas", `{"type":"Topology","transform":{"scale":[1,1],"translate":[0,0]},"objects":{},"arcs":[[[1e308,0],[1e308,0]]]}`},
		{"bad point", `{"type":"Topology","objects":{"o":{"type":"Point","coordinates":[1]}},"arcs":[]}`},
		{"bad id", `{"type":"Topology","objects":{"o":{"type":"Point","id":{},"coordinates":[1,2]}},"arcs":[]}`},
		{"null object", `{"type":"Topology","objects":{"o":null},"arcs":[]}`},
		{"null member", `{"type":"Topology","objects":{"o":{"type":"GeometryCollection","geometries":[null]}},"arcs":[]}`},
		{"too deep", deep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.doc))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestMaxPoints checks that a small document referencing one long arc many
// times is refused instead of expanding without bound.
func TestMaxPoints(t *testing.T) {
	var arc strings.Builder
	arc.WriteString("[[0,0]")
	for i := 1; i < 1000; i++ {
		arc.WriteString(",[1,1]")
	}
	arc.WriteString("]")
	refs := strings.TrimSuffix(strings.Repeat("0,", 5000), ",")
	doc := `{"type":"Topology","transform":{"scale":[0.001,0.001],"translate":[0,0]},"objects":{"o":{"type":"LineString","arcs":[` + refs + `]}},"arcs":[` + arc.String() + `]}`
	top := mustDecode(t, doc)
	top.MaxPoints = 100_000
	if _, err := top.Features("o"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Features over MaxPoints: err = %v, want ErrInvalid", err)
	}
	top.MaxPoints = 10_000_000
	f, err := top.Features("o")
	if err != nil {
		t.Fatalf("Features under MaxPoints: %v", err)
	}
	if n := len(f[0].Geometry.(orb.LineString)); n != 5000*999+1 {
		t.Errorf("stitched line has %d points, want %d", n, 5000*999+1)
	}
}

func TestArc(t *testing.T) {
	top := mustDecode(t, twoSquares)
	if top.ArcCount() != 3 {
		t.Errorf("ArcCount = %d", top.ArcCount())
	}
	sameLine(t, "arc ~0", top.Arc(-1), []orb.Point{{1, 1}, {1, 0}})
	if top.Arc(3) != nil || top.Arc(-4) != nil {
		t.Error("out of range Arc is not nil")
	}
}

func TestFeaturesPropertiesAreCopies(t *testing.T) {
	top := mustDecode(t, twoSquares)
	a, err := top.Features("squares")
	if err != nil {
		t.Fatal(err)
	}
	a[0].Properties["name"] = "changed"
	b, err := top.Features("squares")
	if err != nil {
		t.Fatal(err)
	}
	if b[0].Properties["name"] != "West" {
		t.Errorf("a caller's change leaked into later Features calls: %v", b[0].Properties)
	}
}
