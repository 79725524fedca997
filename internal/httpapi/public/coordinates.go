package public

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/coords"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
)

// RegisterCoordinates adds the coordinate systems routes (hosted API).
func (a *API) RegisterCoordinates(mux route.Router) {
	mux.HandleFunc("GET /coordinates/search/{query}", a.coordinatesSearch)
	mux.HandleFunc("GET /coordinates/transform/{coordinates}", a.coordinatesTransform)
}

// answerBufs keeps the buffers of answers written by hand: a search answer
// can be 500 kB, and growing a new buffer for each cost twice the encoding.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// writeAnswer writes a 200 JSON answer that appendJSON encodes (the same
// bytes as respond.JSON) into a pooled buffer.
func writeAnswer(w http.ResponseWriter, appendJSON func([]byte) []byte) {
	bp := answerBufs.Get().(*[]byte)
	b := appendJSON((*bp)[:0])
	respond.Bytes(w, http.StatusOK, "application/json; charset=utf-8", b)
	if cap(b) <= 4<<20 { // an outsized buffer is left to the collector
		*bp = b
		answerBufs.Put(bp)
	}
}

// coordinatesArg is the path value without its ".json", or false.
func (a *API) coordinatesArg(w http.ResponseWriter, r *http.Request, name, usage string) (string, bool) {
	if a.d.Coordinates == nil {
		respond.Fail(w, http.StatusNotFound, "coordinate systems are not set up on this server: no proj.db was found (install the Debian package proj-data)")
		return "", false
	}
	v, ok := strings.CutSuffix(r.PathValue(name), ".json")
	if !ok {
		respond.Fail(w, http.StatusNotFound, "coordinate requests are "+usage)
		return "", false
	}
	return v, true
}

func (a *API) coordinatesSearch(w http.ResponseWriter, r *http.Request) {
	q, ok := a.coordinatesArg(w, r, "query", "/coordinates/search/{query}.json")
	if !ok {
		return
	}
	params, ok := onlyParams(w, r, "/coordinates/search/{query}.json", "limit", "offset", "transformations", "exports")
	if !ok {
		return
	}
	req, err := coords.ParseSearch(q, params)
	if err != nil {
		a.coordinatesFail(w, r, err)
		return
	}
	res, err := a.d.Coordinates.Search(r.Context(), req)
	if err != nil {
		a.coordinatesFail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	writeAnswer(w, res.AppendJSON)
}

func (a *API) coordinatesTransform(w http.ResponseWriter, r *http.Request) {
	c, ok := a.coordinatesArg(w, r, "coordinates", "/coordinates/transform/{coordinates}.json")
	if !ok {
		return
	}
	params, ok := onlyParams(w, r, "/coordinates/transform/{coordinates}.json", "s_srs", "t_srs", "ops")
	if !ok {
		return
	}
	req, err := coords.ParseTransform(c, params)
	if err != nil {
		a.coordinatesFail(w, r, err)
		return
	}
	res, err := a.d.Coordinates.Transform(r.Context(), req)
	if err != nil {
		a.coordinatesFail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	// Written by hand: the same bytes as encoding/json, without reflection.
	writeAnswer(w, res.AppendJSON)
}

// coordinatesFail answers a failed coordinates request: 400 for bad
// parameters and points PROJ cannot transform, 501 in a build without PROJ.
func (a *API) coordinatesFail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, coords.ErrInvalid), errors.Is(err, coords.ErrNotTransformable):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, coords.ErrNoPROJ):
		respond.Fail(w, http.StatusNotImplemented, err.Error())
	case r.Context().Err() != nil:
	default:
		a.d.Log.ErrorContext(r.Context(), "coordinates", "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, fmt.Sprintf("coordinates failed: %v", err))
	}
}
