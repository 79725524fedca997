package ingest

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/store"
)

// reopen starts a new service over the same data directory, as a restart
// after a crash does.
func reopen(t *testing.T, dir string, opts Options) *Service {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSize == 0 {
		opts.MaxSize = 1 << 20
	}
	cat := catalog.New(filepath.Join(dir, "tiles"), db, catalog.Options{Logger: opts.Logger})
	if err := cat.Load(ctx); err != nil {
		t.Fatal(err)
	}
	svc, err := New(ctx, db, cat, filepath.Join(dir, "uploads"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// uploaded creates an ingest and uploads data whole.
func uploaded(t *testing.T, svc *Service, name string, data []byte) Record {
	t.Helper()
	ctx := context.Background()
	rec, err := svc.Create(ctx, name, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if rec, err = svc.Upload(ctx, rec.ID, bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestRecoverInterruptedProcessing(t *testing.T) {
	ctx := context.Background()
	svc, _, dir := newService(t, 1<<20)
	withFile := uploaded(t, svc, "roads.geojson", []byte(lines))
	withoutFile := uploaded(t, svc, "rivers.geojson", []byte(lines))
	waiting, _ := svc.Create(ctx, "lakes.geojson", 100)
	// A crash during process: the records stay in "processing".
	for _, id := range []string{withFile.ID, withoutFile.ID} {
		in, _ := svc.db.Ingest(ctx, id)
		in.State = store.IngestProcessing
		if _, err := svc.db.UpdateIngest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(svc.partPath(withoutFile.ID))
	orphan := filepath.Join(dir, "uploads", "0d6f3a52-5b36-4c8e-9a55-3f0c2f1e7a11.part")
	os.WriteFile(orphan, []byte("left behind"), 0o644)
	os.WriteFile(svc.chunkPath(waiting.ID), []byte("half a chunk"), 0o644)

	after := reopen(t, dir, Options{})
	got, _ := after.Get(ctx, withFile.ID)
	if got.State != store.IngestUploaded || got.Received != got.Size {
		t.Errorf("interrupted with its file: %s, %d of %d", got.State, got.Received, got.Size)
	}
	if e, err := after.Process(ctx, withFile.ID); err != nil || e.Name != "roads" {
		t.Errorf("process after the restart: %v", err)
	}
	got, _ = after.Get(ctx, withoutFile.ID)
	if got.State != store.IngestFailed || len(got.Errors) == 0 || !strings.Contains(got.Errors[0], "interrupted") {
		t.Errorf("interrupted without its file: %+v", got)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Error("a .part file with no ingest survived the start")
	}
	if _, err := os.Stat(after.chunkPath(waiting.ID)); !os.IsNotExist(err) {
		t.Error("a chunk left by a crash survived the start")
	}
	if _, err := os.Stat(after.partPath(waiting.ID)); err != nil {
		t.Errorf("a live upload lost its file: %v", err)
	}
}

func TestListCancelExpire(t *testing.T) {
	ctx := context.Background()
	svc, _, dir := newService(t, 1<<20)
	a, _ := svc.Create(ctx, "a.geojson", 100)
	b := uploaded(t, svc, "b.geojson", []byte(lines))
	list, err := svc.List(ctx)
	if err != nil || len(list) != 2 || list[0].ID != b.ID || list[0].Received != int64(len(lines)) || list[1].Received != 0 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if err := svc.Cancel(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a cancelled ingest is still there: %v", err)
	}
	if _, err := os.Stat(svc.partPath(a.ID)); !os.IsNotExist(err) {
		t.Error("a cancelled upload kept its file")
	}
	if err := svc.Cancel(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("cancel twice: %v", err)
	}

	// Expiry, with a clock that moves: nothing goes before its time.
	now := time.Now()
	clock := func() time.Time { return now }
	exp := reopen(t, dir, Options{Expiry: time.Hour, Now: clock})
	c, _ := exp.Create(ctx, "c.geojson", 100)
	if removed, err := exp.Expire(ctx); err != nil || len(removed) != 0 {
		t.Fatalf("expired too early: %v %v", removed, err)
	}
	now = now.Add(2 * time.Hour)
	removed, err := exp.Expire(ctx)
	if err != nil || len(removed) != 2 {
		t.Fatalf("expired %v, %v; want b and c", removed, err)
	}
	for _, id := range []string{b.ID, c.ID} {
		if _, err := exp.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s survived its expiry", id)
		}
		if _, err := os.Stat(exp.partPath(id)); !os.IsNotExist(err) {
			t.Errorf("%s kept its file after expiry", id)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "uploads"))
	if len(ents) != 0 {
		t.Errorf("files left in uploads/: %v", ents)
	}
}

// TestConcurrentUploadIsRefused holds one upload open (its body a pipe)
// and sends a second: it is refused at once and the first one's bytes win.
func TestConcurrentUploadIsRefused(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t, 1<<20)
	data := []byte(lines)
	rec, _ := svc.Create(ctx, "roads.geojson", int64(len(data)))
	pr, pw := io.Pipe()
	first := make(chan error, 1)
	go func() {
		_, err := svc.Upload(ctx, rec.ID, pr, nil)
		first <- err
	}()
	pw.Write(data[:10]) // the first upload is under way
	other := bytes.Repeat([]byte("x"), len(data))
	if _, err := svc.Upload(ctx, rec.ID, bytes.NewReader(other), nil); !errors.Is(err, ErrBusy) {
		t.Errorf("second upload: %v, want ErrBusy", err)
	}
	if _, err := svc.Process(ctx, rec.ID); !errors.Is(err, ErrBusy) && !errors.Is(err, ErrState) {
		t.Errorf("process during an upload: %v", err)
	}
	if err := svc.Cancel(ctx, rec.ID); !errors.Is(err, ErrBusy) {
		t.Errorf("cancel during an upload: %v", err)
	}
	pw.Write(data[10:])
	pw.Close()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(svc.partPath(rec.ID))
	if !bytes.Equal(got, data) {
		t.Errorf("the upload file holds %q", got)
	}
}

// TestRefusedChunkCommitsNothing sends chunks that are refused (too long,
// too short, broken off) over bytes already received: not one byte changes.
func TestRefusedChunkCommitsNothing(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t, 1<<20)
	data := []byte(lines)
	n := int64(len(data))
	rec, _ := svc.Create(ctx, "roads.geojson", n)
	if _, err := svc.Upload(ctx, rec.ID, bytes.NewReader(data[:40]), &Range{0, 39, n}); err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("#"), 60)
	for _, tc := range []struct {
		name string
		body io.Reader
		rng  Range
	}{
		{"overlapping, too long", bytes.NewReader(junk), Range{20, 59, n}},
		{"overlapping, too short", bytes.NewReader(junk[:5]), Range{20, 59, n}},
		{"broken off", io.MultiReader(bytes.NewReader(junk[:30]), errReader{}), Range{20, 59, n}},
	} {
		if _, err := svc.Upload(ctx, rec.ID, tc.body, &tc.rng); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
		got, _ := os.ReadFile(svc.partPath(rec.ID))
		if !bytes.Equal(got, data[:40]) {
			t.Fatalf("%s: the upload file became %q", tc.name, got)
		}
	}
	// Past the end: the message says so.
	_, err := svc.Upload(ctx, rec.ID, bytes.NewReader(data[40:]), &Range{40, n + 10, n})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("past the end: %v", err)
	}
	// The right chunk completes it.
	if got, err := svc.Upload(ctx, rec.ID, bytes.NewReader(data[40:]), &Range{40, n - 1, n}); err != nil || got.State != store.IngestUploaded {
		t.Fatalf("last chunk: %+v, %v", got, err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// rasterMBTiles writes a raster MBTiles whose PNG tiles are size pixels.
func rasterMBTiles(t *testing.T, path string, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, size, size))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	os.Remove(path)
	w, err := mbtiles.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.PutTile(ctx, 0, 0, 0, buf.Bytes())
	w.SetMetadata(ctx, map[string]string{"format": "png", "name": "Big", "minzoom": "0", "maxzoom": "0"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTileSizes(t *testing.T) {
	ctx := context.Background()
	svc, cat, dir := newService(t, 1<<20)
	for _, tc := range []struct {
		size int
		ok   bool
	}{{256, true}, {512, true}, {1280, false}, {100, false}} {
		data := rasterMBTiles(t, filepath.Join(dir, "src.mbtiles"), tc.size)
		rec := uploaded(t, svc, "big.mbtiles", data)
		_, err := svc.Process(ctx, rec.ID)
		if tc.ok != (err == nil) {
			t.Errorf("%d-pixel tiles: %v", tc.size, err)
		}
		if !tc.ok && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "256- and 512-pixel")) {
			t.Errorf("%d-pixel tiles: the refusal %v", tc.size, err)
		}
	}
	if n := len(cat.List()); n != 2 {
		t.Errorf("%d tilesets, want 2", n)
	}
}

// TestServerFailuresAreNotInvalid: a cancelled request and a broken tiles
// directory are the server's failures: not ErrInvalid, and the upload can
// be processed again.
func TestServerFailuresAreNotInvalid(t *testing.T) {
	svc, cat, _ := newService(t, 1<<20)
	rec := uploaded(t, svc, "roads.geojson", []byte(lines))
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := svc.Process(cctx, rec.ID)
	if err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("cancelled: %v, want a server error", err)
	}
	ctx := context.Background()
	if got, _ := svc.Get(ctx, rec.ID); got.State != store.IngestUploaded {
		t.Errorf("after a cancelled process: %s", got.State)
	}
	// The tiles directory is replaced by a file: writing the output fails.
	os.RemoveAll(cat.Dir())
	os.WriteFile(cat.Dir(), []byte("not a directory"), 0o644)
	_, err = svc.Process(ctx, rec.ID)
	if err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("broken tiles directory: %v, want a server error", err)
	}
	if got, _ := svc.Get(ctx, rec.ID); got.State != store.IngestUploaded || len(got.Errors) != 0 {
		t.Errorf("after a server failure: %+v", got)
	}
	// Errors keep their chain.
	if !errors.Is(classify(ctx, &os.PathError{Op: "read", Path: "x", Err: os.ErrPermission}), os.ErrPermission) {
		t.Error("classify lost the chain")
	}
}

// TestProcessLease: processing claims the ingest with a lease in the
// database. A second service over the same database (another node) gets
// ErrBusy while the lease holds and its Recover leaves the ingest alone;
// once the lease has ended, Recover gives the upload back and processing
// it again completes it, once.
func TestProcessLease(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	svc, _, dir := newService(t, 1<<20)
	rec := uploaded(t, svc, "roads.geojson", []byte(lines))

	// Another node claimed it and is processing it (its lease runs a
	// minute).
	in, _ := svc.db.Ingest(ctx, rec.ID)
	in.State, in.LeaseOwner, in.LeaseUntil = store.IngestProcessing, "other-node", clock.Add(time.Minute).Format(store.LeaseTime)
	if _, err := svc.db.UpdateIngest(ctx, in); err != nil {
		t.Fatal(err)
	}
	other := reopen(t, dir, Options{Now: now, Lease: time.Minute})
	if got, _ := other.db.Ingest(ctx, rec.ID); got.State != store.IngestProcessing || got.LeaseOwner != "other-node" {
		t.Fatalf("Recover touched an ingest under a live lease: %+v", got)
	}
	if _, err := other.Process(ctx, rec.ID); !errors.Is(err, ErrBusy) {
		t.Fatalf("process under another node's lease: %v, want ErrBusy", err)
	}

	// The other node died: its lease ends unrenewed. A restart's Recover
	// gives the upload back; processing it completes it.
	clock = clock.Add(2 * time.Minute)
	again := reopen(t, dir, Options{Now: now, Lease: time.Minute})
	got, _ := again.db.Ingest(ctx, rec.ID)
	if got.State != store.IngestUploaded || got.LeaseOwner != "" {
		t.Fatalf("after Recover past the lease: %+v", got)
	}
	e, err := again.Process(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = again.db.Ingest(ctx, rec.ID)
	if got.State != store.IngestDone || got.TilesetID != e.ID || got.LeaseOwner != "" {
		t.Fatalf("after processing: %+v", got)
	}
	// Asked of a node that has not heard of the new tileset yet (its
	// change notification still on the way), processing answers that
	// tileset, not "deleted".
	if _, ok := other.cat.ByID(e.ID); ok {
		t.Fatal("the other node knows the tileset already: the case is not made")
	}
	if e2, err := other.Process(ctx, rec.ID); err != nil || e2.ID != e.ID {
		t.Fatalf("process again on a node that has not heard of the tileset: %v, %v; want %s", e2, err, e.ID)
	}

	// An ingest left processing under an ended lease (no restart since)
	// is taken over by the next request to process it.
	rec2 := uploaded(t, again, "rivers.geojson", []byte(lines))
	in, _ = again.db.Ingest(ctx, rec2.ID)
	in.State, in.LeaseOwner, in.LeaseUntil = store.IngestProcessing, "dead-node", clock.Add(-time.Second).Format(store.LeaseTime)
	again.db.UpdateIngest(ctx, in)
	if _, err := again.Process(ctx, rec2.ID); err != nil {
		t.Fatalf("take over an ended lease: %v", err)
	}
	if got, _ := again.db.Ingest(ctx, rec2.ID); got.State != store.IngestDone {
		t.Fatalf("taken over: %+v", got)
	}
}
