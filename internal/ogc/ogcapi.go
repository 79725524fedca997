package ogc

import (
	"slices"
	"strconv"
)

// URIs of the OGC definitions used in the documents.
const (
	CRS3857URI          = "http://www.opengis.net/def/crs/EPSG/0/3857"
	CRS84URI            = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
	WebMercatorQuadURI  = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"
	GoogleMapsWKSSURI   = "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible"
	RelTilingScheme     = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"
	WebMercatorQuadID   = "WebMercatorQuad"
	tmsStandardMaxZoom  = 24
	tileJSONMediaType   = "application/json"
	ogcJSONMediaType    = "application/json"
	confTilesPrefix     = "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/"
	confTMSPrefix       = "http://www.opengis.net/spec/tms/2.0/conf/"
	webMercatorQuadName = "Google Maps Compatible for the World"
)

// Link is an OGC API link object.
type Link struct {
	Href      string `json:"href"`
	Rel       string `json:"rel"`
	Type      string `json:"type,omitempty"`
	Title     string `json:"title,omitempty"`
	Templated bool   `json:"templated,omitempty"`
}

// TileMatrixLimits bounds the tiles of one zoom level (tileMatrix).
type TileMatrixLimits struct {
	TileMatrix string `json:"tileMatrix"`
	MinTileRow int    `json:"minTileRow"`
	MaxTileRow int    `json:"maxTileRow"`
	MinTileCol int    `json:"minTileCol"`
	MaxTileCol int    `json:"maxTileCol"`
}

// BoundingBox is a 2D bounding box of OGC TMS 2.0.
type BoundingBox struct {
	LowerLeft  [2]float64 `json:"lowerLeft"`
	UpperRight [2]float64 `json:"upperRight"`
	CRS        string     `json:"crs,omitempty"`
}

// CenterPoint is the suggested initial view of a tileset.
type CenterPoint struct {
	Coordinates [2]float64 `json:"coordinates"`
	TileMatrix  string     `json:"tileMatrix,omitempty"`
	CRS         string     `json:"crs,omitempty"`
}

// GeospatialData describes one vector layer of a tileset.
type GeospatialData struct {
	ID               string          `json:"id"`
	Title            string          `json:"title,omitempty"`
	Description      string          `json:"description,omitempty"`
	DataType         string          `json:"dataType"`
	MinTileMatrix    string          `json:"minTileMatrix,omitempty"`
	MaxTileMatrix    string          `json:"maxTileMatrix,omitempty"`
	PropertiesSchema *PropertySchema `json:"propertiesSchema,omitempty"`
}

// PropertySchema is the JSON-Schema-like description of a layer's properties.
type PropertySchema struct {
	Type       string                    `json:"type"`
	Properties map[string]PropertySchema `json:"properties,omitempty"`
	// Description holds the TileJSON field description (often its type name).
	Description string `json:"description,omitempty"`
}

// TileSetDoc is the OGC API - Tiles 1.0 tileset metadata document (OGC TMS
// 2.0 TileSetMetadata JSON encoding).
type TileSetDoc struct {
	Title               string             `json:"title"`
	Description         string             `json:"description,omitempty"`
	Attribution         string             `json:"attribution,omitempty"`
	DataType            string             `json:"dataType"`
	CRS                 string             `json:"crs"`
	TileMatrixSetURI    string             `json:"tileMatrixSetURI,omitempty"`
	Links               []Link             `json:"links"`
	TileMatrixSetLimits []TileMatrixLimits `json:"tileMatrixSetLimits"`
	Layers              []GeospatialData   `json:"layers,omitempty"`
	BoundingBox         BoundingBox        `json:"boundingBox"`
	CenterPoint         CenterPoint        `json:"centerPoint"`
	MediaTypes          []string           `json:"mediaTypes"`
}

// TileMatrix is one zoom level of a tile matrix set.
type TileMatrix struct {
	ID               string     `json:"id"`
	ScaleDenominator float64    `json:"scaleDenominator"`
	CellSize         float64    `json:"cellSize"`
	CornerOfOrigin   string     `json:"cornerOfOrigin"`
	PointOfOrigin    [2]float64 `json:"pointOfOrigin"`
	TileWidth        int        `json:"tileWidth"`
	TileHeight       int        `json:"tileHeight"`
	MatrixWidth      int64      `json:"matrixWidth"`
	MatrixHeight     int64      `json:"matrixHeight"`
}

// TileMatrixSetDoc is the OGC TMS 2.0 JSON tile matrix set definition.
type TileMatrixSetDoc struct {
	ID                string       `json:"id"`
	Title             string       `json:"title"`
	URI               string       `json:"uri,omitempty"`
	CRS               string       `json:"crs"`
	OrderedAxes       []string     `json:"orderedAxes"`
	WellKnownScaleSet string       `json:"wellKnownScaleSet,omitempty"`
	BoundingBox       BoundingBox  `json:"boundingBox"`
	TileMatrices      []TileMatrix `json:"tileMatrices"`
	Links             []Link       `json:"links,omitempty"`
}

