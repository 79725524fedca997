package middleware

import (
	"net/http"

	"github.com/tesseramaps/tessera/internal/caller"
	"github.com/tesseramaps/tessera/internal/usage"
)

// Classifier says which service and group a request path is counted
// under, or ok false when it is not counted: usage.Classify for the public
// API, usage.ClassifyAccount for the account API.
type Classifier func(path string) (service, group string, ok bool)

// Usage counts each answered request that classify knows in the meter,
// under the API key and service token of its caller (package caller). It
// must sit inside (after, in a Chain) the middleware that checks keys or
// tokens: it reads the caller from the context that middleware passes on.
// Counted are the requests classify knows, and only answers that served
// something: statuses 2xx (including 204, a tile that is not there) and
// 304 (a cached copy confirmed). Refusals (4xx) and failures (5xx) are not
// counted.
func Usage(m *usage.Meter, classify Classifier) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			service, group, ok := classify(r.URL.Path)
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			// The Recorder of Observe, further out, serves when nothing
			// has been written yet: no allocation on the tile path.
			rec, reuse := w.(*Recorder)
			if !reuse || rec.Status != 0 {
				rec = &Recorder{ResponseWriter: w}
				w = rec
			}
			next.ServeHTTP(w, r)
			if counted(rec.Status) {
				c := caller.From(r.Context())
				m.Count(service, group, c.KeyID, c.TokenID)
			}
		})
	}
}

// counted tells whether an answer with the status is counted (0: the
// handler wrote nothing, which net/http sends as 200).
func counted(status int) bool {
	return status == 0 || status >= 200 && status < 300 || status == http.StatusNotModified
}
