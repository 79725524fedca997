package ogc

import (
	"fmt"
	"net/url"
	"strings"
)

// The OGC API tree under /ogc: a landing page, the collections (one per
// tileset), each collection's list of tilesets and its WebMercatorQuad
// tileset, and the tile matrix sets. GDAL's OGCAPI driver, OpenLayers'
// OGCMapTile/OGCVectorTile sources and other OGC API - Tiles clients start
// from these documents; the tiles themselves stay at /tiles/{id}/{z}/{x}/{y}.

// Link relations of OGC API - Common and Tiles.
const (
	RelConformance   = "http://www.opengis.net/def/rel/ogc/1.0/conformance"
	RelData          = "http://www.opengis.net/def/rel/ogc/1.0/data"
	RelTilingSchemes = "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes"
	RelTilesetsMap   = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map"
	RelTilesetsVec   = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"
	// OGCPrefix is the path of the OGC API landing page.
	OGCPrefix = "/ogc"
	// TMS1Format is the value of the f query parameter that selects the
	// OGC TMS 1.0 (OGC 17-083r2) JSON encoding of a tile matrix set.
	TMS1Format        = "tms1json"
	confCommon2Prefix = "http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/"
)

// ParseBBoxCRS checks the value of a bbox-crs query parameter: empty or the
// CRS84 URI select longitude/latitude (the default of OGC API - Common),
// the EPSG:3857 URI selects Web Mercator metres. It returns the CRS URI.
func ParseBBoxCRS(v string) (string, error) {
	switch strings.TrimSpace(v) {
	case "", CRS84URI:
		return CRS84URI, nil
	case CRS3857URI:
		return CRS3857URI, nil
	}
	return "", fmt.Errorf("bbox-crs %q: want %s or %s", v, CRS84URI, CRS3857URI)
}

// LandingPageDoc is the OGC API landing page.
type LandingPageDoc struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Links       []Link `json:"links"`
}

// LandingPage returns the landing page served at /ogc.
func LandingPage(e Endpoint, title string) (*LandingPageDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	if title == "" {
		title = "Tessera"
	}
	return &LandingPageDoc{
		Title:       title,
		Description: "OGC API - Tiles access to the tilesets of this server: one collection per tileset.",
		Links: []Link{
			{Href: e.URL(OGCPrefix), Rel: "self", Type: ogcJSONMediaType, Title: "This document"},
			{Href: e.URL(OGCPrefix + "/conformance"), Rel: RelConformance, Type: ogcJSONMediaType, Title: "Conformance declaration"},
			{Href: e.URL(OGCPrefix + "/collections"), Rel: RelData, Type: ogcJSONMediaType, Title: "Collections"},
			{Href: e.URL(OGCPrefix + "/collections"), Rel: "data", Type: ogcJSONMediaType, Title: "Collections"},
			{Href: e.URL(OGCPrefix + "/tileMatrixSets"), Rel: RelTilingSchemes, Type: ogcJSONMediaType, Title: "Tile matrix sets"},
		},
	}, nil
}

// SpatialExtent is the spatial member of a collection's extent.
type SpatialExtent struct {
	BBox [][4]float64 `json:"bbox"`
	// CRS is CRS84 (the only value OGC API - Common core allows) or empty
	// when the bbox is in the CRS the request named with bbox-crs.
	CRS string `json:"crs,omitempty"`
}

// Extent is a collection's extent.
type Extent struct {
	Spatial SpatialExtent `json:"spatial"`
}

// CollectionDoc describes one tileset as an OGC API collection
// (/ogc/collections/{id}).
type CollectionDoc struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Attribution string   `json:"attribution,omitempty"`
	DataType    string   `json:"dataType"`
	Extent      Extent   `json:"extent"`
	CRS         []string `json:"crs"`
	StorageCRS  string   `json:"storageCrs"`
	Links       []Link   `json:"links"`
}

// CollectionsDoc is the list of collections (/ogc/collections).
type CollectionsDoc struct {
	Links       []Link           `json:"links"`
	Collections []*CollectionDoc `json:"collections"`
}

func (s source) collectionPath() string { return OGCPrefix + "/collections/" + escapeSegment(s.id) }

// withParam appends one encoded key=value to a URL made by Endpoint.URL.
func withParam(u, kv string) string {
	if strings.Contains(u, "?") {
		return u + "&" + kv
	}
	return u + "?" + kv
}

// bboxParam is the query carried by links to a collection whose extent is
// asked in bboxCRS ("" for the default).
func bboxParam(bboxCRS string) string {
	if bboxCRS == "" || bboxCRS == CRS84URI {
		return ""
	}
	return "bbox-crs=" + url.QueryEscape(bboxCRS)
}

