// Package route holds the route tables of the HTTP APIs: a ServeMux that
// remembers its patterns (so that tests can walk every route) and answers
// a path it does not know with 404 and a known path asked with a wrong
// method with 405 and an Allow header, both with a JSON body.
package route

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// Router is what the API packages register their handlers on: a Table, or
// a plain http.ServeMux.
type Router interface {
	Handle(pattern string, h http.Handler)
	HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request))
}

// Table is one route table.
type Table struct {
	mux      *http.ServeMux
	patterns []string
	mounts   []mount
}

// mount is a handler for every path under a prefix that the table's own
// patterns do not know (under any method).
type mount struct {
	prefix string
	h      http.Handler
}

// New returns an empty table.
func New() *Table { return &Table{mux: http.NewServeMux()} }

// Handle registers h for pattern (net/http pattern syntax).
func (t *Table) Handle(pattern string, h http.Handler) {
	t.mux.Handle(pattern, h)
	t.patterns = append(t.patterns, pattern)
}

// HandleFunc registers h for pattern.
func (t *Table) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	t.Handle(pattern, http.HandlerFunc(h))
}

// Mount hands every request under prefix (which ends with "/") that no
// pattern of the table knows, under any method, to h: another table,
// usually behind its own middleware. A path the table knows under other
// methods still gets 405 here. Where mounts overlap, the longest prefix
// wins (/v1/admin/ before /v1/).
func (t *Table) Mount(prefix string, h http.Handler) {
	t.mounts = append(t.mounts, mount{prefix, h})
}

// Patterns returns the registered patterns in registration order.
func (t *Table) Patterns() []string { return append([]string(nil), t.patterns...) }

// ServeHTTP routes r. A request that matches no pattern gets 404, or 405
// with Allow when its path is known under other methods.
func (t *Table) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := t.mux.Handler(r)
	if pattern != "" {
		t.mux.ServeHTTP(w, r)
		return
	}
	// The mux's own answer says which: 405 (with Allow) or 404.
	probe := &statusProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		allow := probe.header.Get("Allow")
		w.Header().Set("Allow", allow)
		respond.Fail(w, http.StatusMethodNotAllowed, fmt.Sprintf("the method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
		return
	}
	var best *mount
	for i, m := range t.mounts {
		if strings.HasPrefix(r.URL.Path, m.prefix) && (best == nil || len(m.prefix) > len(best.prefix)) {
			best = &t.mounts[i]
		}
	}
	if best != nil {
		best.h.ServeHTTP(w, r)
		return
	}
	respond.Fail(w, http.StatusNotFound, fmt.Sprintf("no such resource: %s", r.URL.Path))
}

// statusProbe records the status and headers of a handler's answer and
// drops its body.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header         { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

// Methods returns the method of a pattern ("" when it has none) and its
// path part.
func Methods(pattern string) (method, path string) {
	if m, p, ok := strings.Cut(pattern, " "); ok {
		return m, strings.TrimSpace(p)
	}
	return "", pattern
}
