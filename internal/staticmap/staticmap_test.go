package staticmap

import (
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/imageenc"
)

func TestDecodePolyline(t *testing.T) {
	// The format's published example: three points, latitude first.
	pts, err := DecodePolyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@")
	if err != nil {
		t.Fatal(err)
	}
	want := []orb.Point{{-120.2, 38.5}, {-120.95, 40.7}, {-126.453, 43.252}}
	if len(pts) != len(want) {
		t.Fatalf("got %v", pts)
	}
	for i := range want {
		if math.Abs(pts[i][0]-want[i][0]) > 1e-9 || math.Abs(pts[i][1]-want[i][1]) > 1e-9 {
			t.Errorf("point %d: %v, want %v", i, pts[i], want[i])
		}
	}
	if got := EncodePolyline(want); got != "_p~iF~ps|U_ulLnnqC_mqNvxq`@" {
		t.Errorf("encode: %q", got)
	}
	for _, bad := range []string{"_p~iF~ps|U_", "_p~iF~ps|U_ulLnnqC_mqNvxq`", "a b", "\x00", strings.Repeat("~", 20) + "?"} {
		if _, err := DecodePolyline(bad); err == nil {
			t.Errorf("DecodePolyline(%q) accepted", bad)
		}
	}
	// Out-of-range coordinates are refused.
	if _, err := DecodePolyline(EncodePolyline([]orb.Point{{0, 89}})); err == nil {
		t.Error("latitude 89 accepted")
	}
}

