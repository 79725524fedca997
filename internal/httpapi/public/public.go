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
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/coords"
	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geoip"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/httpapi/middleware"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/sprite"
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
	// Maps, Fonts and Sprites serve maps and their resources (nil: none).
	Maps    *catalog.Maps
	Fonts   *glyphs.Library
	Sprites *sprite.Cache
	// WeatherDir holds the weather catalog, DataDir/weather ("": none).
	WeatherDir string
	// SpritesDir holds the named icon sets, one folder each ("": none).
	SpritesDir string
	// DatasetsDir holds the GeoJSON of the datasets ("": none).
	DatasetsDir string
	// Pictures are the images of /images/ (nil: none).
	Pictures *pyramid.Library
	// Images renders maps as raster tiles, static maps and WMS pictures
	// (nil: not rendered).
	Images *mapimage.Service
	// Geocoder answers geocoding requests (nil: no index installed).
	Geocoder *geocode.Index
	// Elevation answers elevation requests (nil: no model installed).
	Elevation *elevation.Model
	// Coordinates answers coordinate system searches and transforms (nil:
	// no proj.db found).
	Coordinates *coords.Service
	// GeoIP locates callers (nil: no IP database installed).
	GeoIP *geoip.DB
	// TrustedProxies are the proxies whose X-Forwarded-For is believed when
	// locating a caller; GeolocationLocal is the address looked up for
	// callers on loopback or private addresses (zero: none).
	TrustedProxies   []netip.Prefix
	GeolocationLocal netip.Addr
	// RewriteStyle turns stored styles into served ones (nil: as stored).
	RewriteStyle StyleRewriter
	// CacheControlTiles and CacheControlDocuments are the Cache-Control
	// values of tiles and of documents.
	CacheControlTiles     string
	CacheControlDocuments string
}

// API serves the public endpoints.
type API struct {
	d       Deps
	ccTiles []string
	styles  styleCache
}

// New makes the public API.
func New(d Deps) *API {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Cache == nil {
		d.Cache = tilecache.New(0)
	}
	return &API{d: d, ccTiles: []string{d.CacheControlTiles}}
}

// Register adds the public routes to mux.
func (a *API) Register(mux route.Router) {
	mux.HandleFunc(TilePattern, a.tile)
	mux.HandleFunc("GET /tiles/{tilesId}/tiles.json", a.tilesetDoc(jsonBuilder(ogc.TileJSON)))
	mux.HandleFunc("GET /tiles/{tilesId}/tiles", a.tilesetDoc(jsonBuilder(ogc.OGCTileSet)))
	mux.HandleFunc("GET /tiles/{tilesId}/tileMatrixSet", a.tilesetDoc(jsonBuilder(ogc.TileSetMatrixSet)))
	mux.HandleFunc("GET /tiles/{tilesId}/WMTSCapabilities.xml", a.tilesetDoc(func(ts ogc.TileSet, ep ogc.Endpoint) (any, error) {
		return ogc.TileSetWMTS(ts, ep, wmtsOptions)
	}))
	mux.HandleFunc("GET /tiles/{tilesId}/{$}", a.viewer)
	mux.HandleFunc("GET /tiles/{tilesId}", a.viewerRedirect)
	mux.HandleFunc("GET /ogc/conformance", a.conformance)
	mux.HandleFunc("GET /health", a.health)
	mux.HandleFunc("GET /{$}", a.index)
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

// TilePattern is the route of tiles; the fast path reports it as the
// request's pattern so that metrics name the route the same way.
const TilePattern = "GET /tiles/{tilesId}/{z}/{x}/{y}"

func (a *API) tile(w http.ResponseWriter, r *http.Request) {
	a.serveTile(w, r, r.PathValue("tilesId"), r.PathValue("z"), r.PathValue("x"), r.PathValue("y"))
}

// FastTiles answers tile requests (GET or HEAD /tiles/{id}/{z}/{x}/{y},
// and the raster tiles of maps, /maps/{id}/{z}/{x}/{y} and
// /maps/{id}/256/{z}/{x}/{y}) before the router, which saves its matching
// work on the hottest paths; every other request goes to next.
func (a *API) FastTiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.RawPath == "" {
			var seg [5]string
			switch {
			case strings.HasPrefix(p, "/tiles/"):
				if splitPath(p[len("/tiles/"):], seg[:4]) {
					r.Pattern = TilePattern
					a.serveTile(w, r, seg[0], seg[1], seg[2], seg[3])
					return
				}
			case strings.HasPrefix(p, "/maps/"):
				// Only addresses whose z and x are numbers: every other
				// route under a map has a word there.
				rest := p[len("/maps/"):]
				if splitPath(rest, seg[:4]) && digits(seg[1]) && digits(seg[2]) {
					r.Pattern = MapTilePattern
					a.mapTileAt(w, r, seg[0], seg[1], seg[2], seg[3], 512)
					return
				}
				if splitPath(rest, seg[:5]) && seg[1] == "256" && digits(seg[2]) && digits(seg[3]) {
					r.Pattern = MapTile256Pattern
					a.mapTileAt(w, r, seg[0], seg[2], seg[3], seg[4], 256)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// splitPath splits p into exactly len(seg) non-empty segments separated by
// slashes, reporting whether it has that shape.
func splitPath(p string, seg []string) bool {
	for i := range seg {
		j := strings.IndexByte(p, '/')
		if i == len(seg)-1 {
			if j >= 0 || p == "" {
				return false
			}
			seg[i] = p
			return true
		}
		if j <= 0 {
			return false
		}
		seg[i], p = p[:j], p[j+1:]
	}
	return false
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Preallocated header values: setting them costs no allocation.
var (
	hdrVary = []string{"Accept-Encoding"}
	hdrGzip = []string{"gzip"}
	// hdrMediaTypes holds the Content-Type values of tiles and rendered
	// images, by media type.
	hdrMediaTypes = map[string][]string{}
)

func init() {
	for _, f := range []tilesource.Format{tilesource.PBF, tilesource.PNG, tilesource.JPG, tilesource.WebP, ""} {
		hdrMediaTypes[f.MediaType()] = []string{f.MediaType()}
	}
	hdrMediaTypes[imageenc.Basis.MediaType()] = []string{imageenc.Basis.MediaType()}
}

// contentType returns the header value of a media type, preallocated for
// those of tiles and images.
func contentType(mediaType string) []string {
	if v, ok := hdrMediaTypes[mediaType]; ok {
		return v
	}
	return []string{mediaType}
}

func (a *API) serveTile(w http.ResponseWriter, r *http.Request, name, zs, xs, ys string) {
	e, ok := a.d.Catalog.Get(name)
	if !ok || !e.Served() {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tileset %q does not exist", name))
		return
	}
	c, ext, err := tilecoord.Parse(zs, xs, ys)
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
		a.d.Metrics.TileServed(string(format), hit)
	}
	h := w.Header()
	if len(t.Data) == 0 {
		// Absent: presumed empty. No body.
		h["Cache-Control"] = a.ccTiles
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h["Content-Type"] = contentType(format.MediaType())
	h["Cache-Control"] = a.ccTiles
	body, etag := t.Data, t.ETag
	if format.Vector() && tilesource.IsGzip(t.Data) {
		h["Vary"] = hdrVary
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h["Content-Encoding"] = hdrGzip
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
