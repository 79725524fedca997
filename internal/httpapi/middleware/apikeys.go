package middleware

import (
	"net/http"
	"strings"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/caller"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// APIKeys checks the "key" query parameter of public requests against the
// keys of the current snapshot (in memory: no database call), with the
// key's origin and user-agent restrictions, and puts the key's id and
// token in the request's context (caller.Caller). mode is the api_keys
// setting: off (no check at all), optional (a key that is given is
// checked) or required (every public request needs one). A refused request
// gets 403 with a JSON message. /health, /ready, /metrics, the static assets of
// the viewer pages and everything under /v1/ (the admin and account APIs,
// which have their own credentials) are never keyed.
func APIKeys(mode string, keys func() *apikey.Snapshot) Middleware {
	if mode != config.APIKeysOptional && mode != config.APIKeysRequired {
		return func(next http.Handler) http.Handler { return next }
	}
	required := mode == config.APIKeysRequired
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if unkeyed(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			token := apikey.FromQuery(r.URL.RawQuery)
			if token == "" && !required {
				next.ServeHTTP(w, r)
				return
			}
			// Canonical names read straight from the map (this runs on every
			// tile request); the Referer only matters without an Origin.
			origin, referer := first(r.Header["Origin"]), ""
			if origin == "" || origin == "null" {
				referer = first(r.Header["Referer"])
			}
			k, err := keys().Check(token, origin, referer, first(r.Header["User-Agent"]))
			if err != nil {
				respond.Fail(w, http.StatusForbidden, err.Error())
				return
			}
			if caller.SetKey(r.Context(), k.ID, k.Token) { // the slot RequestID attached
				next.ServeHTTP(w, r)
				return
			}
			c := caller.From(r.Context())
			c.KeyID, c.KeyToken = k.ID, k.Token
			keyed := r.WithContext(caller.With(r.Context(), c))
			next.ServeHTTP(w, keyed)
			// The route matched inside is the outer layers' too (metrics
			// and access logs label requests with it).
			r.Pattern = keyed.Pattern
		})
	}
}

// unkeyed tells the paths that never need a key.
func unkeyed(p string) bool {
	return p == "/health" || p == "/ready" || p == "/metrics" || strings.HasPrefix(p, "/v1/") || strings.HasPrefix(p, "/static/")
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
