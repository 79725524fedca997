package middleware

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/caller"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/usage"
)

func TestUsageCountsAnswered(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := usage.NewMeter(db, usage.Options{})
	// A key check stand-in: it puts the caller in the context, as the real
	// one does, before Usage.
	withKey := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(caller.With(r.Context(), caller.Caller{KeyID: r.URL.Query().Get("k")})))
		})
	}
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var status int
		fmt.Sscan(r.URL.Query().Get("status"), &status)
		if status != 0 {
			w.WriteHeader(status)
		}
	}), withKey, Usage(m, usage.Classify))
	tests := []struct {
		path    string
		counted bool
	}{
		{"/tiles/a/0/0/0?k=k1&status=200", true},
		{"/tiles/a/0/0/0?k=k1", true}, // nothing written: 200
		{"/tiles/a/0/0/0?k=k1&status=204", true},
		{"/tiles/a/0/0/0?k=k1&status=304", true},
		{"/tiles/a/0/0/0?k=k1&status=301", false},
		{"/tiles/a/0/0/0?k=k1&status=400", false},
		{"/tiles/a/0/0/0?k=k1&status=403", false},
		{"/tiles/a/0/0/0?k=k1&status=404", false},
		{"/tiles/a/0/0/0?k=k1&status=500", false},
		{"/maps/m/style.json?k=k2", true},
		{"/maps/m/static/auto/10x10.png?k=k2", true},
		{"/health?k=k2", false},
	}
	for _, tc := range tests {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.path, nil))
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	sums, err := db.UsageSums(ctx, store.ByKey, today, today, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sums {
		got = append(got, fmt.Sprintf("%s %s %d", s.Group, s.Item, s.Value))
	}
	slices.Sort(got)
	if want := []string{"export k2 1", "request k1 4", "session k2 1"}; !slices.Equal(got, want) {
		t.Errorf("counted %q, want %q", got, want)
	}
}
