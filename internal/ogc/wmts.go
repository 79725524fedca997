package ogc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// Namespaces of the capabilities documents.
const (
	NSWMTS  = "http://www.opengis.net/wmts/1.0"
	NSOWS   = "http://www.opengis.net/ows/1.1"
	NSXLink = "http://www.w3.org/1999/xlink"
	NSXSI   = "http://www.w3.org/2001/XMLSchema-instance"
	NSWMS   = "http://www.opengis.net/wms"
)

// Identifiers of the WMTS tile matrix sets.
const (
	// WMTSSet256 is the well-known GoogleMapsCompatible set (256 px tiles).
	WMTSSet256 = "GoogleMapsCompatible"
	// WMTSSet512 is the same quad tree with 512 px tiles (one zoom level
	// finer pixels): tile z/x/y covers the area of the 256 px tile z/x/y.
	WMTSSet512 = "GoogleMapsCompatible_512"
)

// WMTSOptions tunes the WMTS capabilities documents.
type WMTSOptions struct {
	// Title is the service title; "Tessera" when empty.
	Title string
	// KVPPath, when not empty, declares KVP GetCapabilities and GetTile at
	// {base}{KVPPath}? (e.g. "/wmts"): set it only if that endpoint is served.
	KVPPath string
}

type xText struct {
	Text string `xml:",chardata"`
}

type wmtsCapabilities struct {
	XMLName        xml.Name          `xml:"Capabilities"`
	XMLNS          string            `xml:"xmlns,attr"`
	XMLNSOWS       string            `xml:"xmlns:ows,attr"`
	XMLNSXLink     string            `xml:"xmlns:xlink,attr"`
	XMLNSXSI       string            `xml:"xmlns:xsi,attr"`
	SchemaLocation string            `xml:"xsi:schemaLocation,attr"`
	Version        string            `xml:"version,attr"`
	Service        owsServiceIdent   `xml:"ows:ServiceIdentification"`
	Operations     *owsOperationsMD  `xml:"ows:OperationsMetadata,omitempty"`
	Contents       wmtsContents      `xml:"Contents"`
	ServiceMD      wmtsServiceMDLink `xml:"ServiceMetadataURL"`
}

type owsServiceIdent struct {
	Title              string `xml:"ows:Title"`
	ServiceType        string `xml:"ows:ServiceType"`
	ServiceTypeVersion string `xml:"ows:ServiceTypeVersion"`
}

type owsOperationsMD struct {
	Operations []owsOperation `xml:"ows:Operation"`
}

type owsOperation struct {
	Name string   `xml:"name,attr"`
	Gets []owsGet `xml:"ows:DCP>ows:HTTP>ows:Get"`
}

type owsGet struct {
	Href       string        `xml:"xlink:href,attr"`
	Constraint owsConstraint `xml:"ows:Constraint"`
}

type owsConstraint struct {
	Name   string   `xml:"name,attr"`
	Values []string `xml:"ows:AllowedValues>ows:Value"`
}

type wmtsContents struct {
	Layers []wmtsLayer         `xml:"Layer"`
	Sets   []wmtsTileMatrixSet `xml:"TileMatrixSet"`
}

type owsBBox struct {
	CRS   string `xml:"crs,attr,omitempty"`
	Lower string `xml:"ows:LowerCorner"`
	Upper string `xml:"ows:UpperCorner"`
}

type wmtsLayer struct {
	Title      string             `xml:"ows:Title"`
	Abstract   string             `xml:"ows:Abstract,omitempty"`
	WGS84BBox  owsBBox            `xml:"ows:WGS84BoundingBox"`
	Identifier string             `xml:"ows:Identifier"`
	Style      wmtsStyle          `xml:"Style"`
	Format     string             `xml:"Format"`
	SetLink    wmtsTileMatrixLink `xml:"TileMatrixSetLink"`
	Resource   wmtsResourceURL    `xml:"ResourceURL"`
}

type wmtsStyle struct {
	IsDefault  bool   `xml:"isDefault,attr"`
	Identifier string `xml:"ows:Identifier"`
}

type wmtsTileMatrixLink struct {
	Set    string            `xml:"TileMatrixSet"`
	Limits []wmtsMatrixLimit `xml:"TileMatrixSetLimits>TileMatrixLimits"`
}

