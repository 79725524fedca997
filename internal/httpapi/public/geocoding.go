package public

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"net/http"
	"strings"

	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// RegisterGeocoding adds the geocoding routes.
func (a *API) RegisterGeocoding(mux route.Router) {
	mux.HandleFunc("GET /geocoding/{query}", a.geocoding)
}

// geocoding answers forward, reverse, by-id and batch requests. The path
// is handed to the parser escaped, because a literal ';' separates batch
// queries while an escaped one (%3B) belongs to a query.
func (a *API) geocoding(w http.ResponseWriter, r *http.Request) {
	if a.d.Geocoder == nil {
		respond.Fail(w, http.StatusNotFound, "geocoding is not set up on this server: no geocoding index is installed")
		return
	}
	escaped, ok := strings.CutPrefix(r.URL.EscapedPath(), "/geocoding/")
	if !ok || !strings.HasSuffix(escaped, ".json") {
		respond.Fail(w, http.StatusNotFound, "geocoding requests are /geocoding/{query}.json")
		return
	}
	req, err := geocode.ParseRequest(escaped, r.URL.Query(), r.Header.Get("Accept-Language"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	// proximity=ip and worldview=auto follow the caller's place; a caller
	// who cannot be located keeps the defaults (no bias, default view).
	if a.d.GeoIP != nil && req.NeedsLocation() {
		if loc, _, err := a.locateCaller(r); err == nil {
			req.Located(loc.Longitude, loc.Latitude, loc.CountryCode)
		}
	}
	var body any
	if req.Kind == geocode.KindBatch {
		body, err = a.d.Geocoder.SearchBatch(r.Context(), req)
	} else {
		body, err = a.d.Geocoder.Search(r.Context(), req)
	}
	if err != nil {
		if errors.Is(err, geocode.ErrInvalidRequest) {
			respond.Fail(w, http.StatusBadRequest, err.Error())
			return
		}
		if r.Context().Err() != nil {
			return
		}
		a.d.Log.ErrorContext(r.Context(), "geocoding", "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, fmt.Sprintf("geocoding failed: %v", err))
		return
	}
	// The results write themselves (json.Marshal would check and compact
	// what they write once more).
	var b []byte
	if m, ok := body.(json.Marshaler); ok {
		b, err = m.MarshalJSON()
	} else {
		b, err = json.Marshal(body)
	}
	if err != nil {
		a.jsonDocument(w, r, "", nil, err)
		return
	}
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	respond.Bytes(w, http.StatusOK, "application/json; charset=utf-8", b)
}
