package pmtiles

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

var (
	pngMagic  = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
	gzipMagic = []byte{0x1f, 0x8b}
	jpegMagic = []byte{0xff, 0xd8, 0xff}
)

func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// fixtureFacts are facts about the peer fixtures taken from PROVENANCE.txt
// and a hex dump of their headers, not from this package.
var fixtureFacts = []struct {
	rel             string
	tileType        TileType
	tileCompression Compression
	internal        Compression
	minZoom         uint8
	maxZoom         uint8
	tiles           int
	clustered       bool
	metadataHas     string
}{
	{"fixtures/go-pmtiles/pmtiles/fixtures/test_fixture_1.pmtiles", TileTypeMVT, CompressionGzip, CompressionGzip, 0, 0, 1, false, "tippecanoe v2.5.0"},
	{"fixtures/go-pmtiles/pmtiles/fixtures/unclustered.pmtiles", TileTypePNG, CompressionNone, CompressionNone, 1, 1, 2, false, ""},
	{"fixtures/martin/tests/fixtures/pmtiles2/webp2.pmtiles", TileTypeWebP, CompressionNone, CompressionGzip, 0, 1, 5, true, "ne2sr"},
	{"fixtures/martin/tests/fixtures/pmtiles/png.pmtiles", TileTypePNG, CompressionNone, CompressionGzip, 0, 1, 5, true, "ne2sr"},
}

func TestFixtures(t *testing.T) {
	ctx := context.Background()
	for _, f := range fixtureFacts {
		t.Run(f.rel[strings.LastIndex(f.rel, "/")+1:], func(t *testing.T) {
			path := fixtures.Path(t, f.rel)
			src, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(ctx, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h := r.Header()
			if h.Version != 3 || h.TileType != f.tileType || h.TileCompression != f.tileCompression ||
				h.InternalCompression != f.internal || h.MinZoom != f.minZoom || h.MaxZoom != f.maxZoom ||
				h.Clustered != f.clustered || h.AddressedTilesCount != uint64(f.tiles) {
				t.Fatalf("header = %+v", h)
			}
			if h.MinLon > h.MaxLon || h.MinLat > h.MaxLat || h.MinLon < -180 || h.MaxLon > 180 || h.MinLat < -90 || h.MaxLat > 90 {
				t.Errorf("implausible bounds %v %v %v %v", h.MinLon, h.MinLat, h.MaxLon, h.MaxLat)
			}

			md, err := r.Metadata(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(md, &obj); err != nil {
				t.Fatalf("metadata is not a JSON object: %v", err)
			}
			if !bytes.Contains(md, []byte(f.metadataHas)) {
				t.Errorf("metadata lacks %q: %s", f.metadataHas, md)
			}

			// Walk the directories and compare with the header counts.
			var addressed, entries uint64
			offsets := map[uint64]bool{}
			var lastID uint64
			err = r.Walk(ctx, func(e Entry) error {
				if entries > 0 && e.TileID <= lastID {
					t.Errorf("walk out of order: %d after %d", e.TileID, lastID)
				}
				lastID = e.TileID
				entries++
				addressed += uint64(e.RunLength)
				offsets[e.Offset] = true
				for i := uint32(0); i < e.RunLength; i++ {
					z, x, y, err := IDToZXY(e.TileID + uint64(i))
					if err != nil {
						return err
					}
					data, ok, err := r.Tile(ctx, z, x, y)
					if err != nil || !ok {
						t.Fatalf("tile %d/%d/%d: found=%v err=%v", z, x, y, ok, err)
					}
					if len(data) != int(e.Length) {
						t.Errorf("tile %d/%d/%d has %d bytes, entry says %d", z, x, y, len(data), e.Length)
					}
					checkTileMagic(t, h, data)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if addressed != h.AddressedTilesCount || entries != h.TileEntriesCount || uint64(len(offsets)) != h.TileContentsCount {
				t.Errorf("walk: %d addressed, %d entries, %d contents; header says %d, %d, %d",
					addressed, entries, len(offsets), h.AddressedTilesCount, h.TileEntriesCount, h.TileContentsCount)
			}

			// Tiles outside the archive.
			for _, c := range [][3]int{{int(f.maxZoom) + 1, 0, 0}, {int(f.maxZoom) + 3, 5, 6}} {
				if data, ok, err := r.Tile(ctx, c[0], c[1], c[2]); ok || err != nil || data != nil {
					t.Errorf("tile %v: found=%v err=%v", c, ok, err)
				}
			}
			if _, _, err := r.Tile(ctx, 1, 2, 0); !errors.Is(err, ErrCoord) {
				t.Errorf("tile 1/2/0 err = %v, want ErrCoord", err)
			}
		})
	}
}

func checkTileMagic(t *testing.T, h Header, data []byte) {
	t.Helper()
	if h.TileCompression == CompressionGzip {
		if !bytes.HasPrefix(data, gzipMagic) {
			t.Fatalf("gzip tile lacks the gzip magic: % x", data[:min(8, len(data))])
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		data = raw
	}
	switch h.TileType {
	case TileTypeMVT:
		// A vector tile is a protobuf whose fields are layers (field 3,
		// wire type 2: tag byte 0x1a).
		if len(data) == 0 || data[0] != 0x1a {
			t.Fatalf("mvt tile does not start with a layer: % x", data[:min(8, len(data))])
		}
	case TileTypePNG:
		if !bytes.HasPrefix(data, pngMagic) {
			t.Fatalf("png tile lacks the PNG signature: % x", data[:min(8, len(data))])
		}
	case TileTypeJPEG:
		if !bytes.HasPrefix(data, jpegMagic) {
			t.Fatalf("jpeg tile lacks the JPEG SOI: % x", data[:min(8, len(data))])
		}
	case TileTypeWebP:
		if !isWebP(data) {
			t.Fatalf("webp tile lacks RIFF/WEBP: % x", data[:min(12, len(data))])
		}
	}
}

// The Stamen Toner fixture has the ASCII digit '3' (0x33) as version byte
// (PROVENANCE.txt): it must be refused with a clear error.
func TestFixtureASCIIVersion(t *testing.T) {
	path := fixtures.Path(t, "fixtures/martin/tests/fixtures/pmtiles/stamen_toner__raster_CC-BY+ODbL_z3.pmtiles")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if raw[7] != '3' {
		t.Fatalf("fixture version byte is 0x%02x, expected ASCII '3'", raw[7])
	}
	_, err = OpenLocation(context.Background(), path, Options{})
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "ASCII") {
		t.Fatalf("open: err = %v, want a format error naming the ASCII version byte", err)
	}
}
