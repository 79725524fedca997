package catalog

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

func writeStyle(t *testing.T, dir, id, body string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, id), 0o755)
	if err := os.WriteFile(filepath.Join(dir, id, StyleFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// check is a stand-in style check for these tests: a style must mention
// "version" and its name is whatever follows "name:"; "uses:X" names the
// tileset X.
func check(_ string, raw []byte) StyleReport {
	s := string(raw)
	if !strings.Contains(s, "version") {
		return StyleReport{Problems: []string{"version: missing"}}
	}
	var rep StyleReport
	if strings.Contains(s, "nofont") {
		rep.Warnings = []string{"font nofont is not installed"}
	}
	if _, rest, ok := strings.Cut(s, "uses:"); ok {
		rep.Tilesets = []string{strings.Fields(rest)[0]}
	}
	if _, name, ok := strings.Cut(s, "name:"); ok {
		rep.Title = strings.TrimSpace(name)
	}
	return rep
}

func TestMaps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	maps := filepath.Join(dir, "maps")
	writeStyle(t, maps, "world", "version nofont name: World")
	writeStyle(t, maps, "broken", "nothing")
	writeStyle(t, maps, ".hidden", "version")
	os.MkdirAll(filepath.Join(maps, "empty"), 0o755)
	db, err := store.Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms := NewMaps(maps, db, check, slog.New(slog.DiscardHandler))
	if err := ms.Scan(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range ms.List() {
		ids = append(ids, m.ID+":"+m.State)
	}
	if strings.Join(ids, ",") != "broken:error,world:ok" {
		t.Fatalf("maps = %v", ids)
	}
	w, _ := ms.Get("world")
	if w.Title != "World" || !w.Served() || w.Format != "png" || w.Quality != 90 || len(w.Warnings) != 1 {
		t.Errorf("world = %+v", w)
	}
	b, _ := ms.Get("broken")
	if b.Served() || len(b.Problems) != 1 {
		t.Errorf("broken = %+v", b)
	}

	// Settings changes are checked, persisted and idempotent.
	bad := "gif"
	if _, err := ms.Update(ctx, "world", MapChange{Format: &bad}); !errors.Is(err, ErrBadMapChange) {
		t.Errorf("format gif: %v", err)
	}
	q := 101
	if _, err := ms.Update(ctx, "world", MapChange{Quality: &q}); !errors.Is(err, ErrBadMapChange) {
		t.Errorf("quality 101: %v", err)
	}
	f, q2 := "webp", 75
	if _, err := ms.Update(ctx, "world", MapChange{Format: &f, Quality: &q2}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if m, err := ms.SetPublished(ctx, "world", false); err != nil || m.Published {
			t.Fatalf("unpublish: %v", err)
		}
	}
	ms2 := NewMaps(maps, db, check, slog.New(slog.DiscardHandler))
	ms2.Scan(ctx)
	if w2, _ := ms2.Get("world"); w2.Format != "webp" || w2.Quality != 75 || w2.Published {
		t.Errorf("after restart: %+v", w2)
	}

	// A changed style is re-read.
	writeStyle(t, maps, "broken", "version name: Fixed")
	os.Chtimes(filepath.Join(maps, "broken", StyleFile), time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	ms2.Scan(ctx)
	if b2, _ := ms2.Get("broken"); b2.State != StateOK || b2.Title != "Fixed" || b2.Gen == b.Gen {
		t.Errorf("after fix: %+v", b2)
	}

	// Delete removes the folder.
	if removed, err := ms2.Delete(ctx, "broken"); err != nil || len(removed) != 1 {
		t.Fatalf("delete: %v %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(maps, "broken")); !os.IsNotExist(err) {
		t.Error("map folder left")
	}
	if _, err := ms2.Delete(ctx, "broken"); !errors.Is(err, ErrMapNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

// countingMaps makes a maps directory with a style for each id and
// returns it, the state database and a StyleCheck that records the ids it
// checks in *checked.
func countingMaps(t *testing.T, checked *[]string, ids ...string) (string, *store.DB, StyleCheck) {
	t.Helper()
	dir := t.TempDir()
	maps := filepath.Join(dir, "maps")
	for _, id := range ids {
		writeStyle(t, maps, id, "version")
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return maps, db, func(d string, raw []byte) StyleReport {
		*checked = append(*checked, filepath.Base(d))
		return check(d, raw)
	}
}

// TestMapsOnly: a registry limited to some ids reads and checks only
// their styles.
func TestMapsOnly(t *testing.T) {
	ctx := context.Background()
	var checked []string
	maps, db, counting := countingMaps(t, &checked, "a", "b", "c")
	for _, tc := range []struct {
		only []string
		want string
	}{{[]string{"b"}, "b"}, {[]string{""}, ""}, {[]string{"a", "c", "zz"}, "a,c"}, {nil, "a,b,c"}} {
		checked = nil
		ms := NewMaps(maps, db, counting, slog.New(slog.DiscardHandler))
		if tc.only != nil {
			ms.Only(tc.only...)
		}
		if err := ms.Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range ms.List() {
			ids = append(ids, m.ID)
		}
		if strings.Join(ids, ",") != tc.want || strings.Join(checked, ",") != tc.want {
			t.Errorf("only %q: maps %v, checked %v, want %s", tc.only, ids, checked, tc.want)
		}
	}
}

// TestRescanChecksOnlyChanged: a rescan (SIGHUP, the watcher) checks again
// only the styles whose file changed.
func TestRescanChecksOnlyChanged(t *testing.T) {
	ctx := context.Background()
	var checked []string
	maps, db, counting := countingMaps(t, &checked, "a", "b")
	ms := NewMaps(maps, db, counting, slog.New(slog.DiscardHandler))
	ms.Scan(ctx)
	ms.Scan(ctx)
	writeStyle(t, maps, "b", "version name: B2")
	os.Chtimes(filepath.Join(maps, "b", StyleFile), time.Now().Add(time.Minute), time.Now().Add(time.Minute))
	ms.Scan(ctx)
	if got := strings.Join(checked, ","); got != "a,b,b" {
		t.Errorf("checked %s, want a,b then b alone", got)
	}
}
