package style

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestValidate checks the messages of Validate on small styles. The expected
// messages are those gl-style-validate (@maplibre/maplibre-gl-style-spec
// 26.6) prints for the same documents, except the duplicate-id message,
// which names the index of the first use instead of its line.
func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		style string
		want  []string
	}{
		{
			name:  "array-length",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "line", "source": "g", "paint": {"line-translate": [1, 2, 3]}}]}`,
			want:  []string{`layers[0].paint.line-translate: array length 2 expected, length 3 found`},
		},
		{
			name:  "bad-color",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "bg", "type": "background"}, {"id": "b", "type": "background"}, {"id": "c", "type": "background"}, {"id": "d", "type": "fill", "source": "g", "paint": {"fill-color": "bluish"}}]}`,
			want:  []string{`layers[3].paint.fill-color: color expected, "bluish" found`},
		},
		{
			name:  "canvas",
			style: `{"version": 8, "sources": {"c": {"type": "canvas"}}, "layers": []}`,
			want:  []string{`sources.c: Please use runtime APIs to add canvas sources, rather than including them in stylesheets.`},
		},
		{
			name:  "color-type",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "b", "type": "background", "paint": {"background-color": 5}}]}`,
			want:  []string{`layers[0].paint.background-color: color expected, number found`},
		},
		{
			name:  "constants",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [], "constants": {"@x": 1}}`,
			want:  []string{`constants: constants have been deprecated as of v8`},
		},
		{
			name:  "duplicate-id",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "background"}, {"id": "a", "type": "background"}]}`,
			want:  []string{`layers[1]: duplicate layer id "a", previously used at layers[0]`},
		},
		{
			name:  "enum",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "line", "source": "g", "layout": {"line-cap": "pointy"}}]}`,
			want:  []string{`layers[0].layout.line-cap: expected one of [butt, round, square], "pointy" found`},
		},
		{
			name:  "expression-filter",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "circle", "source": "g", "filter": ["==", ["get", "class"]]}]}`,
			want:  []string{`layers[0].filter: Expected two or three arguments.`},
		},
		{
			name:  "expression-type",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "circle", "source": "g", "paint": {"circle-radius": ["get"], "circle-opacity": ["interpolate", ["linear"], ["zoom"], 0, "a", 1, 1]}}]}`,
			want:  []string{`layers[0].paint.circle-radius: Expected arguments of type (string) | (string, object), but found () instead.`, `layers[0].paint.circle-opacity[4]: Expected number but found string instead.`},
		},
		{
			name:  "feature-state-layout",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "symbol", "source": "g", "layout": {"text-size": ["feature-state", "x"]}}]}`,
			want:  []string{`layers[0].layout.text-size: "feature-state" data expressions are not supported with layout properties.`},
		},
		{
			name:  "fill-on-dem",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "fill", "source": "dem"}]}`,
			want:  []string{`layers[0]: raster-dem source can only be used with layer type 'hillshade' or 'color-relief'.`},
		},
		{
			name:  "glyphs",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [], "glyphs": "https://e.com/{fontstack}.pbf"}`,
			want:  []string{`glyphs: "glyphs" url must include a "{range}" token`},
		},
		{
			name:  "hillshade-on-raster",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "hillshade", "source": "r"}]}`,
			want:  []string{`layers[0]: layer "a" requires a raster-dem source`},
		},
		{
			name:  "image-source",
			style: `{"version": 8, "sources": {"s": {"type": "image", "url": "x.png"}}, "layers": []}`,
			want:  []string{`sources.s: missing required property "coordinates"`},
		},
		{
			name:  "interpolation-syntax",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "line", "source": "g", "paint": {"line-color": "{c}"}}]}`,
			want:  []string{"layers[0].paint.line-color: \"line-color\" does not support interpolation syntax\nUse an identity property function instead: `{ \"type\": \"identity\", \"property\": \"c\" }`."},
		},
		{
			name:  "legacy-filter",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "circle", "source": "g", "filter": ["==", "class"]}]}`,
			want:  []string{`layers[0].filter: Expected two or three arguments.`},
		},
		{
			name:  "missing-root",
			style: `{"version": 8}`,
			want:  []string{`missing required property "sources"`, `missing required property "layers"`},
		},
		{
			name:  "missing-source",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "fill", "source": "nope"}]}`,
			want:  []string{`layers[0]: source "nope" not found`},
		},
		{
			name:  "number-max",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "line", "source": "g", "paint": {"line-opacity": 1.5, "line-width": -1}}]}`,
			want:  []string{`layers[0].paint.line-opacity: 1.5 is greater than the maximum value 1`, `layers[0].paint.line-width: -1 is less than the minimum value 0`},
		},
		{
			name:  "padding",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "symbol", "source": "g", "layout": {"icon-padding": [1, 2, 3, 4, 5]}}]}`,
			want:  []string{`layers[0].layout.icon-padding: padding requires 1 to 4 values; 5 values found`},
		},
		{
			name:  "raster-on-vector",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "raster", "source": "v", "source-layer": "x"}]}`,
			want:  []string{`layers[0]: layer "a" requires a raster source`},
		},
		{
			name:  "source-layer",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "fill", "source": "v"}]}`,
			want:  []string{`layers[0]: layer "a" must specify a "source-layer"`},
		},
		{
			name:  "source-type",
			style: `{"version": 8, "sources": {"s": {"type": "vectr"}}, "layers": []}`,
			want:  []string{`sources.s.type: expected one of [vector, raster, raster-dem, geojson, video, image], "vectr" found`},
		},
		{
			name:  "sprite-dup",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [], "sprite": [{"id": "a", "url": "x"}, {"id": "a", "url": "y"}]}`,
			want:  []string{`sprite: all the sprites' ids must be unique, but a is duplicated`},
		},
		{
			name:  "terrain",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [], "terrain": {"source": "dem", "exaggeration": -2}}`,
			want:  []string{`exaggeration: -2 is less than the minimum value 0`},
		},
		{
			name:  "transition",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "background", "paint": {"background-opacity-transition": {"duration": -1}}}]}`,
			want:  []string{`layers[0].paint.background-opacity-transition.duration: -1 is less than the minimum value 0`},
		},
		{
			name:  "unknown-layer-type",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "x", "type": "polygon", "source": "g"}]}`,
			want:  []string{`layers[0].type: expected one of [fill, line, symbol, circle, heatmap, fill-extrusion, raster, hillshade, color-relief, background], "polygon" found`},
		},
		{
			name:  "unknown-paint",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "fill", "source": "g", "paint": {"fill-colour": "red", "line-width": 2}}]}`,
			want:  []string{`layers[0].paint.fill-colour: unknown property "fill-colour"`, `layers[0].paint.line-width: unknown property "line-width"`},
		},
		{
			name:  "unknown-root-ok",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [], "foo": {"bar": 1}}`,
			want:  []string{},
		},
		{
			name:  "valid",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "hsl(47, 26%, 88%)"}}, {"id": "f", "type": "fill", "source": "v", "source-layer": "water", "paint": {"fill-color": ["interpolate", ["linear"], ["zoom"], 5, "red", 10, "blue"]}}]}`,
			want:  []string{},
		},
		{
			name:  "version",
			style: `{"version": 7, "sources": {}, "layers": []}`,
			want:  []string{`version: expected one of [8], 7 found`},
		},
		{
			name:  "zoom-functions",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "circle", "source": "g", "layout": {"visibility": {"property": "x", "stops": [[0, "visible"]]}}, "paint": {"circle-radius": {"stops": [[10, 1], [5, 2]]}}}]}`,
			want:  []string{`layers[0].layout.visibility: property functions not supported`, `layers[0].paint.circle-radius.stops[1][0]: stop domain values must appear in ascending order`},
		},
		{
			name:  "zoom-range",
			style: `{"version": 8, "sources": {"v": {"type": "vector", "url": "https://e.com/v.json"}, "g": {"type": "geojson", "data": "d.geojson"}, "r": {"type": "raster", "url": "https://e.com/r.json"}, "dem": {"type": "raster-dem", "url": "https://e.com/d.json"}}, "layers": [{"id": "a", "type": "background", "minzoom": -1, "maxzoom": 25}]}`,
			want:  []string{`layers[0].minzoom: -1 is less than the minimum value 0`, `layers[0].maxzoom: 25 is greater than the maximum value 24`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.style))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range Validate(s, nil) {
				got = append(got, e.Error())
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestValidateLarge checks that a large style with many duplicate ids and
// ref layers validates in linear time and that the errors are capped.
func TestValidateLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"version":8,"sources":{},"layers":[`)
	const n = 50000
	for i := 0; i < n; i++ {
		b.WriteString(`{"id":"a","type":"background"},{"id":"r`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`","ref":"a"},`)
	}
	b.WriteString(`{"id":"last","type":"background"}]}`)
	s, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	errs := Validate(s, nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Validate took %v", d)
	}
	if len(errs) != MaxValidationErrors {
		t.Errorf("%d errors, want the cap %d", len(errs), MaxValidationErrors)
	}
	if errs[0].Error() != `layers[2]: duplicate layer id "a", previously used at layers[0]` {
		t.Errorf("first error = %v", errs[0])
	}
}

func TestValidateNil(t *testing.T) {
	errs := Validate(nil, nil)
	if len(errs) != 1 || errs[0].Message != "object expected, null found" {
		t.Errorf("Validate(nil) = %v", errs)
	}
}

// TestValidateConcurrent validates styles from several goroutines with the
// shared default spec (run with -race).
func TestValidateConcurrent(t *testing.T) {
	docs := []string{
		`{"version":8,"sources":{"g":{"type":"geojson","data":"x"}},"layers":[{"id":"c","type":"circle","source":"g","paint":{"circle-radius":["get","r"]}}]}`,
		`{"version":8,"sources":{},"layers":[{"id":"b","type":"background","paint":{"background-color":"nope"}}]}`,
	}
	want := make([]int, len(docs))
	for i, d := range docs {
		s, err := Parse([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = len(Validate(s, nil))
	}
	var wg sync.WaitGroup
	errc := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := (g + i) % len(docs)
				s, err := Parse([]byte(docs[k]))
				if err != nil {
					errc <- err.Error()
					return
				}
				if n := len(Validate(s, nil)); n != want[k] {
					errc <- fmt.Sprintf("doc %d: %d errors, want %d", k, n, want[k])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errc)
	for e := range errc {
		t.Error(e)
	}
}
