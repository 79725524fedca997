package ogc

import (
	"bytes"
	"encoding/xml"
	"fmt"
)

// WMSOptions tunes the WMS capabilities documents.
type WMSOptions struct {
	// Title is the service title; "Tessera" when empty.
	Title string
	// MaxWidth and MaxHeight are the largest GetMap image in pixels
	// (written when > 0).
	MaxWidth, MaxHeight int
}

// WMSFormats are the GetMap image formats declared.
var WMSFormats = []string{"image/png", "image/jpeg", "image/webp"}

type wmsCapabilities struct {
	XMLName        xml.Name      `xml:"WMS_Capabilities"`
	XMLNS          string        `xml:"xmlns,attr"`
	XMLNSXLink     string        `xml:"xmlns:xlink,attr"`
	XMLNSXSI       string        `xml:"xmlns:xsi,attr"`
	SchemaLocation string        `xml:"xsi:schemaLocation,attr"`
	Version        string        `xml:"version,attr"`
	Service        wmsService    `xml:"Service"`
	Capability     wmsCapability `xml:"Capability"`
}

type wmsOnline struct {
	Type string `xml:"xlink:type,attr"`
	Href string `xml:"xlink:href,attr"`
}

type wmsService struct {
	Name           string    `xml:"Name"`
	Title          string    `xml:"Title"`
	OnlineResource wmsOnline `xml:"OnlineResource"`
	Fees           string    `xml:"Fees"`
	Access         string    `xml:"AccessConstraints"`
	MaxWidth       int       `xml:"MaxWidth,omitempty"`
	MaxHeight      int       `xml:"MaxHeight,omitempty"`
}

type wmsOperation struct {
	Formats []string  `xml:"Format"`
	Get     wmsOnline `xml:"DCPType>HTTP>Get>OnlineResource"`
}

type wmsCapability struct {
	GetCapabilities wmsOperation `xml:"Request>GetCapabilities"`
	GetMap          wmsOperation `xml:"Request>GetMap"`
	Exceptions      []string     `xml:"Exception>Format"`
	Layer           wmsLayer     `xml:"Layer"`
}

type wmsGeoBBox struct {
	West  string `xml:"westBoundLongitude"`
	East  string `xml:"eastBoundLongitude"`
	South string `xml:"southBoundLatitude"`
	North string `xml:"northBoundLatitude"`
}

type wmsBBox struct {
	CRS  string `xml:"CRS,attr"`
	MinX string `xml:"minx,attr"`
	MinY string `xml:"miny,attr"`
	MaxX string `xml:"maxx,attr"`
	MaxY string `xml:"maxy,attr"`
}

type wmsAttribution struct {
	Title string `xml:"Title"`
}

type wmsLayer struct {
	Queryable   int             `xml:"queryable,attr"`
	Opaque      int             `xml:"opaque,attr"`
	Name        string          `xml:"Name,omitempty"`
	Title       string          `xml:"Title"`
	Abstract    string          `xml:"Abstract,omitempty"`
	CRS         []string        `xml:"CRS,omitempty"`
	GeoBBox     wmsGeoBBox      `xml:"EX_GeographicBoundingBox"`
	BBoxes      []wmsBBox       `xml:"BoundingBox"`
	Attribution *wmsAttribution `xml:"Attribution,omitempty"`
	Layers      []wmsLayer      `xml:"Layer"`
}

// wmsCRS are the coordinate reference systems of every layer.
var wmsCRS = []string{"EPSG:3857", "EPSG:4326", "CRS:84"}

// wmsBoxes returns EX_GeographicBoundingBox and the BoundingBox elements of
// bounds. EPSG:4326 in WMS 1.3.0 has latitude first, so its minx/maxx are
// latitudes.
func wmsBoxes(b [4]float64) (wmsGeoBBox, []wmsBBox) {
	x0, y0 := lonLatToMercator(b[0], b[1])
	x1, y1 := lonLatToMercator(b[2], b[3])
	geo := wmsGeoBBox{West: fmtFloat(b[0]), East: fmtFloat(b[2]), South: fmtFloat(b[1]), North: fmtFloat(b[3])}
	return geo, []wmsBBox{
		{CRS: "CRS:84", MinX: fmtFloat(b[0]), MinY: fmtFloat(b[1]), MaxX: fmtFloat(b[2]), MaxY: fmtFloat(b[3])},
		{CRS: "EPSG:4326", MinX: fmtFloat(b[1]), MinY: fmtFloat(b[0]), MaxX: fmtFloat(b[3]), MaxY: fmtFloat(b[2])},
		{CRS: "EPSG:3857", MinX: fmtFloat(x0), MinY: fmtFloat(y0), MaxX: fmtFloat(x1), MaxY: fmtFloat(y1)},
	}
}

