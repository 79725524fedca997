package public

import (
	"fmt"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"net/http"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/ogc"
)

// RegisterOGC adds the OGC API tree under /ogc: the landing page, the
// collections (one per served tileset), each collection's tilesets and the
// tile matrix sets WebMercatorQuad and WebMercatorQuad512 (OGC TMS 2.0
// JSON, or TMS 1.0 JSON with f=tms1json). /ogc/conformance is registered by Register.
func (a *API) RegisterOGC(mux route.Router) {
	mux.HandleFunc("GET /ogc", a.ogcLanding)
	mux.HandleFunc("GET /ogc/{$}", a.ogcLanding)
	mux.HandleFunc("GET /ogc/collections", a.ogcCollections)
	mux.HandleFunc("GET /ogc/collections/{tilesId}", a.ogcCollection)
	mux.HandleFunc("GET /ogc/collections/{tilesId}/tiles", a.ogcCollectionTileSets)
	mux.HandleFunc("GET /ogc/collections/{tilesId}/tiles/{tileMatrixSetId}", a.ogcCollectionTileSet)
	mux.HandleFunc("GET /ogc/tileMatrixSets", a.ogcTileMatrixSets)
	mux.HandleFunc("GET /ogc/tileMatrixSets/{tileMatrixSetId}", a.ogcTileMatrixSetDoc)
}

// ogcEndpoint is a.endpoint, answering 500 itself when the base URL is bad.
func (a *API) ogcEndpoint(w http.ResponseWriter, r *http.Request) (ogc.Endpoint, bool) {
	ep, err := a.endpoint(r)
	if err != nil {
		a.jsonDocument(w, r, "", nil, err)
		return ogc.Endpoint{}, false
	}
	return ep, true
}

// bboxCRS reads the bbox-crs query parameter, answering 400 when it names
// a CRS the extents are not given in.
func bboxCRS(w http.ResponseWriter, r *http.Request) (string, bool) {
	q := r.URL.Query()
	if len(q["bbox-crs"]) > 1 {
		respond.Fail(w, http.StatusBadRequest, "bbox-crs is given more than once")
		return "", false
	}
	crs, err := ogc.ParseBBoxCRS(q.Get("bbox-crs"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return "", false
	}
	return crs, true
}

func (a *API) ogcLanding(w http.ResponseWriter, r *http.Request) {
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	doc, err := ogc.LandingPage(ep, "Tessera")
	a.jsonDocument(w, r, "application/json", doc, err)
}

func (a *API) ogcCollections(w http.ResponseWriter, r *http.Request) {
	crs, ok := bboxCRS(w, r)
	if !ok {
		return
	}
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	var sets []ogc.TileSet
	for _, e := range a.d.Catalog.List() {
		if e.Served() {
			sets = append(sets, tileSet(e))
		}
	}
	doc, skipped, err := ogc.OGCCollections(sets, ep, crs)
	for _, s := range skipped {
		a.d.Log.WarnContext(r.Context(), "tileset left out of the OGC collections", "err", s)
	}
	a.jsonDocument(w, r, "application/json", doc, err)
}

func (a *API) ogcCollection(w http.ResponseWriter, r *http.Request) {
	e, ok := a.served(w, r)
	if !ok {
		return
	}
	crs, ok := bboxCRS(w, r)
	if !ok {
		return
	}
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	doc, err := ogc.OGCCollection(tileSet(e), ep, crs)
	a.jsonDocument(w, r, "application/json", doc, err)
}

func (a *API) ogcCollectionTileSets(w http.ResponseWriter, r *http.Request) {
	e, ok := a.served(w, r)
	if !ok {
		return
	}
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	doc, err := ogc.OGCCollectionTileSets(tileSet(e), ep)
	a.jsonDocument(w, r, "application/json", doc, err)
}

func (a *API) ogcCollectionTileSet(w http.ResponseWriter, r *http.Request) {
	e, ok := a.served(w, r)
	if !ok {
		return
	}
	ts := tileSet(e)
	want, err := ogc.CollectionTileMatrixSet(ts)
	if err != nil {
		a.jsonDocument(w, r, "", nil, err)
		return
	}
	if id := r.PathValue("tileMatrixSetId"); id != want {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tileset %q has no tiles in tile matrix set %q (use %s)", e.Name, id, want))
		return
	}
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	doc, err := ogc.OGCCollectionTileSet(ts, ep)
	a.jsonDocument(w, r, "application/json", doc, err)
}

func (a *API) ogcTileMatrixSets(w http.ResponseWriter, r *http.Request) {
	ep, ok := a.ogcEndpoint(w, r)
	if !ok {
		return
	}
	doc, err := ogc.TileMatrixSets(ep)
	a.jsonDocument(w, r, "application/json", doc, err)
}

// ogcTileMatrixSetDoc serves WebMercatorQuad or WebMercatorQuad512 with
// the zoom levels of the standard definition (0..24), more when a served
// tileset goes deeper; f=tms1json selects the OGC TMS 1.0 JSON encoding.
func (a *API) ogcTileMatrixSetDoc(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("tileMatrixSetId")
	if id != ogc.WebMercatorQuadID && id != ogc.WebMercatorQuad512ID {
		respond.Fail(w, http.StatusNotFound, fmt.Sprintf("tile matrix set %q does not exist (use %s or %s)", id, ogc.WebMercatorQuadID, ogc.WebMercatorQuad512ID))
		return
	}
	maxZoom := 0
	for _, e := range a.d.Catalog.List() {
		if e.Served() {
			maxZoom = max(maxZoom, e.Info.MaxZoom)
		}
	}
	switch f := r.URL.Query().Get("f"); f {
	case "", "json":
		ep, ok := a.ogcEndpoint(w, r)
		if !ok {
			return
		}
		doc, err := ogc.OGCTileMatrixSet(id, maxZoom, ep)
		a.jsonDocument(w, r, "application/json", doc, err)
	case ogc.TMS1Format:
		doc, err := ogc.TileMatrixSet1(id, maxZoom)
		a.jsonDocument(w, r, "application/json", doc, err)
	default:
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("f=%q: want json or %s", f, ogc.TMS1Format))
	}
}
