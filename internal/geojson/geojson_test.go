package geojson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/tiler"
)

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
}

func read(t *testing.T, s string, l Limits) ([]tiler.Feature, error) {
	t.Helper()
	return Read(context.Background(), strings.NewReader(s), l)
}

func TestReadKinds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []tiler.Feature
	}{
		{"bare point", `{"type":"Point","coordinates":[1.5,2]}`,
			[]tiler.Feature{{Geometry: orb.Point{1.5, 2}, Properties: map[string]any{}}}},
		{"coordinates before type", `{"coordinates":[[0,0],[1,1]],"type":"LineString"}`,
			[]tiler.Feature{{Geometry: orb.LineString{{0, 0}, {1, 1}}, Properties: map[string]any{}}}},
		{"feature with id and tippecanoe zooms", `{"type":"Feature","id":7,"tippecanoe":{"minzoom":3,"maxzoom":9},"properties":{"a":"b"},"geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4,5]]}}`,
			[]tiler.Feature{{ID: 7, MinZoom: 3, MaxZoom: 9, Geometry: orb.MultiPoint{{1, 2}, {3, 4}}, Properties: map[string]any{"a": "b"}}}},
		{"string id dropped", `{"type":"Feature","id":"x","properties":null,"geometry":{"type":"Point","coordinates":[0,0]}}`,
			[]tiler.Feature{{Geometry: orb.Point{0, 0}, Properties: map[string]any{}}}},
		{"open ring is closed", `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]]]}`,
			[]tiler.Feature{{Geometry: orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, Properties: map[string]any{}}}},
		{"collection with null geometry skipped", `{"features":[{"type":"Feature","geometry":null,"properties":{}},{"type":"Feature","properties":{"n":1},"geometry":{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,1]},{"type":"MultiLineString","coordinates":[[[0,0],[1,1]]]}]}}],"type":"FeatureCollection","bbox":[0,0,1,1]}`,
			[]tiler.Feature{{Geometry: orb.Collection{orb.Point{1, 1}, orb.MultiLineString{{{0, 0}, {1, 1}}}}, Properties: map[string]any{"n": int64(1)}}}},
		{"sequence", "{\"type\":\"Point\",\"coordinates\":[0,0]}\n{\"type\":\"Point\",\"coordinates\":[1,1]}\n",
			[]tiler.Feature{{Geometry: orb.Point{0, 0}, Properties: map[string]any{}}, {Geometry: orb.Point{1, 1}, Properties: map[string]any{}}}},
		{"text sequence", "\x1e{\"type\":\"Point\",\"coordinates\":[0,0]}\n\x1e{\"type\":\"Point\",\"coordinates\":[1,1]}\n",
			[]tiler.Feature{{Geometry: orb.Point{0, 0}, Properties: map[string]any{}}, {Geometry: orb.Point{1, 1}, Properties: map[string]any{}}}},
		{"multipolygon", `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.1,5.1],[5.2,5.1],[5.2,5.2],[5.1,5.1]]]]}`,
			[]tiler.Feature{{Geometry: orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, {{{5, 5}, {6, 5}, {6, 6}, {5, 5}}, {{5.1, 5.1}, {5.2, 5.1}, {5.2, 5.2}, {5.1, 5.1}}}}, Properties: map[string]any{}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(t, tc.in, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestPropertyTypes(t *testing.T) {
	got, err := read(t, `{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"s":"x","i":-42,"u":18446744073709551615,"f":3.5,"e":1e3,"big":1e400,"t":true,"n":null,"a":[1,"2"],"o":{"k":[]}}}`, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": "x", "i": int64(-42), "u": uint64(math.MaxUint64), "f": 3.5, "e": 1000.0, "big": "1e400",
		"t": true, "n": nil, "a": []any{int64(1), "2"}, "o": map[string]any{"k": []any{}}}
	if !reflect.DeepEqual(got[0].Properties, want) {
		t.Fatalf("got  %#v\nwant %#v", got[0].Properties, want)
	}
}

func TestReadErrors(t *testing.T) {
	fc := func(feats ...string) string {
		return `{"type":"FeatureCollection","features":[` + strings.Join(feats, ",") + `]}`
	}
	ok := `{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}`
	geom := func(g string) string { return `{"type":"Feature","properties":{},"geometry":` + g + `}` }
	tests := []struct {
		name    string
		in      string
		limits  Limits
		feature int
		msg     string
		limit   bool
	}{
		{"empty", "", Limits{}, -1, "empty input", false},
		{"array top", `[1]`, Limits{}, -1, "must be a JSON object", false},
		{"truncated", `{"type":"Point","coordinates":[0,`, Limits{}, 0, "invalid JSON", false},
		{"no type", `{"coordinates":[0,0]}`, Limits{}, 0, `no "type"`, false},
		{"unknown type", `{"type":"Circle","coordinates":[0,0]}`, Limits{}, 0, `unknown geometry type "Circle"`, false},
		{"bad longitude", fc(ok, geom(`{"type":"Point","coordinates":[190,0]}`)), Limits{}, 1, "longitude 190 out of range", false},
		{"bad latitude", fc(ok, ok, geom(`{"type":"LineString","coordinates":[[0,0],[0,-91]]}`)), Limits{}, 2, "latitude -91 out of range", false},
		{"one number", fc(geom(`{"type":"Point","coordinates":[1]}`)), Limits{}, 0, "need at least 2", false},
		{"string coordinate", fc(geom(`{"type":"Point","coordinates":["1",2]}`)), Limits{}, 0, `geometry: unexpected '"' in coordinates`, false},
		{"overflow coordinate", fc(geom(`{"type":"Point","coordinates":[1e999,2]}`)), Limits{}, 0, "not a finite number", false},
		{"short line", fc(geom(`{"type":"LineString","coordinates":[[0,0]]}`)), Limits{}, 0, "LineString has 1 positions", false},
		{"short ring", fc(ok, geom(`{"type":"Polygon","coordinates":[[[0,0],[1,1],[0,0]]]}`)), Limits{}, 1, "Polygon ring 0 has 3 positions", false},
		{"short ring in multipolygon", fc(geom(`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[0,0],[1,1]]]]}`)), Limits{}, 0, "MultiPolygon polygon 1 ring 0", false},
		{"point as line", fc(geom(`{"type":"Point","coordinates":[[0,0],[1,1]]}`)), Limits{}, 0, "must be a position", false},
		{"mixed coordinates", fc(geom(`{"type":"LineString","coordinates":[[0,0],1]}`)), Limits{}, 0, "mix numbers and arrays", false},
		{"no geometry", fc(`{"type":"Feature","properties":{}}`), Limits{}, 0, `no "geometry"`, false},
		{"wrong feature type", fc(`{"type":"Point","coordinates":[0,0]}`), Limits{}, 0, `want "Feature"`, false},
		{"bad properties", fc(`{"type":"Feature","properties":[1],"geometry":null}`), Limits{}, 0, "properties", false},
		{"features not array", `{"type":"FeatureCollection","features":{}}`, Limits{}, -1, "must be an array", false},
		{"collection without features", `{"type":"FeatureCollection"}`, Limits{}, -1, `no "features"`, false},
		{"too many features", fc(ok, ok, ok), Limits{MaxFeatures: 2}, 2, "more than 2 features", true},
		{"too many positions", fc(geom(`{"type":"LineString","coordinates":[[0,0],[1,1],[2,2]]}`)), Limits{MaxCoordinates: 2}, 0, "more than 2 positions", true},
		{"too deep properties", fc(`{"type":"Feature","geometry":null,"properties":{"a":[[[[[[1]]]]]]}}`), Limits{MaxDepth: 6}, 0, "nesting deeper than 6", true},
		{"too deep collections", geom(`{"type":"GeometryCollection","geometries":[{"type":"GeometryCollection","geometries":[{"type":"GeometryCollection","geometries":[]}]}]}`), Limits{MaxDepth: 5}, 0, "geometry: geometries[0]: geometries[0]: limit exceeded: nesting deeper than 5", true},
		{"too deep coordinates", fc(geom(`{"type":"Point","coordinates":[[[[[[[[0,0]]]]]]]]}`)), Limits{MaxDepth: 8}, 0, "nesting deeper than 8", true},
		{"unterminated number list", fc(geom(`{"type":"Point","coordinates":[0 0]}`)), Limits{}, 0, "invalid JSON", false},
		{"too large", fc(ok, ok, ok, ok), Limits{MaxBytes: 100}, -1, "input larger than 100 bytes", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, tc.in, tc.limits)
			if err == nil {
				t.Fatal("accepted")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *Error", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %q", err, tc.msg)
			}
			if tc.name != "too large" && e.Feature != tc.feature {
				t.Errorf("error %q: feature %d, want %d", err, e.Feature, tc.feature)
			}
			if errors.Is(err, ErrLimit) != tc.limit {
				t.Errorf("errors.Is(ErrLimit) = %v, want %v", !tc.limit, tc.limit)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}]}`
	if _, err := Read(ctx, strings.NewReader(in), Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestStreaming checks that features are handed out before the input ends:
// the callback sees the first feature while the reader is still blocked.
func TestStreaming(t *testing.T) {
	pr, pw := io.Pipe()
	got := make(chan tiler.Feature, 1)
	done := make(chan error, 1)
	go func() {
		done <- ReadFunc(context.Background(), pr, Limits{}, func(f tiler.Feature) error {
			got <- f
			return errors.New("stop")
		})
	}()
	go pw.Write([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[4,5]}},`))
	f := <-got
	if f.Geometry != (orb.Point{4, 5}) {
		t.Fatalf("first feature %v", f.Geometry)
	}
	if err := <-done; err == nil || err.Error() != "stop" {
		t.Fatalf("callback error not returned: %v", err)
	}
	pw.Close()
}

