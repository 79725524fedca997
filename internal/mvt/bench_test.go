package mvt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkDecodeStreet decodes every feature of the street view's four
// dense z14 tiles (300-430 KB each): layers, keys and values, each
// feature's header and its geometry.
func BenchmarkDecodeStreet(b *testing.B) {
	root := fixtures.Path(b, "render-tests")
	var tiles [][]byte
	for _, name := range []string{"14-8802-5374", "14-8803-5374", "14-8802-5375", "14-8803-5375"} {
		data, err := os.ReadFile(filepath.Join(root, "tiles", name+".mvt"))
		if err != nil {
			b.Skip("street tiles absent:", err)
		}
		tiles = append(tiles, data)
	}
	b.ReportAllocs()
	var (
		f DecodedFeature
		s Shape
	)
	for b.Loop() {
		for _, data := range tiles {
			t, err := Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			for _, l := range t.Layers {
				if _, err := l.TypedValues(); err != nil {
					b.Fatal(err)
				}
				for i := range l.Len() {
					if err := l.FeatureInto(i, &f); err != nil {
						b.Fatal(err)
					}
					if _, err := f.Tags(); err != nil {
						b.Fatal(err)
					}
					if err := f.Shape(&s); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}
