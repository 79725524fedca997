// Package respond writes HTTP responses the way every Tessera API does: JSON
// bodies, errors as {"message": "..."}, and absolute URLs built from the
// configured public URL or the request's Host and X-Forwarded-* headers.
package respond

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/caller"
)

// Error is the body of every error response.
type Error struct {
	Message string `json:"message"`
}

// JSON writes v as a JSON body with the status (and a newline), encoded
// into a pooled buffer.
func JSON(w http.ResponseWriter, status int, v any) {
	buf := jsonPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooled {
			buf.Reset()
			jsonPool.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"message":"could not encode the response"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// The buffers answers are written into before they are sent are pooled:
// a request then allocates no bytes of its answer (fewer collections, and
// a shorter tail of latencies while the collector marks). Larger buffers
// than maxPooled are left to the collector.
var (
	jsonPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	bufPool  = sync.Pool{New: func() any { return new([]byte) }}
)

const maxPooled = 64 << 10

// Buffer returns an empty byte slice from the pool to write a document
// into (then append to *b); Release returns it once the document is
// written to the response.
func Buffer() *[]byte {
	b := bufPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// Release returns a buffer of Buffer to the pool: its bytes must not be
// used after.
func Release(b *[]byte) {
	if cap(*b) <= maxPooled {
		bufPool.Put(b)
	}
}

// Fail writes {"message": msg} with the status.
func Fail(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	// A cached success must not be reused for an error.
	h.Del("ETag")
	h.Del("Content-Encoding")
	h.Set("Cache-Control", "no-store")
	JSON(w, status, Error{Message: msg})
}

// Bytes writes a document with its content type.
func Bytes(w http.ResponseWriter, status int, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	w.Write(b)
}

// BaseURL returns the absolute root URL of the server for links in
// documents: public (the configured public URL) when set, otherwise the
// scheme from X-Forwarded-Proto (or the connection) and the host from
// X-Forwarded-Host (or Host). Header values are checked so that a hostile
// header cannot inject anything but a host name.
func BaseURL(r *http.Request, public string) string {
	if public != "" {
		return strings.TrimRight(public, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p == "https" || p == "http" {
		scheme = p
	}
	host := r.Host
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); h != "" && validHost(h) {
		host = h
	}
	if !validHost(host) {
		host = "localhost"
	}
	prefix := ""
	if p := firstValue(r.Header.Get("X-Forwarded-Prefix")); p != "" && validPrefix(p) {
		prefix = strings.TrimRight(p, "/")
	}
	return scheme + "://" + host + prefix
}

func firstValue(v string) string {
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// validHost accepts host names, IPv4 and bracketed IPv6 addresses with an
// optional port.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':' || c == '[' || c == ']' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

func validPrefix(p string) bool {
	if !strings.HasPrefix(p, "/") || len(p) > 200 || strings.Contains(p, "//") || strings.Contains(p, "..") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// KeyQuery returns "?key=..." when the request carries an API key (the
// checked key of its caller, else its query's), so that documents can
// carry it into the URLs they contain.
func KeyQuery(r *http.Request) string {
	k := caller.From(r.Context()).KeyToken
	if k == "" {
		k = r.URL.Query().Get("key")
	}
	if k == "" {
		return ""
	}
	return "?key=" + urlQueryEscape(k)
}

func urlQueryEscape(s string) string {
	var b strings.Builder
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// LongRequest lifts the server's read and write deadlines for a request
// that carries a large body (an upload), to two hours from now.
func LongRequest(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(2 * time.Hour)
	rc.SetReadDeadline(deadline)
	rc.SetWriteDeadline(deadline)
}
