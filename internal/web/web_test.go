package web

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var attrRe = regexp.MustCompile(`\s(data-[a-z-]+|href|src)="([^"]*)"`)

// attrs returns every data-*, href and src attribute of a page, unescaped.
func attrs(page string) map[string][]string {
	out := map[string][]string{}
	for _, m := range attrRe.FindAllStringSubmatch(page, -1) {
		out[m[1]] = append(out[m[1]], html.UnescapeString(m[2]))
	}
	return out
}

// idSegment parses a root-relative URL and returns its unescaped path
// segment i and its query.
func idSegment(t *testing.T, raw string, i int) (string, url.Values) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	segs := strings.Split(u.EscapedPath(), "/")
	if len(segs) <= i {
		t.Fatalf("URL %q has %d segments", raw, len(segs))
	}
	s, err := url.PathUnescape(segs[i])
	if err != nil {
		t.Fatal(err)
	}
	return s, u.Query()
}

const hostile = `x"><script>alert(1)</script>/../..`

func TestTilesetViewer(t *testing.T) {
	tests := []struct {
		name     string
		v        TilesetView
		wantKind string
		wantURL  string // data-tilejson-url when the id is simple
		idIndex  int
		wantErr  bool
	}{
		{name: "vector", v: TilesetView{ID: "world", Title: "World", Vector: true}, wantKind: "vector", wantURL: "/tiles/world/tiles.json", idIndex: 2},
		{name: "raster with base and key", v: TilesetView{ID: "sat", BasePath: "/tessera/", Query: "?key=abc"}, wantKind: "raster", wantURL: "/tessera/tiles/sat/tiles.json?key=abc", idIndex: 3},
		{name: "hostile id and title", v: TilesetView{ID: hostile, Title: hostile, Vector: true, Query: "key=a\"b"}, wantKind: "vector", idIndex: 2},
		{name: "dot-dot id", v: TilesetView{ID: ".."}, wantErr: true},
		{name: "empty id", v: TilesetView{}, wantErr: true},
		{name: "relative base", v: TilesetView{ID: "a", BasePath: "tessera"}, wantErr: true},
		{name: "scheme-relative base", v: TilesetView{ID: "a", BasePath: "//evil.example"}, wantErr: true},
		{name: "dot segment base", v: TilesetView{ID: "a", BasePath: "/a/../b"}, wantErr: true},
		{name: "base needing escapes", v: TilesetView{ID: "a", BasePath: "/my maps/%"}, wantKind: "raster", wantURL: "/my%20maps/%25/tiles/a/tiles.json", idIndex: 4},
		{name: "bad query", v: TilesetView{ID: "a", Query: "a=%zz"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := TilesetViewer(&buf, tt.v)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if buf.Len() != 0 {
					t.Error("partial page written on error")
				}
				return
			}
			page := buf.String()
			if strings.Contains(page, "<script>alert") || strings.Count(page, "<script") != 2 || strings.Count(page, "<div") != 1 {
				t.Errorf("hostile text not escaped:\n%s", page)
			}
			if tt.v.Title == hostile && !strings.Contains(page, "<h1>x&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;/../..</h1>") {
				t.Errorf("title not escaped as text:\n%s", page)
			}
			a := attrs(page)
			if k := a["data-kind"]; len(k) != 1 || k[0] != tt.wantKind {
				t.Errorf("data-kind = %v", k)
			}
			tj := a["data-tilejson-url"]
			if len(tj) != 1 {
				t.Fatalf("data-tilejson-url = %v", tj)
			}
			if tt.wantURL != "" && tj[0] != tt.wantURL {
				t.Errorf("tilejson URL = %q, want %q", tj[0], tt.wantURL)
			}
			id, q := idSegment(t, tj[0], tt.idIndex)
			if id != tt.v.ID {
				t.Errorf("id segment %q, want %q", id, tt.v.ID)
			}
			if tt.v.Query != "" && q.Encode() == "" {
				t.Errorf("query suffix lost: %q", tj[0])
			}
			if !strings.Contains(page, "<title>") || !strings.Contains(page, `lang="en"`) {
				t.Error("page lacks title or lang")
			}
			for _, src := range append(a["src"], a["href"]...) {
				if !strings.HasPrefix(src, "/") || strings.HasPrefix(src, "//") {
					t.Errorf("URL %q is not root-relative", src)
				}
			}
			if len(a["src"]) != 2 {
				t.Errorf("scripts = %v", a["src"])
			}
		})
	}
}

