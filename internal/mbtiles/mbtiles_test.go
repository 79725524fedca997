package mbtiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

func TestWriteThenRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rt.mbtiles")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Coord][]byte{}
	for z := 0; z <= 4; z++ {
		n := 1 << z
		for x := 0; x < n; x++ {
			for y := 0; y < n; y += 2 {
				data := []byte(fmt.Sprintf("tile %d/%d/%d", z, x, y))
				want[Coord{z, x, y}] = data
				if err := w.PutTile(ctx, z, x, y, data); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.PutTile(ctx, 2, 4, 0, []byte("x")); err == nil {
		t.Error("PutTile outside the grid: want an error")
	}
	if err := w.SetMetadata(ctx, map[string]string{"name": "rt", "format": "pbf"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md, err := r.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if md["name"] != "rt" || md["format"] != "pbf" {
		t.Errorf("metadata = %v", md)
	}
	for c, data := range want {
		got, err := r.Tile(ctx, c.Z, c.X, c.Y)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("tile %v = %q, %v; want %q", c, got, err, data)
		}
	}
	if got, err := r.Tile(ctx, 1, 0, 1); err != nil || got != nil {
		t.Errorf("absent tile = %q, %v; want nil, nil", got, err)
	}
	// The rows are stored in TMS order: check with a raw query.
	var row int
	if err := r.db.QueryRow(`SELECT tile_row FROM tiles WHERE zoom_level=1 AND tile_column=0`).Scan(&row); err != nil || row != 1 {
		t.Errorf("stored TMS row of 1/0/0 = %d, %v; want 1", row, err)
	}
	seen := 0
	if err := r.Each(ctx, func(c Coord, data []byte) error {
		if !bytes.Equal(want[c], data) {
			return fmt.Errorf("tile %v: got %q", c, data)
		}
		seen++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("Each saw %d tiles, want %d", seen, len(want))
	}
	lo, hi, ok, err := r.ZoomRange(ctx)
	if err != nil || !ok || lo != 0 || hi != 4 {
		t.Errorf("ZoomRange = %d, %d, %v, %v", lo, hi, ok, err)
	}
}

func TestFixtures(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file    string
		format  string // the metadata's format, where the file names one
		magic   string // the first bytes of tile 0/0/0
		wantErr bool
	}{
		{"fixtures/mbtileserver/testdata/world_cities.mbtiles", "pbf", "\x1f\x8b", false},
		{"fixtures/mbtileserver/testdata/geography-class-png.mbtiles", "", "\x89PNG", false},
		{"fixtures/mbtileserver/testdata/geography-class-jpg.mbtiles", "", "\xff\xd8\xff", false},
		{"fixtures/mbtileserver/testdata/geography-class-webp.mbtiles", "", "RIFF", false},
		{"fixtures/mbtileserver/testdata/invalid.mbtiles", "", "", true},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			r, err := Open(ctx, fixtures.Path(t, tt.file))
			if tt.wantErr {
				if err == nil {
					r.Close()
					t.Fatal("want an error")
				}
				if !errors.Is(err, ErrNotMBTiles) {
					t.Errorf("error %v does not wrap ErrNotMBTiles", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			md, err := r.Metadata(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tt.format != "" && md["format"] != tt.format {
				t.Errorf("format = %q, want %q", md["format"], tt.format)
			}
			tile, err := r.Tile(ctx, 0, 0, 0)
			if err != nil || len(tile) == 0 {
				t.Fatalf("tile 0/0/0 = %d bytes, %v", len(tile), err)
			}
			if !bytes.HasPrefix(tile, []byte(tt.magic)) {
				t.Errorf("tile 0/0/0 starts with % x, want % x", tile[:4], tt.magic)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.mbtiles")
	if _, err := Open(context.Background(), p); err == nil {
		t.Fatal("want an error for a missing file")
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("opening a missing file read-only created it")
	}
}
