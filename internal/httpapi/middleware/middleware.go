// Package middleware holds the layers every request passes through before
// its handler: panic recovery, request ids, metrics and access logs, limits,
// CORS and the admin API's credentials check.
package middleware

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tesseramaps/tessera/internal/caller"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain applies middlewares so that the first one listed is the outermost.
func Chain(h http.Handler, ms ...Middleware) http.Handler {
	for i := len(ms) - 1; i >= 0; i-- {
		h = ms[i](h)
	}
	return h
}

// Recorder captures the status and size of a response.
type Recorder struct {
	http.ResponseWriter
	Status int
	Bytes  int64
}

// WriteHeader records the status.
func (r *Recorder) WriteHeader(code int) {
	if r.Status == 0 {
		r.Status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records the size.
func (r *Recorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.Bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes through.
func (r *Recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Recover answers 500 to a request whose handler panics, logs the panic
// with its stack, and keeps the process alive.
func Recover(log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.ErrorContext(r.Context(), "panic in handler", "method", r.Method, "path", r.URL.Path,
						"request_id", RequestIDFrom(r.Context()), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					respond.Fail(w, http.StatusInternalServerError, "internal error")
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

type ctxKey int

const requestIDKey ctxKey = 0

var (
	idPrefix  = newIDPrefix()
	idCounter atomic.Uint64
)

func newIDPrefix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RequestID gives every request an id: the client's X-Request-Id when it is
// short and plain, else a new one. It is echoed in the response header and
// available through RequestIDFrom. It also attaches the request's caller
// slot (caller.Attach), which the key check fills.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !plainID(id) {
			id = newID(idCounter.Add(1))
		}
		w.Header().Set("X-Request-Id", id)
		// The caller's slot rides on the same new request and context: the
		// key check fills it without making another.
		next.ServeHTTP(w, r.WithContext(caller.AttachValue(r.Context(), requestIDKey, id)))
	})
}

// newID is the id of the n-th request: the process's prefix, "-", n in
// base 36 (one allocation).
func newID(n uint64) string {
	var b strings.Builder
	b.Grow(len(idPrefix) + 1 + 13)
	b.WriteString(idPrefix)
	b.WriteByte('-')
	var digits [13]byte
	b.Write(strconv.AppendUint(digits[:0], n, 36))
	return b.String()
}

func plainID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// RequestIDFrom returns the request id stored in ctx.
func RequestIDFrom(ctx context.Context) string {
	s, _ := ctx.Value(requestIDKey).(string)
	return s
}

// Observe records each request's route, status, size and duration in the
// metrics, and logs it when log is not nil.
func Observe(m *Metrics, log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &Recorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			if rec.Status == 0 {
				rec.Status = http.StatusOK
			}
			d := time.Since(start)
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			if m != nil {
				m.observe(route, rec.Status, d)
			}
			if log != nil {
				log.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("method", r.Method), slog.String("path", r.URL.Path),
					slog.Int("status", rec.Status), slog.Int64("bytes", rec.Bytes),
					slog.Duration("duration", d), slog.String("remote", r.RemoteAddr),
					slog.String("request_id", RequestIDFrom(r.Context())))
			}
		})
	}
}

// Limits refuses request URIs longer than maxURI bytes (414) and bounds
// request bodies to maxBody bytes; handlers that take larger bodies (uploads)
// lift the body limit themselves with http.MaxBytesReader on r.Body's
// underlying reader through BodyLimitExempt.
func Limits(maxURI int, maxBody int64) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(r.RequestURI) > maxURI {
				respond.Fail(w, http.StatusRequestURITooLong, fmt.Sprintf("URI too long: the maximum allowed length is %d bytes", maxURI))
				return
			}
			if r.Body != nil && r.Body != http.NoBody && !exempt(r) {
				r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// exempt tells the upload requests, which carry their own limit: the
// upload URLs of ingests and the part URLs of multipart uploads to the
// server (account.PartsPath).
func exempt(r *http.Request) bool {
	return r.Method == http.MethodPut && (strings.HasSuffix(r.URL.Path, "/upload") || strings.HasPrefix(r.URL.Path, "/v1/datasets/parts/"))
}

// CORS answers cross-origin requests for the allowed origins ("*" = any)
// and preflight OPTIONS requests.
func CORS(origins []string) Middleware {
	any := false
	allowed := map[string]bool{}
	for _, o := range origins {
		if o == "*" {
			any = true
		}
		allowed[strings.TrimRight(o, "/")] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			if origin != "" && (any || allowed[origin]) {
				h := w.Header()
				if any {
					h.Set("Access-Control-Allow-Origin", "*")
				} else {
					h.Set("Access-Control-Allow-Origin", origin)
					h.Add("Vary", "Origin")
				}
				h.Set("Access-Control-Expose-Headers", "ETag, Content-Length, Content-Encoding, X-Request-Id")
				if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
					h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS")
					h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Range, If-None-Match, Range")
					h.Set("Access-Control-Max-Age", "86400")
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// AdminAuth requires "Authorization: Basic <token>" where token is the
// admin credentials token (compared in constant time). The spec leaves the
// encoding after "Basic" open: the raw token is accepted, and so is the
// standard base64 of "user:password" when token has that user:password form
// or base64 of any user with the token as password.
func AdminAuth(token func() string) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !CheckBasic(r.Header.Get("Authorization"), token()) {
				w.Header().Set("WWW-Authenticate", `Basic realm="tessera admin"`)
				respond.Fail(w, http.StatusUnauthorized, "missing or invalid credentials: send Authorization: Basic <CREDENTIALS>")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// CheckBasic reports whether the Authorization header value carries token.
func CheckBasic(header, token string) bool {
	if token == "" || len(header) < 6 || !strings.EqualFold(header[:6], "basic ") {
		return false
	}
	given := strings.TrimSpace(header[6:])
	ok := subtle.ConstantTimeCompare([]byte(given), []byte(token)) == 1
	if r, err := decodeBase64(given); err == nil {
		// base64("user:pass") equal to a "user:pass" token, or any user
		// with the token as password.
		if subtle.ConstantTimeCompare(r, []byte(token)) == 1 {
			ok = true
		}
		if i := strings.IndexByte(string(r), ':'); i >= 0 && subtle.ConstantTimeCompare(r[i+1:], []byte(token)) == 1 {
			ok = true
		}
	}
	return ok
}
