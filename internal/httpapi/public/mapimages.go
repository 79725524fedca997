package public

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/ogc"
	"github.com/tesseramaps/tessera/internal/panics"
	"github.com/tesseramaps/tessera/internal/staticmap"
)

// RegisterMapImages adds the routes of maps drawn as images: raster tiles
// of 512 and 256 pixels and static maps (WMS GetMap shares the WMS routes).
func (a *API) RegisterMapImages(mux route.Router) {
	mux.HandleFunc(MapTilePattern, func(w http.ResponseWriter, r *http.Request) { a.mapTile(w, r, 512) })
	mux.HandleFunc(MapTile256Pattern, func(w http.ResponseWriter, r *http.Request) { a.mapTile(w, r, 256) })
	mux.HandleFunc("GET /maps/{mapId}/static/{viewport}/{size}", a.staticMap)
}

// The routes of a map's raster tiles; the fast path (FastTiles) reports
// them as the request's pattern.
const (
	MapTilePattern    = "GET /maps/{mapId}/{z}/{x}/{y}"
	MapTile256Pattern = "GET /maps/{mapId}/256/{z}/{x}/{y}"
)

// retryAfter is the Retry-After of a 503 from a full render queue, seconds.
const retryAfter = "2"

// Messages of a render refused for needing more drawing than one render
// may do (mapimage.ErrWorkBound): for a tile the map's style asks too
// much; for a static map the client chose the size and overlays too.
const (
	tileWorkBound   = "the picture needs more drawing than one render may do: the map's style asks too much at this tile"
	staticWorkBound = "the picture needs more drawing than one render may do: ask for a smaller picture, fewer overlays, or another view"
)

// imageFailed answers a failed render: the request's fault 400, a render
// refused for too much drawing 400 with tooMuch (logged at warn), a full
// queue or a render past its deadline 503, anything else 500 (logged, a
// panic with its stack).
func (a *API) imageFailed(w http.ResponseWriter, r *http.Request, what, tooMuch string, err error) {
	switch {
	case r.Context().Err() != nil:
		return // the client went away; its render was cancelled
	case mapimage.IsRequestError(err):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, mapimage.ErrWorkBound):
		a.workBound(r, what, err)
		respond.Fail(w, http.StatusBadRequest, tooMuch)
	case errors.Is(err, mapimage.ErrBusy):
		w.Header().Set("Retry-After", retryAfter)
		respond.Fail(w, http.StatusServiceUnavailable, "the server is busy rendering: try again shortly")
	case errors.Is(err, mapimage.ErrTimeout):
		w.Header().Set("Retry-After", retryAfter)
		respond.Fail(w, http.StatusServiceUnavailable, "the image took too long to render")
	default:
		attrs := []any{"what", what, "err", err}
		if p := (*panics.Recovered)(nil); errors.As(err, &p) {
			attrs = append(attrs, "stack", string(p.Stack))
		}
		a.d.Log.ErrorContext(r.Context(), "render", attrs...)
		respond.Fail(w, http.StatusInternalServerError, "the image could not be rendered")
	}
}

// workBound logs a render refused for too much drawing: a warning, since
// the map's style (or the request) needs changing, not the server.
func (a *API) workBound(r *http.Request, what string, err error) {
	a.d.Log.WarnContext(r.Context(), "render refused: too much drawing", "what", what, "err", err)
}

