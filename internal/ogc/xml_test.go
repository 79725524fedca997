package ogc

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Structures for reading the capabilities back, with full namespace URIs so
// that a wrong prefix declaration fails the parse.
type rWMTS struct {
	XMLName xml.Name `xml:"http://www.opengis.net/wmts/1.0 Capabilities"`
	Version string   `xml:"version,attr"`
	Title   string   `xml:"http://www.opengis.net/ows/1.1 ServiceIdentification>Title"`
	Ops     []struct {
		Name string `xml:"name,attr"`
		Gets []struct {
			Href  string   `xml:"http://www.w3.org/1999/xlink href,attr"`
			Value []string `xml:"http://www.opengis.net/ows/1.1 Constraint>AllowedValues>Value"`
		} `xml:"http://www.opengis.net/ows/1.1 DCP>HTTP>Get"`
	} `xml:"http://www.opengis.net/ows/1.1 OperationsMetadata>Operation"`
	Layers []struct {
		Title      string `xml:"http://www.opengis.net/ows/1.1 Title"`
		Identifier string `xml:"http://www.opengis.net/ows/1.1 Identifier"`
		Lower      string `xml:"http://www.opengis.net/ows/1.1 WGS84BoundingBox>LowerCorner"`
		Upper      string `xml:"http://www.opengis.net/ows/1.1 WGS84BoundingBox>UpperCorner"`
		Style      struct {
			IsDefault  string `xml:"isDefault,attr"`
			Identifier string `xml:"http://www.opengis.net/ows/1.1 Identifier"`
		} `xml:"http://www.opengis.net/wmts/1.0 Style"`
		Format string `xml:"http://www.opengis.net/wmts/1.0 Format"`
		Set    string `xml:"http://www.opengis.net/wmts/1.0 TileMatrixSetLink>TileMatrixSet"`
		Limits []struct {
			TileMatrix                                     string
			MinTileRow, MaxTileRow, MinTileCol, MaxTileCol int
		} `xml:"http://www.opengis.net/wmts/1.0 TileMatrixSetLink>TileMatrixSetLimits>TileMatrixLimits"`
		Resource struct {
			Format   string `xml:"format,attr"`
			Type     string `xml:"resourceType,attr"`
			Template string `xml:"template,attr"`
		} `xml:"http://www.opengis.net/wmts/1.0 ResourceURL"`
	} `xml:"http://www.opengis.net/wmts/1.0 Contents>Layer"`
	Sets []struct {
		Identifier string `xml:"http://www.opengis.net/ows/1.1 Identifier"`
		CRS        string `xml:"http://www.opengis.net/ows/1.1 SupportedCRS"`
		WellKnown  string `xml:"http://www.opengis.net/wmts/1.0 WellKnownScaleSet"`
		Matrices   []struct {
			Identifier                                       string `xml:"http://www.opengis.net/ows/1.1 Identifier"`
			ScaleDenominator                                 float64
			TopLeftCorner                                    string
			TileWidth, TileHeight, MatrixWidth, MatrixHeight int64
		} `xml:"http://www.opengis.net/wmts/1.0 TileMatrix"`
	} `xml:"http://www.opengis.net/wmts/1.0 Contents>TileMatrixSet"`
	ServiceMD struct {
		Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
	} `xml:"http://www.opengis.net/wmts/1.0 ServiceMetadataURL"`
}

func parsePair(t *testing.T, s string) [2]float64 {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 2 {
		t.Fatalf("pair %q", s)
	}
	a, err1 := strconv.ParseFloat(f[0], 64)
	b, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("pair %q", s)
	}
	return [2]float64{a, b}
}