func (s source) wmsLayer() wmsLayer {
	geo, boxes := wmsBoxes(s.bounds)
	l := wmsLayer{Opaque: 1, Name: s.id, Title: s.title, Abstract: s.description, CRS: wmsCRS, GeoBBox: geo, BBoxes: boxes}
	if s.attribution != "" {
		l.Attribution = &wmsAttribution{Title: s.attribution}
	}
	return l
}

func wmsDocument(root wmsLayer, getMapPath string, e Endpoint, opt WMSOptions) ([]byte, error) {
	title := opt.Title
	if title == "" {
		title = "Tessera"
	}
	if opt.MaxWidth < 0 || opt.MaxHeight < 0 {
		return nil, fmt.Errorf("ogc: negative WMS size limit %dx%d", opt.MaxWidth, opt.MaxHeight)
	}
	online := wmsOnline{Type: "simple", Href: e.prefixURL(getMapPath)}
	c := wmsCapabilities{
		XMLNS: NSWMS, XMLNSXLink: NSXLink, XMLNSXSI: NSXSI,
		SchemaLocation: NSWMS + " http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd",
		Version:        "1.3.0",
		Service: wmsService{
			Name: "WMS", Title: title, OnlineResource: wmsOnline{Type: "simple", Href: e.URL("/")},
			Fees: "none", Access: "none", MaxWidth: opt.MaxWidth, MaxHeight: opt.MaxHeight,
		},
		Capability: wmsCapability{
			GetCapabilities: wmsOperation{Formats: []string{"text/xml"}, Get: online},
			GetMap:          wmsOperation{Formats: WMSFormats, Get: online},
			Exceptions:      []string{"XML"},
			Layer:           root,
		},
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("ogc: encode WMS capabilities: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// MapWMS returns the WMS 1.3.0 capabilities of one map (served at
// /maps/{id}/wms?service=WMS&request=GetCapabilities). The map is the root
// layer, named by its id; GetMap is declared at {base}/maps/{id}/wms?.
func MapWMS(m Map, e Endpoint, opt WMSOptions) ([]byte, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := m.source()
	if err != nil {
		return nil, err
	}
	if opt.Title == "" {
		opt.Title = s.title
	}
	return wmsDocument(s.wmsLayer(), s.prefix+"/wms", e, opt)
}

// AllMapsWMS returns the WMS 1.3.0 capabilities of all maps (served at
// /maps/wms?service=WMS&request=GetCapabilities): an unnamed root layer whose
// children are the maps, named by id; GetMap is at {base}/maps/wms?.
func AllMapsWMS(maps []Map, e Endpoint, opt WMSOptions) ([]byte, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	root := wmsLayer{Title: opt.Title, CRS: wmsCRS}
	if root.Title == "" {
		root.Title = "Tessera maps"
	}
	var union [4]float64
	seen := map[string]bool{}
	for i, m := range maps {
		s, err := m.source()
		if err != nil {
			return nil, err
		}
		if seen[s.id] {
			return nil, fmt.Errorf("ogc: WMS layer name %q used twice", s.id)
		}
		seen[s.id] = true
		if i == 0 {
			union = s.bounds
		} else {
			union = [4]float64{min(union[0], s.bounds[0]), min(union[1], s.bounds[1]), max(union[2], s.bounds[2]), max(union[3], s.bounds[3])}
		}
		child := s.wmsLayer()
		child.CRS = nil // inherited from the root layer (WMS 1.3.0, 7.2.4.8)
		root.Layers = append(root.Layers, child)
	}
	if len(maps) == 0 {
		union = normaliseBounds([4]float64{})
	}
	root.GeoBBox, root.BBoxes = wmsBoxes(union)
	return wmsDocument(root, "/maps/wms", e, opt)
}
