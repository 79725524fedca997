package public

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/tilecache"
	"github.com/tesseramaps/tessera/internal/tilesource"
	"github.com/tesseramaps/tessera/internal/web"
)

// endpoint is the absolute base of URLs inside documents for this request,
// carrying the request's key parameter.
func (a *API) endpoint(r *http.Request) (ogc.Endpoint, error) {
	return ogc.NewEndpoint(respond.BaseURL(r, a.d.PublicURL), respond.KeyQuery(r))
}

// tileSet describes a catalog entry for the document builders.
func tileSet(e *catalog.Entry) ogc.TileSet {
	in := e.Info
	title := e.Title
	if title == "" {
		title = in.Name
	}
	return ogc.TileSet{
		ID:           e.Name,
		Title:        title,
		Description:  in.Description,
		Attribution:  in.Attribution,
		Version:      in.Version,
		Format:       string(in.Format),
		Vector:       in.Format == tilesource.PBF,
		MinZoom:      in.MinZoom,
		MaxZoom:      in.MaxZoom,
		Bounds:       in.Bounds,
		Center:       in.Center,
		VectorLayers: in.VectorLayers,
		TileSize:     in.TileSize,
	}
}

// document writes a generated document with a strong ETag so that clients
// can revalidate.
func (a *API) document(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	etag := tilecache.ETag(body)
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", a.d.CacheControlDocuments)
	if match(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	respond.Bytes(w, http.StatusOK, contentType, body)
}

func (a *API) jsonDocument(w http.ResponseWriter, r *http.Request, contentType string, v any, err error) {
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "build document", "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the document could not be built")
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "encode document", "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the document could not be built")
		return
	}
	a.document(w, r, contentType, b)
}

// builder makes a document of a tileset or map: JSON-encodable values
// are served as application/json, []byte as XML.
type builder[T any] func(item T, ep ogc.Endpoint) (any, error)

// jsonBuilder adapts a typed document function.
func jsonBuilder[T, D any](f func(T, ogc.Endpoint) (D, error)) builder[T] {
	return func(item T, ep ogc.Endpoint) (any, error) { return f(item, ep) }
}

// serveDoc writes a built document or the error of building it.
func (a *API) serveDoc(w http.ResponseWriter, r *http.Request, doc any, err error) {
	if b, ok := doc.([]byte); ok && err == nil {
		a.document(w, r, "text/xml; charset=utf-8", b)
		return
	}
	a.jsonDocument(w, r, "application/json", doc, err)
}

// tilesetDoc serves a document of the tileset named in the path.
func (a *API) tilesetDoc(build builder[ogc.TileSet]) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e, ok := a.served(w, r)
		if !ok {
			return
		}
		ep, err := a.endpoint(r)
		if err != nil {
			a.serveDoc(w, r, nil, err)
			return
		}
		doc, err := build(tileSet(e), ep)
		a.serveDoc(w, r, doc, err)
	}
}

var wmtsOptions = ogc.WMTSOptions{Title: "Tessera"}

func (a *API) conformance(w http.ResponseWriter, r *http.Request) {
	seen := map[string]bool{}
	var formats []string
	for _, e := range a.d.Catalog.List() {
		if f := string(e.Info.Format); e.Served() && !seen[f] {
			seen[f] = true
			formats = append(formats, f)
		}
	}
	a.jsonDocument(w, r, "application/json", ogc.Conformance(formats...), nil)
}

// html writes a page rendered by render, which gets the base path of the
// public API and the request's key query (without "?").
func (a *API) html(w http.ResponseWriter, r *http.Request, render func(out io.Writer, basePath, query string) error) {
	base, err := url.Parse(respond.BaseURL(r, a.d.PublicURL))
	if err != nil {
		a.jsonDocument(w, r, "", nil, err)
		return
	}
	var b bytes.Buffer
	if err := render(&b, strings.TrimRight(base.Path, "/"), strings.TrimPrefix(respond.KeyQuery(r), "?")); err != nil {
		a.jsonDocument(w, r, "", nil, err)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	respond.Bytes(w, http.StatusOK, "text/html; charset=utf-8", b.Bytes())
}

// slashRedirect sends /x to /x/ (the viewer pages), keeping the query.
func slashRedirect(w http.ResponseWriter, r *http.Request) {
	target := r.URL.EscapedPath() + "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}

func (a *API) viewer(w http.ResponseWriter, r *http.Request) {
	e, ok := a.served(w, r)
	if !ok {
		return
	}
	a.html(w, r, func(out io.Writer, basePath, query string) error {
		return web.TilesetViewer(out, web.TilesetView{ID: e.Name, Title: tileSet(e).Title, Vector: e.Info.Format.Vector(), BasePath: basePath, Query: query})
	})
}

func (a *API) viewerRedirect(w http.ResponseWriter, r *http.Request) {
	if _, ok := a.served(w, r); ok {
		slashRedirect(w, r)
	}
}

// index serves the root page listing the published maps and tilesets.
func (a *API) index(w http.ResponseWriter, r *http.Request) {
	var view web.IndexView
	if a.d.Maps != nil {
		for _, m := range a.d.Maps.List() {
			if m.Served() {
				view.Maps = append(view.Maps, web.IndexItem{ID: m.ID, Title: m.Title, Meta: "map"})
			}
		}
	}
	for _, e := range a.d.Catalog.List() {
		if e.Served() {
			meta := fmt.Sprintf("%s tileset, %s, zooms %d to %d", e.TileType(), e.Info.Format, e.Info.MinZoom, e.Info.MaxZoom)
			view.Tilesets = append(view.Tilesets, web.IndexItem{ID: e.Name, Title: tileSet(e).Title, Meta: meta})
		}
	}
	a.html(w, r, func(out io.Writer, basePath, query string) error {
		view.BasePath, view.Query = basePath, query
		return web.Index(out, view)
	})
}
