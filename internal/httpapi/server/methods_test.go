package server

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/httpapi/route"
)

// wildcard matches one {name}, {name...} or {$} of a pattern.
var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// concrete turns a pattern's path into a request path.
func concrete(path string) string {
	return wildcard.ReplaceAllStringFunc(path, func(w string) string {
		switch {
		case w == "{$}":
			return ""
		case strings.HasSuffix(w, "...}"):
			return "a/b"
		case w == "{z}" || w == "{x}":
			return "0"
		case w == "{y}":
			return "0.pbf"
		}
		return "world"
	})
}

// patternRegexp matches the paths a net/http pattern's path matches.
func patternRegexp(path string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, loc := range wildcard.FindAllStringIndex(path, -1) {
		b.WriteString(regexp.QuoteMeta(path[last:loc[0]]))
		switch w := path[loc[0]:loc[1]]; {
		case w == "{$}":
		case strings.HasSuffix(w, "...}"):
			b.WriteString(".*")
		default:
			b.WriteString("[^/]+")
		}
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(path[last:]))
	if !strings.HasSuffix(path, "/") || strings.HasSuffix(path, "{$}") {
		b.WriteString("$") // a pattern ending in "/" matches every path below it
	}
	return regexp.MustCompile(b.String())
}

// TestWrongMethods walks both route tables: every path asked with a method
// it does not serve answers 405 with an Allow header naming the methods it
// does serve and a JSON message. Routes added later are covered as they
// are registered.
func TestWrongMethods(t *testing.T) {
	e := newEnv(t, nil)
	public, admin := e.srv.Routes()
	account := e.srv.AccountRoutes()
	svcToken := e.serviceToken("methods")
	type route_ struct {
		path  string
		table int // 0 public, 1 admin, 2 account
	}
	allowed := map[route_][]string{}
	for i, list := range [][]string{public, admin, account} {
		for _, p := range list {
			m, path := route.Methods(p)
			if m == "" {
				continue // a mount (the admin prefix) or a catch-all
			}
			k := route_{path, i}
			allowed[k] = append(allowed[k], m)
		}
	}
	if len(allowed) < 30 {
		t.Fatalf("only %d routes found", len(allowed))
	}
	// A path may match several patterns ("/v1/admin/tiles/reload" is also
	// "/v1/admin/tiles/{id}"): its methods are those of every pattern that
	// matches it.
	matchers := map[route_]*regexp.Regexp{}
	for r := range allowed {
		matchers[r] = patternRegexp(r.path)
	}
	checked := 0
	for r := range allowed {
		path := concrete(r.path)
		var methods []string
		for other, re := range matchers {
			if other.table == r.table && re.MatchString(path) {
				methods = append(methods, allowed[other]...)
			}
		}
		if slices.Contains(methods, "GET") {
			methods = append(methods, "HEAD")
		}
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(methods, m) {
				continue
			}
			req, _ := http.NewRequest(m, e.http.URL+path, strings.NewReader("{}"))
			switch r.table {
			case 1:
				req.Header.Set("Authorization", "Basic "+token)
			case 2:
				req.Header.Set("Authorization", "Token "+svcToken)
			}
			resp, err := e.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s (route %s): status %d, want 405: %s", m, path, r.path, resp.StatusCode, body)
				continue
			}
			var msg struct{ Message string }
			if err := json.Unmarshal(body, &msg); err != nil || msg.Message == "" {
				t.Errorf("%s %s: body %q is not a JSON message", m, path, body)
			}
			got := strings.Split(resp.Header.Get("Allow"), ", ")
			sort.Strings(got)
			want := slices.Clone(methods)
			sort.Strings(want)
			if !slices.Equal(got, slices.Compact(want)) {
				t.Errorf("%s %s: Allow %q, want %q", m, path, resp.Header.Get("Allow"), want)
			}
			checked++
		}
	}
	t.Logf("%d wrong-method requests on %d routes answered 405", checked, len(allowed))
}

func TestMethodExamples(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"PUT", "/tiles/roads/0/0/0", 405, "GET, HEAD"},
		{"POST", "/tiles/roads/0/0/0.pbf", 405, "GET, HEAD"},
		{"DELETE", "/tiles/roads/tiles.json", 405, "GET, HEAD"},
		{"POST", "/geocoding/paris.json", 405, "GET, HEAD"},
		{"GET", "/no/such/thing", 404, ""},
		{"POST", "/no/such/thing", 404, ""},
		{"GET", "/tiles/roads/0/0/0.pbf", 200, ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, e.http.URL+tc.path, nil)
		resp, err := e.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q, want %d %q (%s)", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), tc.status, tc.allow, body)
		}
		if tc.status >= 400 && !json.Valid(body) {
			t.Errorf("%s %s: body %q is not JSON", tc.method, tc.path, body)
		}
	}
	// CORS preflights still answer on a tile path.
	req, _ := http.NewRequest("OPTIONS", e.http.URL+"/tiles/roads/0/0/0.pbf", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}
