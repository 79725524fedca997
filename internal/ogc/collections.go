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
	TileMatrixSetURI string `json:"tileMatrixSetURI"`
	Links            []Link `json:"links"`
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
func tilingSchemeLinks(e Endpoint) []Link {
	p := OGCPrefix + "/tileMatrixSets/" + WebMercatorQuadID
	return []Link{
		{Href: e.URL(p), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: "WebMercatorQuad tile matrix set (OGC TMS 2.0 JSON)"},
		{Href: withParam(e.URL(p), "f="+TMS1Format), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: "WebMercatorQuad tile matrix set (OGC TMS 1.0 JSON, OGC 17-083r2)"},
	}
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
	ref := TileSetRef{
		Title: s.title + " (WebMercatorQuad)", DataType: s.dataType(), CRS: CRS3857URI, TileMatrixSetURI: WebMercatorQuadURI,
		Links: append([]Link{{Href: e.URL(c + "/tiles/" + WebMercatorQuadID), Rel: "self", Type: ogcJSONMediaType, Title: "WebMercatorQuad tileset"}},
			tilingSchemeLinks(e)...),
	}
	return &TileSetsDoc{
		Links: []Link{
			{Href: e.URL(c + "/tiles"), Rel: "self", Type: ogcJSONMediaType, Title: "Tilesets of " + s.title},
			{Href: e.URL(c), Rel: "collection", Type: ogcJSONMediaType, Title: s.title},
		},
		TileSets: []TileSetRef{ref},
	}, nil
}

// OGCCollectionTileSet returns the WebMercatorQuad tileset of a tileset's
// collection (/ogc/collections/{id}/tiles/WebMercatorQuad): the document of
// /tiles/{id}/tiles with links into the /ogc tree (self, the collection and
// the shared tile matrix set in both JSON encodings). The tile template is
// the same.
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
	links := []Link{
		{Href: e.URL(c + "/tiles/" + WebMercatorQuadID), Rel: "self", Type: ogcJSONMediaType, Title: "This tileset"},
		{Href: e.URL(c), Rel: "collection", Type: ogcJSONMediaType, Title: s.title},
	}
	links = append(links, tilingSchemeLinks(e)...)
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

// TileMatrixSets returns the list of tile matrix sets: WebMercatorQuad.
func TileMatrixSets(e Endpoint) (*TileMatrixSetsDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	return &TileMatrixSetsDoc{
		Links: []Link{{Href: e.URL(OGCPrefix + "/tileMatrixSets"), Rel: "self", Type: ogcJSONMediaType, Title: "Tile matrix sets"}},
		TileMatrixSets: []TileMatrixSetRef{{
			ID: WebMercatorQuadID, Title: webMercatorQuadName, URI: WebMercatorQuadURI,
			Links: []Link{{Href: e.URL(OGCPrefix + "/tileMatrixSets/" + WebMercatorQuadID), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: "WebMercatorQuad"}},
		}},
	}, nil
}

// OGCWebMercatorQuad returns the shared WebMercatorQuad definition
// (/ogc/tileMatrixSets/WebMercatorQuad) in the OGC TMS 2.0 JSON encoding,
// zoom levels 0..max(24, maxZoom), with a link to its TMS 1.0 encoding.
func OGCWebMercatorQuad(maxZoom int, e Endpoint) (*TileMatrixSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	p := OGCPrefix + "/tileMatrixSets/" + WebMercatorQuadID
	d := WebMercatorQuad(maxZoom, e.URL(p))
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
	WellKnownScaleSet string        `json:"wellKnownScaleSet"`
	BoundingBox       BoundingBox1  `json:"boundingBox"`
	TileMatrix        []TileMatrix1 `json:"tileMatrix"`
}

// WebMercatorQuad1 returns the WebMercatorQuad tile matrix set (the same
// matrices as WebMercatorQuad(maxZoom, "")) in the TMS 1.0 JSON encoding.
func WebMercatorQuad1(maxZoom int) *TileMatrixSet1Doc {
	v2 := WebMercatorQuad(maxZoom, "")
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
	return d
}