func (s source) limits() []TileMatrixLimits {
	out := make([]TileMatrixLimits, 0, s.maxZoom-s.minZoom+1)
	for z := s.minZoom; z <= s.maxZoom; z++ {
		c0, c1, r0, r1 := tileRange(s.bounds, z)
		out = append(out, TileMatrixLimits{TileMatrix: strconv.Itoa(z), MinTileRow: r0, MaxTileRow: r1, MinTileCol: c0, MaxTileCol: c1})
	}
	return out
}

func (s source) tileSetDoc(e Endpoint) *TileSetDoc {
	d := &TileSetDoc{
		Title:            s.title,
		Description:      s.description,
		Attribution:      s.attribution,
		DataType:         "map",
		CRS:              CRS3857URI,
		TileMatrixSetURI: WebMercatorQuadURI,
		Links: []Link{
			{Href: e.URL(s.prefix + "/tiles"), Rel: "self", Type: ogcJSONMediaType, Title: "This tileset"},
			{Href: e.URL(s.prefix + "/tileMatrixSet"), Rel: RelTilingScheme, Type: ogcJSONMediaType, Title: "WebMercatorQuad tile matrix set"},
			{Href: e.URL(s.ogcTilePrefix + "/{tileMatrix}/{tileCol}/{tileRow}." + s.ext), Rel: "item", Type: s.mime, Title: s.title + " tiles", Templated: true},
			{Href: e.URL(s.prefix + "/WMTSCapabilities.xml"), Rel: "alternate", Type: "application/xml", Title: "WMTS capabilities"},
		},
		TileMatrixSetLimits: s.limits(),
		BoundingBox: BoundingBox{
			LowerLeft: [2]float64{s.bounds[0], s.bounds[1]}, UpperRight: [2]float64{s.bounds[2], s.bounds[3]}, CRS: CRS84URI,
		},
		CenterPoint: CenterPoint{
			Coordinates: [2]float64{s.center[0], s.center[1]}, TileMatrix: strconv.Itoa(int(s.center[2])), CRS: CRS84URI,
		},
		MediaTypes: []string{s.mime},
	}
	if s.vector {
		d.DataType = "vector"
		d.Links = append(d.Links, Link{Href: e.URL(s.prefix + "/tiles.json"), Rel: "describedby", Type: tileJSONMediaType, Title: "TileJSON"})
		for _, l := range parseVectorLayers(s.vectorLayers) {
			g := GeospatialData{ID: l.ID, Title: l.ID, Description: l.Description, DataType: "vector"}
			minZ, maxZ := s.minZoom, s.maxZoom
			if l.MinZoom != nil && *l.MinZoom >= 0 && *l.MinZoom <= MaxZoomLimit {
				minZ = max(minZ, *l.MinZoom)
			}
			if l.MaxZoom != nil && *l.MaxZoom >= 0 && *l.MaxZoom <= MaxZoomLimit {
				maxZ = min(maxZ, *l.MaxZoom)
			}
			if minZ <= maxZ {
				g.MinTileMatrix, g.MaxTileMatrix = strconv.Itoa(minZ), strconv.Itoa(maxZ)
			}
			if len(l.Fields) > 0 {
				ps := &PropertySchema{Type: "object", Properties: map[string]PropertySchema{}}
				for name, v := range l.Fields {
					ps.Properties[name] = fieldSchema(v)
				}
				g.PropertiesSchema = ps
			}
			d.Layers = append(d.Layers, g)
		}
	} else {
		d.Links = append(d.Links, Link{Href: e.URL(s.ogcTilePrefix + "/tiles.json"), Rel: "describedby", Type: tileJSONMediaType, Title: "TileJSON"})
	}
	return d
}

// fieldSchema maps a TileJSON field description ("String", "Number",
// "Boolean" or free text) to a property schema.
func fieldSchema(v any) PropertySchema {
	desc, _ := v.(string)
	switch desc {
	case "String", "string":
		return PropertySchema{Type: "string"}
	case "Number", "number":
		return PropertySchema{Type: "number"}
	case "Boolean", "boolean":
		return PropertySchema{Type: "boolean"}
	}
	return PropertySchema{Type: "string", Description: desc}
}

// OGCTileSet returns the OGC API - Tiles tileset metadata document of a
// tileset (served at /tiles/{id}/tiles). Raster tilesets of 512 px tiles keep
// the WebMercatorQuad indices (the tile of zoom z covers the same area as the
// 256 px one), so clients receive larger images of the same tiles.
func OGCTileSet(ts TileSet, e Endpoint) (*TileSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	return s.tileSetDoc(e), nil
}

