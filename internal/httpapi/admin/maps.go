package admin

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
)

// RegisterMaps adds the map routes.
func (a *API) RegisterMaps(mux route.Router) {
	p := Prefix
	mux.HandleFunc("GET "+p+"/maps", a.listMaps)
	mux.HandleFunc("GET "+p+"/maps/{id}", a.getMap)
	mux.HandleFunc("POST "+p+"/maps/{id}", a.changeMap)
	mux.HandleFunc("DELETE "+p+"/maps/{id}", a.deleteMap)
	mux.HandleFunc("POST "+p+"/maps/{id}/publish", a.publishMap(true))
	mux.HandleFunc("POST "+p+"/maps/{id}/unpublish", a.publishMap(false))
	mux.HandleFunc("PUT "+p+"/maps/{id}/style", a.putStyle)
	a.registerPrerender(mux)
}

// putStyle replaces a map's style (beyond the spec): the body is the
// style document; one with problems is a 400 and changes nothing.
func (a *API) putStyle(w http.ResponseWriter, r *http.Request) {
	m, ok := a.mapEntry(w, r)
	if !ok {
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, catalog.MaxStyleBytes+1))
	if err != nil {
		respond.Fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the style has more than %d bytes", catalog.MaxStyleBytes))
		return
	}
	if m, err = a.d.Maps.SetStyle(r.Context(), m.ID, raw); err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, a.mapDetail(r, m))
}

// MapSummary is a map list item.
type MapSummary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Published bool   `json:"published"`
	Format    string `json:"format"`
	// Beyond the spec: whether the style is valid, and why not.
	State    string   `json:"state"`
	Problems []string `json:"problems,omitempty"`
	// Warnings name fonts, icons and tilesets the style uses that the
	// server lacks.
	Warnings []string `json:"warnings,omitempty"`
}

// MapDetail is the summary plus quality and URLs.
type MapDetail struct {
	MapSummary
	Quality int               `json:"quality"`
	URLs    map[string]string `json:"urls"`
}

func (a *API) mapSummary(m *catalog.Map) MapSummary {
	warnings := append(slices.Clone(m.Warnings), m.MissingTilesets(a.servesTileset)...)
	return MapSummary{ID: m.ID, Name: m.ID, Title: m.Title, Published: m.Published, Format: m.Format, State: m.State, Problems: m.Problems, Warnings: warnings}
}

// servesTileset reports whether a tileset of that name exists and is
// published.
func (a *API) servesTileset(name string) bool {
	e, ok := a.d.Catalog.Get(name)
	return ok && e.Served()
}

// extension of a map format in tile URLs.
func extension(format string) string {
	if format == "jpeg" {
		return "jpg"
	}
	return format
}

func (a *API) mapDetail(r *http.Request, m *catalog.Map) MapDetail {
	root := respond.BaseURL(r, a.d.PublicURL)
	base := root + "/maps/" + url.PathEscape(m.ID)
	ext := extension(m.Format)
	return MapDetail{
		MapSummary: a.mapSummary(m),
		Quality:    m.Quality,
		URLs: map[string]string{
			"embeddable":  base + "/",
			"ogcTiles":    base + "/tiles",
			"stylejson":   base + "/style.json",
			"tilejson":    base + "/tiles.json",
			"tilejson256": base + "/256/tiles.json",
			"wms":         base + "/wms?service=WMS&request=GetCapabilities",
			"wmts":        base + "/WMTSCapabilities.xml",
			"xyz":         base + "/{z}/{x}/{y}." + ext,
			"xyz256":      base + "/256/{z}/{x}/{y}." + ext,
		},
	}
}

func (a *API) listMaps(w http.ResponseWriter, r *http.Request) {
	offset, limit, err := page(r)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	all := a.d.Maps.List()
	items := []MapSummary{}
	for i := offset; i < len(all) && len(items) < limit; i++ {
		items = append(items, a.mapSummary(all[i]))
	}
	respond.JSON(w, http.StatusOK, map[string]any{"items": items, "total": len(all)})
}

func (a *API) mapEntry(w http.ResponseWriter, r *http.Request) (*catalog.Map, bool) {
	id := r.PathValue("id")
	m, ok := a.d.Maps.Get(id)
	if !ok {
		respond.Fail(w, http.StatusNotFound, "map "+quote(id)+" does not exist")
	}
	return m, ok
}

func quote(s string) string { return `"` + s + `"` }

func (a *API) getMap(w http.ResponseWriter, r *http.Request) {
	if m, ok := a.mapEntry(w, r); ok {
		respond.JSON(w, http.StatusOK, a.mapDetail(r, m))
	}
}

// mapChange is the body of POST /maps/{id}; any other field is a 400.
type mapChange struct {
	Format    *string `json:"format"`
	Published *bool   `json:"published"`
	Quality   *int    `json:"quality"`
}

func (a *API) changeMap(w http.ResponseWriter, r *http.Request) {
	m, ok := a.mapEntry(w, r)
	if !ok {
		return
	}
	var body mapChange
	if !respond.Decode(w, r, &body, false) {
		return
	}
	m, err := a.d.Maps.Update(r.Context(), m.ID, catalog.MapChange{Format: body.Format, Quality: body.Quality, Published: body.Published})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, a.mapDetail(r, m))
}

func (a *API) deleteMap(w http.ResponseWriter, r *http.Request) {
	m, ok := a.mapEntry(w, r)
	if !ok {
		return
	}
	removed, err := a.d.Maps.Delete(r.Context(), m.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"removed": removed})
}

func (a *API) publishMap(published bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, ok := a.mapEntry(w, r)
		if !ok {
			return
		}
		m, err := a.d.Maps.SetPublished(r.Context(), m.ID, published)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		respond.JSON(w, http.StatusOK, a.mapDetail(r, m))
	}
}
