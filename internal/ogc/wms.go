package ogc

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// WMSOptions tunes the WMS capabilities documents.
type WMSOptions struct {
	// Title is the service title; "Tessera" when empty.
	Title string
	// MaxWidth and MaxHeight are the largest GetMap image in pixels
	// (written when > 0; WMS 1.1.1 has no place for them).
	MaxWidth, MaxHeight int
	// Version is the version of the document: WMS130 (also when empty)
	// or WMS111 (see WMSCapabilitiesVersion).
	Version string
}

// WMSCapabilitiesVersion negotiates the version of a GetCapabilities
// answer from the VERSION (or WMTVER) the client asked for, as WMS 1.3.0
// (6.2.4) and 1.1.1 (6.2.4) say: none asked, 1.3.0 or later: 1.3.0;
// anything earlier: 1.1.1 (the highest served version below it, or the
// lowest served one).
func WMSCapabilitiesVersion(q url.Values) string {
	p := wmsParams(q)
	v, ok := p["version"]
	if !ok || v == "" {
		v = p["wmtver"]
	}
	if v == "" || compareVersions(v, WMS130) >= 0 {
		return WMS130
	}
	return WMS111
}

// compareVersions compares dotted version numbers ("1.1.1" < "1.3.0");
// a part that is not a number counts as 0.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return 0
}

// WMSCapabilitiesType is the media type of the capabilities of a version:
// WMS 1.1.1 (7.1.3) names application/vnd.ogc.wms_xml, 1.3.0 text/xml.
func WMSCapabilitiesType(version string) string {
	if version == WMS111 {
		return "application/vnd.ogc.wms_xml"
	}
	return "text/xml; charset=utf-8"
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
	var doc any
	switch opt.Version {
	case "", WMS130:
		doc = wmsCapabilities{
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
	case WMS111:
		doc = wms111Capabilities{
			Version: WMS111,
			Service: wms111Service{
				Name: "OGC:WMS", Title: title, OnlineResource: wms111Online{XMLNSXLink: NSXLink, Type: "simple", Href: e.URL("/")},
				Fees: "none", Access: "none",
			},
			Capability: wms111Capability{
				GetCapabilities: wms111Operation{Formats: []string{WMSCapabilitiesType(WMS111)}, Get: wms111Online{XMLNSXLink: NSXLink, Type: "simple", Href: online.Href}},
				GetMap:          wms111Operation{Formats: WMSFormats, Get: wms111Online{XMLNSXLink: NSXLink, Type: "simple", Href: online.Href}},
				Exceptions:      []string{"application/vnd.ogc.se_xml"},
				Layer:           root.wms111(),
			},
		}
	default:
		return nil, fmt.Errorf("ogc: WMS version %q is not served", opt.Version)
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	if opt.Version == WMS111 {
		buf.WriteString(`<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd">` + "\n")
	}
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("ogc: encode WMS capabilities: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// MapWMS returns the WMS 1.3.0 (or opt.Version) capabilities of one map (served at
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

// AllMapsWMS returns the WMS 1.3.0 (or opt.Version) capabilities of all maps (served at
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

// WMS 1.1.1 capabilities (WMT_MS_Capabilities, no namespace; EPSG:4326
// has longitude first; SRS instead of CRS; LatLonBoundingBox).
type wms111Capabilities struct {
	XMLName    xml.Name         `xml:"WMT_MS_Capabilities"`
	Version    string           `xml:"version,attr"`
	Service    wms111Service    `xml:"Service"`
	Capability wms111Capability `xml:"Capability"`
}

type wms111Online struct {
	XMLNSXLink string `xml:"xmlns:xlink,attr"`
	Type       string `xml:"xlink:type,attr"`
	Href       string `xml:"xlink:href,attr"`
}

type wms111Service struct {
	Name           string       `xml:"Name"`
	Title          string       `xml:"Title"`
	OnlineResource wms111Online `xml:"OnlineResource"`
	Fees           string       `xml:"Fees"`
	Access         string       `xml:"AccessConstraints"`
}

type wms111Operation struct {
	Formats []string     `xml:"Format"`
	Get     wms111Online `xml:"DCPType>HTTP>Get>OnlineResource"`
}

type wms111Capability struct {
	GetCapabilities wms111Operation `xml:"Request>GetCapabilities"`
	GetMap          wms111Operation `xml:"Request>GetMap"`
	Exceptions      []string        `xml:"Exception>Format"`
	Layer           wms111Layer     `xml:"Layer"`
}

type wms111LatLonBBox struct {
	MinX string `xml:"minx,attr"`
	MinY string `xml:"miny,attr"`
	MaxX string `xml:"maxx,attr"`
	MaxY string `xml:"maxy,attr"`
}

type wms111BBox struct {
	SRS  string `xml:"SRS,attr"`
	MinX string `xml:"minx,attr"`
	MinY string `xml:"miny,attr"`
	MaxX string `xml:"maxx,attr"`
	MaxY string `xml:"maxy,attr"`
}

type wms111Layer struct {
	Queryable   int              `xml:"queryable,attr"`
	Opaque      int              `xml:"opaque,attr"`
	Name        string           `xml:"Name,omitempty"`
	Title       string           `xml:"Title"`
	Abstract    string           `xml:"Abstract,omitempty"`
	SRS         []string         `xml:"SRS,omitempty"`
	LatLon      wms111LatLonBBox `xml:"LatLonBoundingBox"`
	BBoxes      []wms111BBox     `xml:"BoundingBox"`
	Attribution *wmsAttribution  `xml:"Attribution,omitempty"`
	Layers      []wms111Layer    `xml:"Layer"`
}

// wms111 turns a WMS 1.3.0 layer into its WMS 1.1.1 form: CRS:84 (a 1.3.0
// name) is left out; EPSG:4326 keeps longitude first.
func (l wmsLayer) wms111() wms111Layer {
	out := wms111Layer{Queryable: l.Queryable, Opaque: l.Opaque, Name: l.Name, Title: l.Title, Abstract: l.Abstract, Attribution: l.Attribution,
		LatLon: wms111LatLonBBox{MinX: l.GeoBBox.West, MinY: l.GeoBBox.South, MaxX: l.GeoBBox.East, MaxY: l.GeoBBox.North}}
	for _, c := range l.CRS {
		if c != "CRS:84" {
			out.SRS = append(out.SRS, c)
		}
	}
	for _, b := range l.BBoxes {
		switch b.CRS {
		case "EPSG:4326":
			out.BBoxes = append(out.BBoxes, wms111BBox{SRS: b.CRS, MinX: b.MinY, MinY: b.MinX, MaxX: b.MaxY, MaxY: b.MaxX})
		case "CRS:84":
		default:
			out.BBoxes = append(out.BBoxes, wms111BBox{SRS: b.CRS, MinX: b.MinX, MinY: b.MinY, MaxX: b.MaxX, MaxY: b.MaxY})
		}
	}
	for _, c := range l.Layers {
		out.Layers = append(out.Layers, c.wms111())
	}
	return out
}
