package render

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style"
)

// BenchmarkStreetSymbols times the shared street style (four dense z14
// Tiles, with POI icons and labels, road labels along lines and house
// Numbers) and reports the share spent placing and drawing symbols.
func BenchmarkStreetSymbols(b *testing.B) {
	styleFile := fixtures.Path(b, "bench/street-style.json")
	root := fixtures.Path(b, "render-tests")
	raw, err := os.ReadFile(styleFile)
	if err != nil {
		b.Fatal(err)
	}
	st, err := style.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	res := localResources{root: root}
	b.Run("render", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := r.Render(context.Background(), st, ViewOf(st, 512, 512, 1), res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("symbols", func(b *testing.B) {
		// Sources decoded once: placement and drawing only.
		v := ViewOf(st, 512, 512, 1)
		srcs := sources.NewSet(st, v, res, r.log, r.decoded)
		src := &symPass{Set: srcs, comp: r.comp, layouts: r.layouts}
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
					lr.Canvas = newTestCanvas(512, 512)
					src.drawSymbols(context.Background(), lr)
				}
			}
		}
	})
}

func newTestCanvas(w, h int) *raster.Canvas { return raster.NewCanvas(w, h) }