func TestTileSetWMTS(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "key=abc")
	tests := []struct {
		name      string
		ts        TileSet
		opt       WMTSOptions
		wantSet   string
		wantSize  int64
		wantMime  string
		wantTmpl  string
		wantKVP   bool
		wantTitle string
	}{
		{
			name: "vector with KVP", ts: TileSet{ID: "world", Title: "World <&>", Format: "pbf", MinZoom: 1, MaxZoom: 6, Bounds: [4]float64{-10, 30, 40, 60}},
			opt: WMTSOptions{KVPPath: "/wmts"}, wantSet: "GoogleMapsCompatible", wantSize: 256, wantMime: "application/vnd.mapbox-vector-tile",
			wantTmpl: "https://maps.example.com/tiles/world/{TileMatrix}/{TileCol}/{TileRow}.pbf?key=abc", wantKVP: true, wantTitle: "World <&>",
		},
		{
			name: "raster 512 hostile id", ts: TileSet{ID: hostileID, Format: "webp", MaxZoom: 3, TileSize: 512},
			opt: WMTSOptions{Title: "Svc"}, wantSet: "GoogleMapsCompatible_512", wantSize: 512, wantMime: "image/webp",
			wantTmpl: "https://maps.example.com/tiles/a%20b%2F..%2F%22%3Cx%3E%7Bz%7D%3F&/{TileMatrix}/{TileCol}/{TileRow}.webp?key=abc", wantTitle: "Svc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := TileSetWMTS(tt.ts, e, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var c rWMTS
			if err := xml.Unmarshal(b, &c); err != nil {
				t.Fatalf("parse: %v\n%s", err, b)
			}
			if c.Version != "1.0.0" || c.Title != tt.wantTitle {
				t.Errorf("version %q title %q", c.Version, c.Title)
			}
			if len(c.Layers) != 1 || len(c.Sets) != 1 {
				t.Fatalf("%d layers %d sets", len(c.Layers), len(c.Sets))
			}
			l := c.Layers[0]
			if l.Identifier != tt.ts.ID || l.Format != tt.wantMime || l.Set != tt.wantSet || l.Style.Identifier != "default" || l.Style.IsDefault != "true" {
				t.Errorf("layer = %+v", l)
			}
			if l.Resource.Template != tt.wantTmpl || l.Resource.Type != "tile" || l.Resource.Format != tt.wantMime {
				t.Errorf("resource = %+v, want %s", l.Resource, tt.wantTmpl)
			}
			bounds := normaliseBounds(tt.ts.Bounds)
			if lo, up := parsePair(t, l.Lower), parsePair(t, l.Upper); lo != [2]float64{bounds[0], bounds[1]} || up != [2]float64{bounds[2], bounds[3]} {
				t.Errorf("WGS84 bbox %v %v", lo, up)
			}
			if len(l.Limits) != tt.ts.MaxZoom-tt.ts.MinZoom+1 || l.Limits[0].TileMatrix != strconv.Itoa(tt.ts.MinZoom) {
				t.Errorf("limits = %+v", l.Limits)
			}
			s := c.Sets[0]
			if s.Identifier != tt.wantSet || s.CRS != "urn:ogc:def:crs:EPSG::3857" || len(s.Matrices) != tt.ts.MaxZoom+1 {
				t.Errorf("set = %s %s %d matrices", s.Identifier, s.CRS, len(s.Matrices))
			}
			if (s.WellKnown != "") != (tt.wantSize == 256) {
				t.Errorf("WellKnownScaleSet %q for %d px", s.WellKnown, tt.wantSize)
			}
			for z, m := range s.Matrices {
				p := math.Exp2(float64(z))
				want := refScaleZ0 / p * 256 / float64(tt.wantSize)
				if m.Identifier != strconv.Itoa(z) || math.Abs(m.ScaleDenominator-want) > 1e-9*want ||
					m.TileWidth != tt.wantSize || m.TileHeight != tt.wantSize || m.MatrixWidth != int64(p) || m.MatrixHeight != int64(p) {
					t.Errorf("matrix %d = %+v (want scale %v)", z, m, want)
				}
				if tl := parsePair(t, m.TopLeftCorner); math.Abs(tl[0]+refOriginEdge) > 1e-6 || math.Abs(tl[1]-refOriginEdge) > 1e-6 {
					t.Errorf("matrix %d top left %v", z, tl)
				}
			}
			if c.ServiceMD.Href != strings.Replace(tt.wantTmpl, "/{TileMatrix}/{TileCol}/{TileRow}."+tt.ts.Format, "/WMTSCapabilities.xml", 1) {
				t.Errorf("ServiceMetadataURL = %q", c.ServiceMD.Href)
			}
			if tt.wantKVP {
				if len(c.Ops) != 2 || c.Ops[1].Name != "GetTile" || c.Ops[1].Gets[0].Href != "https://maps.example.com/wmts?key=abc&" || c.Ops[1].Gets[0].Value[0] != "KVP" {
					t.Errorf("operations = %+v", c.Ops)
				}
			} else if len(c.Ops) != 0 {
				t.Errorf("KVP declared without KVPPath: %+v", c.Ops)
			}
		})
	}
	if _, err := TileSetWMTS(TileSet{ID: "a", Format: "png"}, e, WMTSOptions{KVPPath: "wmts"}); err == nil {
		t.Error("relative KVP path accepted")
	}
}

