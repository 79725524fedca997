package store

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestTilesetsPersist(t *testing.T) { pgtest.EachDatabase(t, testTilesetsPersist) }

func testTilesetsPersist(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.CreateTileset(ctx, Tileset{ID: "id-a", Name: "a", Source: "a.mbtiles", Storage: StorageFile, Published: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTileset(ctx, Tileset{ID: "id-b", Name: "a", Source: "b.mbtiles", Storage: StorageFile}); !errors.Is(err, ErrConflict) {
		t.Errorf("duplicate name: err = %v, want ErrConflict", err)
	}
	if _, err := db.CreateTileset(ctx, Tileset{ID: "id-c", Name: "c", Source: "a.mbtiles", Storage: StorageFile}); !errors.Is(err, ErrConflict) {
		t.Errorf("duplicate source: err = %v, want ErrConflict", err)
	}
	a.Published = false
	a.Title = "Alpha"
	if _, err := db.UpdateTileset(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "admin_token", "secret"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path) // reopening runs the migrations again: they must be idempotent
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Tileset(ctx, "id-a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Published || got.Title != "Alpha" || got.Name != "a" {
		t.Errorf("after reopen: %+v", got)
	}
	if v, err := db.Setting(ctx, "admin_token"); err != nil || v != "secret" {
		t.Errorf("setting = %q, %v", v, err)
	}
	if _, err := db.Setting(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing setting: %v", err)
	}
	if err := db.DeleteTileset(ctx, "id-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tileset(ctx, "id-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if err := db.DeleteTileset(ctx, "id-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestIngests(t *testing.T) { pgtest.EachDatabase(t, testIngests) }

func testIngests(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in, err := db.CreateIngest(ctx, Ingest{ID: "i1", DocumentID: "d1", Filename: "x.geojson", Size: 10, State: IngestUpload})
	if err != nil {
		t.Fatal(err)
	}
	in.State = IngestFailed
	in.Errors = []string{"bad JSON at byte 3"}
	if _, err := db.UpdateIngest(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.Ingest(ctx, "i1")
	if err != nil || got.State != IngestFailed || len(got.Errors) != 1 || got.Errors[0] != "bad JSON at byte 3" {
		t.Errorf("ingest = %+v, %v", got, err)
	}
	if _, err := db.Ingest(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing ingest: %v", err)
	}
}

func TestMaps(t *testing.T) { pgtest.EachDatabase(t, testMaps) }

func testMaps(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutMap(ctx, Map{ID: "world", Published: true, Format: "png", Quality: 90}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutMap(ctx, Map{ID: "world", Published: false, Format: "webp", Quality: 70}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, _ = Open(ctx, path)
	defer db.Close()
	m, err := db.Map(ctx, "world")
	if err != nil || m.Published || m.Format != "webp" || m.Quality != 70 || m.Created == "" {
		t.Errorf("map = %+v, %v", m, err)
	}
	if err := db.DeleteMap(ctx, "world"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Map(ctx, "world"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT '?' FROM t WHERE b = ?`, `SELECT '?' FROM t WHERE b = $1`},
		{`SELECT 'it''s ?' , ?`, `SELECT 'it''s ?' , $1`},
	} {
		if got := numberPlaceholders(c.in); got != c.want {
			t.Errorf("numberPlaceholders(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestMigrateConcurrently opens one database from several goroutines at
// once, as several nodes starting together do: the migrations run once and
// every opener sees the full schema.
func TestMigrateConcurrently(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		if !IsPostgres(dsn) {
			// SQLite files are one node's: open once to create it, then
			// reopen concurrently (the migrations find nothing to do).
			db, err := Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := Open(ctx, dsn)
				if err == nil {
					var v int
					v, err = db.SchemaVersion(ctx)
					if err == nil && v != len(migrations) {
						t.Errorf("schema version %d, want %d", v, len(migrations))
					}
					db.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

func TestSettingIfAbsent(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		v, err := db.SetSettingIfAbsent(ctx, "k", "first")
		if err != nil || v != "first" {
			t.Fatalf("first = %q, %v", v, err)
		}
		v, err = db.SetSettingIfAbsent(ctx, "k", "second")
		if err != nil || v != "first" {
			t.Fatalf("second = %q, %v; want the first value kept", v, err)
		}
	})
}
