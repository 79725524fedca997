// Package admin holds the handlers of the admin API (spec 001 part A) under
// /v1/admin: tilesets (list, detail, change, delete, publish, rescan,
// reload, remote records) and tileset ingest.
package admin

import (
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/egress"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/svctoken"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/prerender"
)

// Prefix is the path of the admin API.
const Prefix = "/v1/admin"

// DefaultLimit is the page size when offset and limit are absent.
const DefaultLimit = 50

// MaxLimit is the largest page size.
const MaxLimit = 1000

// Deps are what the admin handlers need.
type Deps struct {
	Catalog *catalog.Catalog
	Maps    *catalog.Maps
	Ingest  *ingest.Service
	Tokens  *svctoken.Service // the account API's service tokens
	// Prerender runs the pre-render jobs (nil: no such routes).
	Prerender *prerender.Jobs
	Log       *slog.Logger
	PublicURL string
}

// API serves the admin endpoints.
type API struct{ d Deps }

// New makes the admin API.
func New(d Deps) *API {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &API{d: d}
}

// Register adds the admin routes that need credentials to mux.
func (a *API) Register(mux route.Router) {
	p := Prefix
	mux.HandleFunc("GET "+p+"/tiles", a.listTiles)
	mux.HandleFunc("POST "+p+"/tiles/rescan", a.rescan)
	mux.HandleFunc("POST "+p+"/tiles/reload", a.reload)
	mux.HandleFunc("POST "+p+"/tiles/add", a.addRemote)
	mux.HandleFunc("GET "+p+"/tiles/{id}", a.getTiles)
	mux.HandleFunc("POST "+p+"/tiles/{id}", a.changeTiles)
	mux.HandleFunc("DELETE "+p+"/tiles/{id}", a.deleteTiles)
	mux.HandleFunc("POST "+p+"/tiles/{id}/publish", a.publish(true))
	mux.HandleFunc("POST "+p+"/tiles/{id}/unpublish", a.publish(false))
	mux.HandleFunc("POST "+p+"/tiles/ingest", a.createIngest)
	mux.HandleFunc("GET "+p+"/tiles/ingest", a.listIngests)
	mux.HandleFunc("GET "+p+"/tiles/ingest/{id}", a.getIngest)
	mux.HandleFunc("DELETE "+p+"/tiles/ingest/{id}", a.cancelIngest)
	mux.HandleFunc("POST "+p+"/tiles/ingest/{id}/process", a.processIngest)
	a.RegisterMaps(mux)
	a.RegisterTokens(mux)
}

// RegisterUpload adds the upload route, which needs no credentials: its
// path holds the ingest id, a random UUID that only the creator of the
// ingest knows (the spec's example upload carries no Authorization header).
func (a *API) RegisterUpload(mux route.Router) {
	mux.HandleFunc("PUT "+Prefix+"/tiles/ingest/{id}/upload", a.upload)
}

// TilesetSummary is a list item.
type TilesetSummary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	FileName  string `json:"fileName"`
	Published bool   `json:"published"`
	Type      string `json:"type"`
	TileType  string `json:"tileType"`
	// Beyond the spec: the tile format, where the tiles live, and whether
	// the file can be read (state ok, error or missing, with the error).
	Format  string `json:"format,omitempty"`
	Storage string `json:"storage"`
	State   string `json:"state"`
	Error   string `json:"error,omitempty"`
}

// TilesetDetail is the summary plus URLs.
type TilesetDetail struct {
	TilesetSummary
	URLs map[string]string `json:"urls"`
}

func summary(e *catalog.Entry) TilesetSummary {
	source := e.Tileset.Source
	if e.Storage != store.StorageFile {
		source = egress.Redact(source) // never echo credentials of a remote URL
	}
	return TilesetSummary{
		ID: e.ID, Name: e.Name, Title: e.Title, FileName: source, Published: e.Published,
		Type: e.Type, TileType: e.TileType(), Format: string(e.Info.Format), Storage: e.Storage,
		State: e.State, Error: e.Error,
	}
}

func (a *API) detail(r *http.Request, e *catalog.Entry) TilesetDetail {
	base := respond.BaseURL(r, a.d.PublicURL) + "/tiles/" + url.PathEscape(e.Name)
	ext := "pbf"
	if exts := e.Info.Format.Extensions(); len(exts) > 0 {
		ext = exts[0]
	}
	return TilesetDetail{
		TilesetSummary: summary(e),
		URLs: map[string]string{
			"embeddable": base + "/",
			"ogcTiles":   base + "/tiles",
			"tilejson":   base + "/tiles.json",
			"wmts":       base + "/WMTSCapabilities.xml",
			"xyz":        base + "/{z}/{x}/{y}." + ext,
		},
	}
}

// page reads offset and limit.
func page(r *http.Request) (offset, limit int, err error) {
	q := r.URL.Query()
	offset, limit = 0, DefaultLimit
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, fmt.Errorf("offset %q is not a whole number >= 0", v)
		}
	}
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > MaxLimit {
			return 0, 0, fmt.Errorf("limit %q is not a whole number from 1 to %d", v, MaxLimit)
		}
	}
	return offset, limit, nil
}