func TestParse(t *testing.T) {
	enc := EncodePolyline([]orb.Point{{2.35, 48.85}, {2.29, 48.86}, {2.3, 48.87}})
	tests := []struct {
		name     string
		viewport string
		size     string
		query    string
		check    func(t *testing.T, r *Request)
	}{
		{"center", "2.35,48.85,12.5", "600x400.png", "", func(t *testing.T, r *Request) {
			if r.Mode != Center || r.Center != (orb.Point{2.35, 48.85}) || r.Zoom != 12.5 || r.Width != 600 || r.Height != 400 || r.Scale != 1 || r.Format != imageenc.PNG {
				t.Errorf("%+v", r)
			}
			if r.Attribution != BottomRight || r.Padding != 0.1 {
				t.Errorf("defaults: %+v", r)
			}
		}},
		{"center latlng @2x webp", "48.85,2.35,3", "300x200@2x.webp", "latlng=true", func(t *testing.T, r *Request) {
			if r.Center != (orb.Point{2.35, 48.85}) || r.Scale != 2 || r.Format != imageenc.WebP {
				t.Errorf("%+v", r)
			}
		}},
		{"bounds across the antimeridian", "170,-20,-170,10", "512x512.jpg", "padding=0", func(t *testing.T, r *Request) {
			if r.Mode != Bounds || r.Bounds.Max[0] != 190 || r.Padding != 0 || r.Format != imageenc.JPEG {
				t.Errorf("%+v", r)
			}
		}},
		{"auto with paths and markers", "auto", "800x600.png",
			"path=stroke:red|width:5|fill:rgba(0,0,255,0.3)|2.3,48.8|2.4,48.9|2.5,48.8&path=enc:" + url.QueryEscape(enc) +
				"&markers=icon:https://example.com/pin.png|anchor:bottom|scale:2|2.35,48.85,Hello, world|2.36,48.86&markers=2,48",
			func(t *testing.T, r *Request) {
				if r.Mode != Auto || len(r.Paths) != 2 || len(r.Markers) != 3 {
					t.Fatalf("%+v", r)
				}
				p := r.Paths[0]
				if p.Width != 5 || p.Stroke.R != 1 || p.Fill == nil || p.Fill.A != 0.3 || len(p.Points) != 3 {
					t.Errorf("path 1: %+v", p)
				}
				if q := r.Paths[1]; len(q.Points) != 3 || q.Width != DefaultWidth || q.Stroke != DefaultStroke || q.Fill != nil {
					t.Errorf("path 2: %+v", q)
				}
				m := r.Markers[0]
				if m.Icon != "https://example.com/pin.png" || m.Anchor != "bottom" || m.Scale != 2 || m.Text != "Hello, world" {
					t.Errorf("marker 1: %+v", m)
				}
				if r.Markers[1].Text != "" || r.Markers[1].Scale != 2 || r.Markers[2].Icon != "" || r.Markers[2].Scale != 1 {
					t.Errorf("markers 2-3: %+v", r.Markers[1:])
				}
			}},
		{"deprecated parameters", "auto", "100x100.png", "encodedpath=" + url.QueryEscape(enc) + "&stroke=%23ff0000&width=2&fill=blue", func(t *testing.T, r *Request) {
			if len(r.Paths) != 1 || r.Paths[0].Width != 2 || r.Paths[0].Fill == nil || r.Paths[0].Stroke.R != 1 {
				t.Errorf("%+v", r.Paths)
			}
		}},
		{"shortest unwraps", "auto", "100x100.png", "shortest=true&path=179,0|-179,1|-178,2", func(t *testing.T, r *Request) {
			if pts := r.Paths[0].Points; pts[1][0] != 181 || pts[2][0] != 182 {
				t.Errorf("%v", pts)
			}
		}},
		{"path option shortest", "auto", "100x100.png", "path=shortest:true|179,0|-179,1", func(t *testing.T, r *Request) {
			if pts := r.Paths[0].Points; pts[1][0] != 181 {
				t.Errorf("%v", pts)
			}
		}},
		{"attribution off", "0,0,1", "1x1.png", "attribution=false", func(t *testing.T, r *Request) {
			if r.Attribution != NoAttribution {
				t.Errorf("%v", r.Attribution)
			}
		}},
		{"largest size", "0,0,1", "2048x2048@2x.png", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(tc.viewport, tc.size, q)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		viewport, size, query string
		where, says           string
	}{
		{"0,0,1", "2049x10.png", "", "width", "outside 1..2048"},
		{"0,0,1", "10x0.png", "", "height", "outside"},
		{"0,0,1", "10x10.gif", "", "format", "gif"},
		{"0,0,1", "10x10", "", "size", "no format"},
		{"0,0,1", "10by10.png", "", "size", "{width}x{height}"},
		{"0,0,1", "10x10@3x.png", "", "height", "not a whole number"},
		{"0,0,1", "+10x10.png", "", "width", "whole number"},
		{"0,0,1", "100000x10.png", "", "width", "100000 is outside 1..2048"},
		{"0,0,1", "10x99999999999999999999999.png", "", "height", "999999999999... is outside 1..2048"},
		{"0,0,1", "-5x10.png", "", "width", "not a whole number"},
		{"0,0,1", "0x10.png", "", "width", "0 is outside"},
		{"0,0,25", "10x10.png", "", "zoom", "outside 0..24"},
		{"200,0,1", "10x10.png", "", "center", "longitude 200"},
		{"0,86,1", "10x10.png", "", "center", "latitude 86"},
		{"0,x,1", "10x10.png", "", "viewport", "value 2"},
		{"0,0", "10x10.png", "", "viewport", "neither"},
		{"NaN,0,1", "10x10.png", "", "viewport", "not a number"},
		{"0,10,1,5", "10x10.png", "", "bounds", "south latitude 10"},
		{"auto", "10x10.png", "", "auto", "at least one path or marker"},
		{"0,0,1", "10x10.png", "padding=0.5", "padding", "0.5"},
		{"0,0,1", "10x10.png", "attribution=middle", "attribution", "middle"},
		{"0,0,1", "10x10.png", "shortest=maybe", "shortest", "maybe"},
		{"0,0,1", "10x10.png", "path=1,1", "path", "at least two points, 1"},
		{"0,0,1", "10x10.png", "path=1,1|2", "path", "point 2"},
		{"0,0,1", "10x10.png", "path=1,1|2,2&path=color:red|1,1|2,2", "path 2", "unknown option \"color\""},
		{"0,0,1", "10x10.png", "path=stroke:bluish|1,1|2,2", "path option stroke", "bluish"},
		{"0,0,1", "10x10.png", "path=width:-1|1,1|2,2", "path option width", "-1"},
		{"0,0,1", "10x10.png", "path=width:1|width:2|1,1|2,2", "path", "twice"},
		{"0,0,1", "10x10.png", "path=enc:_p~iF~ps|U_", "path", "ends inside"},
		{"0,0,1", "10x10.png", "markers=", "markers", "no marker position"},
		{"0,0,1", "10x10.png", "markers=anchor:middle|1,1", "markers option anchor", "middle"},
		{"0,0,1", "10x10.png", "markers=scale:0|1,1", "markers option scale", "above 0"},
		{"0,0,1", "10x10.png", "markers=icon:ftp://x/y.png|1,1", "markers option icon", "http(s)"},
		{"0,0,1", "10x10.png", "markers=1,1,a|x,1", "markers", "marker 2"},
		{"0,0,1", "10x10.png", "markers=1,1," + strings.Repeat("é", 101), "markers", "101 characters"},
		{"0,0,1", "10x10.png", "fill=nocolour", "fill", "nocolour"},
		{"0,0,1", "10x10.png", "encodedpath=_p~iF~ps|U", "encodedpath", "two points"},
		{"0,0,1", "10x10.png", strings.Repeat("path=1,1|2,2&", 51), "path", "at most 50"},
		{"0,0,1", "10x10.png", "markers=" + strings.Repeat("1,1|", 200) + "1,1", "markers", "more than 200"},
	}
	for _, tc := range tests {
		q, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(tc.viewport, tc.size, q)
		if err == nil {
			t.Errorf("%s %s ?%.60s: accepted", tc.viewport, tc.size, tc.query)
			continue
		}
		e, ok := err.(*Error)
		if !ok || !IsRequestError(err) {
			t.Errorf("%v: not a request error", err)
			continue
		}
		if e.Where != tc.where || !strings.Contains(e.Msg, tc.says) {
			t.Errorf("%s %s ?%.60s: got %q, want where %q saying %q", tc.viewport, tc.size, tc.query, err, tc.where, tc.says)
		}
	}
}

func TestView(t *testing.T) {
	parse := func(viewport, size, query string) *Request {
		t.Helper()
		q, _ := url.ParseQuery(query)
		r, err := Parse(viewport, size, q)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// A center view is taken as given.
	v := parse("10,20,3.5", "400x300@2x.png", "").View(18)
	if v.Center != (orb.Point{10, 20}) || v.Zoom != 3.5 || v.PixelRatio != 2 || v.Width != 400 {
		t.Errorf("center view %+v", v)
	}
	// The whole world in 512 px with no padding is zoom 0.
	v = parse("-180,-85.0511287798,180,85.0511287798", "512x512.png", "padding=0").View(18)
	if math.Abs(v.Zoom) > 1e-6 || math.Abs(v.Center[0]) > 1e-9 || math.Abs(v.Center[1]) > 1e-6 {
		t.Errorf("world view %+v", v)
	}
	// Padding 0.25 leaves half the width: one zoom level less.
	v = parse("0,0,90,66.51326044311186", "512x512.png", "padding=0.25").View(18)
	if math.Abs(v.Zoom-1) > 1e-6 {
		t.Errorf("padded zoom %v, want 1", v.Zoom)
	}
	// The fitted bounds land inside the padding.
	r := parse("2.2,48.8,2.5,48.9", "600x400.png", "padding=0.1")
	v = r.View(22)
	for _, p := range []orb.Point{{2.2, 48.8}, {2.5, 48.9}} {
		x, y := v.Project(p)
		if x < 60-1e-6 || x > 540+1e-6 || y < 40-1e-6 || y > 360+1e-6 {
			t.Errorf("%v projects to %v,%v outside the padded area", p, x, y)
		}
	}
	// Bounds across the antimeridian center on it.
	v = parse("170,-10,-170,10", "512x512.png", "").View(22)
	if math.Abs(math.Abs(v.Center[0])-180) > 1e-9 {
		t.Errorf("antimeridian center %v", v.Center)
	}
	// A single marker is shown at the maximum zoom.
	v = parse("auto", "100x100.png", "markers=5,5").View(16)
	if v.Zoom != 16 || math.Abs(v.Center[0]-5) > 1e-9 || math.Abs(v.Center[1]-5) > 1e-9 {
		t.Errorf("single marker %+v", v)
	}
	// Markers on both sides of the antimeridian are fitted across it.
	v = parse("auto", "512x512.png", "markers=179,0|-179,0").View(22)
	if math.Abs(math.Abs(v.Center[0])-180) > 1e-9 || v.Zoom < 5 {
		t.Errorf("markers across the antimeridian %+v", v)
	}
	// A shortest path stays continuous in pixels.
	r = parse("auto", "512x512.png", "shortest=true&path=179,0|-179,0")
	v = r.View(22)
	pts := v.ProjectLine(r.Paths[0].Points)
	if d := pts[1][0] - pts[0][0]; d <= 0 || d > 512 {
		t.Errorf("shortest path spans %v px", d)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("2.35,48.85,12", "600x400@2x.png", "path=stroke:red|1,1|2,2&markers=icon:pin|1,1,a")
	f.Add("auto", "10x10.webp", "path=enc:_p~iF~ps|U_ulLnnqC_mqNvxq`@&shortest=1")
	f.Add("170,-20,-170,10", "1x1.jpg", "latlng=true&padding=0.3&encodedpath=__")
	f.Add("0,0,1", "100000x99999999999999999999.png", "")
	f.Fuzz(func(t *testing.T, viewport, size, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		r, err := Parse(viewport, size, q)
		if err != nil {
			if !IsRequestError(err) {
				t.Fatalf("not a request error: %v", err)
			}
			return
		}
		if r.Width < 1 || r.Width > MaxSize || r.Height < 1 || r.Height > MaxSize {
			t.Fatalf("size %dx%d", r.Width, r.Height)
		}
		n := 0
		for _, p := range r.Paths {
			n += len(p.Points)
		}
		if n > MaxPoints || len(r.Markers) > MaxMarkers {
			t.Fatalf("limits: %d points, %d markers", n, len(r.Markers))
		}
		v := r.View(22)
		if math.IsNaN(v.Zoom) || v.Zoom < 0 || v.Zoom > MaxZoom || math.IsNaN(v.Center[0]) || math.IsNaN(v.Center[1]) {
			t.Fatalf("view %+v", v)
		}
	})
}

func FuzzDecodePolyline(f *testing.F) {
	f.Add("_p~iF~ps|U_ulLnnqC_mqNvxq`@")
	f.Add("??")
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := DecodePolyline(s)
		if err != nil {
			return
		}
		again, err := DecodePolyline(EncodePolyline(pts))
		if err != nil || len(again) != len(pts) {
			t.Fatalf("round trip: %v, %d vs %d points", err, len(again), len(pts))
		}
		for i := range pts {
			if math.Abs(pts[i][0]-again[i][0]) > 1e-9 || math.Abs(pts[i][1]-again[i][1]) > 1e-9 {
				t.Fatalf("point %d: %v vs %v", i, pts[i], again[i])
			}
		}
	})
}
