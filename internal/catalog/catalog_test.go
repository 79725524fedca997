package catalog

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/store"
)

// pngTile is the smallest valid PNG signature-prefixed blob the sniffer
// recognises; the catalog never decodes it.
var pngTile = []byte("\x89PNG\r\n\x1a\n-not-a-real-image")

func writeMBTiles(t *testing.T, path string, md map[string]string) {
	t.Helper()
	ctx := context.Background()
	w, err := mbtiles.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.PutTile(ctx, 0, 0, 0, pngTile); err != nil {
		t.Fatal(err)
	}
	if err := w.SetMetadata(ctx, md); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func newCatalog(t *testing.T, dir string) (*Catalog, *store.DB) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	c := New(filepath.Join(dir, "tiles"), db, Options{Logger: slog.New(slog.DiscardHandler)})
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, db
}

func names(entries []*Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name+":"+e.State)
	}
	return out
}

func TestScanPersistAndReload(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeMBTiles(t, filepath.Join(tiles, "alpha.mbtiles"), map[string]string{"name": "Alpha", "format": "png"})
	writeMBTiles(t, filepath.Join(tiles, "beta.mbtiles"), map[string]string{"format": "png"})
	os.WriteFile(filepath.Join(tiles, "broken.mbtiles"), []byte("this is not sqlite"), 0o644)
	os.WriteFile(filepath.Join(tiles, "notes.txt"), []byte("ignored"), 0o644)

	c, db := newCatalog(t, dir)
	got := names(c.List())
	want := []string{"alpha:ok", "beta:ok", "broken:error"}
	if !slices.Equal(got, want) {
		t.Fatalf("entries = %v, want %v", got, want)
	}
	broken, _ := c.Get("broken")
	if broken.Error == "" || broken.Served() {
		t.Errorf("broken entry: %+v", broken)
	}
	alpha, _ := c.Get("alpha")
	if !alpha.Served() || alpha.TileType() != "raster" || alpha.Type != "mbtiles" {
		t.Errorf("alpha: served=%v tileType=%q type=%q", alpha.Served(), alpha.TileType(), alpha.Type)
	}
	tile, err := alpha.Reader.Tile(ctx, 0, 0, 0)
	if err != nil || string(tile) != string(pngTile) {
		t.Errorf("alpha tile: %q %v", tile, err)
	}
	// Unpublish and rename survive a restart, and ids are stable.
	if _, err := c.SetPublished(ctx, alpha.ID, false); err != nil {
		t.Fatal(err)
	}
	newName := "first"
	if _, err := c.Update(ctx, alpha.ID, Change{Name: &newName}); err != nil {
		t.Fatal(err)
	}
	beta, _ := c.Get("beta")
	db.Close()

	c2, db2 := newCatalog(t, dir)
	defer db2.Close()
	a2, ok := c2.ByID(alpha.ID)
	if !ok || a2.Name != "first" || a2.Published {
		t.Fatalf("after restart: %+v %v", a2, ok)
	}
	if b2, _ := c2.Get("beta"); b2 == nil || b2.ID != beta.ID {
		t.Errorf("beta id not stable")
	}

	// New and removed files: rescan keeps the dead record, reload drops it.
	writeMBTiles(t, filepath.Join(tiles, "gamma.mbtiles"), map[string]string{"format": "png"})
	os.Remove(filepath.Join(tiles, "beta.mbtiles"))
	entries, err := c2.Rescan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(entries), []string{"beta:missing", "broken:error", "first:ok", "gamma:ok"}; !slices.Equal(got, want) {
		t.Fatalf("after rescan: %v, want %v", got, want)
	}
	removed, err := c2.Reload(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{beta.ID}) {
		t.Errorf("removed = %v, want [%s]", removed, beta.ID)
	}
	if _, ok := c2.Get("beta"); ok {
		t.Error("beta still listed after reload")
	}
	if _, err := db2.Tileset(ctx, beta.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("beta record after reload: %v", err)
	}
}