func (a *API) listTiles(w http.ResponseWriter, r *http.Request) {
	offset, limit, err := page(r)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	all := a.d.Catalog.List()
	items := []TilesetSummary{}
	for i := offset; i < len(all) && len(items) < limit; i++ {
		items = append(items, summary(all[i]))
	}
	respond.JSON(w, http.StatusOK, map[string]any{"items": items, "total": len(all)})
}

func (a *API) rescan(w http.ResponseWriter, r *http.Request) {
	entries, err := a.d.Catalog.Rescan(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	items := make([]TilesetSummary, 0, len(entries))
	for _, e := range entries {
		items = append(items, summary(e))
	}
	respond.JSON(w, http.StatusOK, map[string]any{"items": items})
}

func (a *API) reload(w http.ResponseWriter, r *http.Request) {
	removeRemote := false
	if v := r.URL.Query().Get("removeRemote"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("removeRemote %q is not true or false", v))
			return
		}
		removeRemote = b
	}
	removed, err := a.d.Catalog.Reload(r.Context(), removeRemote)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"removed": removed})
}

func (a *API) entry(w http.ResponseWriter, r *http.Request) (*catalog.Entry, bool) {
	id := r.PathValue("id")
	e, ok := a.d.Catalog.ByID(id)
	if !ok {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tileset %q does not exist", id))
	}
	return e, ok
}

func (a *API) getTiles(w http.ResponseWriter, r *http.Request) {
	if e, ok := a.entry(w, r); ok {
		respond.JSON(w, http.StatusOK, a.detail(r, e))
	}
}

// tileChange is the body of POST /tiles/{id}.
type tileChange struct {
	Name      *string `json:"name"`
	Title     *string `json:"title"`
	Published *bool   `json:"published"`
}

func (a *API) changeTiles(w http.ResponseWriter, r *http.Request) {
	e, ok := a.entry(w, r)
	if !ok {
		return
	}
	var body tileChange
	if !respond.Decode(w, r, &body, false) {
		return
	}
	oldName := e.Name
	e, err := a.d.Catalog.Update(r.Context(), e.ID, catalog.Change{Name: body.Name, Title: body.Title, Published: body.Published})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := renamed{TilesetDetail: a.detail(r, e)}
	if e.Name != oldName && a.d.Maps != nil {
		// A rename breaks the styles that name the old name: say which.
		out.MapsNamingOldName = a.d.Maps.NamingTileset(oldName)
		for _, id := range out.MapsNamingOldName {
			a.d.Log.WarnContext(r.Context(), "tileset renamed: a map's style names the old name", "map", id, "old", oldName, "new", e.Name)
		}
	}
	respond.JSON(w, http.StatusOK, out)
}

// renamed is the answer to a change of a tileset: its detail, and after a
// rename the maps whose styles name the old name (and no longer find it).
type renamed struct {
	TilesetDetail
	MapsNamingOldName []string `json:"mapsNamingOldName,omitempty"`
}

func (a *API) deleteTiles(w http.ResponseWriter, r *http.Request) {
	e, ok := a.entry(w, r)
	if !ok {
		return
	}
	removed, err := a.d.Catalog.Delete(r.Context(), e.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"removed": removed})
}

func (a *API) publish(published bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e, ok := a.entry(w, r)
		if !ok {
			return
		}
		e, err := a.d.Catalog.SetPublished(r.Context(), e.ID, published)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		respond.JSON(w, http.StatusOK, a.detail(r, e))
	}
}

// tileAdd is the body of POST /tiles/add.
type tileAdd struct {
	Storage string `json:"storage"`
	URL     string `json:"url"`
}

func (a *API) addRemote(w http.ResponseWriter, r *http.Request) {
	var body tileAdd
	if !respond.Decode(w, r, &body, false) {
		return
	}
	if body.Storage == "" || body.URL == "" {
		respond.Fail(w, http.StatusBadRequest, "storage (http or s3) and url are required")
		return
	}
	e, err := a.d.Catalog.AddRemote(r.Context(), body.Storage, body.URL)
	if err != nil {
		if errors.Is(err, catalog.ErrNameTaken) {
			respond.Fail(w, http.StatusConflict, err.Error())
			return
		}
		// An unreachable, invalid or unsupported remote archive is the
		// request's problem, not the server's.
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	respond.JSON(w, http.StatusOK, summary(e))
}

// fail maps domain errors to statuses.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, ingest.ErrNotFound), errors.Is(err, catalog.ErrMapNotFound):
		respond.Fail(w, http.StatusNotFound, err.Error())
	case errors.Is(err, catalog.ErrNameTaken):
		respond.Fail(w, http.StatusConflict, err.Error())
	case errors.Is(err, catalog.ErrBadName), errors.Is(err, ingest.ErrInvalid), errors.Is(err, catalog.ErrBadMapChange):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ingest.ErrTooLarge):
		respond.Fail(w, http.StatusRequestEntityTooLarge, err.Error())
	case errors.Is(err, ingest.ErrState), errors.Is(err, ingest.ErrBusy):
		respond.Fail(w, http.StatusConflict, err.Error())
	default:
		if r.Context().Err() != nil {
			return
		}
		// The server's own failure (disk, database): the cause goes to the
		// log, not to the client.
		a.d.Log.ErrorContext(r.Context(), "admin request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the server could not do this (its log has the cause); try again later")
	}
}
