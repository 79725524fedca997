package pmtiles

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// TestConvertMBTiles converts the peer MBTiles fixtures to PMTiles (the way
// the benchmark does) and checks every tile and the metadata against the
// MBTiles file.
func TestConvertMBTiles(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		file     string
		tileType TileType
		magic    func([]byte) bool
	}{
		{"world_cities.mbtiles", TileTypeMVT, func(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }},
		{"geography-class-png.mbtiles", TileTypePNG, func(b []byte) bool { return bytes.HasPrefix(b, pngMagic) }},
		{"geography-class-jpg.mbtiles", TileTypeJPEG, func(b []byte) bool { return bytes.HasPrefix(b, jpegMagic) }},
		{"geography-class-webp.mbtiles", TileTypeWebP, isWebP},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src := fixtures.Path(t, "fixtures/mbtileserver/testdata/"+c.file)
			mb, err := mbtiles.Open(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer mb.Close()
			md, err := mb.Metadata(ctx)
			if err != nil {
				t.Fatal(err)
			}
			opts, err := WriterOptionsFromMBTiles(md)
			if err != nil {
				t.Fatal(err)
			}
			if md["format"] != "" && opts.TileType != c.tileType {
				t.Fatalf("tile type %s from format %q", opts.TileType, md["format"])
			}
			out := filepath.Join(t.TempDir(), "out.pmtiles")
			w, err := NewWriter(out, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := map[mbtiles.Coord][]byte{}
			err = mb.Each(ctx, func(co mbtiles.Coord, data []byte) error {
				if len(want) == 0 && opts.TileCompression != CompressionUnknown && SniffCompression(data) != opts.TileCompression {
					t.Errorf("first tile compression %s, options say %s", SniffCompression(data), opts.TileCompression)
				}
				want[co] = append([]byte(nil), data...)
				return w.PutTile(co.Z, co.X, co.Y, data)
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			r, err := OpenLocation(ctx, out, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h := r.Header()
			if h.AddressedTilesCount != uint64(len(want)) || h.TileType != c.tileType || h.TileCompression != SniffCompression(want[mbtiles.Coord{}]) {
				t.Fatalf("header %+v, %d tiles in MBTiles", h, len(want))
			}
			lo, hi, _, err := mb.ZoomRange(ctx)
			if err != nil || int(h.MinZoom) != lo || int(h.MaxZoom) != hi {
				t.Errorf("zooms %d-%d, MBTiles %d-%d (%v)", h.MinZoom, h.MaxZoom, lo, hi, err)
			}
			for co, data := range want {
				got, ok, err := r.Tile(ctx, co.Z, co.X, co.Y)
				if err != nil || !ok || !bytes.Equal(got, data) || !c.magic(got) {
					t.Fatalf("tile %v: ok=%v err=%v equal=%v", co, ok, err, bytes.Equal(got, data))
				}
			}
			mdJSON, err := r.Metadata(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(mdJSON, &got); err != nil {
				t.Fatal(err)
			}
			if md["name"] != "" && got["name"] != md["name"] {
				t.Errorf("metadata name %v, want %q", got["name"], md["name"])
			}
			if c.tileType == TileTypeMVT {
				if _, ok := got["vector_layers"].([]any); !ok {
					t.Errorf("vector_layers missing from metadata: %s", mdJSON)
				}
			}
		})
	}
}

func TestWriterOptionsFromMBTiles(t *testing.T) {
	o, err := WriterOptionsFromMBTiles(map[string]string{
		"format": "jpg", "name": "n", "bounds": "-10,-20,30,40", "center": "1,2,3", "minzoom": "0",
		"json": `{"vector_layers":[{"id":"x"}],"name":"ignored"}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.TileType != TileTypeJPEG || o.Bounds != [4]float64{-10, -20, 30, 40} || o.CenterLon != 1 || o.CenterLat != 2 || o.CenterZoom != 3 {
		t.Fatalf("options %+v", o)
	}
	var md map[string]any
	if err := json.Unmarshal(o.Metadata, &md); err != nil {
		t.Fatal(err)
	}
	if md["name"] != "n" || md["vector_layers"] == nil || md["minzoom"] != nil || md["format"] != "jpg" {
		t.Fatalf("metadata %s", o.Metadata)
	}
	if _, err := WriterOptionsFromMBTiles(map[string]string{"json": "[1"}); err == nil {
		t.Fatal("bad json accepted")
	}
	for _, c := range []struct {
		b    []byte
		want Compression
	}{{[]byte{0x1f, 0x8b, 8}, CompressionGzip}, {[]byte{0x28, 0xb5, 0x2f, 0xfd}, CompressionZstd}, {[]byte{0x1a, 3}, CompressionNone}, {nil, CompressionNone}} {
		if got := SniffCompression(c.b); got != c.want {
			t.Errorf("SniffCompression(% x) = %s", c.b, got)
		}
	}
	for _, c := range []struct {
		b    []byte
		want TileType
	}{
		{pngMagic, TileTypePNG},
		{[]byte{0xff, 0xd8, 0xff, 0xe0}, TileTypeJPEG},
		{[]byte("RIFF\x10\x00\x00\x00WEBPVP8 "), TileTypeWebP},
		{[]byte("\x00\x00\x00\x1cftypavif"), TileTypeAVIF},
		{[]byte{0x1f, 0x8b, 8, 0}, TileTypeMVT},
		{[]byte{0x1a, 0x05}, TileTypeMVT},
		{[]byte("GIF89a"), TileTypeUnknown},
		{nil, TileTypeUnknown},
	} {
		if got := SniffTileType(c.b); got != c.want {
			t.Errorf("SniffTileType(% x) = %s, want %s", c.b, got, c.want)
		}
	}
}
