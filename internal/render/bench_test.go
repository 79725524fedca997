package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/style"
)

// BenchmarkStreetStyle draws the dense street view of the shared
// benchmark (../shared/bench/street-style.json: 4 z14 tiles of Berlin,
// 512x512) and writes it as PNG, warm, as a running server draws a view
// again: the style parsed and prepared, and the renderer's caches (decoded
// tiles, symbol layouts, sprite sheets) filled by one render before the
// timing; the resources are read through Resources each time.
func BenchmarkStreetStyle(b *testing.B) { benchStreet(b, false) }

// BenchmarkStreetStyleWorker is BenchmarkStreetStyle with the render
// holding a processor slot as a server's render worker does (cpuslots):
// on two cores the render and its encoding then run on one goroutine at a
// time. The difference is what a render on an idle server gives up for
// the core the plain tiles keep (docs/benchmarks.md).
func BenchmarkStreetStyleWorker(b *testing.B) { benchStreet(b, true) }

func benchStreet(b *testing.B, worker bool) {
	st, res := streetStyle(b)
	r := newRenderer(b)
	v := ViewOf(st, 512, 512, 1)
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := r.Render(ctx, st, v, res); err != nil {
		b.Fatal(err)
	}
	if worker {
		if err := cpuslots.Render.Acquire(ctx); err != nil {
			b.Fatal(err)
		}
		defer cpuslots.Render.Release()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := fixtures.ProcessCPU()
	defer fixtures.ReportCPUPerOp(b, start)
	for b.Loop() {
		img, err := r.Render(ctx, st, v, res)
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if err := imageenc.Encode(&buf, img, imageenc.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreetTile renders a dense 512-pixel street view: fills,
// outlined roads with joins and caps, dashed paths and circles.
func BenchmarkStreetTile(b *testing.B) {
	root := fixtures.Path(b, "render-tests")
	r := newRenderer(b)
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
	res := localResources{Root: root}
	v := ViewOf(st, 512, 512, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := r.Render(context.Background(), st, v, res); err != nil {
			b.Fatal(err)
		}
	}
}

// streetStyle returns the street style of the shared benchmark and the
// resources its local:// URLs name, skipping without ../shared.
func streetStyle(tb testing.TB) (*style.Style, Resources) {
	tb.Helper()
	return rendertest.StreetStyle(tb)
}

// BenchmarkExtrusionSliced draws patterned fill-extrusions of a zoom-14
// vector tile at zoom 16.4 under pitch 55, warm (testdata/layers/
// extrusion-sliced-z16.json at 400x300: the tile's buildings cut into the
// zoom-16 tiles GL JS 6 slices it into).
func BenchmarkExtrusionSliced(b *testing.B) {
	dir := filepath.Join("testdata", "layers")
	raw, err := os.ReadFile(filepath.Join(dir, "extrusion-sliced-z16.json"))
	if err != nil {
		b.Fatal(err)
	}
	st := parse(b, string(raw))
	r := newRenderer(b)
	v := ViewOf(st, 400, 300, 1)
	res := localResources{Root: dir}
	benchWarm(b, func() error {
		_, err := r.Render(context.Background(), st, v, res)
		return err
	})
}

// benchWarm calls draw once to fill the renderer's caches, then times it,
// reporting allocations and CPU time per call.
func benchWarm(b *testing.B, draw func() error) {
	if err := draw(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := fixtures.ProcessCPU()
	defer fixtures.ReportCPUPerOp(b, start)
	for b.Loop() {
		if err := draw(); err != nil {
			b.Fatal(err)
		}
	}
}
