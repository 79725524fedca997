package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkDecodeStreetTiles decodes the four z14 tiles of the street view
// (300-430 KB each) into world-coordinate features, as a cold render does.
func BenchmarkDecodeStreetTiles(b *testing.B) {
	root := fixtures.Path(b, "render-tests")
	type tile struct {
		data      []byte
		z, tx, ty int
	}
	var tiles []tile
	for _, xy := range [][2]int{{8802, 5374}, {8803, 5374}, {8802, 5375}, {8803, 5375}} {
		data, err := os.ReadFile(filepath.Join(root, "tiles", fmt.Sprintf("14-%d-%d.mvt", xy[0], xy[1])))
		if err != nil {
			b.Skip("street tiles absent:", err)
		}
		tiles = append(tiles, tile{data, 14, xy[0], xy[1]})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tiles {
			if _, err := decodeTile(t.data, t.z, t.tx, t.ty); err != nil {
				b.Fatal(err)
			}
		}
	}
}
