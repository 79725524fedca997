package ogc

import (
	"encoding/xml"
	"image"
	"image/color"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

func knownWorld(l string) bool { return l == "world" || l == "streets" }

func TestParseGetMap(t *testing.T) {
	tests := []struct {
		name  string
		query string
		check func(t *testing.T, r *GetMapRequest)
	}{
		{"1.3.0 EPSG:3857", "SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=world&STYLES=&CRS=EPSG:3857&BBOX=-20037508.34,-20037508.34,20037508.34,20037508.34&WIDTH=512&HEIGHT=512&FORMAT=image/png", func(t *testing.T, r *GetMapRequest) {
			if r.Version != WMS130 || r.CRS != "EPSG:3857" || r.Width != 512 || r.Format != imageenc.PNG || r.Transparent || r.BGColor != (color.RGBA{255, 255, 255, 255}) {
				t.Errorf("%+v", r)
			}
		}},
		{"1.3.0 EPSG:4326 is latitude first", "service=wms&version=1.3.0&request=GetMap&layers=world&crs=EPSG:4326&bbox=40,-10,50,20&width=300&height=100&format=image/jpeg", func(t *testing.T, r *GetMapRequest) {
			if r.BBox != [4]float64{-10, 40, 20, 50} || r.Format != imageenc.JPEG {
				t.Errorf("%+v", r)
			}
		}},
		{"1.1.1 EPSG:4326 is longitude first", "SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=world&SRS=EPSG:4326&BBOX=-10,40,20,50&WIDTH=300&HEIGHT=100&FORMAT=image/webp&TRANSPARENT=TRUE&BGCOLOR=0x102030", func(t *testing.T, r *GetMapRequest) {
			if r.BBox != [4]float64{-10, 40, 20, 50} || r.Format != imageenc.WebP || !r.Transparent || r.BGColor != (color.RGBA{0x10, 0x20, 0x30, 255}) {
				t.Errorf("%+v", r)
			}
		}},
		{"CRS:84 is longitude first in 1.3.0", "VERSION=1.3.0&REQUEST=GetMap&LAYERS=world,streets&STYLES=,default&CRS=CRS:84&BBOX=-10,40,20,50&WIDTH=30&HEIGHT=10&FORMAT=image/png%3B+mode=8bit", func(t *testing.T, r *GetMapRequest) {
			if r.BBox != [4]float64{-10, 40, 20, 50} || len(r.Layers) != 2 {
				t.Errorf("%+v", r)
			}
		}},
		{"EPSG:900913", "VERSION=1.1.1&REQUEST=GetMap&LAYERS=world&SRS=epsg:900913&BBOX=0,0,1000,1000&WIDTH=10&HEIGHT=10&FORMAT=png", func(t *testing.T, r *GetMapRequest) {
			if r.CRS != "EPSG:900913" {
				t.Errorf("%+v", r)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			r, ex := ParseGetMap(q, 2048, knownWorld)
			if ex != nil {
				t.Fatalf("refused: %v", ex)
			}
			tc.check(t, r)
		})
	}
}

func TestParseGetMapErrors(t *testing.T) {
	base := url.Values{
		"VERSION": {"1.3.0"}, "REQUEST": {"GetMap"}, "LAYERS": {"world"}, "CRS": {"EPSG:3857"},
		"BBOX": {"0,0,10,10"}, "WIDTH": {"10"}, "HEIGHT": {"10"}, "FORMAT": {"image/png"},
	}
	tests := []struct {
		set           map[string]string
		code, locator string
	}{
		{map[string]string{"VERSION": ""}, "MissingParameterValue", "VERSION"},
		{map[string]string{"VERSION": "2.0.0"}, "InvalidParameterValue", "VERSION"},
		{map[string]string{"SERVICE": "WFS"}, "InvalidParameterValue", "SERVICE"},
		{map[string]string{"LAYERS": ""}, "MissingParameterValue", "LAYERS"},
		{map[string]string{"LAYERS": "nope"}, "LayerNotDefined", "LAYERS"},
		{map[string]string{"STYLES": "fancy"}, "StyleNotDefined", "STYLES"},
		{map[string]string{"STYLES": ",,"}, "StyleNotDefined", "STYLES"},
		{map[string]string{"CRS": "EPSG:2154"}, "InvalidCRS", "CRS"},
		{map[string]string{"CRS": ""}, "MissingParameterValue", "CRS"},
		{map[string]string{"BBOX": "0,0,10"}, "InvalidParameterValue", "BBOX"},
		{map[string]string{"BBOX": "0,0,x,10"}, "InvalidParameterValue", "BBOX"},
		{map[string]string{"BBOX": "10,0,0,10"}, "InvalidParameterValue", "BBOX"},
		{map[string]string{"BBOX": "0,0,NaN,10"}, "InvalidParameterValue", "BBOX"},
		{map[string]string{"BBOX": "0,0,1e12,10"}, "InvalidParameterValue", "BBOX"},
		{map[string]string{"WIDTH": "0"}, "InvalidParameterValue", "WIDTH"},
		{map[string]string{"HEIGHT": "2049"}, "InvalidParameterValue", "HEIGHT"},
		{map[string]string{"FORMAT": "image/gif"}, "InvalidFormat", "FORMAT"},
		{map[string]string{"TRANSPARENT": "yes"}, "InvalidParameterValue", "TRANSPARENT"},
		{map[string]string{"BGCOLOR": "red"}, "InvalidParameterValue", "BGCOLOR"},
	}
	for _, tc := range tests {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		for k, v := range tc.set {
			if v == "" && k != "STYLES" {
				q.Del(k)
				if k != "VERSION" && k != "CRS" && k != "LAYERS" {
					continue
				}
				if k == "LAYERS" {
					q.Set(k, "")
				}
				continue
			}
			q.Set(k, v)
		}
		_, ex := ParseGetMap(q, 2048, knownWorld)
		if ex == nil {
			t.Errorf("%v: accepted", tc.set)
			continue
		}
		if ex.Code != tc.code || ex.Locator != tc.locator || ex.Message == "" {
			t.Errorf("%v: got %s at %s (%q), want %s at %s", tc.set, ex.Code, ex.Locator, ex.Message, tc.code, tc.locator)
		}
	}
	// 1.1.1 names the SRS.
	q := url.Values{"VERSION": {"1.1.1"}, "LAYERS": {"world"}, "SRS": {"EPSG:1"}}
	if _, ex := ParseGetMap(q, 2048, knownWorld); ex == nil || ex.Code != "InvalidSRS" || ex.ContentType() != "application/vnd.ogc.se_xml" {
		t.Errorf("1.1.1 SRS: %+v", ex)
	}
}

func TestServiceExceptionXML(t *testing.T) {
	for _, v := range []string{WMS130, WMS111} {
		ex := &ServiceException{Version: v, Code: "InvalidCRS", Locator: "CRS", Message: "no <such> CRS"}
		var rep struct {
			XMLName   xml.Name
			Version   string `xml:"version,attr"`
			Exception struct {
				Code    string `xml:"code,attr"`
				Locator string `xml:"locator,attr"`
				Text    string `xml:",chardata"`
			} `xml:"ServiceException"`
		}
		if err := xml.Unmarshal(ex.XML(), &rep); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if rep.XMLName.Local != "ServiceExceptionReport" || rep.Version != v || rep.Exception.Code != "InvalidCRS" || rep.Exception.Text != "no <such> CRS" {
			t.Errorf("%s: %+v", v, rep)
		}
		if (v == WMS130) != (rep.XMLName.Space == "http://www.opengis.net/ogc") {
			t.Errorf("%s: namespace %q", v, rep.XMLName.Space)
		}
	}
}

func TestGetMapPlanAndWarp(t *testing.T) {
	q := func(s string) *GetMapRequest {
		t.Helper()
		v, _ := url.ParseQuery(s + "&VERSION=1.3.0&LAYERS=world&FORMAT=image/png")
		r, ex := ParseGetMap(v, 2048, knownWorld)
		if ex != nil {
			t.Fatal(ex)
		}
		return r
	}
	// The whole Web Mercator square at 512 px is zoom 0, no warping.
	r := q("CRS=EPSG:3857&BBOX=-20037508.342789244,-20037508.342789244,20037508.342789244,20037508.342789244&WIDTH=512&HEIGHT=512")
	p := r.Plan()
	if p.Resample || math.Abs(p.Zoom) > 1e-9 || p.Width != 512 || math.Abs(p.CenterLon) > 1e-9 || math.Abs(p.CenterLat) > 1e-9 {
		t.Errorf("square plan %+v", p)
	}
	// Stretched pixels are warped from a render at the finer resolution.
	r = q("CRS=EPSG:3857&BBOX=0,0,1000000,1000000&WIDTH=200&HEIGHT=100")
	if p = r.Plan(); !p.Resample || p.Width != 200 || p.Height != 200 {
		t.Errorf("stretched plan %+v", p)
	}
	// EPSG:4326: the render covers the Mercator extent of the box; rows
	// are then placed by latitude. Paint the render by latitude bands
	// and check a warped row lands in the band of its latitude.
	r = q("CRS=EPSG:4326&BBOX=0,0,30,60&WIDTH=60&HEIGHT=120") // latitude first
	p = r.Plan()
	if !p.Resample {
		t.Fatal("a geographic request must be warped")
	}
	src := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	cx, cy := geo.LonLatToWorld(p.CenterLon, p.CenterLat)
	scale := 512 * math.Exp2(p.Zoom)
	for y := 0; y < p.Height; y++ {
		_, lat := geo.WorldToLonLat(cx, cy+(float64(y)+0.5-float64(p.Height)/2)/scale)
		band := uint8(lat) // one grey level per degree of latitude
		for x := 0; x < p.Width; x++ {
			src.SetRGBA(x, y, color.RGBA{band, band, band, 255})
		}
	}
	out := r.Warp(src, p)
	if out.Bounds().Dx() != 60 || out.Bounds().Dy() != 120 {
		t.Fatalf("warped size %v", out.Bounds())
	}
	for _, row := range []int{2, 30, 60, 90, 117} {
		lat := 30 - (float64(row)+0.5)*30/120
		got := out.RGBAAt(30, row).R
		if math.Abs(float64(got)-math.Floor(lat)) > 1 {
			t.Errorf("row %d (latitude %.2f): band %d", row, lat, got)
		}
		if out.RGBAAt(30, row).A != 255 {
			t.Errorf("row %d is not covered", row)
		}
	}
}

func FuzzParseGetMap(f *testing.F) {
	f.Add("VERSION=1.3.0&LAYERS=world&CRS=EPSG:4326&BBOX=40,-10,50,20&WIDTH=300&HEIGHT=100&FORMAT=image/jpeg")
	f.Add("VERSION=1.1.1&LAYERS=world&SRS=EPSG:3857&BBOX=0,0,1,1&WIDTH=1&HEIGHT=2048&FORMAT=png&BGCOLOR=0xFFFFFF")
	f.Add("VERSION=1.3.0&LAYERS=world&CRS=CRS:84&BBOX=-180,-85,180,85&WIDTH=1&HEIGHT=2534&FORMAT=png")
	f.Add("VERSION=1.3.0&LAYERS=world&CRS=EPSG:4326&BBOX=10,0,10.0001,40&WIDTH=2534&HEIGHT=7&FORMAT=png")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		r, ex := ParseGetMap(q, MaxSize, knownWorld)
		if ex != nil {
			if ex.Code == "" || ex.Message == "" || !strings.Contains(string(ex.XML()), "ServiceException") {
				t.Fatalf("bad exception %+v", ex)
			}
			return
		}
		p := r.Plan()
		if p.Width < 1 || p.Height < 1 || math.Hypot(float64(p.Width), float64(p.Height)) > maxPlanDiagonal || math.IsNaN(p.Zoom) || math.IsInf(p.Zoom, 0) {
			t.Fatalf("plan %+v for %+v", p, r)
		}
	})
}

