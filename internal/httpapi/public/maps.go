package public

import (
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/web"
)

// StyleRewriter turns a stored style into the served one: every resource
// URL absolute under base, the API key carried into this server's URLs.
// hasTileset tells whether a tileset name exists; problems are logged.
type StyleRewriter func(raw []byte, mapID, base, key string, hasTileset func(name string) bool) (out []byte, problems []string, err error)

// RegisterMaps adds the routes of maps and fonts.
func (a *API) RegisterMaps(mux route.Router) {
	mux.HandleFunc("GET /maps/{mapId}/{$}", a.mapViewer)
	mux.HandleFunc("GET /maps/{mapId}", a.mapRedirect)
	mux.HandleFunc("GET /maps/{mapId}/{file}", a.mapFile)
	mux.HandleFunc("GET /maps/{mapId}/256/tiles.json", a.mapTileJSON256)
	mux.HandleFunc("GET /maps/wms", a.allMapsWMS)
	mux.HandleFunc("GET /WMTSCapabilities.xml", a.allMapsWMTS)
	mux.HandleFunc("GET /fonts/{fontstack}/{range}", a.glyphRange)
}

// servedMap returns the published, valid map named in the path, or answers
// 404.
func (a *API) servedMap(w http.ResponseWriter, r *http.Request) (*catalog.Map, bool) {
	return a.mapByID(w, r.PathValue("mapId"))
}

// mapByID returns the published map id, answering 404 when there is none.
func (a *API) mapByID(w http.ResponseWriter, id string) (*catalog.Map, bool) {
	if a.d.Maps == nil {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("map %q does not exist", id))
		return nil, false
	}
	m, ok := a.d.Maps.Get(id)
	if !ok || !m.Served() {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("map %q does not exist", id))
		return nil, false
	}
	return m, true
}

// mapDoc describes a map for the document builders.
func mapDoc(m *catalog.Map) ogc.Map {
	d := ogc.Map{ID: m.ID, Title: m.Title, Format: m.Format, MinZoom: 0, MaxZoom: 22}
	if m.View != nil {
		// The style's own center and zoom: a client opening the TileJSON
		// starts where the style's author pointed it.
		d.Center = [3]float64{m.View.Lon, m.View.Lat, m.View.Zoom}
	}
	return d
}

// mapFile serves the files of a map by name: style.json, sprite[@2x].png
// and .json, tiles.json, tiles, tileMatrixSet, WMTSCapabilities.xml, wms.
func (a *API) mapFile(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	switch {
	case file == "style.json":
		a.mapStyle(w, r)
	case strings.HasPrefix(file, "sprite"):
		a.mapSprite(w, r, strings.TrimPrefix(file, "sprite"))
	case file == "tiles.json":
		a.mapTileJSON(w, r, 512)
	case file == "tiles":
		a.mapOGC(w, r)
	case file == "tileMatrixSet":
		a.mapMatrixSet(w, r)
	case file == "WMTSCapabilities.xml":
		a.mapWMTS(w, r)
	case file == "wms":
		a.mapWMS(w, r)
	default:
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("no such map resource %q", file))
	}
}

func (a *API) mapStyle(w http.ResponseWriter, r *http.Request) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return
	}
	if a.d.RewriteStyle == nil {
		a.document(w, r, "application/json", m.Style)
		return
	}
	base, key := respond.BaseURL(r, a.d.PublicURL), r.URL.Query().Get("key")
	// The served style depends on the map's version, the base URL, the key
	// and which tilesets exist: cache it under all four.
	ck := styleKey{gen: m.Gen, catalog: a.d.Catalog.Version(), base: base, key: key}
	if out, ok := a.styles.get(ck); ok {
		a.document(w, r, "application/json", out)
		return
	}
	has := func(name string) bool {
		e, ok := a.d.Catalog.Get(name)
		return ok && e.Served()
	}
	out, problems, err := a.d.RewriteStyle(m.Style, m.ID, base, key, has)
	if err != nil {
		a.jsonDocument(w, r, "", nil, fmt.Errorf("map %s: %w", m.ID, err))
		return
	}
	for _, p := range problems {
		a.d.Log.WarnContext(r.Context(), "map style reference", "map", m.ID, "problem", p)
	}
	a.styles.put(ck, out)
	a.document(w, r, "application/json", out)
}

// styleKey names one served form of a style.
type styleKey struct {
	gen, catalog uint64
	base, key    string
}