func TestChangedFileIsReopened(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	p := filepath.Join(tiles, "a.mbtiles")
	writeMBTiles(t, p, map[string]string{"format": "png", "name": "one"})
	c, db := newCatalog(t, dir)
	defer db.Close()
	before, _ := c.Get("a")
	if before.Info.Name != "one" {
		t.Fatalf("name = %q", before.Info.Name)
	}
	os.Remove(p)
	writeMBTiles(t, p, map[string]string{"format": "png", "name": "two"})
	os.Chtimes(p, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	if _, err := c.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Get("a")
	if after.Info.Name != "two" || after.ID != before.ID || after.Gen == before.Gen {
		t.Errorf("after change: name %q id same %v gen changed %v", after.Info.Name, after.ID == before.ID, after.Gen != before.Gen)
	}
}

func TestUpdateAndDelete(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeMBTiles(t, filepath.Join(tiles, "a.mbtiles"), map[string]string{"format": "png"})
	writeMBTiles(t, filepath.Join(tiles, "b.mbtiles"), map[string]string{"format": "png"})
	c, db := newCatalog(t, dir)
	defer db.Close()
	a, _ := c.Get("a")
	tests := []struct {
		name string
		err  error
	}{
		{"b", ErrNameTaken},
		{"", ErrBadName},
		{"../x", ErrBadName},
		{".hidden", ErrBadName},
		{"ok name_1.v2", nil},
	}
	for _, tt := range tests {
		n := tt.name
		_, err := c.Update(ctx, a.ID, Change{Name: &n})
		if !errors.Is(err, tt.err) && !(tt.err == nil && err == nil) {
			t.Errorf("rename to %q: err = %v, want %v", tt.name, err, tt.err)
		}
	}
	// Publishing twice is idempotent.
	for range 2 {
		e, err := c.SetPublished(ctx, a.ID, true)
		if err != nil || !e.Published {
			t.Fatalf("publish: %v", err)
		}
	}
	removed, err := c.Delete(ctx, a.ID)
	if err != nil || !slices.Equal(removed, []string{a.ID}) {
		t.Fatalf("delete: %v %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(tiles, "a.mbtiles")); !os.IsNotExist(err) {
		t.Errorf("file still there after delete: %v", err)
	}
	if _, err := c.Delete(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestAddFileMakesNameUnique(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeMBTiles(t, filepath.Join(tiles, "roads.mbtiles"), map[string]string{"format": "png"})
	c, db := newCatalog(t, dir)
	defer db.Close()
	tmp := filepath.Join(tiles, ".upload-1.tmp")
	writeMBTiles(t, tmp, map[string]string{"format": "png"})
	e, err := c.AddFile(ctx, tmp, "roads", ".mbtiles", "11111111-1111-1111-1111-111111111111")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "roads-2" || e.Tileset.Source != "roads-2.mbtiles" || e.State != StateOK {
		t.Errorf("entry = %s %s %s", e.Name, e.Tileset.Source, e.State)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Error("temporary file left behind")
	}
	bad := filepath.Join(tiles, ".upload-2.tmp")
	os.WriteFile(bad, []byte("garbage"), 0o644)
	if _, err := c.AddFile(ctx, bad, "junk", ".mbtiles", "22222222-2222-2222-2222-222222222222"); err == nil {
		t.Error("AddFile of garbage: want an error")
	}
	if _, ok := c.Get("junk"); ok {
		t.Error("garbage became a tileset")
	}
}

// TestTemporaryFilesNotListed: files being written into the tiles
// directory (hidden, or marked .tmp-) are not tilesets, even when what
// they hold so far is a readable MBTiles file.
func TestTemporaryFilesNotListed(t *testing.T) {
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	for _, name := range []string{"real.mbtiles", ".real.mbtiles.tmp-123", ".hidden.mbtiles", "half.tmp-77.mbtiles"} {
		writeMBTiles(t, filepath.Join(tiles, name), map[string]string{"format": "png"})
	}
	c, db := newCatalog(t, dir)
	defer db.Close()
	if got := names(c.List()); !slices.Equal(got, []string{"real:" + StateOK}) {
		t.Errorf("listed %v, want only real", got)
	}
}