// TestToPixel: world positions land on the request's grid, the box's
// corners on the image's corners, linear in the CRS's units (degrees for
// the geographic CRSs, so a latitude halfway in degrees is halfway down).
func TestToPixel(t *testing.T) {
	for _, tc := range []struct {
		query    string
		x, y     float64 // a point in CRS units (x, y order)
		px, py   float64 // where it lands
		geograph bool
	}{
		{"VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256", 10, 60, 256, 128, true},
		{"VERSION=1.3.0&CRS=EPSG:4326&BBOX=55,0,65,20&WIDTH=512&HEIGHT=256", 0, 65, 0, 0, true},
		{"VERSION=1.1.1&SRS=EPSG:4326&BBOX=0,55,20,65&WIDTH=512&HEIGHT=256", 20, 55, 512, 256, true},
		{"VERSION=1.3.0&CRS=CRS:84&BBOX=170,-10,200,10&WIDTH=300&HEIGHT=200", 190, -5, 200, 150, true},
		{"VERSION=1.3.0&CRS=EPSG:3857&BBOX=0,0,1000000,1000000&WIDTH=200&HEIGHT=100", 250000, 500000, 50, 50, false},
		{"VERSION=1.3.0&CRS=EPSG:3857&BBOX=0,0,1000000,1000000&WIDTH=200&HEIGHT=100", 1000000, 0, 200, 100, false},
	} {
		v, _ := url.ParseQuery(tc.query + "&LAYERS=world&FORMAT=image/png")
		r, ex := ParseGetMap(v, 2048, knownWorld)
		if ex != nil {
			t.Fatal(ex)
		}
		var wx, wy float64 // the point in world units, from its definitions
		if !tc.geograph {
			wx, wy = tc.x/(2*geo.OriginShift)+0.5, 0.5-tc.y/(2*geo.OriginShift)
		} else {
			wx, wy = geo.LonLatToWorld(tc.x, tc.y)
		}
		px, py := r.ToPixel(wx, wy)
		if math.Abs(px-tc.px) > 1e-6 || math.Abs(py-tc.py) > 1e-6 {
			t.Errorf("%s: (%v, %v) at %.6f, %.6f, want %v, %v", tc.query, tc.x, tc.y, px, py, tc.px, tc.py)
		}
	}
}
