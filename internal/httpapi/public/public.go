// Package public holds the handlers of the public API (spec 000): tiles and
// their documents (TileJSON, OGC API - Tiles, WMTS), viewer pages, the OGC
// conformance declaration and the health check. Handlers parse and check
// parameters, call the domain packages and write the response.
package public

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/middleware"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/tilecache"
	"github.com/tesseramaps/tessera/internal/tilecoord"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// Deps are what the public handlers need.
type Deps struct {
	Catalog *catalog.Catalog
	Cache   *tilecache.Cache
	Metrics *middleware.Metrics
	Log     *slog.Logger
	// PublicURL is the configured absolute URL of the server ("" = from
	// the request).
	PublicURL string
	// CacheControlTiles and CacheControlDocuments are the Cache-Control
	// values of tiles and of documents.
	CacheControlTiles     string
	CacheControlDocuments string
}

// API serves the public endpoints.
type API struct {
	d Deps
}

// New makes the public API.
func New(d Deps) *API {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Cache == nil {
		d.Cache = tilecache.New(0)
	}
	return &API{d: d}
}

// Register adds the public routes to mux.
func (a *API) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /tiles/{tilesId}/{z}/{x}/{y}", a.tile)
	mux.HandleFunc("GET /tiles/{tilesId}/tiles.json", a.tileJSON)
	mux.HandleFunc("GET /tiles/{tilesId}/tiles", a.ogcTileSet)
	mux.HandleFunc("GET /tiles/{tilesId}/tileMatrixSet", a.tileMatrixSet)
	mux.HandleFunc("GET /tiles/{tilesId}/WMTSCapabilities.xml", a.wmts)
	mux.HandleFunc("GET /tiles/{tilesId}/{$}", a.viewer)
	mux.HandleFunc("GET /tiles/{tilesId}", a.viewerRedirect)
	mux.HandleFunc("GET /ogc/conformance", a.conformance)
	mux.HandleFunc("GET /health", a.health)
}

// served returns the published, readable tileset named in the path, or
// answers 404.
func (a *API) served(w http.ResponseWriter, r *http.Request) (*catalog.Entry, bool) {
	id := r.PathValue("tilesId")
	e, ok := a.d.Catalog.Get(id)
	if !ok || !e.Served() {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tileset %q does not exist", id))
		return nil, false
	}
	return e, true
}

func (a *API) tile(w http.ResponseWriter, r *http.Request) {
	e, ok := a.served(w, r)
	if !ok {
		return
	}
	c, ext, err := tilecoord.Parse(r.PathValue("z"), r.PathValue("x"), r.PathValue("y"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	format := e.Info.Format
	if !format.AcceptsExtension(ext) {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("tileset %q has %s tiles: the extension .%s does not match (use .%s)", e.Name, format, ext, format.Extensions()[0]))
		return
	}
	key := tilecache.Key{Gen: e.Gen, Z: uint32(c.Z), X: uint32(c.X), Y: uint32(c.Y)}
	t, hit := a.d.Cache.Get(key)
	if !hit {
		data, err := e.Reader.Tile(r.Context(), c.Z, c.X, c.Y)
		if err != nil {
			if r.Context().Err() != nil {
				return // the client went away
			}
			a.d.Log.ErrorContext(r.Context(), "read tile", "tileset", e.Name, "tile", c.String(), "err", err)
			respond.Fail(w, http.StatusInternalServerError, "the tile could not be read")
			return
		}
		t = tilecache.Tile{Data: data}
		if data != nil {
			t.ETag = tilecache.ETag(data)
		}
		a.d.Cache.Put(key, t)
	}
	if a.d.Metrics != nil {
		outcome := "miss"
		if hit {
			outcome = "hit"
		}
		a.d.Metrics.Tiles.WithLabelValues(string(format), outcome).Inc()
	}
	h := w.Header()
	if len(t.Data) == 0 {
		// Absent: presumed empty. No body.
		h.Set("Cache-Control", a.d.CacheControlTiles)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.Set("Content-Type", format.MediaType())
	h.Set("Cache-Control", a.d.CacheControlTiles)
	body, etag := t.Data, t.ETag
	if format.Vector() && tilesource.IsGzip(t.Data) {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
		} else {
			plain, err := gunzip(t.Data)
			if err != nil {
				a.d.Log.ErrorContext(r.Context(), "decompress tile", "tileset", e.Name, "tile", c.String(), "err", err)
				respond.Fail(w, http.StatusInternalServerError, "the stored tile is corrupt")
				return
			}
			body = plain
			etag = t.ETag[:len(t.ETag)-1] + `-identity"`
		}
	}
	h.Set("ETag", etag)
	if match(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptsGzip reports whether an Accept-Encoding value allows gzip.
func acceptsGzip(v string) bool {
	for v != "" {
		var part string
		part, v, _ = strings.Cut(v, ",")
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") && name != "*" {
			continue
		}
		params = strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if q, ok := strings.CutPrefix(params, "q="); ok && (q == "0" || q == "0.0" || q == "0.00" || q == "0.000") {
			if name == "*" {
				continue
			}
			return false
		}
		return true
	}
	return false
}

// match reports whether an If-None-Match value names etag (or is "*").
func match(inm, etag string) bool {
	if inm == "" {
		return false
	}
	for inm != "" {
		var tag string
		tag, inm, _ = strings.Cut(inm, ",")
		tag = strings.TrimSpace(tag)
		tag = strings.TrimPrefix(tag, "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// maxTileBytes bounds a decompressed vector tile.
const maxTileBytes = 64 << 20

var gzipReaders sync.Pool

func gunzip(b []byte) ([]byte, error) {
	var zr *gzip.Reader
	if v := gzipReaders.Get(); v != nil {
		zr = v.(*gzip.Reader)
		if err := zr.Reset(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	} else {
		var err error
		if zr, err = gzip.NewReader(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	}
	defer gzipReaders.Put(zr)
	out, err := io.ReadAll(io.LimitReader(zr, maxTileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxTileBytes {
		return nil, errors.New("decompressed tile too large")
	}
	return out, nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	n, bad := 0, 0
	for _, e := range a.d.Catalog.List() {
		n++
		if e.State != catalog.StateOK {
			bad++
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusOK, map[string]any{"status": "ok", "tilesets": n, "tilesetsUnreadable": bad})
}
