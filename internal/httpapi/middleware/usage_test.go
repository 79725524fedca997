package middleware

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var status int
		fmt.Sscan(r.URL.Query().Get("status"), &status)
		if status != 0 {
			w.WriteHeader(status)
		}
	})
	// Alone, and behind Observe (whose Recorder Usage then reuses).
	chains := []http.Handler{
		Chain(answer, withKey, Usage(m, usage.Classify)),
		Chain(answer, Observe(NewMetrics(), nil), withKey, Usage(m, usage.Classify)),
	}
	tests := []usageCase{
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
	for _, h := range chains {
		for _, tc := range tests {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
			if want := tc.status(); w.Code != want {
				t.Errorf("%s: status %d, want %d", tc.path, w.Code, want)
			}
		}
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
	if want := []string{"export k2 2", "request k1 8", "session k2 2"}; !slices.Equal(got, want) {
		t.Errorf("counted %q, want %q", got, want)
	}
}

type usageCase struct {
	path    string
	counted bool
}

// status is the status the test handler answers the case's path with.
func (c usageCase) status() int {
	u, _ := url.Parse(c.path)
	var s int
	fmt.Sscan(u.Query().Get("status"), &s)
	if s == 0 {
		return http.StatusOK
	}
	return s
}
