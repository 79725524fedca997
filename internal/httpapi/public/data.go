package public

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/ingest"
)

// RegisterData adds the datasets of spec 002: /data/{dataId}/features.json.
func (a *API) RegisterData(mux route.Router) {
	mux.HandleFunc("GET /data/{dataId}/{file}", a.dataFeatures)
}

// dataset finds the published tileset a data id names: by name (as in
// /tiles/{name}/) or by its id.
func (a *API) dataset(id string) (*catalog.Entry, bool) {
	e, ok := a.d.Catalog.Get(id)
	if !ok {
		e, ok = a.d.Catalog.ByID(id)
	}
	return e, ok && e.Served()
}

// dataFeatures streams the GeoJSON a tileset was made from, as uploaded,
// as application/geo+json (RFC 7946), with ranges and conditional
// requests (Last-Modified).
func (a *API) dataFeatures(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("dataId")
	if err := checkID("dataset", id); err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if file := r.PathValue("file"); file != "features.json" {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("%q: a dataset's only resource is features.json", file))
		return
	}
	e, ok := a.dataset(id)
	if !ok || a.d.DatasetsDir == "" {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("dataset %q does not exist", id))
		return
	}
	f, err := os.Open(ingest.FeaturesPath(a.d.DatasetsDir, e.ID))
	if errors.Is(err, fs.ErrNotExist) {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("dataset %q does not exist: tileset %q was not made from a GeoJSON upload", id, e.Name))
		return
	}
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "open dataset", "dataset", id, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the dataset could not be read")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "stat dataset", "dataset", id, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the dataset could not be read")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/geo+json")
	h.Set("Cache-Control", a.d.CacheControlDocuments)
	http.ServeContent(w, r, "", st.ModTime(), f)
}
