// Package web renders Tessera's viewer pages and serves their static files.
//
// The pages are full-page MapLibre GL JS maps: TilesetViewer shows a tileset
// (an automatic style for vector tiles with a layer list and feature
// inspection, or a raster layer) and MapViewer shows a map style. MapLibre GL
// JS is not committed: scripts/web-assets.sh installs it from npm into
// static/vendor/, which is embedded with the package's own files; Static
// serves them under /static/ with long-lived, content-versioned URLs. The
// pages use root-relative URLs only and no inline script, so they work offline
// and under a strict Content-Security-Policy.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"sync"
)

//go:embed all:static
var embedded embed.FS

//go:embed templates/viewer.html
var viewerHTML string

var viewerTmpl = template.Must(template.New("viewer").Parse(viewerHTML))

// TilesetView describes the viewer page of a tileset (/tiles/{ID}/).
type TilesetView struct {
	ID     string // tileset id, as in /tiles/{ID}/ (escaped by the page)
	Title  string // page title; ID when empty
	Vector bool   // vector tiles (automatic style) or raster
	// BasePath is the path prefix of the public API, unescaped as in
	// url.URL.Path ("" when served at the root, or e.g. "/tessera"); every
	// URL of the page is root-relative and starts with it.
	BasePath string
	// Query is an optional query suffix (e.g. "key=abc") added to the
	// document URLs requested by the page (TileJSON, style, links).
	Query string
}

// MapView describes the viewer page of a map (/maps/{ID}/).
type MapView struct {
	// The fields mean the same as in TilesetView.
	ID       string
	Title    string
	BasePath string
	Query    string
}

type link struct{ Href, Type, Text string }

type page struct {
	Title, Kind, KindLabel  string
	TileJSON, Style         string
	MapLibreJS, MapLibreCSS string
	ViewerJS, ViewerCSS     string
	Favicon                 string
	Links                   []link
}

func normalise(id, basePath, query string) (base, q string, err error) {
	if id == "" {
		return "", "", errors.New("web: empty id")
	}
	if id == "." || id == ".." {
		// browsers resolve "%2e%2e" like "..": no URL can name it
		return "", "", fmt.Errorf("web: id %q cannot be a URL path segment", id)
	}
	trimmed := strings.TrimRight(basePath, "/")
	if trimmed != "" {
		if !strings.HasPrefix(trimmed, "/") {
			return "", "", fmt.Errorf("web: base path %q must be empty or start with '/'", basePath)
		}
		for _, seg := range strings.Split(trimmed[1:], "/") {
			if seg == "" || seg == "." || seg == ".." {
				return "", "", fmt.Errorf("web: base path %q has an empty or dot segment", basePath)
			}
			base += "/" + url.PathEscape(seg)
		}
	}
	q = strings.TrimPrefix(query, "?")
	if q != "" {
		v, err := url.ParseQuery(q)
		if err != nil {
			return "", "", fmt.Errorf("web: query suffix: %w", err)
		}
		q = "?" + v.Encode()
	}
	return base, q, nil
}

// escapeSegment escapes an id for use as one URL path segment.
func escapeSegment(id string) string { return url.PathEscape(id) }

func (p *page) assets(base string) {
	p.MapLibreJS = assetURL(base, "vendor/maplibre-gl.js")
	p.MapLibreCSS = assetURL(base, "vendor/maplibre-gl.css")
	p.ViewerJS = assetURL(base, "viewer.js")
	p.ViewerCSS = assetURL(base, "viewer.css")
	p.Favicon = assetURL(base, "favicon.svg")
}