func TestMapsWMTS(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "")
	maps := []Map{{ID: "basic", Format: "png", MaxZoom: 5}, {ID: "sat", Title: "Satellite", Format: "jpg", MinZoom: 2, MaxZoom: 8, Bounds: [4]float64{5, 45, 10, 48}}}
	b, err := AllMapsWMTS(maps, e, WMTSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var c rWMTS
	if err := xml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"basic":     {"GoogleMapsCompatible", "https://maps.example.com/maps/basic/256/{TileMatrix}/{TileCol}/{TileRow}.png"},
		"basic_512": {"GoogleMapsCompatible_512", "https://maps.example.com/maps/basic/{TileMatrix}/{TileCol}/{TileRow}.png"},
		"sat":       {"GoogleMapsCompatible", "https://maps.example.com/maps/sat/256/{TileMatrix}/{TileCol}/{TileRow}.jpg"},
		"sat_512":   {"GoogleMapsCompatible_512", "https://maps.example.com/maps/sat/{TileMatrix}/{TileCol}/{TileRow}.jpg"},
	}
	if len(c.Layers) != len(want) {
		t.Fatalf("%d layers", len(c.Layers))
	}
	for _, l := range c.Layers {
		w, ok := want[l.Identifier]
		if !ok || l.Set != w[0] || l.Resource.Template != w[1] {
			t.Errorf("layer %s: set %s template %s", l.Identifier, l.Set, l.Resource.Template)
		}
	}
	if len(c.Sets) != 2 || len(c.Sets[0].Matrices) != 9 || len(c.Sets[1].Matrices) != 9 {
		t.Errorf("sets: %d", len(c.Sets))
	}
	if c.ServiceMD.Href != "https://maps.example.com/WMTSCapabilities.xml" {
		t.Errorf("self %q", c.ServiceMD.Href)
	}
	one, err := MapWMTS(maps[1], e, WMTSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var c1 rWMTS
	if err := xml.Unmarshal(one, &c1); err != nil {
		t.Fatal(err)
	}
	if len(c1.Layers) != 2 || c1.Title != "Satellite" || c1.ServiceMD.Href != "https://maps.example.com/maps/sat/WMTSCapabilities.xml" {
		t.Errorf("single map doc: %d layers, title %q, self %q", len(c1.Layers), c1.Title, c1.ServiceMD.Href)
	}
	if _, err := AllMapsWMTS([]Map{{ID: "a", Format: "png"}, {ID: "a", Format: "png"}}, e, WMTSOptions{}); err == nil {
		t.Error("duplicate layer accepted")
	}
	empty, err := AllMapsWMTS(nil, e, WMTSOptions{})
	if err != nil || xml.Unmarshal(empty, &c) != nil {
		t.Errorf("empty list: %v", err)
	}
}

type rWMS struct {
	XMLName xml.Name `xml:"http://www.opengis.net/wms WMS_Capabilities"`
	Version string   `xml:"version,attr"`
	GetMap  struct {
		Formats []string `xml:"http://www.opengis.net/wms Format"`
		Href    struct {
			Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
		} `xml:"http://www.opengis.net/wms DCPType>HTTP>Get>OnlineResource"`
	} `xml:"http://www.opengis.net/wms Capability>Request>GetMap"`
	Root rWMSLayer `xml:"http://www.opengis.net/wms Capability>Layer"`
}

