package sources

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestDecodedTileSize: the size a decoded tile reports for the cache's
// bound is what it holds in memory (measured on the heap), within a
// margin.
func TestDecodedTileSize(t *testing.T) {
	root := fixtures.Path(t, "render-tests")
	for _, name := range []string{"14-8803-5375.mvt", "14-4357-6245.mvt", "0-0-0.mvt"} {
		data, err := os.ReadFile(filepath.Join(root, "tiles", name))
		if err != nil {
			t.Skip("tile absent:", err)
		}
		// What the heap holds moves with the garbage of earlier tests
		// freed meanwhile: one measure of a few must fall in the margin.
		var size, held int64
		for range 5 {
			size, held = decodedHeld(t, data)
			if size >= held*8/10 && size <= held*13/10 {
				break
			}
		}
		t.Logf("%s: size %d, held %d bytes (%.2f)", name, size, held, float64(size)/float64(held))
		if size < held*8/10 || size > held*13/10 {
			t.Errorf("%s: size %d bytes, the heap holds %d", name, size, held)
		}
	}
}

// decodedHeld decodes a copy of data and returns the size the tile
// reports and the bytes the heap holds for it.
func decodedHeld(t *testing.T, data []byte) (size, held int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dt, err := decodeTile(append([]byte(nil), data...), 14, 8803, 5375)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(dt)
	return dt.Size, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
