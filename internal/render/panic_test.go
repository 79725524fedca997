package render

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/panics"
	"github.com/tesseramaps/tessera/internal/style"
)

// panicky panics when asked for a tile.
type panicky struct{}

func (panicky) Fetch(ctx context.Context, url string) ([]byte, error) {
	panic("boom fetching " + url)
}

// TestPanicInHelperGoroutine: a panic in one of a render's own goroutines
// (tile loading, symbol placement, the second half of the layers) comes
// out of Render in the caller's goroutine, where a worker recovers it,
// instead of ending the process.
func TestPanicInHelperGoroutine(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: the render uses no goroutine of its own")
	}
	st, err := style.Parse([]byte(`{"version": 8, "sources": {"v": {"type": "vector", "tiles": ["local://t/{z}/{x}/{y}.pbf"], "maxzoom": 14}},
		"glyphs": "local://glyphs/{fontstack}/{range}.pbf",
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "water", "type": "fill", "source": "v", "source-layer": "water"},
			{"id": "roads", "type": "line", "source": "v", "source-layer": "roads"},
			{"id": "labels", "type": "symbol", "source": "v", "source-layer": "places", "layout": {"text-field": "{name}"}}
		]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRenderer(t)
	for range 20 { // whichever goroutine fetches first, none may end the process
		got := func() (p *panics.Recovered) {
			defer func() { p = panics.Of(recover()) }()
			// A view over four tiles, large enough to be drawn in two halves.
			r.Render(context.Background(), st, View{Center: [2]float64{0.01, 0.01}, Zoom: 10, Width: 512, Height: 512, PixelRatio: 1}, panicky{})
			return nil
		}()
		if got == nil {
			t.Fatal("Render returned although every fetch panics")
		}
		if !strings.HasPrefix(fmt.Sprint(got.Value), "boom fetching local://t/10/") {
			t.Fatalf("the panic raised is %v", got.Value)
		}
	}
}