type rWMSLayer struct {
	Name  string   `xml:"http://www.opengis.net/wms Name"`
	Title string   `xml:"http://www.opengis.net/wms Title"`
	CRS   []string `xml:"http://www.opengis.net/wms CRS"`
	Geo   struct {
		West  float64 `xml:"westBoundLongitude"`
		East  float64 `xml:"eastBoundLongitude"`
		South float64 `xml:"southBoundLatitude"`
		North float64 `xml:"northBoundLatitude"`
	} `xml:"http://www.opengis.net/wms EX_GeographicBoundingBox"`
	Boxes []struct {
		CRS  string  `xml:"CRS,attr"`
		MinX float64 `xml:"minx,attr"`
		MinY float64 `xml:"miny,attr"`
		MaxX float64 `xml:"maxx,attr"`
		MaxY float64 `xml:"maxy,attr"`
	} `xml:"http://www.opengis.net/wms BoundingBox"`
	Attribution string      `xml:"http://www.opengis.net/wms Attribution>Title"`
	Layers      []rWMSLayer `xml:"http://www.opengis.net/wms Layer"`
}

func checkWMSLayer(t *testing.T, l rWMSLayer, b [4]float64) {
	t.Helper()
	if strings.Join(l.CRS, ",") != "EPSG:3857,EPSG:4326,CRS:84" {
		t.Errorf("%s CRS %v", l.Name, l.CRS)
	}
	if l.Geo.West != b[0] || l.Geo.South != b[1] || l.Geo.East != b[2] || l.Geo.North != b[3] {
		t.Errorf("%s geographic bbox %+v, want %v", l.Name, l.Geo, b)
	}
	merc := func(lat float64) float64 { return 6378137 * math.Asinh(math.Tan(lat*math.Pi/180)) }
	want := map[string][4]float64{
		"CRS:84":    b,
		"EPSG:4326": {b[1], b[0], b[3], b[2]}, // WMS 1.3.0: latitude first
		"EPSG:3857": {b[0] * math.Pi / 180 * 6378137, merc(b[1]), b[2] * math.Pi / 180 * 6378137, merc(b[3])},
	}
	if len(l.Boxes) != 3 {
		t.Fatalf("%s: %d bounding boxes", l.Name, len(l.Boxes))
	}
	for _, bx := range l.Boxes {
		w := want[bx.CRS]
		got := [4]float64{bx.MinX, bx.MinY, bx.MaxX, bx.MaxY}
		for i := range got {
			if math.Abs(got[i]-w[i]) > 1e-6*math.Max(1, math.Abs(w[i])) {
				t.Errorf("%s %s bbox %v, want %v", l.Name, bx.CRS, got, w)
				break
			}
		}
	}
}

func TestWMS(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "key=abc")
	sat := Map{ID: "sat", Title: "Satellite", Attribution: "© Sat & Co", Format: "jpg", MaxZoom: 8, Bounds: [4]float64{5, 45, 10, 48}}
	basic := Map{ID: "basic", Format: "png", MaxZoom: 5, Bounds: [4]float64{-20, -30, 8, 50}}
	b, err := MapWMS(sat, e, WMSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var c rWMS
	if err := xml.Unmarshal(b, &c); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if c.Version != "1.3.0" || c.Root.Name != "sat" || c.Root.Attribution != "© Sat & Co" || c.GetMap.Href.Href != "https://maps.example.com/maps/sat/wms?key=abc&" {
		t.Errorf("single map: %+v", c)
	}
	if strings.Join(c.GetMap.Formats, ",") != "image/png,image/jpeg,image/webp" {
		t.Errorf("formats %v", c.GetMap.Formats)
	}
	checkWMSLayer(t, c.Root, sat.Bounds)

	b, err = AllMapsWMS([]Map{sat, basic}, e, WMSOptions{MaxWidth: 2048, MaxHeight: 2048})
	if err != nil {
		t.Fatal(err)
	}
	c = rWMS{}
	if err := xml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Root.Name != "" || len(c.Root.Layers) != 2 || c.Root.Layers[1].Name != "basic" || c.GetMap.Href.Href != "https://maps.example.com/maps/wms?key=abc&" {
		t.Errorf("all maps: %+v", c)
	}
	checkWMSLayer(t, c.Root, [4]float64{-20, -30, 10, 50})
	if len(c.Root.Layers[1].CRS) != 0 {
		t.Errorf("child layer re-declares inherited CRS %v", c.Root.Layers[1].CRS)
	}
	c.Root.Layers[1].CRS = c.Root.CRS
	checkWMSLayer(t, c.Root.Layers[1], basic.Bounds)
	if !strings.Contains(string(b), "<MaxWidth>2048</MaxWidth>") {
		t.Error("MaxWidth missing")
	}
	if _, err := AllMapsWMS([]Map{sat, sat}, e, WMSOptions{}); err == nil {
		t.Error("duplicate name accepted")
	}
}