func (s source) collection(e Endpoint, bboxCRS string) *CollectionDoc {
	self := e.URL(s.collectionPath())
	if p := bboxParam(bboxCRS); p != "" {
		self = withParam(self, p)
	}
	b := s.bounds
	ext := SpatialExtent{BBox: [][4]float64{b}, CRS: CRS84URI}
	if bboxCRS == CRS3857URI {
		x0, y0 := lonLatToMercator(b[0], b[1])
		x1, y1 := lonLatToMercator(b[2], b[3])
		ext = SpatialExtent{BBox: [][4]float64{{x0, y0, x1, y1}}}
	}
	rel, dataType, what := RelTilesetsMap, "map", "Map tilesets"
	if s.vector {
		rel, dataType, what = RelTilesetsVec, "vector", "Vector tilesets"
	}
	return &CollectionDoc{
		ID: s.id, Title: s.title, Description: s.description, Attribution: s.attribution,
		DataType: dataType,
		Extent:   Extent{Spatial: ext},
		CRS:      []string{CRS84URI, CRS3857URI},
		// The tiles are stored in Web Mercator.
		StorageCRS: CRS3857URI,
		Links: []Link{
			{Href: self, Rel: "self", Type: ogcJSONMediaType, Title: s.title},
			{Href: e.URL(s.collectionPath() + "/tiles"), Rel: rel, Type: ogcJSONMediaType, Title: what},
			{Href: e.URL(s.prefix + "/tiles.json"), Rel: "describedby", Type: tileJSONMediaType, Title: "TileJSON"},
		},
	}
}

// OGCCollection returns the collection document of a tileset. bboxCRS is
// a value returned by ParseBBoxCRS: with CRS3857URI the extent's bbox is
// in Web Mercator metres (the numbers GDAL 3.6 reads as tile matrix set
// coordinates) and the crs member is left out, as OGC API - Common says a
// bbox is in the CRS named by the bbox-crs parameter.
func OGCCollection(ts TileSet, e Endpoint, bboxCRS string) (*CollectionDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	return s.collection(e, bboxCRS), nil
}

// OGCCollections returns the list of collections of the given tilesets, in
// their order. A tileset that cannot be described is left out and its error
// returned in skipped.
func OGCCollections(tss []TileSet, e Endpoint, bboxCRS string) (doc *CollectionsDoc, skipped []error, err error) {
	if err := e.valid(); err != nil {
		return nil, nil, err
	}
	self := e.URL(OGCPrefix + "/collections")
	if p := bboxParam(bboxCRS); p != "" {
		self = withParam(self, p)
	}
	doc = &CollectionsDoc{
		Links: []Link{
			{Href: self, Rel: "self", Type: ogcJSONMediaType, Title: "Collections"},
			{Href: e.URL(OGCPrefix), Rel: "parent", Type: ogcJSONMediaType, Title: "Landing page"},
		},
		Collections: []*CollectionDoc{},
	}
	for _, ts := range tss {
		s, err := ts.source()
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		doc.Collections = append(doc.Collections, s.collection(e, bboxCRS))
	}
	return doc, skipped, nil
}

// TileSetRef is one item of a list of tilesets.
type TileSetRef struct {
	Title            string `json:"title"`
	DataType         string `json:"dataType"`
	CRS              string `json:"crs"`
	TileMatrixSetURI string `json:"tileMatrixSetURI,omitempty"`
	Links            []Link `json:"links"`
}

// tileMatrixSetURI is the registered URI of a tile matrix set ("" for
// WebMercatorQuad512, which is Tessera's own).
func tileMatrixSetURI(id string) string {
	if id == WebMercatorQuadID {
		return WebMercatorQuadURI
	}
	return ""
}

// TileSetsDoc is a list of tilesets (/ogc/collections/{id}/tiles).
type TileSetsDoc struct {
	Links    []Link       `json:"links"`
	TileSets []TileSetRef `json:"tilesets"`
}

// tilingSchemeLinks links to the WebMercatorQuad definition in its two JSON
// encodings. The OGC TMS 2.0 one comes first: OGC API - Tiles clients
// (OpenLayers, GDAL 3.7 and later) take the first tiling-scheme link.
// GDAL 3.6 takes the last one of type application/json and understands
// only the TMS 1.0 encoding, which therefore comes last.
func tilingSchemeLinks(e Endpoint, id string) []Link {
	p := OGCPrefix + "/tileMatrixSets/" + id
	return []Link{
		{Href: e.URL(p), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: id + " tile matrix set (OGC TMS 2.0 JSON)"},
		{Href: withParam(e.URL(p), "f="+TMS1Format), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: id + " tile matrix set (OGC TMS 1.0 JSON, OGC 17-083r2)"},
	}
}