// sendImage writes an image with its ETag (answering 304 when the client
// has it) and the tiles' Cache-Control.
func (a *API) sendImage(w http.ResponseWriter, r *http.Request, img mapimage.Image) {
	h := w.Header()
	h["Content-Type"] = contentType(img.MediaType)
	h["Cache-Control"] = a.ccTiles
	if img.ETag != "" {
		h["Etag"] = []string{img.ETag}
		if match(r.Header.Get("If-None-Match"), img.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h["Content-Length"] = []string{itoa(len(img.Data))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(img.Data)
	}
}

// imageMap returns the served map of the path when images are rendered.
func (a *API) imageMap(w http.ResponseWriter, r *http.Request) (*catalog.Map, bool) {
	m, ok := a.servedMap(w, r)
	if !ok {
		return nil, false
	}
	if a.d.Images == nil {
		respond.Fail(w, http.StatusNotFound, "this server renders no map images")
		return nil, false
	}
	return m, true
}

// parseScaleFormat splits "{name}{@2x}.{format}" into name, scale and
// format.
func parseScaleFormat(seg string) (name string, scale int, f imageenc.Format, err error) {
	name, ext, ok := strings.Cut(seg, ".")
	if !ok {
		return "", 0, "", fmt.Errorf("%q needs an extension: png, jpg, webp or basis", seg)
	}
	if f, err = imageenc.ParseFormat(ext); err != nil {
		return "", 0, "", err
	}
	scale = 1
	if n, ok := strings.CutSuffix(name, "@2x"); ok {
		name, scale = n, 2
	}
	return name, scale, f, nil
}

func (a *API) mapTile(w http.ResponseWriter, r *http.Request, size int) {
	a.mapTileAt(w, r, r.PathValue("mapId"), r.PathValue("z"), r.PathValue("x"), r.PathValue("y"), size)
}

// mapTileAt answers the raster tile z/x/y{scale}.{format} of a map.
func (a *API) mapTileAt(w http.ResponseWriter, r *http.Request, id, zs, xs, yseg string, size int) {
	m, ok := a.mapByID(w, id)
	if !ok {
		return
	}
	if a.d.Images == nil {
		respond.Fail(w, http.StatusNotFound, "this server renders no map images")
		return
	}
	ys, scale, f, err := parseScaleFormat(yseg)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	var zxy [3]int
	for i, s := range [3]string{zs, xs, ys} {
		n, err := strconv.Atoi(s)
		if err != nil || len(s) > 8 {
			respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("tile address: %q is not a whole number", s))
			return
		}
		zxy[i] = n
	}
	img, err := a.d.Images.Tile(r.Context(), mapimage.TileRequest{Map: m, Z: zxy[0], X: zxy[1], Y: zxy[2], Size: size, Scale: scale, Format: f})
	if err != nil {
		a.imageFailed(w, r, "map "+m.ID+" tile", tileWorkBound, err)
		return
	}
	a.sendImage(w, r, img)
}

func (a *API) staticMap(w http.ResponseWriter, r *http.Request) {
	m, ok := a.imageMap(w, r)
	if !ok {
		return
	}
	req, err := staticmap.Parse(r.PathValue("viewport"), r.PathValue("size"), r.URL.Query())
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	img, err := a.d.Images.Static(r.Context(), m, req)
	if err != nil {
		a.imageFailed(w, r, "map "+m.ID+" static", staticWorkBound, err)
		return
	}
	a.sendImage(w, r, img)
}

// maxWMSSize bounds WIDTH and HEIGHT of GetMap (and the capabilities
// declare it): the largest render drawn whole.
const maxWMSSize = ogc.MaxSize

// wmsGetMap answers GetMap; layers are the maps the endpoint offers.
func (a *API) wmsGetMap(w http.ResponseWriter, r *http.Request, layers func(name string) (*catalog.Map, bool)) {
	req, se := ogc.ParseGetMap(r.URL.Query(), maxWMSSize, func(name string) bool { _, ok := layers(name); return ok })
	if se == nil && a.d.Images == nil {
		se = &ogc.ServiceException{Version: r.URL.Query().Get("VERSION"), Code: "OperationNotSupported", Message: "this server renders no map images"}
	}
	if se != nil {
		wmsException(w, se)
		return
	}
	maps := make([]*catalog.Map, len(req.Layers))
	for i, name := range req.Layers {
		maps[i], _ = layers(name)
	}
	img, err := a.d.Images.GetMap(r.Context(), maps, req)
	if err != nil {
		if mapimage.IsRequestError(err) {
			wmsException(w, &ogc.ServiceException{Version: req.Version, Message: err.Error()})
			return
		}
		what := "wms GetMap of maps " + strings.Join(req.Layers, ",")
		if errors.Is(err, mapimage.ErrWorkBound) && r.Context().Err() == nil {
			a.workBound(r, what, err)
			wmsException(w, &ogc.ServiceException{Version: req.Version, Message: "the picture needs more drawing than one render may do: ask for a smaller picture, other layers or another box"})
			return
		}
		a.imageFailed(w, r, what, "", err)
		return
	}
	a.sendImage(w, r, img)
}

func wmsException(w http.ResponseWriter, se *ogc.ServiceException) {
	respond.Bytes(w, http.StatusBadRequest, se.ContentType(), se.XML())
}