// requireTool returns the path of a program or skips the test (fails under
// TESSERA_REQUIRE_TOOLS=1).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s not found and TESSERA_REQUIRE_TOOLS=1", name)
		}
		t.Skipf("%s not installed (apt-get install gdal-bin python3-owslib)", name)
	}
	return p
}

// TestGDALReadsWMTS opens the WMTS capabilities with GDAL's WMTS driver and
// checks the raster size it derives from the layer extent and the finest
// tile matrix.
func TestGDALReadsWMTS(t *testing.T) {
	gdalinfo := requireTool(t, "gdalinfo")
	e := mustEndpoint(t, "https://maps.example.com", "key=abc")
	dir := t.TempDir()
	cases := []struct {
		name string
		doc  func() ([]byte, error)
		open string // suffix after the file name
		b    [4]float64
		zoom int
		size int
	}{
		{"raster tileset", func() ([]byte, error) {
			return TileSetWMTS(TileSet{ID: "r", Format: "png", MaxZoom: 6, Bounds: [4]float64{-10, 30, 40, 60}}, e, WMTSOptions{})
		}, "", [4]float64{-10, 30, 40, 60}, 6, 256},
		{"vector tileset", func() ([]byte, error) {
			return TileSetWMTS(TileSet{ID: "v", Format: "pbf", MaxZoom: 4}, e, WMTSOptions{KVPPath: "/wmts"})
		}, "", [4]float64{-180, -MaxLat, 180, MaxLat}, 4, 256},
		{"map 512 layer", func() ([]byte, error) {
			return AllMapsWMTS([]Map{{ID: "basic", Format: "png", MaxZoom: 8}, {ID: "sat", Format: "jpg", MaxZoom: 8, Bounds: [4]float64{5, 45, 10, 48}}}, e, WMTSOptions{})
		}, ",layer=sat_512", [4]float64{5, 45, 10, 48}, 8, 512},
	}
	sizeRe := regexp.MustCompile(`Size is (\d+), (\d+)`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.doc()
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".xml")
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(t.Context(), gdalinfo, "WMTS:"+f+tc.open).CombinedOutput()
			if err != nil {
				t.Fatalf("gdalinfo: %v\n%s", err, out)
			}
			m := sizeRe.FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("no size in gdalinfo output:\n%s", out)
			}
			w, _ := strconv.Atoi(m[1])
			h, _ := strconv.Atoi(m[2])
			// independent expectation: extent in metres / pixel size at the finest zoom
			px := 2 * math.Pi * 6378137 / float64(tc.size) / math.Exp2(float64(tc.zoom))
			mercY := func(lat float64) float64 { return 6378137 * math.Asinh(math.Tan(lat*math.Pi/180)) }
			ww := (tc.b[2] - tc.b[0]) * math.Pi / 180 * 6378137 / px
			wh := (mercY(tc.b[3]) - mercY(tc.b[1])) / px
			if math.Abs(float64(w)-ww) > 2 || math.Abs(float64(h)-wh) > 2 {
				t.Errorf("gdalinfo size %dx%d, want about %.1fx%.1f", w, h, ww, wh)
			}
			if !strings.Contains(string(out), "Pseudo-Mercator") {
				t.Errorf("gdalinfo did not report EPSG:3857:\n%s", out)
			}
		})
	}
}