// maxServedStyles bounds the cache of served styles.
const maxServedStyles = 512

// styleCache keeps served styles; when full it is emptied (the entries are
// cheap to make again, and few base URLs and keys are in use at once).
type styleCache struct {
	mu sync.Mutex
	m  map[styleKey][]byte
}

func (c *styleCache) get(k styleKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	return b, ok
}

func (c *styleCache) put(k styleKey, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxServedStyles {
		c.m = map[styleKey][]byte{}
	}
	c.m[k] = b
}

// mapSprite serves sprite.png, sprite.json, sprite@2x.png, sprite@2x.json.
// Deprecated in spec 002 for /sprites/{mapId}/...: the answers say so
// (Deprecation header, Link to the successor).
func (a *API) mapSprite(w http.ResponseWriter, r *http.Request, rest string) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return
	}
	ratio := 1
	if s, ok := strings.CutPrefix(rest, "@2x"); ok {
		ratio, rest = 2, s
	}
	if rest != ".png" && rest != ".json" {
		respond.Fail(w, http.StatusNotFound, "sprites are sprite.png, sprite.json, sprite@2x.png and sprite@2x.json")
		return
	}
	if a.d.Sprites == nil {
		respond.Fail(w, http.StatusNotFound, "this server builds no sprites")
		return
	}
	w.Header().Set("Deprecation", "true")
	w.Header().Set("Link", "</sprites/"+m.ID+"/"+r.PathValue("file")+">; rel=\"successor-version\"")
	a.serveSprite(w, r, m.IconsPath(), m.ID, ratio, rest == ".json")
}

// mapDocument serves a document of the map named in the path.
func (a *API) mapDocument(w http.ResponseWriter, r *http.Request, build builder[ogc.Map]) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return
	}
	ep, err := a.endpoint(r)
	if err != nil {
		a.serveDoc(w, r, nil, err)
		return
	}
	doc, err := build(mapDoc(m), ep)
	a.serveDoc(w, r, doc, err)
}

func (a *API) mapTileJSON(w http.ResponseWriter, r *http.Request, size int) {
	a.mapDocument(w, r, func(m ogc.Map, ep ogc.Endpoint) (any, error) { return ogc.MapTileJSON(m, ep, size) })
}

func (a *API) mapTileJSON256(w http.ResponseWriter, r *http.Request) { a.mapTileJSON(w, r, 256) }

func (a *API) mapOGC(w http.ResponseWriter, r *http.Request) {
	a.mapDocument(w, r, jsonBuilder(ogc.OGCMap))
}

func (a *API) mapMatrixSet(w http.ResponseWriter, r *http.Request) {
	a.mapDocument(w, r, jsonBuilder(ogc.MapMatrixSet))
}

func (a *API) mapWMTS(w http.ResponseWriter, r *http.Request) {
	a.mapDocument(w, r, func(m ogc.Map, ep ogc.Endpoint) (any, error) { return ogc.MapWMTS(m, ep, wmtsOptions) })
}

// servedMaps lists the maps public endpoints serve.
func (a *API) servedMaps() []ogc.Map {
	var out []ogc.Map
	if a.d.Maps == nil {
		return out
	}
	for _, m := range a.d.Maps.List() {
		if m.Served() {
			out = append(out, mapDoc(m))
		}
	}
	return out
}

// allMaps serves a document of every published map.
func (a *API) allMaps(w http.ResponseWriter, r *http.Request, build func([]ogc.Map, ogc.Endpoint) (any, error)) {
	ep, err := a.endpoint(r)
	if err != nil {
		a.serveDoc(w, r, nil, err)
		return
	}
	doc, err := build(a.servedMaps(), ep)
	a.serveDoc(w, r, doc, err)
}

func (a *API) allMapsWMTS(w http.ResponseWriter, r *http.Request) {
	a.allMaps(w, r, func(maps []ogc.Map, ep ogc.Endpoint) (any, error) { return ogc.AllMapsWMTS(maps, ep, wmtsOptions) })
}