// OGCMap returns the OGC API - Tiles tileset metadata document of a map
// (served at /maps/{id}/tiles); its tiles are the 256 px ones.
func OGCMap(m Map, e Endpoint) (*TileSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := m.source()
	if err != nil {
		return nil, err
	}
	return s.tileSetDoc(e), nil
}

// WebMercatorQuad returns the WebMercatorQuad tile matrix set with 256 px
// tiles and zoom levels 0..max(24, maxZoom) (maxZoom capped at MaxZoomLimit).
// selfURL, when not empty, is written as the "self" link.
func WebMercatorQuad(maxZoom int, selfURL string) *TileMatrixSetDoc {
	top := max(tmsStandardMaxZoom, min(maxZoom, MaxZoomLimit))
	d := &TileMatrixSetDoc{
		ID:                WebMercatorQuadID,
		Title:             webMercatorQuadName,
		URI:               WebMercatorQuadURI,
		CRS:               CRS3857URI,
		OrderedAxes:       []string{"X", "Y"},
		WellKnownScaleSet: GoogleMapsWKSSURI,
		BoundingBox: BoundingBox{
			LowerLeft: [2]float64{-OriginShift, -OriginShift}, UpperRight: [2]float64{OriginShift, OriginShift}, CRS: CRS3857URI,
		},
	}
	for z := 0; z <= top; z++ {
		n := int64(1) << z
		d.TileMatrices = append(d.TileMatrices, TileMatrix{
			ID: strconv.Itoa(z), ScaleDenominator: ScaleDenominator(z, 256), CellSize: CellSize(z, 256),
			CornerOfOrigin: "topLeft", PointOfOrigin: [2]float64{-OriginShift, OriginShift},
			TileWidth: 256, TileHeight: 256, MatrixWidth: n, MatrixHeight: n,
		})
	}
	if selfURL != "" {
		d.Links = []Link{{Href: selfURL, Rel: "self", Type: ogcJSONMediaType, Title: "This tile matrix set"}}
	}
	return d
}

// TileSetMatrixSet returns the tile matrix set document of a tileset (served
// at /tiles/{id}/tileMatrixSet).
func TileSetMatrixSet(ts TileSet, e Endpoint) (*TileMatrixSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	return WebMercatorQuad(s.maxZoom, e.URL(s.prefix+"/tileMatrixSet")), nil
}

// MapMatrixSet returns the tile matrix set document of a map (served at
// /maps/{id}/tileMatrixSet).
func MapMatrixSet(m Map, e Endpoint) (*TileMatrixSetDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := m.source()
	if err != nil {
		return nil, err
	}
	return WebMercatorQuad(s.maxZoom, e.URL(s.prefix+"/tileMatrixSet")), nil
}

// ConformanceDoc is the body of /ogc/conformance.
type ConformanceDoc struct {
	ConformsTo []string `json:"conformsTo"`
}

// Conformance declares the OGC conformance classes Tessera implements.
//
// Declared: OGC API - Tiles core (templated tile links, 204 for empty
// tiles), tileset (tileset metadata at /tiles/{id}/tiles, /maps/{id}/tiles
// and /ogc/collections/{id}/tiles/WebMercatorQuad), tilesets-list (the list
// at /ogc/collections/{id}/tiles) and geodata-tilesets (tilesets of the
// collections under /ogc/collections); OGC API - Common - Part 2 collections
// (/ogc/collections and /ogc/collections/{id} with extent and links); OGC TMS
// 2.0 tile matrix set, tile matrix set limits and tileset metadata with their
// JSON encodings; and one encoding class per tile format actually served
// (formats: pbf/mvt -> mvt, png -> png, jpg/jpeg -> jpeg; webp has no OGC
// class). Not declared: OGC API - Common - Part 1 core and landing-page (the
// landing page at /ogc has no link to an API definition: no OpenAPI document
// is served), dataset-tilesets (no /ogc/tiles), OpenAPI.
func Conformance(formats ...string) *ConformanceDoc {
	out := []string{
		confTilesPrefix + "core",
		confTilesPrefix + "tileset",
		confTilesPrefix + "tilesets-list",
		confTilesPrefix + "geodata-tilesets",
		confCommon2Prefix + "collections",
		confTMSPrefix + "tilematrixset",
		confTMSPrefix + "json-tilematrixset",
		confTMSPrefix + "tilematrixsetlimits",
		confTMSPrefix + "json-tilematrixsetlimits",
		confTMSPrefix + "tilesetmetadata",
		confTMSPrefix + "json-tilesetmetadata",
	}
	for _, f := range formats {
		var c string
		switch f {
		case "pbf", "mvt":
			c = confTilesPrefix + "mvt"
		case "png":
			c = confTilesPrefix + "png"
		case "jpg", "jpeg":
			c = confTilesPrefix + "jpeg"
		default:
			continue
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return &ConformanceDoc{ConformsTo: out}
}