const owslibScript = `
import json, sys
from owslib.wmts import WebMapTileService
from owslib.wms import WebMapService
kind, path, url = sys.argv[1], sys.argv[2], sys.argv[3]
xml = open(path, 'rb').read()
out = {}
if kind == 'wmts':
    s = WebMapTileService(url, xml=xml)
    out['layers'] = {k: {'bbox': list(l.boundingBoxWGS84), 'formats': l.formats,
                         'sets': list(l.tilematrixsetlinks), 'urls': [r['template'] for r in l.resourceURLs]}
                     for k, l in s.contents.items()}
    out['sets'] = {k: {m: [tm.scaledenominator, list(tm.topleftcorner), tm.tilewidth, tm.matrixwidth]
                       for m, tm in v.tilematrix.items()} for k, v in s.tilematrixsets.items()}
else:
    s = WebMapService(url, version='1.3.0', xml=xml)
    out['layers'] = {k: {'crs': sorted(l.crsOptions), 'boxes': {b[4]: list(b[:4]) for b in l.crs_list},
                         'wgs84': list(l.boundingBoxWGS84)} for k, l in s.contents.items()}
    out['getmap'] = s.getOperationByName('GetMap').formatOptions
    out['url'] = s.getOperationByName('GetMap').methods[0]['url']
print(json.dumps(out))
`

// owslib runs OWSLib with Debian's python (python3-owslib).
func owslib(t *testing.T, kind string, doc []byte, url string) map[string]any {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		requireTool(t, "/usr/bin/python3")
	}
	if err := exec.CommandContext(t.Context(), py, "-c", "import owslib").Run(); err != nil {
		if os.Getenv("TESSERA_REQUIRE_TOOLS") == "1" {
			t.Fatal("OWSLib missing and TESSERA_REQUIRE_TOOLS=1 (apt-get install python3-owslib)")
		}
		t.Skip("OWSLib not installed (apt-get install python3-owslib)")
	}
	f := filepath.Join(t.TempDir(), "caps.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), py, "-c", owslibScript, kind, f, url).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("owslib: %v\n%s", err, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("owslib output %q: %v", out, err)
	}
	return v
}

func TestOWSLibReadsWMTS(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "key=abc")
	doc, err := AllMapsWMTS([]Map{{ID: "sat", Format: "jpg", MaxZoom: 3, Bounds: [4]float64{5, 45, 10, 48}}}, e, WMTSOptions{KVPPath: "/wmts"})
	if err != nil {
		t.Fatal(err)
	}
	v := owslib(t, "wmts", doc, "https://maps.example.com/WMTSCapabilities.xml")
	layers := v["layers"].(map[string]any)
	sat, ok := layers["sat"].(map[string]any)
	if !ok || len(layers) != 2 {
		t.Fatalf("layers = %v", layers)
	}
	if b := sat["bbox"].([]any); b[0].(float64) != 5 || b[1].(float64) != 45 || b[2].(float64) != 10 || b[3].(float64) != 48 {
		t.Errorf("bbox %v", b)
	}
	if u := sat["urls"].([]any); len(u) != 1 || u[0] != "https://maps.example.com/maps/sat/256/{TileMatrix}/{TileCol}/{TileRow}.jpg?key=abc" {
		t.Errorf("urls %v", u)
	}
	sets := v["sets"].(map[string]any)
	for name, size := range map[string]float64{"GoogleMapsCompatible": 256, "GoogleMapsCompatible_512": 512} {
		ms := sets[name].(map[string]any)
		if len(ms) != 4 {
			t.Fatalf("%s has %d matrices", name, len(ms))
		}
		for z := 0; z < 4; z++ {
			m := ms[strconv.Itoa(z)].([]any)
			want := refScaleZ0 / math.Exp2(float64(z)) * 256 / size
			tl := m[1].([]any)
			if math.Abs(m[0].(float64)-want) > 1e-6*want || m[2].(float64) != size || m[3].(float64) != math.Exp2(float64(z)) ||
				math.Abs(tl[0].(float64)+refOriginEdge) > 1e-6 || math.Abs(tl[1].(float64)-refOriginEdge) > 1e-6 {
				t.Errorf("%s matrix %d = %v", name, z, m)
			}
		}
	}
}

