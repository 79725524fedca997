package store

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

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

func TestDatasetIngests(t *testing.T) { pgtest.EachDatabase(t, testDatasetIngests) }

func testDatasetIngests(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateIngest(ctx, Ingest{ID: "t1", DocumentID: "d0", Filename: "a.mbtiles", Size: 5, State: IngestUpload}); err != nil {
		t.Fatal(err)
	}
	in, err := db.CreateIngest(ctx, Ingest{ID: "d1", DocumentID: "doc", Filename: "b.tif", Size: 9, State: IngestUpload,
		Kind: KindDataset, UploadType: "s3_multipart", UploadID: "up", ObjectKey: "k/b.tif", PartSize: 5 << 20, OutputType: "raster_tileset"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Ingest(ctx, "d1")
	if err != nil || got.Kind != KindDataset || got.UploadType != "s3_multipart" || got.UploadID != "up" || got.ObjectKey != "k/b.tif" || got.PartSize != 5<<20 || got.OutputType != "raster_tileset" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if old, _ := db.Ingest(ctx, "t1"); old.Kind != KindTileset {
		t.Errorf("default kind %q", old.Kind)
	}
	// The admin API's list holds only its own kind.
	if list, _ := db.Ingests(ctx); len(list) != 1 || list[0].ID != "t1" {
		t.Errorf("tileset ingests %+v", list)
	}
	if list, _ := db.IngestsOfKind(ctx, KindDataset); len(list) != 1 || list[0].ID != "d1" {
		t.Errorf("dataset ingests %+v", list)
	}
	if n, err := db.IngestBytesInFlight(ctx, KindDataset); err != nil || n != 9 {
		t.Errorf("dataset bytes in flight %d, %v; want 9", n, err)
	}
	if n, err := db.IngestBytesInFlight(ctx, "none"); err != nil || n != 0 {
		t.Errorf("no ingests: %d, %v", n, err)
	}

	// Conditional transitions: only one of two racing changes wins.
	in.State = IngestProcessing
	if _, err := db.UpdateIngestIf(ctx, in, IngestCond{States: []string{IngestUpload}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateIngestIf(ctx, in, IngestCond{States: []string{IngestUpload}}); !errors.Is(err, ErrStale) {
		t.Errorf("second transition: %v, want ErrStale", err)
	}
	if _, err := db.UpdateIngestIf(ctx, Ingest{ID: "gone"}, IngestCond{States: []string{IngestUpload}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v, want ErrNotFound", err)
	}

	// Leases: one owner at a time, taken over after it ends.
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return t0.Add(d).Format(LeaseTime) }
	if ids, _ := db.Claimable(ctx, KindDataset, at(0)); len(ids) != 1 || ids[0] != "d1" {
		t.Errorf("claimable %v", ids)
	}
	if ok, err := db.ClaimIngest(ctx, "d1", "node-a", at(time.Minute), at(0)); !ok || err != nil {
		t.Fatalf("claim a: %v %v", ok, err)
	}
	if ok, _ := db.ClaimIngest(ctx, "d1", "node-b", at(2*time.Minute), at(30*time.Second)); ok {
		t.Error("node-b took a live lease")
	}
	if ids, _ := db.Claimable(ctx, KindDataset, at(30*time.Second)); len(ids) != 0 {
		t.Errorf("claimable while held: %v", ids)
	}
	if ok, _ := db.ClaimIngest(ctx, "d1", "node-b", at(3*time.Minute), at(61*time.Second)); !ok {
		t.Error("node-b could not take an ended lease")
	}
	got, _ = db.Ingest(ctx, "d1")
	got.Progress = 0.5
	if _, err := db.UpdateIngestIf(ctx, got, IngestCond{LeaseOwner: "node-a"}); !errors.Is(err, ErrStale) {
		t.Errorf("old owner's update: %v, want ErrStale", err)
	}
	if _, err := db.UpdateIngestIf(ctx, got, IngestCond{LeaseOwner: "node-b", States: []string{IngestProcessing}}); err != nil {
		t.Errorf("owner's update: %v", err)
	}
	if got, _ = db.Ingest(ctx, "d1"); got.Progress != 0.5 || got.LeaseOwner != "node-b" {
		t.Errorf("after update %+v", got)
	}
	// Renewing extends the lease and only raises the progress.
	if err := db.RenewIngest(ctx, "d1", "node-b", at(4*time.Minute), 0.25); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.Ingest(ctx, "d1"); got.Progress != 0.5 || got.LeaseUntil != at(4*time.Minute) {
		t.Errorf("after renew %+v", got)
	}
	if err := db.RenewIngest(ctx, "d1", "node-b", at(5*time.Minute), 0.75); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.Ingest(ctx, "d1"); got.Progress != 0.75 {
		t.Errorf("progress %v, want 0.75", got.Progress)
	}
	if err := db.RenewIngest(ctx, "d1", "node-a", at(5*time.Minute), 0.9); !errors.Is(err, ErrStale) {
		t.Errorf("renew by another owner: %v, want ErrStale", err)
	}
}

// TestClaimNext: nodes claiming at once each get another session, never
// the same one; a held lease is skipped until it ends, then taken over.
func TestClaimNext(t *testing.T) { pgtest.EachDatabase(t, testClaimNext) }

func testClaimNext(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := []string{"p1", "p2", "p3"}
	for _, id := range append(ids, "u1") {
		state := IngestProcessing
		if id == "u1" {
			state = IngestUpload // not claimable
		}
		if _, err := db.CreateIngest(ctx, Ingest{ID: id, DocumentID: "doc-" + id, Filename: id + ".geojson", Size: 1, State: state, Kind: KindDataset}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return t0.Add(d).Format(LeaseTime) }

	const claimers = 8
	got := make([]string, claimers)
	errs := make([]error, claimers)
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = db.ClaimNext(ctx, KindDataset, "node-"+string(rune('a'+i)), at(time.Minute), at(0))
		}()
	}
	wg.Wait()
	claimed := map[string]int{}
	for i, id := range got {
		if errs[i] != nil {
			t.Fatalf("claimer %d: %v", i, errs[i])
		}
		if id != "" {
			claimed[id]++
		}
	}
	if len(claimed) != len(ids) {
		t.Fatalf("claimed %v, want each of %v once", claimed, ids)
	}
	for _, id := range ids {
		if claimed[id] != 1 {
			t.Errorf("%s claimed %d times", id, claimed[id])
		}
		if in, _ := db.Ingest(ctx, id); in.LeaseOwner == "" || in.LeaseUntil != at(time.Minute) {
			t.Errorf("%s after the claim: %+v", id, in)
		}
	}
	// Every lease is held: nothing to claim until they end.
	if id, err := db.ClaimNext(ctx, KindDataset, "late", at(2*time.Minute), at(30*time.Second)); id != "" || err != nil {
		t.Errorf("claim while held: %q %v", id, err)
	}
	if id, err := db.ClaimNext(ctx, KindTileset, "late", at(2*time.Minute), at(2*time.Minute)); id != "" || err != nil {
		t.Errorf("claim of another kind: %q %v", id, err)
	}
	id, err := db.ClaimNext(ctx, KindDataset, "late", at(3*time.Minute), at(61*time.Second))
	if err != nil || id == "" {
		t.Fatalf("take over an ended lease: %q %v", id, err)
	}
	if in, _ := db.Ingest(ctx, id); in.LeaseOwner != "late" {
		t.Errorf("taken over: %+v", in)
	}
}