// reference decodes a fixture with encoding/json into a generic structure so
// that counts and coordinates can be compared independently of the streaming
// parser.
type refFeature struct {
	Geometry *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func refFeatures(t *testing.T, data []byte) []refFeature {
	var out []refFeature
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var doc struct {
			Type     string       `json:"type"`
			Features []refFeature `json:"features"`
			refFeature
			Coordinates json.RawMessage `json:"coordinates"`
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch doc.Type {
		case "FeatureCollection":
			out = append(out, doc.Features...)
		case "Feature":
			out = append(out, doc.refFeature)
		default:
			f := refFeature{}
			f.Geometry = &struct {
				Type        string          `json:"type"`
				Coordinates json.RawMessage `json:"coordinates"`
			}{doc.Type, doc.Coordinates}
			out = append(out, f)
		}
	}
	return out
}

func flatten(v any, out *[]float64) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			flatten(e, out)
		}
	case float64:
		*out = append(*out, x)
	}
}

func orbFlatten(g orb.Geometry, out *[]float64) {
	switch x := g.(type) {
	case orb.Point:
		*out = append(*out, x[0], x[1])
	case orb.MultiPoint:
		for _, p := range x {
			orbFlatten(p, out)
		}
	case orb.LineString:
		orbFlatten(orb.MultiPoint(x), out)
	case orb.Ring:
		orbFlatten(orb.MultiPoint(x), out)
	case orb.MultiLineString:
		for _, l := range x {
			orbFlatten(l, out)
		}
	case orb.Polygon:
		for _, r := range x {
			orbFlatten(r, out)
		}
	case orb.MultiPolygon:
		for _, p := range x {
			orbFlatten(p, out)
		}
	case orb.Collection:
		for _, p := range x {
			orbFlatten(p, out)
		}
	}
}

