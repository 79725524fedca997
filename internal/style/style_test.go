package style

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	doc := `{"version":8,"name":"Basic","center":[8.5,47.3],"zoom":11.5,"glyphs":"/fonts/{fontstack}/{range}.pbf",
	"sprite":"/maps/basic/sprite","metadata":{"a":1},
	"sources":{"b":{"type":"raster","tiles":["/t/{z}/{x}/{y}.png",5],"tileSize":256,"minzoom":2,"maxzoom":14,"bounds":[-10,-20,10,20]},
	           "a":{"type":"vector","url":"mbtiles://osm"},"bad":3},
	"layers":[{"id":"bg","type":"background"},{"id":"water","type":"fill","source":"a","source-layer":"water",
	           "filter":["==","class","sea"],"minzoom":3,"maxzoom":20,"layout":{"visibility":"visible"},"paint":{"fill-color":"#00f"}},
	          7,{"id":"r","ref":"water"}]}`
	s, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	if s.Version != 8 || s.Name != "Basic" || s.Glyphs != "/fonts/{fontstack}/{range}.pbf" {
		t.Errorf("version/name/glyphs = %d %q %q", s.Version, s.Name, s.Glyphs)
	}
	if !reflect.DeepEqual(s.Center, []float64{8.5, 47.3}) || s.Zoom == nil || *s.Zoom != 11.5 {
		t.Errorf("center/zoom = %v %v", s.Center, s.Zoom)
	}
	if !reflect.DeepEqual(s.Sprites, []Sprite{{ID: "default", URL: "/maps/basic/sprite"}}) || s.SpriteArray {
		t.Errorf("sprites = %+v (array %v)", s.Sprites, s.SpriteArray)
	}
	if s.Metadata == nil || !s.Metadata.Has("a") {
		t.Errorf("metadata = %v", s.Metadata)
	}
	var names []string
	for _, src := range s.Sources {
		names = append(names, src.Name)
	}
	if !reflect.DeepEqual(names, []string{"b", "a"}) {
		t.Errorf("source order = %v (want document order, non-objects skipped)", names)
	}
	b := s.SourceByKey["b"]
	wantB := &Source{Name: "b", Type: "raster", Tiles: []string{"/t/{z}/{x}/{y}.png"}, TileSize: 256,
		MinZoom: f(2), MaxZoom: f(14), Bounds: []float64{-10, -20, 10, 20}, Raw: b.Raw}
	if !reflect.DeepEqual(b, wantB) {
		t.Errorf("source b = %+v, want %+v", b, wantB)
	}
	if a := s.SourceByKey["a"]; a.Type != "vector" || a.URL != "mbtiles://osm" || a.TileSize != 0 {
		t.Errorf("source a = %+v", a)
	}
	if len(s.Layers) != 3 {
		t.Fatalf("layers = %d, want 3 (the number is skipped)", len(s.Layers))
	}
	w := s.Layers[1]
	if w.ID != "water" || w.Type != "fill" || w.Source != "a" || w.SourceLayer != "water" ||
		*w.MinZoom != 3 || *w.MaxZoom != 20 || w.Layout == nil || w.Paint == nil ||
		!reflect.DeepEqual(w.Filter, []any{"==", "class", "sea"}) {
		t.Errorf("layer water = %+v", w)
	}
	if s.Layers[2].Ref != "water" || s.Layers[0].MinZoom != nil {
		t.Errorf("layers = %+v %+v", s.Layers[0], s.Layers[2])
	}

	arr, err := Parse([]byte(`{"version":8,"sprite":[{"id":"a","url":"u1"},{"id":"b","url":"u2"},3]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !arr.SpriteArray || !reflect.DeepEqual(arr.Sprites, []Sprite{{"a", "u1"}, {"b", "u2"}}) {
		t.Errorf("sprite array = %+v", arr.Sprites)
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	okDeep := `{"a":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`
	tests := []struct {
		name, in string
		wantErr  string
	}{
		{"not json", `{"version":`, "unexpected EOF"},
		{"array document", `[1,2]`, "object expected, array found"},
		{"string document", `"x"`, "object expected, string found"},
		{"trailing data", `{} {}`, "unexpected data after"},
		{"too deep", `{"a":` + deep + `}`, "nested deeper"},
		{"bad key", `{1:2}`, "invalid character"},
		{"deep but within the limit", okDeep, ""},
		{"empty object", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	big := make([]byte, MaxStyleSize+1)
	if _, err := Parse(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized document: error = %v", err)
	}
}

// TestRoundTrip checks that a document written back is the document read,
// member order, unknown members and number spellings included.
func TestRoundTrip(t *testing.T) {
	tests := []string{
		`{"version":8,"zz":{"y":[1.0,2e10,-0.5e-3],"x":null},"name":"caf\u00e9 <&>","sources":{},"layers":[]}`,
		`{"b":1,"a":2,"b2":{"k":[true,false,null,"s\"q"]}}`,
	}
	for _, in := range tests {
		s, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output %s: %v", out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip changed the value:\n in %s\nout %s", in, out)
		}
		// Member order and number spelling are kept.
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(in)); err != nil {
			t.Fatal(err)
		}
		if strings.ReplaceAll(compact.String(), `\u00e9`, "é") != string(out) {
			t.Errorf("round trip changed the text:\n in %s\nout %s", compact.String(), out)
		}
	}
}

func TestObject(t *testing.T) {
	o := NewObject()
	o.Set("b", 1)
	o.Set("a", 2)
	o.Set("b", 3)
	if !reflect.DeepEqual(o.Keys(), []string{"b", "a"}) || o.Len() != 2 {
		t.Errorf("keys = %v", o.Keys())
	}
	if v, _ := o.Get("b"); v != 3 {
		t.Errorf("b = %v", v)
	}
	o.Delete("b")
	o.Delete("missing")
	if !reflect.DeepEqual(o.Keys(), []string{"a"}) || o.Has("b") {
		t.Errorf("after delete keys = %v", o.Keys())
	}
	var nilObj *Object
	if nilObj.Len() != 0 || nilObj.Has("x") || nilObj.Keys() != nil {
		t.Error("nil object is not empty")
	}
}

func TestJSNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1.5, "-1.5"}, {1e9, "1000000000"}, {1e21, "1e+21"}, {1.5e300, "1.5e+300"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {-2.5e-8, "-2.5e-8"}, {0.1, "0.1"}, {123456789012345680000, "123456789012345680000"},
	}
	for _, tt := range tests {
		if got := jsNumber(tt.in); got != tt.want {
			t.Errorf("jsNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLoadSpec(t *testing.T) {
	sp := DefaultSpec()
	if sp.Version() != 8 {
		t.Errorf("embedded spec version = %d", sp.Version())
	}
	for _, op := range []string{"interpolate", "step", "match", "get", "literal", "format"} {
		if !sp.IsExpressionOperator(op) {
			t.Errorf("%q is not an expression operator of the embedded spec", op)
		}
	}
	if sp.IsExpressionOperator("fill-color") {
		t.Error("fill-color taken for an operator")
	}
	if _, err := os.Stat("specdata/LICENSE.txt"); err != nil {
		t.Errorf("the licence must travel with the embedded spec: %v", err)
	}

	for _, bad := range []string{`[]`, `{}`, `{"$root":{"version":{}}}`, `not json`} {
		if _, err := LoadSpecBytes([]byte(bad)); err == nil {
			t.Errorf("LoadSpecBytes(%s) accepted", bad)
		}
	}
	if _, err := LoadSpec(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("LoadSpec of a missing file succeeded")
	}

	shared := sharedDir(t)
	fromFile, err := LoadSpec(filepath.Join(shared, "style-spec", "v8.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fromFile.exprOps) != len(sp.exprOps) {
		t.Errorf("shared spec has %d operators, embedded %d", len(fromFile.exprOps), len(sp.exprOps))
	}
	s, err := Parse([]byte(`{"version":8,"sources":{},"layers":[{"id":"b","type":"background","paint":{"background-color":"bluish"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	errs := Validate(s, fromFile)
	if len(errs) != 1 || errs[0].Error() != `layers[0].paint.background-color: color expected, "bluish" found` {
		t.Errorf("Validate with the shared spec = %v", errs)
	}
}
