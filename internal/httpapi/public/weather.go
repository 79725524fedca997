package public

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/weather"
)

// onlyParams answers 400 naming the parameters of the request that are
// neither key nor one of allowed (the services check every parameter), and
// returns the query when there are none.
func onlyParams(w http.ResponseWriter, r *http.Request, endpoint string, allowed ...string) (url.Values, bool) {
	if r.URL.RawQuery == "" {
		return nil, true // no parameters (a nil map reads as empty)
	}
	q := r.URL.Query()
	var unknown []string
	for name := range q {
		if name != "key" && !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return q, true
	}
	sort.Strings(unknown)
	takes := "only key"
	if len(allowed) > 0 {
		takes = "key, " + strings.Join(allowed, ", ")
	}
	respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter(s) %.200s: %s takes %s", strings.Join(unknown, ", "), endpoint, takes))
	return nil, false
}

// RegisterWeather adds the weather catalog of spec 002.
func (a *API) RegisterWeather(mux route.Router) {
	mux.HandleFunc("GET /weather/latest.json", a.weatherLatest)
}

// weatherLatest answers /weather/latest.json: the latest ingested run of
// every weather variable whose keyframe tilesets are served. It takes no
// parameter but the key.
func (a *API) weatherLatest(w http.ResponseWriter, r *http.Request) {
	if _, ok := onlyParams(w, r, "/weather/latest.json"); !ok {
		return
	}
	if a.d.WeatherDir == "" {
		respond.JSON(w, http.StatusOK, weather.Catalog{Variables: []weather.Variable{}})
		return
	}
	c, err := weather.Latest(a.d.WeatherDir, func(id string) bool {
		e, ok := a.d.Catalog.Get(id)
		return ok && e.Served()
	})
	if err != nil {
		a.d.Log.ErrorContext(r.Context(), "weather catalog", "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the weather catalog cannot be read")
		return
	}
	w.Header().Set("Cache-Control", a.d.CacheControlDocuments)
	respond.JSON(w, http.StatusOK, c)
}