func TestFixtures(t *testing.T) {
	shared := sharedDir(t)
	var files []string
	for _, pat := range []string{"fixtures/versatiles/testdata/*.geojson*", "fixtures/martin/tests/fixtures/geojson/*"} {
		m, _ := filepath.Glob(filepath.Join(shared, pat))
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d GeoJSON fixtures", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(context.Background(), bytes.NewReader(data), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			ref := refFeatures(t, data)
			if len(got) != len(ref) || len(got) == 0 {
				t.Fatalf("read %d features, encoding/json finds %d", len(got), len(ref))
			}
			for i, f := range got {
				r := ref[i]
				if r.Geometry.Type != "GeometryCollection" {
					if f.Geometry.GeoJSONType() != r.Geometry.Type {
						t.Errorf("feature %d: type %s, want %s", i, f.Geometry.GeoJSONType(), r.Geometry.Type)
					}
					var coords any
					json.Unmarshal(r.Geometry.Coordinates, &coords)
					var want, have []float64
					flatten(coords, &want)
					orbFlatten(f.Geometry, &have)
					if !reflect.DeepEqual(want, have) {
						t.Errorf("feature %d: coordinates %v, want %v", i, have, want)
					}
				}
				if len(f.Properties) != len(r.Properties) {
					t.Errorf("feature %d: %d properties, want %d", i, len(f.Properties), len(r.Properties))
				}
				for k, v := range r.Properties {
					if s, ok := v.(string); ok && f.Properties[k] != s {
						t.Errorf("feature %d: property %s = %v, want %q", i, k, f.Properties[k], s)
					}
				}
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"a":[1,{"b":null}]},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}]}`))
	f.Add([]byte(`{"type":"GeometryCollection","geometries":[{"type":"MultiLineString","coordinates":[[[0,0],[1,1]]]}]}`))
	f.Add([]byte(`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1]]]]}` + "\n" + `{"type":"MultiPoint","coordinates":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		feats, err := Read(context.Background(), bytes.NewReader(data), Limits{MaxBytes: 1 << 16, MaxDepth: 20, MaxCoordinates: 10000, MaxFeatures: 1000})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, ft := range feats {
			var c []float64
			orbFlatten(ft.Geometry, &c)
			for i := 0; i+1 < len(c); i += 2 {
				if c[i] < -180 || c[i] > 180 || c[i+1] < -90 || c[i+1] > 90 {
					t.Fatalf("position out of range accepted: %v", c[i:i+2])
				}
			}
		}
	})
}

// BenchmarkRead decodes a synthetic 100,000-position FeatureCollection.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"type":"Feature","properties":{"name":"f","n":12,"x":1.5},"geometry":{"type":"LineString","coordinates":[`)
		for j := 0; j < 100; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`[12.345678,45.678901]`)
		}
		sb.WriteString(`]}}`)
	}
	sb.WriteString(`]}`)
	data := sb.String()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		fs, err := Read(context.Background(), strings.NewReader(data), Limits{})
		if err != nil || len(fs) != 1000 {
			b.Fatal(err)
		}
	}
}