func TestOWSLibReadsWMS(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "key=abc")
	doc, err := AllMapsWMS([]Map{{ID: "sat", Format: "jpg", MaxZoom: 3, Bounds: [4]float64{5, 45, 10, 48}}, {ID: "basic", Format: "png", MaxZoom: 3}}, e, WMSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := owslib(t, "wms", doc, "https://maps.example.com/maps/wms")
	sat := v["layers"].(map[string]any)["sat"].(map[string]any)
	if c := sat["crs"].([]any); len(c) != 3 || c[0] != "CRS:84" || c[1] != "EPSG:3857" || c[2] != "EPSG:4326" {
		t.Errorf("crs %v", c)
	}
	// OWSLib swaps EPSG:4326 boxes of WMS 1.3.0 back to lon/lat: equal to CRS:84 only if we wrote lat first.
	boxes := sat["boxes"].(map[string]any)
	for _, crs := range []string{"CRS:84", "EPSG:4326"} {
		b := boxes[crs].([]any)
		if b[0].(float64) != 5 || b[1].(float64) != 45 || b[2].(float64) != 10 || b[3].(float64) != 48 {
			t.Errorf("%s box as read by OWSLib: %v", crs, b)
		}
	}
	if f := v["getmap"].([]any); len(f) != 3 || v["url"] != "https://maps.example.com/maps/wms?key=abc&" {
		t.Errorf("GetMap %v %v", f, v["url"])
	}
}

// rWMS111 reads WMS 1.1.1 capabilities (no namespace).
type rWMS111 struct {
	XMLName xml.Name `xml:"WMT_MS_Capabilities"`
	Version string   `xml:"version,attr"`
	Name    string   `xml:"Service>Name"`
	CapsFmt []string `xml:"Capability>Request>GetCapabilities>Format"`
	GetMap  struct {
		Formats []string `xml:"Format"`
		Href    struct {
			Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
		} `xml:"DCPType>HTTP>Get>OnlineResource"`
	} `xml:"Capability>Request>GetMap"`
	Exceptions []string     `xml:"Capability>Exception>Format"`
	Root       rWMS111Layer `xml:"Capability>Layer"`
}

type rWMS111Layer struct {
	Name   string   `xml:"Name"`
	Title  string   `xml:"Title"`
	SRS    []string `xml:"SRS"`
	LatLon struct {
		MinX float64 `xml:"minx,attr"`
		MinY float64 `xml:"miny,attr"`
		MaxX float64 `xml:"maxx,attr"`
		MaxY float64 `xml:"maxy,attr"`
	} `xml:"LatLonBoundingBox"`
	Boxes []struct {
		SRS  string  `xml:"SRS,attr"`
		MinX float64 `xml:"minx,attr"`
		MinY float64 `xml:"miny,attr"`
		MaxX float64 `xml:"maxx,attr"`
		MaxY float64 `xml:"maxy,attr"`
	} `xml:"BoundingBox"`
	Layers []rWMS111Layer `xml:"Layer"`
}