type wmtsMatrixLimit struct {
	TileMatrix string `xml:"TileMatrix"`
	MinTileRow int    `xml:"MinTileRow"`
	MaxTileRow int    `xml:"MaxTileRow"`
	MinTileCol int    `xml:"MinTileCol"`
	MaxTileCol int    `xml:"MaxTileCol"`
}

type wmtsResourceURL struct {
	Format       string `xml:"format,attr"`
	ResourceType string `xml:"resourceType,attr"`
	Template     string `xml:"template,attr"`
}

type wmtsTileMatrixSet struct {
	Identifier   string           `xml:"ows:Identifier"`
	BBox         owsBBox          `xml:"ows:BoundingBox"`
	SupportedCRS string           `xml:"ows:SupportedCRS"`
	WellKnown    string           `xml:"WellKnownScaleSet,omitempty"`
	Matrices     []wmtsTileMatrix `xml:"TileMatrix"`
}

type wmtsTileMatrix struct {
	Identifier       string `xml:"ows:Identifier"`
	ScaleDenominator string `xml:"ScaleDenominator"`
	TopLeftCorner    string `xml:"TopLeftCorner"`
	TileWidth        int    `xml:"TileWidth"`
	TileHeight       int    `xml:"TileHeight"`
	MatrixWidth      int64  `xml:"MatrixWidth"`
	MatrixHeight     int64  `xml:"MatrixHeight"`
}

