package render

import (
	"context"
	"log/slog"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkStreetTile renders a dense 512-pixel street view: fills,
// outlined roads with joins and caps, dashed paths and circles.
func BenchmarkStreetTile(b *testing.B) {
	root := fixtures.Path(b, "render-tests")
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	st := parse(b, `{"version": 8, "center": [13.418056, 52.499167], "zoom": 15.5,
		"sources": {"m": {"type": "vector", "maxzoom": 14, "tiles": ["local://tiles/{z}-{x}-{y}.mvt"]}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "#eee"}},
			{"id": "water", "type": "fill", "source": "m", "source-layer": "water", "paint": {"fill-color": "#9cf"}},
			{"id": "building", "type": "fill", "source": "m", "source-layer": "building", "paint": {"fill-color": "#ccc", "fill-outline-color": "#999"}},
			{"id": "case", "type": "line", "source": "m", "source-layer": "road", "layout": {"line-join": "round", "line-cap": "round"}, "paint": {"line-width": 9, "line-color": "#888"}},
			{"id": "road", "type": "line", "source": "m", "source-layer": "road", "layout": {"line-join": "round"}, "paint": {"line-width": 6, "line-color": "#fff"}},
			{"id": "dash", "type": "line", "source": "m", "source-layer": "road", "paint": {"line-width": 1, "line-dasharray": [2, 2], "line-color": "#f00"}},
			{"id": "poi", "type": "circle", "source": "m", "source-layer": "poi_label", "paint": {"circle-radius": 4}}
		]}`)
	res := localResources{root: root}
	v := ViewOf(st, 512, 512, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := r.Render(context.Background(), st, v, res); err != nil {
			b.Fatal(err)
		}
	}
}
