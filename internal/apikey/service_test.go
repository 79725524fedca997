package apikey

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tesseramaps/tessera/internal/cursor"
	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openDB opens the state database at dsn, closed when the test ends.
func openDB(t *testing.T, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func settings(t *testing.T, body string) Settings {
	t.Helper()
	var s Settings
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestServiceLifecycle(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		s := NewService(db, nil)
		if err := s.Load(ctx); err != nil {
			t.Fatal(err)
		}
		k, err := s.Create(ctx, settings(t, `{"origins": ["example.com"], "description": "site"}`))
		if err != nil {
			t.Fatal(err)
		}
		if k.Name != GeneratedName(k.ID) || k.Created == "" || *k.Description != "site" {
			t.Errorf("created %+v", k)
		}
		// The snapshot knows the key at once.
		if _, err := s.Snapshot().Check(k.Token, "https://example.com", "", ""); err != nil {
			t.Errorf("check after create: %v", err)
		}
		if _, err := s.Create(ctx, settings(t, `{"origins": ["bad host"]}`)); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad create: %v", err)
		}

		// Change: absent fields stay, given ones change.
		k2, err := s.Change(ctx, k.ID, settings(t, `{"name": "web", "origins": ["*.example.com"]}`))
		if err != nil {
			t.Fatal(err)
		}
		if k2.Name != "web" || *k2.Description != "site" || k2.Origins[0] != "*.example.com" || k2.Token != k.Token || k2.Created != k.Created {
			t.Errorf("changed %+v", k2)
		}
		if _, err := s.Snapshot().Check(k.Token, "https://example.com", "", ""); !errors.Is(err, ErrOrigin) {
			t.Errorf("check after change: %v", err)
		}
		if k3, err := s.Change(ctx, k.ID, settings(t, `{"name": null}`)); err != nil || k3.Name != GeneratedName(k.ID) {
			t.Errorf("name cleared: %+v %v", k3, err)
		}
		if _, err := s.Change(ctx, "nope", settings(t, `{}`)); !errors.Is(err, ErrNotFound) {
			t.Errorf("change missing: %v", err)
		}
		if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get missing: %v", err)
		}

		// Another node (a second service on the same database) sees a
		// change at its next refresh.
		other := NewService(db, nil)
		if err := other.Load(ctx); err != nil {
			t.Fatal(err)
		}
		k4, err := s.Create(ctx, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.Snapshot().Check(k4.Token, "", "", ""); !errors.Is(err, ErrUnknown) {
			t.Errorf("other node before refresh: %v", err)
		}
		if err := other.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Snapshot().Check(k4.Token, "", "", ""); err != nil {
			t.Errorf("other node after refresh: %v", err)
		}

		if err := s.Delete(ctx, k4.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, k4.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if _, err := s.Snapshot().Check(k4.Token, "", "", ""); !errors.Is(err, ErrUnknown) {
			t.Errorf("deleted key still accepted: %v", err)
		}
		other.Refresh(ctx)
		if _, err := other.Snapshot().Check(k4.Token, "", "", ""); !errors.Is(err, ErrUnknown) {
			t.Errorf("deleted key still accepted by the other node: %v", err)
		}
	})
}

func TestServiceList(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		s := NewService(db, nil)
		var ids []string
		for range 23 {
			k, err := s.Create(ctx, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		var seen []string
		next := ""
		for pages := 0; ; pages++ {
			p, err := s.List(ctx, next, 10)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != 23 {
				t.Errorf("total %d", p.Total)
			}
			for _, k := range p.Items {
				seen = append(seen, k.ID)
			}
			if p.Next == "" {
				if pages != 2 || len(p.Items) != 3 {
					t.Errorf("last page %d has %d items", pages, len(p.Items))
				}
				break
			}
			next = p.Next
		}
		if len(seen) != len(ids) {
			t.Fatalf("seen %d of %d", len(seen), len(ids))
		}
		for i := range ids {
			if seen[i] != ids[i] {
				t.Errorf("item %d: %s, want %s (creation order)", i, seen[i], ids[i])
			}
		}
		// Exactly a full last page: no cursor after it.
		if p, err := s.List(ctx, "", 23); err != nil || p.Next != "" || len(p.Items) != 23 {
			t.Errorf("one full page: %d items, next %q, %v", len(p.Items), p.Next, err)
		}
		if _, err := s.List(ctx, "%%%", 10); !errors.Is(err, cursor.ErrInvalid) {
			t.Errorf("bad cursor: %v", err)
		}
	})
}

// TestChecksDuringChanges checks a key from several goroutines while other
// keys are created, changed and deleted: the stable key is accepted by
// every check (snapshots are swapped whole, never seen half-built).
func TestChecksDuringChanges(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	s := NewService(db, nil)
	stable, err := s.Create(ctx, settings(t, `{"origins": ["example.com", "*.example.org"]}`))
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failures atomic.Int64
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			origins := []string{"https://example.com", "https://a.example.org", "http://example.com:8080"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Snapshot().Check(stable.Token, origins[(n+i)%len(origins)], "", ""); err != nil {
					failures.Add(1)
				}
				if _, err := s.Snapshot().Check(stable.Token, "https://evil.example", "", ""); !errors.Is(err, ErrOrigin) {
					failures.Add(1)
				}
			}
		}()
	}
	for range 20 {
		k, err := s.Create(ctx, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Change(ctx, k.ID, settings(t, `{"origins": ["x.example"]}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d checks of the stable key went wrong during changes", n)
	}
}

// TestLoadOne: another service over the same database (another node)
// applies one key's creation, change and deletion by reloading that key
// alone, and keeps the others.
func TestLoadOne(t *testing.T) {
	pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a, b := NewService(openDB(t, dsn), nil), NewService(openDB(t, dsn), nil)
		kept, err := a.Create(ctx, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Load(ctx); err != nil {
			t.Fatal(err)
		}
		k, err := a.Create(ctx, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Snapshot().Check(k.Token, "", "", ""); !errors.Is(err, ErrUnknown) {
			t.Fatalf("before LoadOne: %v", err)
		}
		steps := []struct {
			name   string
			change func() error
			origin string
			want   error
		}{
			{"created", func() error { return nil }, "https://any.example", nil},
			{"restricted", func() error {
				_, err := a.Change(ctx, k.ID, settings(t, `{"origins": ["example.com"]}`))
				return err
			}, "https://other.example", ErrOrigin},
			{"deleted", func() error { return a.Delete(ctx, k.ID) }, "", ErrUnknown},
		}
		for _, st := range steps {
			if err := st.change(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if err := b.LoadOne(ctx, k.ID); err != nil {
				t.Fatalf("%s: LoadOne: %v", st.name, err)
			}
			if _, err := b.Snapshot().Check(k.Token, st.origin, "", ""); !errors.Is(err, st.want) {
				t.Errorf("%s: check %v, want %v", st.name, err, st.want)
			}
			if _, err := b.Snapshot().Check(kept.Token, "", "", ""); err != nil || b.Snapshot().Len() != a.Snapshot().Len() {
				t.Errorf("%s: the other key %v; %d keys, want %d", st.name, err, b.Snapshot().Len(), a.Snapshot().Len())
			}
		}
		if err := b.LoadOne(ctx, "no-such-key"); err != nil || b.Snapshot().Len() != 1 {
			t.Errorf("an unknown id: %v, %d keys", err, b.Snapshot().Len())
		}
	})
}