// WebMercatorQuad512ID names the tile matrix set of raster tilesets with
// 512-pixel tiles: the WebMercatorQuad grid (tile z/x/y covers the same
// area) with tiles of 512 pixels, so cells half the size. It is not a
// registered OGC tile matrix set.
const WebMercatorQuad512ID = "WebMercatorQuad512"

// tileMatrixSetID is the tile matrix set of the tileset's OGC API tileset:
// WebMercatorQuad, or WebMercatorQuad512 for raster tiles of 512 pixels.
func (s source) tileMatrixSetID() string {
	if !s.vector && s.tileSize == 512 {
		return WebMercatorQuad512ID
	}
	return WebMercatorQuadID
}

// CollectionTileMatrixSet returns the id of the only tile matrix set a
// tileset's collection offers tiles in (the {tileMatrixSetId} of
// /ogc/collections/{id}/tiles/{tileMatrixSetId}).
func CollectionTileMatrixSet(ts TileSet) (string, error) {
	s, err := ts.source()
	if err != nil {
		return "", err
	}
	return s.tileMatrixSetID(), nil
}

func (s source) dataType() string {
	if s.vector {
		return "vector"
	}
	return "map"
}

// OGCCollectionTileSets returns the list of tilesets of a tileset's
// collection: one, in WebMercatorQuad.
func OGCCollectionTileSets(ts TileSet, e Endpoint) (*TileSetsDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	c := s.collectionPath()
	id := s.tileMatrixSetID()
	ref := TileSetRef{
		Title: s.title + " (" + id + ")", DataType: s.dataType(), CRS: CRS3857URI, TileMatrixSetURI: tileMatrixSetURI(id),
		Links: append([]Link{{Href: e.URL(c + "/tiles/" + id), Rel: "self", Type: ogcJSONMediaType, Title: id + " tileset"}},
			tilingSchemeLinks(e, id)...),
	}
	return &TileSetsDoc{
		Links: []Link{
			{Href: e.URL(c + "/tiles"), Rel: "self", Type: ogcJSONMediaType, Title: "Tilesets of " + s.title},
			{Href: e.URL(c), Rel: "collection", Type: ogcJSONMediaType, Title: s.title},
		},
		TileSets: []TileSetRef{ref},
	}, nil
}

// OGCCollectionTileSet returns the tileset of a tileset's collection
// (/ogc/collections/{id}/tiles/{CollectionTileMatrixSet(ts)}): the document
// of /tiles/{id}/tiles with links into the /ogc tree (self, the collection
// and the shared tile matrix set in both JSON encodings). The tile template
// and the limits are the same; raster tiles of 512 pixels are described in
// WebMercatorQuad512, whose tile z/x/y is WebMercatorQuad's.
func OGCCollectionTileSet(ts TileSet, e Endpoint) (*TileSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	d := s.tileSetDoc(e)
	c := s.collectionPath()
	id := s.tileMatrixSetID()
	d.TileMatrixSetURI = tileMatrixSetURI(id)
	links := []Link{
		{Href: e.URL(c + "/tiles/" + id), Rel: "self", Type: ogcJSONMediaType, Title: "This tileset"},
		{Href: e.URL(c), Rel: "collection", Type: ogcJSONMediaType, Title: s.title},
	}
	links = append(links, tilingSchemeLinks(e, id)...)
	for _, l := range d.Links {
		if l.Rel != "self" && l.Rel != RelTilingScheme {
			links = append(links, l)
		}
	}
	d.Links = links
	return d, nil
}

// TileMatrixSetRef is one item of the list of tile matrix sets.
type TileMatrixSetRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URI   string `json:"uri"`
	Links []Link `json:"links"`
}

// TileMatrixSetsDoc is the list of tile matrix sets (/ogc/tileMatrixSets).
type TileMatrixSetsDoc struct {
	Links          []Link             `json:"links"`
	TileMatrixSets []TileMatrixSetRef `json:"tileMatrixSets"`
}

// TileMatrixSets returns the list of tile matrix sets: WebMercatorQuad and
// WebMercatorQuad512.
func TileMatrixSets(e Endpoint) (*TileMatrixSetsDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	d := &TileMatrixSetsDoc{
		Links: []Link{{Href: e.URL(OGCPrefix + "/tileMatrixSets"), Rel: "self", Type: ogcJSONMediaType, Title: "Tile matrix sets"}},
	}
	for _, id := range []string{WebMercatorQuadID, WebMercatorQuad512ID} {
		m, _ := matrixSet(id, 0, "")
		d.TileMatrixSets = append(d.TileMatrixSets, TileMatrixSetRef{
			ID: id, Title: m.Title, URI: m.URI,
			Links: []Link{{Href: e.URL(OGCPrefix + "/tileMatrixSets/" + id), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: id}},
		})
	}
	return d, nil
}

