// Package account holds the handlers of the account service API (spec 001
// part B) under /v1: the account's tilesets and API keys (this package),
// and the routes other packages register on the same table (dataset
// ingest, usage analytics). Every route of the table sits behind the
// service-token middleware (middleware.ServiceToken), which puts the
// token's id in the request's context (caller.From(ctx).TokenID).
package account

import (
	"log/slog"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/store"
)

// Prefix is the path of the account service API ({service_url}).
const Prefix = "/v1"

// Deps are what the account handlers need.
type Deps struct {
	DB        *store.DB
	Catalog   *catalog.Catalog
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
}
