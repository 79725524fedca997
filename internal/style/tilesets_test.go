package style

import (
	"slices"
	"testing"
)

func TestTilesets(t *testing.T) {
	raw := []byte(`{"version": 8, "sources": {
		"a": {"type": "vector", "url": "mbtiles://world"},
		"b": {"type": "vector", "url": "pmtiles://roads.pmtiles"},
		"c": {"type": "raster", "tiles": ["/tiles/photo/{z}/{x}/{y}.png"], "tileSize": 256},
		"d": {"type": "vector", "url": "https://elsewhere.example/tiles.json"},
		"e": {"type": "vector", "url": "mbtiles://{world}"},
		"f": {"type": "geojson", "data": {"type": "FeatureCollection", "features": []}}
	}, "layers": []}`)
	s, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Tilesets()
	slices.Sort(got)
	if want := []string{"photo", "roads", "world"}; !slices.Equal(got, want) {
		t.Errorf("Tilesets() = %q, want %q", got, want)
	}
}
