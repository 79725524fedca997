package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestAPIKeys(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := mustOpen(t, dsn)
		v0, err := db.APIKeysVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		desc := "for the web site"
		a, err := db.CreateAPIKey(ctx, APIKey{ID: "a", Token: "tok-a", Name: "web", Description: &desc, Origins: []string{"example.com", "*.example.org"}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Seq != 1 || a.Created == "" || a.Created != a.Changed {
			t.Errorf("created %+v", a)
		}
		if _, err := db.CreateAPIKey(ctx, APIKey{ID: "b", Token: "tok-a", Name: "dup"}); !errors.Is(err, ErrConflict) {
			t.Errorf("duplicate token: %v", err)
		}
		b, err := db.CreateAPIKey(ctx, APIKey{ID: "b", Token: "tok-b", Name: "app"})
		if err != nil {
			t.Fatal(err)
		}
		if b.Seq != 2 {
			t.Errorf("second seq %d", b.Seq)
		}
		got, err := db.APIKey(ctx, "a")
		if err != nil || got.Token != "tok-a" || *got.Description != desc || got.UserAgent != nil || !slices.Equal(got.Origins, a.Origins) {
			t.Errorf("read %+v %v", got, err)
		}
		if got, _ := db.APIKey(ctx, "b"); got.Origins == nil || len(got.Origins) != 0 || got.Description != nil {
			t.Errorf("read b %+v", got)
		}
		if _, err := db.APIKey(ctx, "zz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing: %v", err)
		}
		v1, _ := db.APIKeysVersion(ctx)
		if v1 == v0 {
			t.Error("version unchanged by creates")
		}

		ua := "MyApp/"
		a.UserAgent, a.Description, a.Name, a.Origins = &ua, nil, "web2", []string{"?"}
		up, err := db.UpdateAPIKey(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if up.Name != "web2" || up.Description != nil || *up.UserAgent != ua || !slices.Equal(up.Origins, []string{"?"}) || up.Changed < up.Created || up.Token != "tok-a" {
			t.Errorf("updated %+v", up)
		}
		if _, err := db.UpdateAPIKey(ctx, APIKey{ID: "zz"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("update missing: %v", err)
		}
		v2, _ := db.APIKeysVersion(ctx)
		if v2 == v1 {
			t.Error("version unchanged by an update")
		}
		if n, err := db.CountAPIKeys(ctx); err != nil || n != 2 {
			t.Errorf("count %d %v", n, err)
		}
		if err := db.DeleteAPIKey(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteAPIKey(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		v3, _ := db.APIKeysVersion(ctx)
		if v3 == v2 {
			t.Error("version unchanged by a delete")
		}
		all, err := db.APIKeys(ctx)
		if err != nil || len(all) != 1 || all[0].ID != "b" {
			t.Errorf("all %+v %v", all, err)
		}
	})
}

// TestAPIKeysAfter pages through keys while others are inserted and
// deleted: every key that exists throughout is seen exactly once, in order.
func TestAPIKeysAfter(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := mustOpen(t, dsn)
		for i := range 25 {
			if _, err := db.CreateAPIKey(ctx, APIKey{ID: fmt.Sprintf("k%02d", i), Token: fmt.Sprintf("t%02d", i), Name: "n"}); err != nil {
				t.Fatal(err)
			}
		}
		var seen []string
		seq, id := int64(0), ""
		for page := 0; ; page++ {
			items, err := db.APIKeysAfter(ctx, seq, id, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range items {
				seen = append(seen, k.ID)
			}
			if len(items) < 10 {
				break
			}
			seq, id = items[len(items)-1].Seq, items[len(items)-1].ID
			// Between pages: a key already seen and one not yet seen are
			// deleted, and one is added (it comes at the end).
			db.DeleteAPIKey(ctx, fmt.Sprintf("k%02d", page))
			db.DeleteAPIKey(ctx, fmt.Sprintf("k%02d", 24-page))
			db.CreateAPIKey(ctx, APIKey{ID: fmt.Sprintf("new%d", page), Token: fmt.Sprintf("new%d", page), Name: "n"})
		}
		want := []string{}
		for i := range 23 { // k23 and k24 were deleted before their page
			want = append(want, fmt.Sprintf("k%02d", i))
		}
		want = append(want, "new0", "new1")
		if !slices.Equal(seen, want) {
			t.Errorf("seen %v\nwant %v", seen, want)
		}
	})
}

func TestTilesetAccountFields(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := mustOpen(t, dsn)
		a, err := db.CreateTileset(ctx, Tileset{ID: "a", Name: "a", Source: "a.mbtiles", Storage: StorageFile})
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.CreateTileset(ctx, Tileset{ID: "b", Name: "b", Source: "b.mbtiles", Storage: StorageFile})
		if err != nil {
			t.Fatal(err)
		}
		if a.Seq != 1 || b.Seq != 2 || a.Attribution != nil || a.Description != "" {
			t.Errorf("created %+v %+v", a, b)
		}
		attr := "© contributors"
		a.Description, a.Attribution, a.Title = "roads", &attr, "Roads"
		if _, err := db.UpdateTileset(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := db.Tileset(ctx, "a")
		if err != nil || got.Description != "roads" || got.Attribution == nil || *got.Attribution != attr || got.Title != "Roads" || got.Seq != 1 {
			t.Errorf("read %+v %v", got, err)
		}

		if removed, err := db.TilesetRemoved(ctx, "a"); err != nil || removed {
			t.Errorf("removed before marking: %v %v", removed, err)
		}
		for range 2 { // marking twice is harmless
			if err := db.MarkTilesetRemoved(ctx, "a"); err != nil {
				t.Fatal(err)
			}
		}
		if removed, err := db.TilesetRemoved(ctx, "a"); err != nil || !removed {
			t.Errorf("removed after marking: %v %v", removed, err)
		}
		if err := db.UnmarkTilesetRemoved(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if removed, _ := db.TilesetRemoved(ctx, "a"); removed {
			t.Error("still removed after unmarking")
		}
	})
}