// matrixSet returns a tile matrix set Tessera serves by id.
func matrixSet(id string, maxZoom int, selfURL string) (*TileMatrixSetDoc, error) {
	switch id {
	case WebMercatorQuadID:
		return WebMercatorQuad(maxZoom, selfURL), nil
	case WebMercatorQuad512ID:
		d := WebMercatorQuad(maxZoom, selfURL)
		d.ID, d.Title, d.URI, d.WellKnownScaleSet = WebMercatorQuad512ID, "Web Mercator quadtree with 512-pixel tiles", "", ""
		for i := range d.TileMatrices {
			m := &d.TileMatrices[i]
			m.TileWidth, m.TileHeight = 512, 512
			m.CellSize /= 2
			m.ScaleDenominator /= 2
		}
		return d, nil
	}
	return nil, fmt.Errorf("ogc: no tile matrix set %q (want %s or %s)", id, WebMercatorQuadID, WebMercatorQuad512ID)
}

// OGCTileMatrixSet returns the tile matrix set id (WebMercatorQuad or
// WebMercatorQuad512) served at /ogc/tileMatrixSets/{id} in the OGC TMS 2.0
// JSON encoding, zoom levels 0..max(24, maxZoom), with a link to its TMS
// 1.0 encoding. An unknown id is an error.
func OGCTileMatrixSet(id string, maxZoom int, e Endpoint) (*TileMatrixSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	p := OGCPrefix + "/tileMatrixSets/" + id
	d, err := matrixSet(id, maxZoom, e.URL(p))
	if err != nil {
		return nil, err
	}
	d.Links = append(d.Links, Link{Href: withParam(e.URL(p), "f="+TMS1Format), Rel: "alternate", Type: ogcJSONMediaType, Title: "OGC TMS 1.0 JSON encoding"})
	return d, nil
}

// BoundingBox1 is a bounding box of the OGC TMS 1.0 JSON encoding.
type BoundingBox1 struct {
	Type        string     `json:"type"`
	CRS         string     `json:"crs"`
	LowerCorner [2]float64 `json:"lowerCorner"`
	UpperCorner [2]float64 `json:"upperCorner"`
}

// TileMatrix1 is a tile matrix of the OGC TMS 1.0 JSON encoding.
type TileMatrix1 struct {
	Type             string     `json:"type"`
	Identifier       string     `json:"identifier"`
	ScaleDenominator float64    `json:"scaleDenominator"`
	TopLeftCorner    [2]float64 `json:"topLeftCorner"`
	TileWidth        int        `json:"tileWidth"`
	TileHeight       int        `json:"tileHeight"`
	MatrixWidth      int64      `json:"matrixWidth"`
	MatrixHeight     int64      `json:"matrixHeight"`
}

// TileMatrixSet1Doc is a tile matrix set in the JSON encoding of OGC Two
// Dimensional Tile Matrix Set 1.0 (OGC 17-083r2), which GDAL 3.6 and other
// clients of the OGC API - Tiles drafts read.
type TileMatrixSet1Doc struct {
	Type              string        `json:"type"`
	Identifier        string        `json:"identifier"`
	Title             string        `json:"title"`
	SupportedCRS      string        `json:"supportedCRS"`
	WellKnownScaleSet string        `json:"wellKnownScaleSet,omitempty"`
	BoundingBox       BoundingBox1  `json:"boundingBox"`
	TileMatrix        []TileMatrix1 `json:"tileMatrix"`
}

// TileMatrixSet1 returns the tile matrix set id (the same matrices as
// OGCTileMatrixSet) in the TMS 1.0 JSON encoding. An unknown id is an error.
func TileMatrixSet1(id string, maxZoom int) (*TileMatrixSet1Doc, error) {
	v2, err := matrixSet(id, maxZoom, "")
	if err != nil {
		return nil, err
	}
	d := &TileMatrixSet1Doc{
		Type: "TileMatrixSetType", Identifier: v2.ID, Title: v2.Title, SupportedCRS: v2.CRS,
		WellKnownScaleSet: v2.WellKnownScaleSet,
		BoundingBox: BoundingBox1{
			Type: "BoundingBoxType", CRS: v2.BoundingBox.CRS,
			LowerCorner: v2.BoundingBox.LowerLeft, UpperCorner: v2.BoundingBox.UpperRight,
		},
		TileMatrix: make([]TileMatrix1, 0, len(v2.TileMatrices)),
	}
	for _, m := range v2.TileMatrices {
		d.TileMatrix = append(d.TileMatrix, TileMatrix1{
			Type: "TileMatrixType", Identifier: m.ID, ScaleDenominator: m.ScaleDenominator,
			TopLeftCorner: m.PointOfOrigin, TileWidth: m.TileWidth, TileHeight: m.TileHeight,
			MatrixWidth: m.MatrixWidth, MatrixHeight: m.MatrixHeight,
		})
	}
	return d, nil
}