type wmtsServiceMDLink struct {
	Href string `xml:"xlink:href,attr"`
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func pair(a, b float64) string { return fmtFloat(a) + " " + fmtFloat(b) }

// wmtsMatrixSet builds a WebMercator quad set of tileSize px tiles for zoom
// levels 0..maxZoom.
func wmtsMatrixSet(tileSize, maxZoom int) wmtsTileMatrixSet {
	set := wmtsTileMatrixSet{
		Identifier:   WMTSSet256,
		BBox:         owsBBox{CRS: "urn:ogc:def:crs:EPSG::3857", Lower: pair(-OriginShift, -OriginShift), Upper: pair(OriginShift, OriginShift)},
		SupportedCRS: "urn:ogc:def:crs:EPSG::3857",
		WellKnown:    "urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible",
	}
	if tileSize == 512 {
		set.Identifier = WMTSSet512
		set.WellKnown = ""
	}
	for z := 0; z <= maxZoom; z++ {
		n := int64(1) << z
		set.Matrices = append(set.Matrices, wmtsTileMatrix{
			Identifier:       strconv.Itoa(z),
			ScaleDenominator: fmtFloat(ScaleDenominator(z, tileSize)),
			TopLeftCorner:    pair(-OriginShift, OriginShift),
			TileWidth:        tileSize, TileHeight: tileSize, MatrixWidth: n, MatrixHeight: n,
		})
	}
	return set
}

func (s source) wmtsLayer(identifier, setID, tilePrefix string, e Endpoint) wmtsLayer {
	l := wmtsLayer{
		Title:      s.title,
		Abstract:   s.description,
		WGS84BBox:  owsBBox{CRS: "urn:ogc:def:crs:OGC:2:84", Lower: pair(s.bounds[0], s.bounds[1]), Upper: pair(s.bounds[2], s.bounds[3])},
		Identifier: identifier,
		Style:      wmtsStyle{IsDefault: true, Identifier: "default"},
		Format:     s.mime,
		SetLink:    wmtsTileMatrixLink{Set: setID},
		Resource: wmtsResourceURL{
			Format: s.mime, ResourceType: "tile",
			Template: e.URL(tilePrefix + "/{TileMatrix}/{TileCol}/{TileRow}." + s.ext),
		},
	}
	for _, lim := range s.limits() {
		l.SetLink.Limits = append(l.SetLink.Limits, wmtsMatrixLimit(lim))
	}
	return l
}

func wmtsDocument(title string, layers []wmtsLayer, sets []wmtsTileMatrixSet, selfURL string, e Endpoint, opt WMTSOptions) ([]byte, error) {
	if title == "" {
		title = "Tessera"
	}
	c := wmtsCapabilities{
		XMLNS: NSWMTS, XMLNSOWS: NSOWS, XMLNSXLink: NSXLink, XMLNSXSI: NSXSI,
		SchemaLocation: NSWMTS + " http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd",
		Version:        "1.0.0",
		Service:        owsServiceIdent{Title: title, ServiceType: "OGC WMTS", ServiceTypeVersion: "1.0.0"},
		Contents:       wmtsContents{Layers: layers, Sets: sets},
		ServiceMD:      wmtsServiceMDLink{Href: selfURL},
	}
	if opt.KVPPath != "" {
		if opt.KVPPath[0] != '/' {
			return nil, fmt.Errorf("ogc: WMTS KVP path %q must start with '/'", opt.KVPPath)
		}
		kvp := e.prefixURL(opt.KVPPath)
		c.Operations = &owsOperationsMD{Operations: []owsOperation{
			{Name: "GetCapabilities", Gets: []owsGet{
				{Href: selfURL, Constraint: owsConstraint{Name: "GetEncoding", Values: []string{"RESTful"}}},
				{Href: kvp, Constraint: owsConstraint{Name: "GetEncoding", Values: []string{"KVP"}}},
			}},
			{Name: "GetTile", Gets: []owsGet{
				{Href: kvp, Constraint: owsConstraint{Name: "GetEncoding", Values: []string{"KVP"}}},
			}},
		}}
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("ogc: encode WMTS capabilities: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// TileSetWMTS returns the WMTS 1.0.0 capabilities of one tileset (served at
// /tiles/{id}/WMTSCapabilities.xml), with a RESTful ResourceURL template
// {base}/tiles/{id}/{TileMatrix}/{TileCol}/{TileRow}.{ext}. The layer
// identifier is the tileset id; 512 px raster tilesets use the
// GoogleMapsCompatible_512 set, others GoogleMapsCompatible.
func TileSetWMTS(ts TileSet, e Endpoint, opt WMTSOptions) ([]byte, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	size := 256
	if s.tileSize == 512 {
		size = 512
	}
	set := wmtsMatrixSet(size, s.maxZoom)
	layer := s.wmtsLayer(s.id, set.Identifier, s.prefix, e)
	title := opt.Title
	if title == "" {
		title = s.title
	}
	return wmtsDocument(title, []wmtsLayer{layer}, []wmtsTileMatrixSet{set}, e.URL(s.prefix+"/WMTSCapabilities.xml"), e, opt)
}

// MapWMTS returns the WMTS capabilities of one map (served at
// /maps/{id}/WMTSCapabilities.xml). See AllMapsWMTS for the layers.
func MapWMTS(m Map, e Endpoint, opt WMTSOptions) ([]byte, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := m.source()
	if err != nil {
		return nil, err
	}
	title := opt.Title
	if title == "" {
		title = s.title
	}
	return mapsWMTS([]source{s}, title, e.URL(s.prefix+"/WMTSCapabilities.xml"), e, opt)
}

// AllMapsWMTS returns the WMTS capabilities of all maps (served at
// /WMTSCapabilities.xml). Each map gives two layers: "{id}" with 256 px tiles
// ({base}/maps/{id}/256/{z}/{x}/{y}.{ext}, set GoogleMapsCompatible) and
// "{id}_512" with 512 px tiles ({base}/maps/{id}/{z}/{x}/{y}.{ext}, set
// GoogleMapsCompatible_512). An empty list is valid (no layers).
func AllMapsWMTS(maps []Map, e Endpoint, opt WMTSOptions) ([]byte, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	srcs := make([]source, 0, len(maps))
	for _, m := range maps {
		s, err := m.source()
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	return mapsWMTS(srcs, opt.Title, e.URL("/WMTSCapabilities.xml"), e, opt)
}

func mapsWMTS(srcs []source, title, selfURL string, e Endpoint, opt WMTSOptions) ([]byte, error) {
	seen := map[string]bool{}
	maxZ := 0
	var layers []wmtsLayer
	for _, s := range srcs {
		if seen[s.id] || seen[s.id+"_512"] {
			return nil, fmt.Errorf("ogc: WMTS layer identifier %q used twice", s.id)
		}
		seen[s.id], seen[s.id+"_512"] = true, true
		maxZ = max(maxZ, s.maxZoom)
		layers = append(layers,
			s.wmtsLayer(s.id, WMTSSet256, s.prefix+"/256", e),
			s.wmtsLayer(s.id+"_512", WMTSSet512, s.prefix, e))
		layers[len(layers)-1].Title += " (512 px tiles)"
	}
	if len(srcs) == 0 {
		layers = []wmtsLayer{}
	}
	sets := []wmtsTileMatrixSet{wmtsMatrixSet(256, maxZ), wmtsMatrixSet(512, maxZ)}
	return wmtsDocument(title, layers, sets, selfURL, e, opt)
}
