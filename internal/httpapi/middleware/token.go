package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/tesseramaps/tessera/internal/caller"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// TokenChecker tells which valid service token a secret is (ok false for
// none).
type TokenChecker func(ctx context.Context, secret string) (id string, ok bool, err error)

// ServiceToken requires "Authorization: Token <token>" with a valid service
// token of the account API, and puts the token's id in the request's
// context (caller.Caller.TokenID). Without one it answers 401 with a JSON
// message. The secret is never logged.
func ServiceToken(check TokenChecker, log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			secret, found := tokenFromHeader(r.Header.Get("Authorization"))
			if !found {
				w.Header().Set("WWW-Authenticate", `Token realm="tessera account"`)
				respond.Fail(w, http.StatusUnauthorized, "missing service token: send Authorization: Token <token>")
				return
			}
			id, ok, err := check(r.Context(), secret)
			if err != nil {
				log.ErrorContext(r.Context(), "check service token", "err", err, "request_id", RequestIDFrom(r.Context()))
				respond.Fail(w, http.StatusServiceUnavailable, "could not check the service token; try again")
				return
			}
			if !ok {
				w.Header().Set("WWW-Authenticate", `Token realm="tessera account"`)
				respond.Fail(w, http.StatusUnauthorized, "invalid or revoked service token")
				return
			}
			c := caller.From(r.Context())
			c.TokenID = id
			next.ServeHTTP(w, r.WithContext(caller.With(r.Context(), c)))
		})
	}
}

// tokenFromHeader reads the token of an "Authorization: Token <token>"
// header (the scheme case-insensitive).
func tokenFromHeader(h string) (string, bool) {
	const scheme = "token "
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	t := strings.TrimSpace(h[len(scheme):])
	return t, t != ""
}
