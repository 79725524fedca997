package symbols

import (
	"context"
	"log/slog"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
)

// BenchmarkStreetPlacement times the placement and drawing of the symbols
// of the shared street style (four dense z14 tiles, with POI icons and
// labels, road labels along lines and house numbers), the sources decoded
// once.
func BenchmarkStreetPlacement(b *testing.B) {
	st, res := rendertest.StreetStyle(b)
	log := slog.New(slog.DiscardHandler)
	v := scene.View{Center: [2]float64{st.Center[0], st.Center[1]}, Zoom: *st.Zoom, Width: 512, Height: 512, PixelRatio: 1}
	srcs := sources.NewSet(st, v, res, log, sources.NewDecodedCache(sources.DefaultDecodedCacheBytes))
	src := NewPass(srcs, scene.NewCompiler(log), NewLayoutCache(DefaultLayoutCacheBytes))
	for _, l := range st.Layers {
		if l.Type == "symbol" {
			src.Features(context.Background(), l)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src.placement, src.Glyphs, src.Sprite = nil, nil, nil
		pass := src.symbols(context.Background())
		lr := &scene.Layer{Frame: src.Frame, Zoom: v.Zoom}
		for _, l := range st.Layers {
			if _, ok := pass.layers[l.ID]; ok {
				lr.Style = l
				lr.Canvas = raster.NewCanvas(512, 512)
				src.Draw(context.Background(), lr)
			}
		}
	}
}
