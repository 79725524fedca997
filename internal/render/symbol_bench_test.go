package render

import (
	"context"
	"os"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/style"
)

// BenchmarkStreetSymbols times the shared street style (four dense z14
// tiles, with POI icons and labels, road labels along lines and house
// numbers) as a whole; BenchmarkStreetPlacement (package symbols) times
// its symbols' placement and drawing alone.
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
	r := newRenderer(b)
	res := localResources{Root: root}
	b.Run("render", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := r.Render(context.Background(), st, ViewOf(st, 512, 512, 1), res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
