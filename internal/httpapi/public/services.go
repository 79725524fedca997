package public

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
)

// RegisterServices adds the hosted services of spec 002 built from open
// data: elevation.
func (a *API) RegisterServices(mux route.Router) {
	mux.HandleFunc("GET /elevation/{locations}", a.elevation)
}

// elevation answers /elevation/{locations}.json: [lng, lat, elevation]
// triples in meters or feet.
func (a *API) elevation(w http.ResponseWriter, r *http.Request) {
	if a.d.Elevation == nil || len(a.d.Elevation.Grids) == 0 {
		respond.Fail(w, http.StatusNotFound, "elevation is not set up on this server: no elevation model is installed")
		return
	}
	locs, ok := strings.CutSuffix(r.PathValue("locations"), ".json")
	if !ok {
		respond.Fail(w, http.StatusNotFound, "elevation requests are /elevation/{locations}.json")
		return
	}
	q := r.URL.Query()
	if len(q["unit"]) > 1 {
		respond.Fail(w, http.StatusBadRequest, "unit is given more than once")
		return
	}
	unit, err := elevation.ParseUnit(q.Get("unit"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	pts, err := elevation.ParseLocations(locs)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	res, err := a.d.Elevation.Query(pts, unit)
	if err != nil {
		if errors.Is(err, elevation.ErrNoData) {
			respond.Fail(w, http.StatusBadRequest, err.Error())
			return
		}
		respond.Fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	b := make([]byte, 0, 16+len(res)*40)
	b = append(b, '[')
	for i, t := range res {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range t {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, v, 'f', -1, 64)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	respond.Bytes(w, http.StatusOK, "application/json; charset=utf-8", b)
}
