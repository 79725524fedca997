package public

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/geoip"
	"github.com/tesseramaps/tessera/internal/httpapi/middleware"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
)

// RegisterServices adds the hosted services of spec 002 built from open
// data: elevation and IP geolocation.
func (a *API) RegisterServices(mux route.Router) {
	mux.HandleFunc("GET /elevation/{locations}", a.elevation)
	mux.HandleFunc("GET /geolocation/ip.json", a.geolocation)
}

// geolocationResult is spec 002's IP geolocation result.
type geolocationResult struct {
	geoip.Location
	Elevation *float64 `json:"elevation,omitempty"`
}

// locateCaller finds the caller's place: its address (see
// middleware.ClientAddr), or the configured local address for callers on
// loopback or private addresses.
func (a *API) locateCaller(r *http.Request) (geoip.Location, netip.Addr, error) {
	addr := middleware.ClientAddr(r, a.d.TrustedProxies)
	if a.d.GeolocationLocal.IsValid() && (!addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast()) {
		addr = a.d.GeolocationLocal
	}
	loc, err := a.d.GeoIP.Locate(addr)
	return loc, addr, err
}

// geolocation answers /geolocation/ip.json: the caller's place, with its
// elevation when elevation=true.
func (a *API) geolocation(w http.ResponseWriter, r *http.Request) {
	if a.d.GeoIP == nil {
		respond.Fail(w, http.StatusNotFound, "IP geolocation is not set up on this server: no IP database is installed")
		return
	}
	q, ok := onlyParams(w, r, "/geolocation/ip.json", "elevation")
	if !ok {
		return
	}
	withElevation := false
	switch v := q["elevation"]; {
	case len(v) > 1:
		respond.Fail(w, http.StatusBadRequest, "elevation is given more than once")
		return
	case len(v) == 1 && v[0] == "true":
		withElevation = true
	case len(v) == 1 && v[0] != "false":
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("elevation must be true or false, got %q", v[0]))
		return
	}
	loc, addr, err := a.locateCaller(r)
	if errors.Is(err, geoip.ErrNotFound) {
		msg := fmt.Sprintf("no location is known for the address %s", addr)
		if !a.d.GeolocationLocal.IsValid() && (addr.IsLoopback() || addr.IsPrivate()) {
			msg += " (a local address: set geolocation_local_address to the address to look up instead)"
		}
		respond.Fail(w, http.StatusNotFound, msg)
		return
	}
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "geolocation", "err", err)
		respond.Fail(w, http.StatusInternalServerError, "geolocation failed")
		return
	}
	res := geolocationResult{Location: loc}
	if withElevation {
		if a.d.Elevation == nil || len(a.d.Elevation.Grids) == 0 {
			respond.Fail(w, http.StatusNotFound, "elevation is not set up on this server: no elevation model is installed")
			return
		}
		if v, _, ok := a.d.Elevation.At(loc.Longitude, loc.Latitude); ok {
			m := math.Round(v*10) / 10
			res.Elevation = &m
		}
	}
	// The answer depends on the caller: no shared caches.
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Vary", "X-Forwarded-For")
	respond.JSON(w, http.StatusOK, res)
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
	q, ok := onlyParams(w, r, "/elevation/{locations}.json", "unit")
	if !ok {
		return
	}
	if len(q["unit"]) > 1 {
		respond.Fail(w, http.StatusBadRequest, "unit is given more than once")
		return
	}
	unitArg := "meters"
	if vs, ok := q["unit"]; ok {
		unitArg = vs[0]
	}
	unit, err := elevation.ParseUnit(unitArg)
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
	buf := respond.Buffer()
	defer respond.Release(buf)
	b := append(*buf, '[')
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
	*buf = b
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	respond.Bytes(w, http.StatusOK, "application/json; charset=utf-8", b)
}
