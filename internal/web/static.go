package web

import (
	"bytes"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// Cache lifetimes of static files: a year for content-versioned URLs (the
// ?v= hash written by the pages), an hour otherwise.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheShort     = "public, max-age=3600"
)

var contentTypes = map[string]string{
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".json":  "application/json",
	".map":   "application/json",
	".md":    "text/markdown; charset=utf-8",
	".txt":   "text/plain; charset=utf-8",
	".html":  "text/html; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".woff2": "font/woff2",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// Static returns the handler of /static/...: mount it at "/static/" (after
// stripping any base path). It serves GET and HEAD only, never lists
// folders nor serves dot files, sets Content-Type, ETag and Cache-Control
// (long-lived when the ?v= query matches the content hash) and answers
// conditional requests.
func Static() http.Handler {
	sfs := StaticFS()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, "/static/")
		if !ok || name == "" || !fs.ValidPath(name) || strings.HasSuffix(name, "/") {
			http.NotFound(w, r)
			return
		}
		for _, seg := range strings.Split(name, "/") {
			if strings.HasPrefix(seg, ".") {
				http.NotFound(w, r)
				return
			}
		}
		b, err := fs.ReadFile(sfs, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h := fileHashes()[name]
		hdr := w.Header()
		hdr.Set("Content-Type", contentType(name))
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("ETag", `"`+h+`"`)
		if v := r.URL.Query().Get("v"); v != "" && v == h {
			hdr.Set("Cache-Control", cacheImmutable)
		} else {
			hdr.Set("Cache-Control", cacheShort)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