func TestMapViewer(t *testing.T) {
	var buf bytes.Buffer
	if err := MapViewer(&buf, MapView{ID: hostile, BasePath: "/b", Query: "key=k"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "<script>alert") {
		t.Fatal("hostile id not escaped")
	}
	a := attrs(page)
	st := a["data-style-url"]
	if len(st) != 1 || !strings.HasPrefix(st[0], "/b/maps/") || !strings.HasSuffix(st[0], "/style.json?key=k") {
		t.Fatalf("style URL = %v", st)
	}
	if id, _ := idSegment(t, st[0], 3); id != hostile {
		t.Errorf("id = %q", id)
	}
	// the TileJSON names the raster tiles of the raster mode
	if tj := a["data-tilejson-url"]; a["data-kind"][0] != "map" || len(tj) != 1 || tj[0] != strings.TrimSuffix(st[0], "style.json?key=k")+"tiles.json?key=k" {
		t.Errorf("attrs = %v", a)
	}
	if !strings.Contains(page, `<button type="button" id="mode-switch" hidden>`) {
		t.Error("no mode switch")
	}
	wms := false
	for _, h := range a["href"] {
		if strings.Contains(h, "/wms?service=WMS&request=GetCapabilities&key=k") {
			wms = true
		}
	}
	if !wms {
		t.Errorf("no WMS link in %v", a["href"])
	}
	if err := MapViewer(&buf, MapView{}); err == nil {
		t.Error("empty id accepted")
	}
}

func get(h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestStatic(t *testing.T) {
	h := Static()
	js, err := os.ReadFile("static/viewer.js")
	if err != nil {
		t.Fatal(err)
	}
	w := get(h, "GET", "/static/viewer.js", nil)
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), js) {
		t.Fatalf("viewer.js: %d, %d bytes", w.Code, w.Body.Len())
	}
	if ct := w.Header().Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if cc := w.Header().Get("Cache-Control"); cc != cacheShort {
		t.Errorf("unversioned cache control %q", cc)
	}
	etag := w.Header().Get("ETag")
	if w := get(h, "GET", "/static/viewer.js", map[string]string{"If-None-Match": etag}); w.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d", w.Code)
	}
	// the page's versioned URL gets the long cache
	var buf bytes.Buffer
	if err := TilesetViewer(&buf, TilesetView{ID: "a", Vector: true}); err != nil {
		t.Fatal(err)
	}
	a := attrs(buf.String())
	assets := 0
	for _, u := range append(a["src"], a["href"]...) {
		if !strings.HasPrefix(u, "/static/") {
			continue
		}
		assets++
		if strings.Contains(u, "/vendor/") && !HasMapLibre() {
			continue
		}
		w := get(h, "GET", u, nil)
		if w.Code != 200 || w.Header().Get("Cache-Control") != cacheImmutable {
			t.Errorf("%s: %d %q", u, w.Code, w.Header().Get("Cache-Control"))
		}
		wantType := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}[filepath.Ext(strings.SplitN(u, "?", 2)[0])]
		if w.Header().Get("Content-Type") != wantType {
			t.Errorf("%s content type %q, want %q", u, w.Header().Get("Content-Type"), wantType)
		}
	}
	if assets != 5 {
		t.Errorf("page references %d static assets, want 5", assets)
	}
	if w := get(h, "HEAD", "/static/viewer.css", nil); w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d %d", w.Code, w.Body.Len())
	}
	for _, p := range []string{"/static/", "/static/vendor", "/static/vendor/", "/static/missing.js", "/static/../web.go",
		"/static/vendor/.maplibre-version", "/other/viewer.js", "/static//viewer.js", "/static/./viewer.js"} {
		if w := get(h, "GET", p, nil); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, w.Code)
		}
	}
	if w := get(h, "POST", "/static/viewer.js", nil); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") == "" {
		t.Errorf("POST: %d", w.Code)
	}
}

// TestStaticVendor checks that the vendored MapLibre files, when installed by
// scripts/web-assets.sh, are embedded and served byte for byte.
func TestStaticVendor(t *testing.T) {
	if !HasMapLibre() {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatal("MapLibre GL JS not embedded: run scripts/web-assets.sh")
		}
		t.Skip("MapLibre GL JS not installed: run scripts/web-assets.sh")
	}
	for _, f := range []string{"maplibre-gl.js", "maplibre-gl.css"} {
		want, err := os.ReadFile(filepath.Join("static", "vendor", f))
		if err != nil {
			t.Fatal(err)
		}
		w := get(Static(), "GET", "/static/vendor/"+f, nil)
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("%s: %d, %d bytes, want %d", f, w.Code, w.Body.Len(), len(want))
		}
		if f == "maplibre-gl.js" && !bytes.Contains(want[:min(len(want), 4096)], []byte("maplibre")) {
			t.Errorf("%s does not look like MapLibre", f)
		}
	}
}

func TestContentType(t *testing.T) {
	for name, want := range map[string]string{"a.js": "text/javascript; charset=utf-8", "B.CSS": "text/css; charset=utf-8",
		"x.png": "image/png", "y.unknownext": "application/octet-stream", "README.md": "text/markdown; charset=utf-8"} {
		if got := contentType(name); got != want {
			t.Errorf("contentType(%q) = %q, want %q", name, got, want)
		}
	}
}

func urlUnescape(s string) (string, error) { return url.PathUnescape(s) }