// wmsRequest reads the WMS request of the query (names and values in any
// case, as OGC clients vary): "GetCapabilities" or "GetMap". Anything else
// is answered with 400 here.
func wmsRequest(w http.ResponseWriter, r *http.Request) (string, bool) {
	request, _, serviceOK := ogc.WMSRequest(r.URL.Query())
	if !serviceOK || !hasKeyFold(r, "service") {
		respond.Fail(w, http.StatusBadRequest, "service=WMS is required")
		return "", false
	}
	switch {
	case strings.EqualFold(request, "GetCapabilities"):
		return "GetCapabilities", true
	case strings.EqualFold(request, "GetMap"):
		return "GetMap", true
	}
	respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("request %q is not supported (GetCapabilities and GetMap are)", request))
	return "", false
}

// hasKeyFold reports whether the query has key in any case.
func hasKeyFold(r *http.Request, key string) bool {
	for k := range r.URL.Query() {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

var wmsOptions = ogc.WMSOptions{Title: "Tessera", MaxWidth: maxWMSSize, MaxHeight: maxWMSSize}

func (a *API) mapWMS(w http.ResponseWriter, r *http.Request) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return
	}
	req, ok := wmsRequest(w, r)
	if !ok {
		return
	}
	if req == "GetMap" {
		a.wmsGetMap(w, r, func(name string) (*catalog.Map, bool) { return m, name == m.ID })
		return
	}
	m2 := mapDoc(m)
	a.wmsCapabilities(w, r, func(ep ogc.Endpoint, opt ogc.WMSOptions) ([]byte, error) { return ogc.MapWMS(m2, ep, opt) })
}

// wmsCapabilities serves the capabilities of the version the request
// negotiates (1.3.0 unless it asks for an earlier one: then 1.1.1, whose
// GetMap the server answers too) with that version's media type.
func (a *API) wmsCapabilities(w http.ResponseWriter, r *http.Request, build func(ogc.Endpoint, ogc.WMSOptions) ([]byte, error)) {
	ep, err := a.endpoint(r)
	if err != nil {
		a.serveDoc(w, r, nil, err)
		return
	}
	opt := wmsOptions
	opt.Version = ogc.WMSCapabilitiesVersion(r.URL.Query())
	doc, err := build(ep, opt)
	if err != nil {
		a.serveDoc(w, r, nil, err)
		return
	}
	a.document(w, r, ogc.WMSCapabilitiesType(opt.Version), doc)
}

func (a *API) allMapsWMS(w http.ResponseWriter, r *http.Request) {
	req, ok := wmsRequest(w, r)
	if !ok {
		return
	}
	if req == "GetMap" {
		a.wmsGetMap(w, r, func(name string) (*catalog.Map, bool) {
			if a.d.Maps == nil {
				return nil, false
			}
			m, ok := a.d.Maps.Get(name)
			return m, ok && m.Served()
		})
		return
	}
	maps := a.servedMaps()
	a.wmsCapabilities(w, r, func(ep ogc.Endpoint, opt ogc.WMSOptions) ([]byte, error) { return ogc.AllMapsWMS(maps, ep, opt) })
}

func (a *API) mapViewer(w http.ResponseWriter, r *http.Request) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return
	}
	a.html(w, r, func(out io.Writer, basePath, query string) error {
		return web.MapViewer(out, web.MapView{ID: m.ID, Title: m.Title, BasePath: basePath, Query: query})
	})
}

func (a *API) mapRedirect(w http.ResponseWriter, r *http.Request) {
	if _, ok := a.servedMap(w, r); ok {
		slashRedirect(w, r)
	}
}

// glyphRange serves /fonts/{fontstack}/{start}-{end}.pbf.
func (a *API) glyphRange(w http.ResponseWriter, r *http.Request) {
	rng, ok := strings.CutSuffix(r.PathValue("range"), ".pbf")
	if !ok {
		respond.Fail(w, http.StatusBadRequest, "glyph ranges are {start}-{end}.pbf")
		return
	}
	start, err := glyphs.ParseRange(rng)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	stack, err := glyphs.ParseFontstack(r.PathValue("fontstack"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if a.d.Fonts == nil {
		respond.Fail(w, http.StatusNotFound, "no fonts are installed")
		return
	}
	pbf, err := a.d.Fonts.Range(r.Context(), stack, start)
	switch {
	case errors.Is(err, glyphs.ErrUnknownFonts):
		respond.Fail(w, http.StatusNotFound, err.Error())
		return
	case errors.Is(err, glyphs.ErrBadRange):
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		if r.Context().Err() != nil {
			return
		}
		a.jsonDocument(w, r, "", nil, err)
		return
	}
	a.document(w, r, "application/x-protobuf", pbf)
}
