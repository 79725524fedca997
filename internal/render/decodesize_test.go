package render

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestDecodedTileSize: the size a decoded tile reports for the cache's
// bound is what it holds in memory (measured on the heap, the tile's
// bytes included), within a margin.
func TestDecodedTileSize(t *testing.T) {
	root := fixtures.Path(t, "render-tests")
	for _, name := range []string{"14-8803-5375.mvt", "14-4357-6245.mvt", "0-0-0.mvt"} {
		path := filepath.Join(root, "tiles", name)
		if _, err := os.Stat(path); err != nil {
			t.Skip("tile absent:", err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dt, err := decodeTile(data, 14, 8803, 5375)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(dt)
		t.Logf("%s: %d features, size %d, held %d bytes (%.2f)", name, len(dt.feats), dt.size, held, float64(dt.size)/float64(held))
		if dt.size < held*8/10 || dt.size > held*13/10 {
			t.Errorf("%s: size %d bytes, the heap holds %d", name, dt.size, held)
		}
	}
}
