package tileconv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

func TestMBTilesToPMTilesAndDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "in.mbtiles")
	w, err := mbtiles.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[3]int][]byte{}
	for z := 0; z <= 5; z++ {
		for x := 0; x < 1<<z; x++ {
			y := (x * 7) % (1 << z)
			data := []byte(fmt.Sprintf("\x89PNG\r\n\x1a\n%d/%d/%d", z, x, y))
			want[[3]int{z, x, y}] = data
			w.PutTile(ctx, z, x, y, data)
		}
	}
	w.SetMetadata(ctx, map[string]string{"format": "png", "name": "T", "bounds": "-10,-10,10,10"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	dst := filepath.Join(dir, "out.pmtiles")
	st, err := MBTilesToPMTiles(ctx, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tiles != int64(len(want)) {
		t.Errorf("copied %d tiles, want %d", st.Tiles, len(want))
	}
	p, err := tilesource.OpenFile(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if info := p.Info(); info.Format != tilesource.PNG || info.Name != "T" || info.Bounds[0] != -10 || info.MaxZoom != 5 {
		t.Errorf("info = %+v", info)
	}
	for c, data := range want {
		got, err := p.Tile(ctx, c[0], c[1], c[2])
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("tile %v = %q, %v", c, got, err)
		}
	}

	out := filepath.Join(dir, "files")
	paths, st, err := MBTilesToDir(ctx, src, out)
	if err != nil || len(paths) != len(want) || st.Tiles != int64(len(want)) {
		t.Fatalf("export: %d paths, %v", len(paths), err)
	}
	got, err := os.ReadFile(filepath.Join(out, "3", "2", "6.png"))
	if err != nil || !bytes.Equal(got, want[[3]int{3, 2, 6}]) {
		t.Errorf("exported 3/2/6 = %q, %v", got, err)
	}
}