func render(w io.Writer, p *page) error {
	var buf bytes.Buffer
	if err := viewerTmpl.Execute(&buf, p); err != nil {
		return fmt.Errorf("web: render viewer: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("web: write viewer: %w", err)
	}
	return nil
}

// TilesetViewer writes the HTML viewer page of a tileset. The page fetches
// {BasePath}/tiles/{id}/tiles.json{?Query}.
func TilesetViewer(w io.Writer, v TilesetView) error {
	base, q, err := normalise(v.ID, v.BasePath, v.Query)
	if err != nil {
		return err
	}
	prefix := base + "/tiles/" + escapeSegment(v.ID)
	p := &page{Title: v.Title, Kind: "raster", KindLabel: "raster tileset", TileJSON: prefix + "/tiles.json" + q}
	if p.Title == "" {
		p.Title = v.ID
	}
	if v.Vector {
		p.Kind, p.KindLabel = "vector", "vector tileset"
	}
	p.assets(base)
	p.Links = []link{
		{prefix + "/tiles.json" + q, "application/json", "TileJSON"},
		{prefix + "/tiles" + q, "application/json", "OGC API - Tiles"},
		{prefix + "/WMTSCapabilities.xml" + q, "application/xml", "WMTS"},
	}
	return render(w, p)
}

// MapViewer writes the HTML viewer page of a map. The page loads
// {BasePath}/maps/{id}/style.json{?Query} and draws it with MapLibre GL JS
// (vector mode) or, where WebGL is missing or drawn in software, shows the
// server's raster tiles named by {BasePath}/maps/{id}/tiles.json{?Query}
// in a plain grid of images (raster mode, no WebGL); ?mode=raster or
// ?mode=vector on the page's URL chooses, and a button switches.
func MapViewer(w io.Writer, v MapView) error {
	base, q, err := normalise(v.ID, v.BasePath, v.Query)
	if err != nil {
		return err
	}
	prefix := base + "/maps/" + escapeSegment(v.ID)
	p := &page{Title: v.Title, Kind: "map", KindLabel: "map", Style: prefix + "/style.json" + q, TileJSON: prefix + "/tiles.json" + q}
	if p.Title == "" {
		p.Title = v.ID
	}
	p.assets(base)
	wmsQ := "?service=WMS&request=GetCapabilities"
	if q != "" {
		wmsQ += "&" + q[1:]
	}
	p.Links = []link{
		{prefix + "/style.json" + q, "application/json", "Style"},
		{prefix + "/tiles.json" + q, "application/json", "TileJSON"},
		{prefix + "/tiles" + q, "application/json", "OGC API - Tiles"},
		{prefix + "/WMTSCapabilities.xml" + q, "application/xml", "WMTS"},
		{prefix + "/wms" + wmsQ, "application/xml", "WMS"},
	}
	return render(w, p)
}

// StaticFS returns the embedded static files (viewer.js, viewer.css and
// vendor/...), rooted at the static folder.
func StaticFS() fs.FS {
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		panic(err) // cannot happen: the folder is embedded
	}
	return sub
}

// HasMapLibre reports whether MapLibre GL JS was embedded (see
// scripts/web-assets.sh); without it the viewer pages show an error.
func HasMapLibre() bool {
	for _, f := range []string{"vendor/maplibre-gl.js", "vendor/maplibre-gl.css"} {
		if _, err := fs.Stat(StaticFS(), f); err != nil {
			return false
		}
	}
	return true
}

var (
	hashOnce sync.Once
	hashes   map[string]string // file path -> short content hash
)

// fileHashes returns the content hash of every static file.
func fileHashes() map[string]string {
	hashOnce.Do(func() {
		hashes = map[string]string{}
		sfs := StaticFS()
		_ = fs.WalkDir(sfs, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := fs.ReadFile(sfs, p)
			if err != nil {
				return nil
			}
			sum := sha256.Sum256(b)
			hashes[p] = hex.EncodeToString(sum[:])[:16]
			return nil
		})
	})
	return hashes
}

// assetURL is the root-relative URL of a static file, versioned by content
// hash when the file exists.
func assetURL(base, name string) string {
	u := base + "/static/" + name
	if h, ok := fileHashes()[name]; ok {
		u += "?v=" + h
	}
	return u
}
