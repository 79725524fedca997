package render

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/style"
)

// BenchmarkStreetStyle draws the dense street view of the shared
// benchmark (../shared/bench/street-style.json: 4 z14 tiles of Berlin,
// 512x512) and writes it as PNG, warm: the style parsed and prepared once,
// the tiles read from disk each time.
func BenchmarkStreetStyle(b *testing.B) {
	dir := fixtures.SharedDir()
	if dir == "" {
		b.Skip("../shared is absent: the street style benchmark needs ../shared/bench")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "bench", "street-style.json"))
	if err != nil {
		b.Skip("no ../shared/bench/street-style.json")
	}
	st, err := style.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	res := localResources{root: filepath.Join(dir, "render-tests")}
	v := ViewOf(st, 512, 512, 1)
	ctx := context.Background()
	var buf bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
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
