package middleware

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/caller"
)

func TestAPIKeys(t *testing.T) {
	open := &apikey.Key{ID: "k1", Token: "open-token", Origins: []string{}}
	site := &apikey.Key{ID: "k2", Token: "site-token", Origins: []string{"example.com"}}
	snap := apikey.NewSnapshot([]*apikey.Key{open, site})
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := caller.From(r.Context())
		w.Write([]byte(c.KeyID + "|" + c.KeyToken))
	})
	for _, tc := range []struct {
		mode, target, origin string
		status               int
		body                 string
	}{
		{"off", "/tiles/a/0/0/0", "", 200, "|"},
		{"off", "/tiles/a/0/0/0?key=bogus", "", 200, "|"},
		{"optional", "/tiles/a/0/0/0", "", 200, "|"},
		{"optional", "/tiles/a/0/0/0?key=open-token", "", 200, "k1|open-token"},
		{"optional", "/tiles/a/0/0/0?key=bogus", "", 403, ""},
		{"optional", "/tiles/a/0/0/0?key=site-token", "https://evil.example", 403, ""},
		{"required", "/tiles/a/0/0/0", "", 403, ""},
		{"required", "/tiles/a/0/0/0?key=", "", 403, ""},
		{"required", "/tiles/a/0/0/0?key=bogus", "", 403, ""},
		{"required", "/tiles/a/0/0/0?x=1&key=open-token", "", 200, "k1|open-token"},
		{"required", "/maps/m/style.json?key=site-token", "https://example.com", 200, "k2|site-token"},
		{"required", "/maps/m/style.json?key=site-token", "https://example.org", 403, ""},
		{"required", "/maps/m/style.json?key=site-token", "", 403, ""},
		{"required", "/", "", 403, ""},
		// Never keyed.
		{"required", "/health", "", 200, "|"},
		{"required", "/metrics", "", 200, "|"},
		{"required", "/static/viewer.js", "", 200, "|"},
		{"required", "/v1/admin/tiles", "", 200, "|"},
		{"required", "/v1/api_keys", "", 200, "|"},
	} {
		// Alone (the caller goes in a new context), and behind RequestID
		// (the caller fills the slot it attached).
		bare := APIKeys(tc.mode, func() *apikey.Snapshot { return snap })(echo)
		for _, h := range []http.Handler{bare, RequestID(bare)} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", tc.target, nil)
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Errorf("%s %s (origin %q): %d, want %d: %s", tc.mode, tc.target, tc.origin, w.Code, tc.status, w.Body)
				continue
			}
			if tc.status == 200 && w.Body.String() != tc.body {
				t.Errorf("%s %s: caller %q, want %q", tc.mode, tc.target, w.Body, tc.body)
			}
			if tc.status == 403 {
				var m struct{ Message string }
				if json.Unmarshal(w.Body.Bytes(), &m) != nil || m.Message == "" {
					t.Errorf("%s %s: body %q", tc.mode, tc.target, w.Body)
				}
			}
		}
	}
}

// BenchmarkAPIKeys is the key check's own cost on a request whose context
// has the caller slot (as RequestID makes it): a key restricted to origins
// and a user agent, among 1000 keys.
func BenchmarkAPIKeys(b *testing.B) {
	var keys []*apikey.Key
	for i := range 1000 {
		keys = append(keys, &apikey.Key{ID: fmt.Sprint(i), Token: fmt.Sprintf("tok%029d", i)})
	}
	keys[7].Origins, keys[7].UserAgent = []string{"*.example.com", "example.org"}, ptr("Mozilla/")
	snap := apikey.NewSnapshot(keys)
	h := APIKeys("required", func() *apikey.Snapshot { return snap })(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := httptest.NewRequest("GET", "/tiles/roads/1/0/0.pbf?key="+keys[7].Token, nil)
	r = r.WithContext(caller.Attach(r.Context()))
	r.Header.Set("Origin", "https://maps.example.com")
	r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)")
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
	if w.Code != 200 {
		b.Fatalf("status %d", w.Code)
	}
}

func ptr(s string) *string { return &s }