// TestWMS111 checks the WMS 1.1.1 capabilities: the 1.1.1 root element
// and service name, SRS without CRS:84, EPSG:4326 boxes longitude first,
// a LatLonBoundingBox, the 1.1.1 media types; and the version
// negotiation of GetCapabilities.
func TestWMS111(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com", "")
	sat := Map{ID: "sat", Title: "Satellite", Format: "jpg", MaxZoom: 8, Bounds: [4]float64{5, 45, 10, 48}}
	basic := Map{ID: "basic", Format: "png", MaxZoom: 5, Bounds: [4]float64{-20, -30, 8, 50}}
	one, err := MapWMS(sat, e, WMSOptions{Version: WMS111, MaxWidth: 2048})
	if err != nil {
		t.Fatal(err)
	}
	all, err := AllMapsWMS([]Map{sat, basic}, e, WMSOptions{Version: WMS111})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, l rWMS111Layer, b [4]float64, srs string) {
		t.Helper()
		if strings.Join(l.SRS, ",") != srs {
			t.Errorf("%s: SRS %v, want %s", what, l.SRS, srs)
		}
		if l.LatLon.MinX != b[0] || l.LatLon.MinY != b[1] || l.LatLon.MaxX != b[2] || l.LatLon.MaxY != b[3] {
			t.Errorf("%s: LatLonBoundingBox %+v, want %v", what, l.LatLon, b)
		}
		merc := func(lat float64) float64 { return 6378137 * math.Asinh(math.Tan(lat*math.Pi/180)) }
		want := map[string][4]float64{
			"EPSG:4326": b, // WMS 1.1.1: longitude first
			"EPSG:3857": {b[0] * math.Pi / 180 * 6378137, merc(b[1]), b[2] * math.Pi / 180 * 6378137, merc(b[3])},
		}
		if len(l.Boxes) != 2 {
			t.Fatalf("%s: %d bounding boxes, want EPSG:4326 and EPSG:3857", what, len(l.Boxes))
		}
		for _, bx := range l.Boxes {
			w, ok := want[bx.SRS]
			got := [4]float64{bx.MinX, bx.MinY, bx.MaxX, bx.MaxY}
			for i := range got {
				if !ok || math.Abs(got[i]-w[i]) > 1e-6*math.Max(1, math.Abs(w[i])) {
					t.Errorf("%s: %s box %v, want %v", what, bx.SRS, got, w)
					break
				}
			}
		}
	}
	for _, tc := range []struct {
		doc  []byte
		href string
	}{{one, "https://maps.example.com/maps/sat/wms?"}, {all, "https://maps.example.com/maps/wms?"}} {
		if strings.Contains(string(tc.doc), "http://www.opengis.net/wms") || strings.Contains(string(tc.doc), "CRS:84") {
			t.Errorf("1.1.1 document has the 1.3.0 namespace or CRS:84:\n%s", tc.doc)
		}
		var c rWMS111
		if err := xml.Unmarshal(tc.doc, &c); err != nil {
			t.Fatalf("%v\n%s", err, tc.doc)
		}
		if c.Version != WMS111 || c.Name != "OGC:WMS" || c.GetMap.Href.Href != tc.href ||
			strings.Join(c.CapsFmt, ",") != "application/vnd.ogc.wms_xml" || strings.Join(c.Exceptions, ",") != "application/vnd.ogc.se_xml" ||
			strings.Join(c.GetMap.Formats, ",") != "image/png,image/jpeg,image/webp" {
			t.Errorf("1.1.1 document: %+v", c)
		}
	}
	var c rWMS111
	if err := xml.Unmarshal(one, &c); err != nil {
		t.Fatal(err)
	}
	if c.Root.Name != "sat" || strings.Contains(string(one), "MaxWidth") {
		t.Errorf("single map: root %q (MaxWidth has no place in 1.1.1)", c.Root.Name)
	}
	check("sat", c.Root, sat.Bounds, "EPSG:3857,EPSG:4326")
	c = rWMS111{}
	if err := xml.Unmarshal(all, &c); err != nil {
		t.Fatal(err)
	}
	if c.Root.Name != "" || len(c.Root.Layers) != 2 || c.Root.Layers[1].Name != "basic" {
		t.Fatalf("all maps: %+v", c.Root)
	}
	check("root", c.Root, [4]float64{-20, -30, 10, 50}, "EPSG:3857,EPSG:4326")
	check("basic", c.Root.Layers[1], basic.Bounds, "")
	if _, err := MapWMS(sat, e, WMSOptions{Version: "1.0.0"}); err == nil {
		t.Error("a WMS 1.0.0 document was made")
	}

	for q, want := range map[string]string{
		"":                    WMS130,
		"version=1.3.0":       WMS130,
		"VERSION=1.3.1":       WMS130,
		"version=2.0":         WMS130,
		"version=1.1.1":       WMS111,
		"Version=1.1.0":       WMS111,
		"version=1.0.7":       WMS111,
		"WMTVER=1.0.0":        WMS111,
		"version=&wmtver=1.0": WMS111,
	} {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := WMSCapabilitiesVersion(v); got != want {
			t.Errorf("%q negotiates %s, want %s", q, got, want)
		}
	}
	if WMSCapabilitiesType(WMS111) != "application/vnd.ogc.wms_xml" || !strings.HasPrefix(WMSCapabilitiesType(WMS130), "text/xml") {
		t.Error("capabilities media types")
	}
}
