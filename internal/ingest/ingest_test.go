package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/store"
)

func newService(t *testing.T, maxSize int64) (*Service, *catalog.Catalog, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log := slog.New(slog.DiscardHandler)
	cat := catalog.New(filepath.Join(dir, "tiles"), db, catalog.Options{Logger: log})
	if err := cat.Load(ctx); err != nil {
		t.Fatal(err)
	}
	svc, err := New(ctx, db, cat, filepath.Join(dir, "uploads"), Options{MaxSize: maxSize, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return svc, cat, dir
}

const lines = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}`

func TestChunksResumeAndProcess(t *testing.T) {
	ctx := context.Background()
	svc, cat, _ := newService(t, 1<<20)
	data := []byte(lines)
	rec, err := svc.Create(ctx, "roads.geojson", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	half := int64(len(data) / 2)
	tests := []struct {
		name     string
		rng      Range
		body     []byte
		err      error
		received int64
	}{
		{"gap", Range{Start: half, End: int64(len(data)) - 1, Total: int64(len(data))}, data[half:], ErrInvalid, 0},
		{"first half", Range{Start: 0, End: half - 1, Total: -1}, data[:half], nil, half},
		{"short chunk (refused whole)", Range{Start: half, End: int64(len(data)) - 1, Total: int64(len(data))}, data[half : half+3], ErrInvalid, half},
		{"long chunk (refused whole)", Range{Start: half, End: half + 2, Total: int64(len(data))}, data[half : half+5], ErrInvalid, half},
		{"wrong total", Range{Start: half, End: half, Total: 5}, data[half : half+1], ErrInvalid, half},
		{"past the end", Range{Start: half, End: int64(len(data)), Total: int64(len(data))}, data[half:], ErrInvalid, half},
		{"the rest, overlapping", Range{Start: half, End: int64(len(data)) - 1, Total: int64(len(data))}, data[half:], nil, int64(len(data))},
	}
	for _, tt := range tests {
		rng := tt.rng
		got, err := svc.Upload(ctx, rec.ID, bytes.NewReader(tt.body), &rng)
		if !errors.Is(err, tt.err) && !(tt.err == nil && err == nil) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, tt.err)
		}
		if r, _ := svc.Get(ctx, rec.ID); r.Received != tt.received {
			t.Fatalf("%s: received %d (returned %d), want %d", tt.name, r.Received, got.Received, tt.received)
		}
	}
	e, err := svc.Process(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != rec.DocumentID || e.Name != "roads" || e.TileType() != "vector" {
		t.Errorf("tileset = %s %s %s", e.ID, e.Name, e.TileType())
	}
	if _, ok := cat.Get("roads"); !ok {
		t.Error("tileset not in the catalog")
	}
	if r, _ := svc.Get(ctx, rec.ID); r.State != store.IngestDone {
		t.Errorf("state = %s", r.State)
	}
	// Processing again returns the same tileset; uploading is refused.
	if again, err := svc.Process(ctx, rec.ID); err != nil || again.ID != e.ID {
		t.Errorf("second process: %v", err)
	}
	if _, err := svc.Upload(ctx, rec.ID, bytes.NewReader(data), nil); !errors.Is(err, ErrState) {
		t.Errorf("upload after processing: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	ctx := context.Background()
	svc, cat, _ := newService(t, 100)
	for _, tt := range []struct {
		file string
		size int64
		err  error
	}{
		{"a.mbtiles", 101, ErrTooLarge},
		{"a.mbtiles", 0, ErrInvalid},
		{"a.txt", 10, ErrInvalid},
		{"", 10, ErrInvalid},
		{"../a.mbtiles", 10, ErrInvalid},
		{"a\x01.mbtiles", 10, ErrInvalid},
		{strings.Repeat("a", 256) + ".json", 10, ErrInvalid},
	} {
		if _, err := svc.Create(ctx, tt.file, tt.size); !errors.Is(err, tt.err) {
			t.Errorf("Create(%q, %d) = %v, want %v", tt.file, tt.size, err, tt.err)
		}
	}
	if _, err := svc.Get(ctx, "not-a-uuid"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a bad id: %v", err)
	}
	// Content decides, not the name: a PNG named .mbtiles is refused.
	png := []byte("\x89PNG\r\n\x1a\nnot a tileset at all")
	rec, _ := svc.Create(ctx, "pic.mbtiles", int64(len(png)))
	if _, err := svc.Process(ctx, rec.ID); !errors.Is(err, ErrState) {
		t.Errorf("process before upload: %v", err)
	}
	if _, err := svc.Upload(ctx, rec.ID, bytes.NewReader(png), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Process(ctx, rec.ID); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "unknown file format") {
		t.Errorf("process of a PNG: %v", err)
	}
	if r, _ := svc.Get(ctx, rec.ID); r.State != store.IngestFailed || len(r.Errors) != 1 {
		t.Errorf("record after failure: %+v", r)
	}
	if len(cat.List()) != 0 {
		t.Errorf("a refused upload made a tileset")
	}
	// A whole-body upload of the wrong size is refused and leaves nothing.
	rec, _ = svc.Create(ctx, "b.geojson", 50)
	if _, err := svc.Upload(ctx, rec.ID, strings.NewReader("short"), nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("short body: %v", err)
	}
	if r, _ := svc.Get(ctx, rec.ID); r.Received != 0 {
		t.Errorf("short body kept %d bytes", r.Received)
	}
}

func TestStaleTemporaryFilesRemoved(t *testing.T) {
	_, cat, dir := newService(t, 1<<20)
	stale := filepath.Join(cat.Dir(), ".ingest-0000.mbtiles")
	if err := os.WriteFile(stale, []byte("half a tileset"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "state2.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := New(context.Background(), db, cat, filepath.Join(dir, "uploads"), Options{MaxSize: 1 << 20, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a crash's temporary file survived the start")
	}
}

// TestPurge: the admin API's finished ingests (done, failed) are purged
// after the retention; an upload under way and dataset ingests stay.
func TestPurge(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t, 1<<20)
	now := time.Now()
	svc.now, svc.keep = func() time.Time { return now }, time.Hour
	var ids []string
	for i, st := range []string{store.IngestDone, store.IngestFailed, store.IngestUpload, store.IngestDone} {
		in := store.Ingest{ID: fmt.Sprintf("i%d", i), DocumentID: "d", Filename: "a.mbtiles", Size: 1, State: st}
		if i == 3 {
			in.Kind = store.KindDataset
		}
		if _, err := svc.db.CreateIngest(ctx, in); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, in.ID)
	}
	if got, err := svc.Purge(ctx); err != nil || len(got) != 0 {
		t.Fatalf("purged young records: %v %v", got, err)
	}
	now = now.Add(61 * time.Minute)
	got, err := svc.Purge(ctx)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, ids[:2]) {
		t.Fatalf("purged %v %v, want %v", got, err, ids[:2])
	}
	for _, id := range ids[2:] {
		if _, err := svc.db.Ingest(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}
