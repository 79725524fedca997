package admin

import (
	"errors"
	"net/http"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/prerender"
	"github.com/tesseramaps/tessera/internal/store"
)

// registerPrerender adds the pre-render jobs' routes (beyond the spec:
// a map's raster tiles rendered into a new tileset by whichever node
// claims the job).
func (a *API) registerPrerender(mux route.Router) {
	if a.d.Prerender == nil {
		return
	}
	mux.HandleFunc("POST "+Prefix+"/maps/{id}/prerender", a.createPrerender)
	mux.HandleFunc("GET "+Prefix+"/prerender/{id}", a.getPrerender)
}

// prerenderCreate is the body of POST /maps/{id}/prerender.
type prerenderCreate struct {
	Name    string     `json:"name"`
	MinZoom *int       `json:"minzoom"`
	MaxZoom *int       `json:"maxzoom"`
	Bounds  [4]float64 `json:"bounds"`
	Format  string     `json:"format"`
}

// PrerenderJob is a pre-render job as the admin API shows it.
type PrerenderJob struct {
	ID        string            `json:"id"`
	State     string            `json:"state"` // processing, completed or failed
	Progress  float64           `json:"progress"`
	Request   prerender.Request `json:"request"`
	Tiles     int64             `json:"tiles"`
	TilesetID *string           `json:"tileset_id"`
	Errors    []ErrorMessage    `json:"errors"`
	Created   string            `json:"created"`
	Changed   string            `json:"changed"`
}

func prerenderJob(in store.Ingest) PrerenderJob {
	req, _ := prerender.JobRequest(in)
	j := PrerenderJob{ID: in.ID, State: in.State, Progress: in.Progress, Request: req, Tiles: in.Size, Errors: []ErrorMessage{},
		Created: in.Created, Changed: in.Changed}
	if in.TilesetID != "" {
		j.TilesetID = &in.TilesetID
	}
	for _, e := range in.Errors {
		j.Errors = append(j.Errors, ErrorMessage{Message: e})
	}
	return j
}

func (a *API) createPrerender(w http.ResponseWriter, r *http.Request) {
	var body prerenderCreate
	if !respond.Decode(w, r, &body, false) {
		return
	}
	if body.MinZoom == nil || body.MaxZoom == nil {
		respond.Fail(w, http.StatusBadRequest, "minzoom and maxzoom are required")
		return
	}
	in, err := a.d.Prerender.Create(r.Context(), prerender.Request{Map: r.PathValue("id"), Name: body.Name,
		MinZoom: *body.MinZoom, MaxZoom: *body.MaxZoom, Bounds: body.Bounds, Format: body.Format})
	if err != nil {
		a.prerenderFail(w, err)
		return
	}
	respond.JSON(w, http.StatusAccepted, prerenderJob(in))
}

func (a *API) getPrerender(w http.ResponseWriter, r *http.Request) {
	in, err := a.d.Prerender.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		a.prerenderFail(w, err)
		return
	}
	respond.JSON(w, http.StatusOK, prerenderJob(in))
}

func (a *API) prerenderFail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, prerender.ErrNotFound):
		respond.Fail(w, http.StatusNotFound, err.Error())
	case errors.Is(err, prerender.ErrInvalid):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	default:
		a.d.Log.Error("pre-render job", "err", err)
		respond.Fail(w, http.StatusInternalServerError, "internal error")
	}
}
