package blob

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMirror(t *testing.T) {
	cases := []struct {
		name  string
		files func(t *testing.T) (Files, *Calls)
	}{
		{"local", func(t *testing.T) (Files, *Calls) {
			l, _ := localTarget(t, nil)
			return l, nil
		}},
		{"s3", func(t *testing.T) (Files, *Calls) {
			calls := &Calls{}
			s := s3Target(t, calls).Store.(*S3)
			return s, calls
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { testMirror(t, c.files) })
	}
}

func write(t testing.TB, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testMirror(t *testing.T, open func(t *testing.T) (Files, *Calls)) {
	ctx := context.Background()
	files, calls := open(t)
	a, b := t.TempDir(), t.TempDir()
	ma, mb := NewMirror(files, a, nil), NewMirror(files, b, nil)

	// Node A has fonts and a map; a file being written is not shared.
	write(t, filepath.Join(a, "fonts/Noto/0-255.pbf"), "glyphs")
	write(t, filepath.Join(a, "maps/world/style.json"), `{"version":8}`)
	write(t, filepath.Join(a, "maps/world/icons/bus.svg"), "<svg/>")
	write(t, filepath.Join(a, "maps/world/.style.json.tmp-1"), "half")
	for _, rel := range []string{"fonts", "maps"} {
		if up, down, err := ma.Sync(ctx, rel, SyncOptions{}); err != nil || down != 0 || up == 0 {
			t.Fatalf("A sync %s: up %d down %d err %v", rel, up, down, err)
		}
	}
	objs, err := files.List(ctx, "maps/")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	slices.Sort(keys)
	if want := []string{"maps/world/icons/bus.svg", "maps/world/style.json"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}

	// Node B starts empty and gets everything; a second sync copies nothing.
	for _, rel := range []string{"fonts", "maps"} {
		if _, down, err := mb.Sync(ctx, rel, SyncOptions{}); err != nil || down == 0 {
			t.Fatalf("B sync %s: down %d err %v", rel, down, err)
		}
	}
	if got := read(t, filepath.Join(b, "maps/world/icons/bus.svg")); got != "<svg/>" {
		t.Fatalf("B icon %q", got)
	}
	if up, down, err := mb.Sync(ctx, "maps", SyncOptions{}); err != nil || up+down != 0 {
		t.Fatalf("second sync copied: up %d down %d err %v", up, down, err)
	}

	// A changes the style and pushes it: B's next sync takes the new one.
	write(t, filepath.Join(a, "maps/world/style.json"), `{"version":8,"name":"new"}`)
	later := time.Now().Add(3 * time.Second)
	os.Chtimes(filepath.Join(a, "maps/world/style.json"), later, later)
	if err := ma.Push(ctx, "maps/world/style.json"); err != nil {
		t.Fatal(err)
	}
	if _, down, err := mb.Sync(ctx, "maps", SyncOptions{}); err != nil || down != 1 {
		t.Fatalf("B resync: down %d err %v", down, err)
	}
	if got := read(t, filepath.Join(b, "maps/world/style.json")); got != `{"version":8,"name":"new"}` {
		t.Fatalf("B style %q", got)
	}

	// Replaced again at once with as many bytes (the same size, likely
	// the same second): the versions record tells B's copy is the older.
	write(t, filepath.Join(a, "maps/world/style.json"), `{"version":8,"name":"neW"}`)
	if err := ma.Push(ctx, "maps/world/style.json"); err != nil {
		t.Fatal(err)
	}
	if ok, err := mb.Fetch(ctx, "maps/world/style.json"); !ok || err != nil {
		t.Fatalf("fetch the replaced style: %v %v", ok, err)
	}
	if got := read(t, filepath.Join(b, "maps/world/style.json")); got != `{"version":8,"name":"neW"}` {
		t.Fatalf("B style after a same-size replacement %q", got)
	}
	// A new mirror of B's directory reads the record back.
	if up, down, err := NewMirror(files, b, nil).Sync(ctx, "maps", SyncOptions{}); err != nil || up+down != 0 {
		t.Fatalf("sync by a new mirror: up %d down %d err %v", up, down, err)
	}

	// The record of another store is not taken for this one's: B's copies
	// are not dropped for being absent from an empty store.
	other, _ := open(t)
	if up, down, err := NewMirror(other, b, nil).Sync(ctx, "maps", SyncOptions{}); err != nil || down != 0 || up == 0 {
		t.Fatalf("sync with another store: up %d down %d err %v", up, down, err)
	}

	// Fetch of one file, present or not; UploadOnly downloads nothing.
	os.RemoveAll(filepath.Join(b, "fonts"))
	if ok, err := mb.Fetch(ctx, "fonts/Noto/0-255.pbf"); !ok || err != nil {
		t.Fatalf("fetch: %v %v", ok, err)
	}
	if ok, err := mb.Fetch(ctx, "fonts/none.pbf"); ok || err != nil {
		t.Fatalf("fetch of a missing object: %v %v", ok, err)
	}
	os.RemoveAll(filepath.Join(b, "maps"))
	if _, down, err := mb.Sync(ctx, "maps", SyncOptions{UploadOnly: true}); err != nil || down != 0 {
		t.Fatalf("upload-only sync: down %d err %v", down, err)
	}

	// A map deleted in the store (by another node) leaves B's cache at
	// B's next sync, folders and all; a file B made itself, which the
	// store never had, is uploaded instead.
	if _, _, err := mb.Sync(ctx, "maps", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(b, "maps/own/style.json"), "{}")
	if err := ma.Remove(ctx, "maps/world"); err != nil {
		t.Fatal(err)
	}
	if up, down, err := mb.Sync(ctx, "maps", SyncOptions{}); err != nil || up != 1 || down != 2 {
		t.Fatalf("sync after a deletion: up %d down %d err %v", up, down, err)
	}
	if _, err := os.Stat(filepath.Join(b, "maps/world")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the deleted map's folder in B's cache: %v", err)
	}
	if _, err := files.Stat(ctx, "maps/own/style.json"); err != nil {
		t.Fatalf("B's own map: %v", err)
	}

	// Remove drops a folder's objects.
	if err := ma.Remove(ctx, "maps/world"); err != nil {
		t.Fatal(err)
	}
	if _, err := files.Stat(ctx, "maps/world/style.json"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stat after remove: %v", err)
	}
	if _, err := files.Stat(ctx, "fonts/Noto/0-255.pbf"); err != nil {
		t.Fatalf("another folder's object: %v", err)
	}
	if err := ma.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if calls != nil {
		got := calls.Snapshot()
		for _, op := range []string{"PutObject", "GetObject", "ListObjectsV2", "HeadObject", "DeleteObject", "HeadBucket"} {
			if got[op] == 0 {
				t.Errorf("no %s counted: %v", op, got)
			}
		}
	}

	// A nil mirror (no shared storage) does nothing.
	var none *Mirror
	if up, down, err := none.Sync(ctx, "maps", SyncOptions{}); up+down != 0 || err != nil {
		t.Fatal("nil mirror synced")
	}
	if err := none.Push(ctx, "x"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkMirrorSync: a node with an empty cache takes 200 small files
// (glyph ranges, icons) from versitygw, one at a time or eight at once.
func BenchmarkMirrorSync(b *testing.B) {
	files := s3Target(b).Store.(*S3)
	src := b.TempDir()
	for i := range 200 {
		write(b, filepath.Join(src, "fonts", "Noto", strconv.Itoa(i*256)+"-"+strconv.Itoa(i*256+255)+".pbf"), strings.Repeat("g", 2000))
	}
	if _, _, err := NewMirror(files, src, nil).Sync(context.Background(), "fonts", SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, copies := range []int{1, syncCopies} {
		b.Run("copies="+strconv.Itoa(copies), func(b *testing.B) {
			for b.Loop() {
				m := NewMirror(files, b.TempDir(), slog.New(slog.DiscardHandler))
				m.copies = copies
				if _, down, err := m.Sync(context.Background(), "fonts", SyncOptions{}); err != nil || down != 200 {
					b.Fatalf("down %d err %v", down, err)
				}
			}
		})
	}
}

// TestFetchWithinStoreSecond: a node's own copy of a file, never synced
// (so not known), with a time a little after the store's copy's (which
// keeps whole seconds: replaced at 15.9 s it reads 15 s while the local
// copy was written at 15.1 s), takes the store's copy when fetched. It kept
// its own before, and a style edited through another node was missed.
func TestFetchWithinStoreSecond(t *testing.T) {
	ctx := context.Background()
	files, _ := localTarget(t, nil)
	a, c := t.TempDir(), t.TempDir()
	ma, mc := NewMirror(files, a, nil), NewMirror(files, c, nil)
	write(t, filepath.Join(a, "maps/city/style.json"), `{"version":8,"name":"edited"}`)
	if err := ma.Push(ctx, "maps/city/style.json"); err != nil {
		t.Fatal(err)
	}
	o, err := files.Stat(ctx, "maps/city/style.json")
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(c, "maps/city/style.json")
	write(t, own, `{"version":8}`)
	near := o.Modified.Add(500 * time.Millisecond)
	if err := os.Chtimes(own, near, near); err != nil {
		t.Fatal(err)
	}
	if ok, err := mc.Fetch(ctx, "maps/city/style.json"); !ok || err != nil {
		t.Fatalf("fetch: %v %v", ok, err)
	}
	if got := read(t, own); got != `{"version":8,"name":"edited"}` {
		t.Errorf("after the fetch the copy holds %q, want the store's", got)
	}
	// A copy written here more than a second after the store's is this
	// node's newer one: a fetch leaves it.
	write(t, own, `{"version":8,"name":"newer here"}`)
	later := o.Modified.Add(3 * time.Second)
	if err := os.Chtimes(own, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Fetch(ctx, "maps/city/style.json"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, own); got != `{"version":8,"name":"newer here"}` {
		t.Errorf("a newer local copy was replaced: %q", got)
	}
}
