// Package account holds the handlers of the account service API (spec 001
// part B) under /v1: the account's tilesets and API keys (this package),
// and the routes other packages register on the same table (dataset
// ingest, usage analytics). Every route of the table sits behind the
// service-token middleware (middleware.ServiceToken), which puts the
// token's id in the request's context (caller.From(ctx).TokenID).
package account

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/cursor"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/store"
)

// Prefix is the path of the account service API ({service_url}).
const Prefix = "/v1"

// Page sizes of the account API's lists (spec: limit 10..100; the default
// is ours).
const (
	MinLimit     = apikey.MinLimit
	MaxLimit     = apikey.MaxLimit
	DefaultLimit = apikey.DefaultLimit
)

// Deps are what the account handlers need.
type Deps struct {
	DB        *store.DB
	Catalog   *catalog.Catalog
	Keys      *apikey.Service
	Log       *slog.Logger
	PublicURL string
}

// API serves the account endpoints.
type API struct{ d Deps }

// New makes the account API.
func New(d Deps) *API {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &API{d: d}
}

// Register adds the account routes of this package (full paths under
// Prefix) to t, the account route table that the server mounts at /v1/
// behind the service-token check.
func (a *API) Register(t *route.Table) {
	p := Prefix
	t.HandleFunc("GET "+p+"/tiles", a.listTiles)
	t.HandleFunc("GET "+p+"/tiles/{id}", a.getTiles)
	t.HandleFunc("DELETE "+p+"/tiles/{id}", a.deleteTiles)
	t.HandleFunc("POST "+p+"/tiles/{id}/change_metadata", a.changeTiles)
	t.HandleFunc("GET "+p+"/api_keys", a.listKeys)
	t.HandleFunc("POST "+p+"/api_keys", a.createKey)
	t.HandleFunc("GET "+p+"/api_keys/{id}", a.getKey)
	t.HandleFunc("DELETE "+p+"/api_keys/{id}", a.deleteKey)
	t.HandleFunc("POST "+p+"/api_keys/{id}/change_settings", a.changeKey)
}

// Page reads the cursor and limit of a list request (limit 10..100,
// DefaultLimit when absent); the error is a message for a 400.
func Page(r *http.Request) (cursor.Position, string, int, error) {
	q := r.URL.Query()
	raw := q.Get("cursor")
	pos, err := cursor.Decode(raw)
	if err != nil {
		return cursor.Position{}, "", 0, fmt.Errorf("cursor %q is not a cursor of this list", truncate(raw))
	}
	limit := DefaultLimit
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < MinLimit || limit > MaxLimit {
			return cursor.Position{}, "", 0, fmt.Errorf("limit %q is not a whole number from %d to %d", truncate(v), MinLimit, MaxLimit)
		}
	}
	return pos, raw, limit, nil
}

// pathUUID reads the path's id, a UUID (lower-cased), answering 400 when
// it is not one.
func pathUUID(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	id := r.PathValue("id")
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("%s id %q is not a UUID", what, truncate(id)))
		return "", false
	}
	return strings.ToLower(id), true
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// fail answers an error of the services: 404, 400 or, for the server's own
// failures, 500 with the cause in the log only.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, apikey.ErrNotFound), errors.Is(err, catalog.ErrNotFound):
		respond.Fail(w, http.StatusNotFound, err.Error())
	case errors.Is(err, apikey.ErrInvalid), errors.Is(err, cursor.ErrInvalid):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	default:
		if r.Context().Err() != nil {
			return
		}
		a.d.Log.ErrorContext(r.Context(), "account request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		respond.Fail(w, http.StatusInternalServerError, "the server could not do this (its log has the cause); try again later")
	}
}
