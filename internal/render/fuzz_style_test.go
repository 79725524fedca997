package render

import (
	"context"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/style"
)

// FuzzStyle renders odd styles: any style that parses and validates must
// render (or fail with an error) without a panic, within its deadline.
func FuzzStyle(f *testing.F) {
	seeds := []string{
		`{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "red"}}]}`,
		`{"version": 8, "center": [0, 0], "zoom": 1, "sources": {"g": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
		  "layers": [{"id": "c", "type": "circle", "source": "g", "paint": {"circle-radius": ["get", "r"], "circle-color": ["to-color", ["get", "c"]]}}]}`,
		`{"version": 8, "zoom": 3, "bearing": 45, "sources": {"g": {"type": "geojson", "data": {"type": "LineString", "coordinates": [[-10, 0], [10, 5], [10, 5], [11, 5]]}}},
		  "layers": [{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 1e9, "line-dasharray": [0, 0], "line-offset": -5, "line-gap-width": 3}, "layout": {"line-join": "miter", "line-miter-limit": 0}}]}`,
		`{"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[0, 0], [0, 0], [0, 0]]]}}},
		  "layers": [{"id": "f", "type": "fill", "source": "g", "paint": {"fill-opacity": -1, "fill-translate": [1e9, -1e9]}}]}`,
		`{"version": 8, "sources": {"v": {"type": "vector", "tiles": ["x://{z}/{x}/{y}"], "minzoom": 30, "maxzoom": -3}},
		  "layers": [{"id": "f", "type": "fill", "source": "v", "source-layer": "a", "filter": ["==", ["zoom"], ["get", "z"]]}]}`,
		`{"version": 8, "glyphs": "x://{fontstack}/{range}", "sprite": "x://s", "sources": {"g": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
		  "layers": [{"id": "s", "type": "symbol", "source": "g", "layout": {"text-field": "Hello", "icon-image": "missing", "text-size": 1e6}}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	r := newRenderer(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		st, err := style.Parse(doc)
		if err != nil {
			return
		}
		if errs := style.Validate(st, style.DefaultSpec()); len(errs) > 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		v := ViewOf(st, 64, 48, 1)
		v.Zoom = min(max(v.Zoom, 0), 22)
		r.Render(ctx, st, v, mapResources{})
	})
}
