package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/cursor"
)

// TestAfterAndAccountFields pages through the tilesets in creation order
// while one is deleted and one added, and changes the account's fields.
func TestAfterAndAccountFields(t *testing.T) {
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	ctx := context.Background()
	c, db := newCatalog(t, dir)
	defer db.Close()
	// Files scanned one at a time: their records get increasing seqs.
	for _, n := range []string{"c", "a", "d", "b"} {
		writeMBTiles(t, filepath.Join(tiles, n+".mbtiles"), map[string]string{"format": "png"})
		if _, err := c.Rescan(ctx); err != nil {
			t.Fatal(err)
		}
	}
	page, more := c.After(cursor.Position{}, 2)
	if !more || len(page) != 2 || page[0].Name != "c" || page[1].Name != "a" {
		t.Fatalf("first page %v %v", names(page), more)
	}
	pos := cursor.Position{Seq: page[1].Seq, ID: page[1].ID}
	// "c" (seen) is deleted and "e" added: the next pages go on from "a".
	if _, err := c.Delete(ctx, page[0].ID); err != nil {
		t.Fatal(err)
	}
	writeMBTiles(t, filepath.Join(tiles, "e.mbtiles"), map[string]string{"format": "png"})
	if _, err := c.Rescan(ctx); err != nil {
		t.Fatal(err)
	}
	page, more = c.After(pos, 2)
	if !more || len(page) != 2 || page[0].Name != "d" || page[1].Name != "b" {
		t.Fatalf("second page %v %v", names(page), more)
	}
	page, more = c.After(cursor.Position{Seq: page[1].Seq, ID: page[1].ID}, 2)
	if more || len(page) != 1 || page[0].Name != "e" {
		t.Fatalf("last page %v %v", names(page), more)
	}

	desc, attr, title := "streets", "© someone", "Streets"
	e, err := c.Update(ctx, page[0].ID, Change{Title: &title, Description: &desc, Attribution: &attr})
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != title || e.Description != desc || *e.Attribution != attr {
		t.Errorf("updated %+v", e.Tileset)
	}
	got, _ := c.ByID(e.ID)
	if got.Description != desc {
		t.Errorf("catalog entry %+v", got.Tileset)
	}
	rec, err := db.Tileset(ctx, e.ID)
	if err != nil || rec.Description != desc || *rec.Attribution != attr || rec.Title != title {
		t.Errorf("stored %+v %v", rec, err)
	}
}
