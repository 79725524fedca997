package tilesource

import (
	"context"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

func TestOpenMBTilesFixtures(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file      string
		format    Format
		minZ      int
		maxZ      int
		center    [3]float64
		layers    string // a substring of vector_layers
		wantError string
	}{
		{file: "world_cities.mbtiles", format: PBF, minZ: 0, maxZ: 6, center: [3]float64{-75.9375, 38.788894, 6}, layers: `"cities"`},
		{file: "world_cities_missing_center.mbtiles", format: PBF, minZ: 0, maxZ: 6, center: [3]float64{(-123.12359 + 174.763027) / 2, (-37.818085 + 59.352706) / 2, 2}, layers: `"cities"`},
		{file: "geography-class-png.mbtiles", format: PNG, minZ: 0, maxZ: 1, center: [3]float64{0, 20, 0}},
		{file: "geography-class-png-no-bounds.mbtiles", format: PNG, minZ: 0, maxZ: 1, center: [3]float64{0, 0, 1}},
		{file: "geography-class-jpg.mbtiles", format: JPG, minZ: 0, maxZ: 1, center: [3]float64{0, 0, 1}},
		{file: "geography-class-webp.mbtiles", format: WebP, minZ: 0, maxZ: 1, center: [3]float64{0, 20, 0}},
		{file: "invalid-tile-format.mbtiles", wantError: "neither gzip"},
		{file: "invalid.mbtiles", wantError: "not an MBTiles file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := OpenMBTiles(ctx, fixtures.Path(t, "fixtures/mbtileserver/testdata/"+tt.file))
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			info := src.Info()
			if !tt.format.Vector() && info.TileSize != 256 {
				t.Errorf("tile size = %d, want 256", info.TileSize)
			}
			if info.Format != tt.format || info.MinZoom != tt.minZ || info.MaxZoom != tt.maxZ {
				t.Errorf("format/zooms = %s %d..%d", info.Format, info.MinZoom, info.MaxZoom)
			}
			for i := range 3 {
				if d := info.Center[i] - tt.center[i]; d > 1e-6 || d < -1e-6 {
					t.Errorf("center = %v, want %v", info.Center, tt.center)
					break
				}
			}
			if !strings.Contains(string(info.VectorLayers), tt.layers) {
				t.Errorf("vector_layers = %s, want it to contain %s", info.VectorLayers, tt.layers)
			}
			tile, err := src.Tile(ctx, 0, 0, 0)
			if err != nil || len(tile) == 0 {
				t.Fatalf("tile 0/0/0: %d bytes, %v", len(tile), err)
			}
			if got, err := Sniff(tile); err != nil || got != tt.format {
				t.Errorf("sniffed %s, %v", got, err)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"pbf", PBF, true}, {"JPEG", JPG, true}, {"image/webp", WebP, true}, {"png", PNG, true}, {"tiff", "", false},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v", tt.in, got, err)
		}
	}
	if !PBF.AcceptsExtension("mvt") || !PBF.AcceptsExtension("") || PBF.AcceptsExtension("png") || !JPG.AcceptsExtension("jpeg") {
		t.Error("AcceptsExtension")
	}
	if PBF.MediaType() != "application/vnd.mapbox-vector-tile" || JPG.MediaType() != "image/jpeg" {
		t.Error("MediaType")
	}
}

func TestOpenPMTilesFixtures(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file      string
		format    Format
		size      int
		wantError bool
	}{
		{file: "fixtures/martin/tests/fixtures/pmtiles/png.pmtiles", format: PNG, size: 512},
		// Its version byte is the ASCII digit '3': it must be refused.
		{file: "fixtures/martin/tests/fixtures/pmtiles/stamen_toner__raster_CC-BY+ODbL_z3.pmtiles", wantError: true},
		{file: "fixtures/martin/tests/fixtures/pmtiles2/webp2.pmtiles", format: WebP, size: 512},
		{file: "fixtures/go-pmtiles/pmtiles/fixtures/test_fixture_1.pmtiles", format: PBF},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, err := OpenFile(ctx, fixtures.Path(t, tt.file))
			if tt.wantError {
				if err == nil {
					src.Close()
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			info := src.Info()
			if info.Format != tt.format || info.TileSize != tt.size {
				t.Errorf("format = %s, size %d; want %s, %d", info.Format, info.TileSize, tt.format, tt.size)
			}
			z := info.MinZoom
			found := false
			for x := 0; x < 1<<z && !found; x++ {
				for y := 0; y < 1<<z; y++ {
					tile, err := src.Tile(ctx, z, x, y)
					if err != nil {
						t.Fatal(err)
					}
					if tile != nil {
						found = true
						if tt.format.Vector() {
							continue
						}
						if got, err := Sniff(tile); err != nil || got != tt.format {
							t.Errorf("tile %d/%d/%d sniffed as %s, %v", z, x, y, got, err)
						}
						break
					}
				}
			}
			if !found {
				t.Errorf("no tile at the minimum zoom %d", z)
			}
		})
	}
}
