package public

import (
	"net/http"
	"sort"
	"strings"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/weather"
)

// RegisterWeather adds the weather catalog of spec 002.
func (a *API) RegisterWeather(mux route.Router) {
	mux.HandleFunc("GET /weather/latest.json", a.weatherLatest)
}

// weatherLatest answers /weather/latest.json: the latest ingested run of
// every weather variable whose keyframe tilesets are served. It takes no
// parameter but the key.
func (a *API) weatherLatest(w http.ResponseWriter, r *http.Request) {
	var unknown []string
	for name := range r.URL.Query() {
		if name != "key" {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		respond.Fail(w, http.StatusBadRequest, "unknown parameter(s) "+strings.Join(unknown, ", ")+": /weather/latest.json takes only key")
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
