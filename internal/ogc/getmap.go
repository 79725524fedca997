package ogc

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

// WMS versions served.
const (
	WMS130 = "1.3.0"
	WMS111 = "1.1.1"
)

// WMSCRS are the coordinate reference systems GetMap accepts, in the
// order the capabilities list them.
var WMSCRS = []string{"EPSG:3857", "EPSG:900913", "EPSG:4326", "CRS:84"}

// GetMapRequest is a parsed WMS GetMap request. BBox is always in x, y
// order (easting/longitude first), whatever the version's axis order.
type GetMapRequest struct {
	Version     string
	Layers      []string
	CRS         string
	BBox        [4]float64 // minx, miny, maxx, maxy in CRS units
	Width       int
	Height      int
	Format      imageenc.Format
	Transparent bool
	BGColor     color.RGBA // opaque; white unless BGCOLOR says otherwise
	Exceptions  string     // the exception format asked for
}

// ServiceException is a WMS error: its code (from the WMS standard's list),
// the parameter at fault, and a message.
type ServiceException struct {
	Version string
	Code    string
	Locator string
	Message string
}

func (e *ServiceException) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// ContentType is the media type of the exception report in its version.
func (e *ServiceException) ContentType() string {
	if e.Version == WMS111 {
		return "application/vnd.ogc.se_xml"
	}
	return "text/xml"
}

// XML renders the exception report of the request's version.
func (e *ServiceException) XML() []byte {
	type exception struct {
		Code    string `xml:"code,attr,omitempty"`
		Locator string `xml:"locator,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	type report struct {
		XMLName   xml.Name  `xml:"ServiceExceptionReport"`
		XMLNS     string    `xml:"xmlns,attr,omitempty"`
		Version   string    `xml:"version,attr"`
		Exception exception `xml:"ServiceException"`
	}
	v := e.Version
	rep := report{Version: v, Exception: exception{Code: e.Code, Locator: e.Locator, Text: e.Message}}
	if v != WMS111 {
		rep.Version, rep.XMLNS = WMS130, "http://www.opengis.net/ogc"
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(rep); err != nil {
		// Encoding plain strings cannot fail; keep the message anyway.
		return []byte(e.Message)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// wmsParams reads a query with case-insensitive keys (WMS key names are
// case-insensitive); the first value of a key wins.
func wmsParams(q url.Values) map[string]string {
	m := make(map[string]string, len(q))
	for k, vs := range q {
		lk := strings.ToLower(k)
		if _, seen := m[lk]; !seen && len(vs) > 0 {
			m[lk] = vs[0]
		}
	}
	return m
}

// WMSRequest returns the REQUEST and VERSION of a WMS query (keys in any
// case), and whether SERVICE, when given, is WMS.
func WMSRequest(q url.Values) (request, version string, serviceOK bool) {
	p := wmsParams(q)
	s, has := p["service"]
	return p["request"], p["version"], !has || strings.EqualFold(s, "WMS")
}

// ParseGetMap reads a GetMap query. maxSize bounds WIDTH and HEIGHT;
// known reports whether a layer name exists. Problems come back as a
// ServiceException with the standard's code.
func ParseGetMap(q url.Values, maxSize int, known func(layer string) bool) (*GetMapRequest, *ServiceException) {
	p := wmsParams(q)
	r := &GetMapRequest{Version: p["version"], BGColor: color.RGBA{255, 255, 255, 255}, Exceptions: p["exceptions"]}
	bad := func(code, locator, format string, args ...any) (*GetMapRequest, *ServiceException) {
		return nil, &ServiceException{Version: r.Version, Code: code, Locator: locator, Message: fmt.Sprintf(format, args...)}
	}
	switch r.Version {
	case WMS130, WMS111:
	case "":
		r.Version = WMS130
		return bad("MissingParameterValue", "VERSION", "VERSION is required (1.3.0 or 1.1.1)")
	case "1.1.0", "1.1":
		r.Version = WMS111
	default:
		v := r.Version
		r.Version = WMS130
		return bad("InvalidParameterValue", "VERSION", "version %q is not served (use 1.3.0 or 1.1.1)", v)
	}
	if s, ok := p["service"]; ok && !strings.EqualFold(s, "WMS") {
		return bad("InvalidParameterValue", "SERVICE", "SERVICE must be WMS, not %q", s)
	}

	layers, ok := p["layers"]
	if !ok || strings.TrimSpace(layers) == "" {
		return bad("MissingParameterValue", "LAYERS", "LAYERS is required")
	}
	for _, l := range strings.Split(layers, ",") {
		l = strings.TrimSpace(l)
		if l == "" || !known(l) {
			return bad("LayerNotDefined", "LAYERS", "the layer %q does not exist", l)
		}
		r.Layers = append(r.Layers, l)
	}
	if styles := strings.TrimSpace(p["styles"]); styles != "" {
		parts := strings.Split(styles, ",")
		if len(parts) != len(r.Layers) {
			return bad("StyleNotDefined", "STYLES", "STYLES names %d styles for %d layers", len(parts), len(r.Layers))
		}
		for _, s := range parts {
			if s = strings.TrimSpace(s); s != "" && !strings.EqualFold(s, "default") {
				return bad("StyleNotDefined", "STYLES", "the style %q does not exist (only the default style is served)", s)
			}
		}
	}

	crsKey, invalidCRS := "crs", "InvalidCRS"
	if r.Version == WMS111 {
		crsKey, invalidCRS = "srs", "InvalidSRS"
	}
	crs, ok := p[crsKey]
	if !ok || crs == "" {
		return bad("MissingParameterValue", strings.ToUpper(crsKey), "%s is required", strings.ToUpper(crsKey))
	}
	r.CRS = strings.ToUpper(crs)
	switch r.CRS {
	case "EPSG:3857", "EPSG:900913", "EPSG:4326", "CRS:84":
	default:
		return bad(invalidCRS, strings.ToUpper(crsKey), "%s %q is not served (use %s)", strings.ToUpper(crsKey), crs, strings.Join(WMSCRS, ", "))
	}

	bbox, ok := p["bbox"]
	if !ok {
		return bad("MissingParameterValue", "BBOX", "BBOX is required")
	}
	parts := strings.Split(bbox, ",")
	if len(parts) != 4 {
		return bad("InvalidParameterValue", "BBOX", "BBOX %q must have four numbers", bbox)
	}
	for i, s := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("InvalidParameterValue", "BBOX", "BBOX value %d (%q) is not a number", i+1, s)
		}
		r.BBox[i] = v
	}
	if r.Version == WMS130 && r.CRS == "EPSG:4326" {
		// WMS 1.3.0 follows the CRS's axis order: latitude first.
		b := r.BBox
		r.BBox = [4]float64{b[1], b[0], b[3], b[2]}
	}
	if !(r.BBox[0] < r.BBox[2]) || !(r.BBox[1] < r.BBox[3]) {
		return bad("InvalidParameterValue", "BBOX", "BBOX %q has a minimum not below its maximum", bbox)
	}
	if r.geographic() {
		if r.BBox[0] < -540 || r.BBox[2] > 540 || r.BBox[1] < -90 || r.BBox[3] > 90 {
			return bad("InvalidParameterValue", "BBOX", "BBOX %q is outside the world in degrees", bbox)
		}
	} else if lim := 3 * geo.OriginShift; r.BBox[0] < -lim || r.BBox[2] > lim || r.BBox[1] < -lim || r.BBox[3] > lim {
		return bad("InvalidParameterValue", "BBOX", "BBOX %q is far outside the Web Mercator square", bbox)
	}

	for _, d := range []struct {
		key string
		dst *int
	}{{"width", &r.Width}, {"height", &r.Height}} {
		s, ok := p[d.key]
		if !ok {
			return bad("MissingParameterValue", strings.ToUpper(d.key), "%s is required", strings.ToUpper(d.key))
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > maxSize {
			return bad("InvalidParameterValue", strings.ToUpper(d.key), "%s %q is not a whole number from 1 to %d", strings.ToUpper(d.key), s, maxSize)
		}
		*d.dst = n
	}

	format, ok := p["format"]
	if !ok {
		return bad("MissingParameterValue", "FORMAT", "FORMAT is required")
	}
	switch strings.ToLower(strings.TrimSpace(strings.SplitN(format, ";", 2)[0])) {
	case "image/png", "png", "image/png8":
		r.Format = imageenc.PNG
	case "image/jpeg", "image/jpg", "jpeg", "jpg":
		r.Format = imageenc.JPEG
	case "image/webp", "webp":
		r.Format = imageenc.WebP
	default:
		return bad("InvalidFormat", "FORMAT", "FORMAT %q is not served (use %s)", format, strings.Join(WMSFormats, ", "))
	}

	if t, ok := p["transparent"]; ok {
		switch strings.ToUpper(t) {
		case "TRUE":
			r.Transparent = true
		case "FALSE", "":
		default:
			return bad("InvalidParameterValue", "TRANSPARENT", "TRANSPARENT must be TRUE or FALSE, not %q", t)
		}
	}
	if bg, ok := p["bgcolor"]; ok {
		hex := strings.TrimPrefix(strings.TrimPrefix(bg, "0x"), "0X")
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || len(hex) != 6 {
			return bad("InvalidParameterValue", "BGCOLOR", "BGCOLOR %q is not 0xRRGGBB", bg)
		}
		r.BGColor = color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
	}
	return r, nil
}

func (r *GetMapRequest) geographic() bool { return r.CRS == "EPSG:4326" || r.CRS == "CRS:84" }

// toWorld converts a CRS coordinate (x, y order) to the unit world square
// of Web Mercator; longitudes beyond ±180 stay linear (x outside 0..1).
func (r *GetMapRequest) toWorld(x, y float64) (float64, float64) {
	if r.geographic() {
		return geo.LonLatToWorld(x, y)
	}
	return x/(2*geo.OriginShift) + 0.5, 0.5 - y/(2*geo.OriginShift)
}

// ToPixel puts a world position (the unit square of Web Mercator) on the
// request's grid: pixels from the top left corner of the image, a
// pixel's centre at half units. Geographic CRSs are linear in longitude
// and latitude; longitudes stay linear beyond ±180 as in toWorld.
func (r *GetMapRequest) ToPixel(wx, wy float64) (x, y float64) {
	var cx, cy float64
	if r.geographic() {
		cx, cy = geo.WorldToLonLat(wx, wy)
	} else {
		cx, cy = (wx-0.5)*2*geo.OriginShift, (0.5-wy)*2*geo.OriginShift
	}
	x = (cx - r.BBox[0]) / (r.BBox[2] - r.BBox[0]) * float64(r.Width)
	y = (r.BBox[3] - cy) / (r.BBox[3] - r.BBox[1]) * float64(r.Height)
	return x, y
}

// MapPlan is how a GetMap image is made: render a Web Mercator view of
// Width x Height pixels centred on Center at Zoom (512-pixel pyramid), then,
// when Resample is set, map it onto the requested grid with Warp.
type MapPlan struct {
	CenterLon, CenterLat float64
	Zoom                 float64
	Width, Height        int
	Resample             bool
}

// maxPlanDiagonal is the longest diagonal, in pixels, of a render behind a
// GetMap: the renderer reads the tiles under the circle around a view (a
// view may turn), at most 64 vector tiles, eight a side; a diagonal of
// seven 512-pixel tiles stays within that wherever the view lies. A
// larger render would lose its vector layers.
const maxPlanDiagonal = 7 * 512

// MaxSize is the largest WIDTH and HEIGHT served: a square image of this
// side renders within maxPlanDiagonal, so every size the capabilities
// allow is drawn whole.
const MaxSize = 2534 // floor(maxPlanDiagonal / sqrt 2)

// Plan computes the render behind the request. A Web Mercator request
// whose pixels are square renders straight at the requested size; other
// requests (stretched pixels, geographic CRSs) render the Mercator extent
// at the resolution of the request's finer axis, with a diagonal of at
// most maxPlanDiagonal pixels, and are warped.
func (r *GetMapRequest) Plan() MapPlan {
	x0, y0 := r.toWorld(r.BBox[0], r.BBox[3])
	x1, y1 := r.toWorld(r.BBox[2], r.BBox[1])
	dx, dy := x1-x0, y1-y0
	cx, cy := (x0+x1)/2, (y0+y1)/2
	lon, lat := geo.WorldToLonLat(cx, cy)
	// Pixels per world unit along each axis.
	sx, sy := float64(r.Width)/dx, float64(r.Height)/dy
	plan := MapPlan{CenterLon: lon, CenterLat: lat, Width: r.Width, Height: r.Height}
	if !r.geographic() && math.Abs(sx-sy) <= 1e-6*sx {
		plan.Zoom = math.Log2(sx / 512)
		return plan
	}
	s := math.Max(sx, sy)
	w, h := ceil(dx*s), ceil(dy*s)
	if d := math.Hypot(w, h); d > maxPlanDiagonal {
		// A coarser render, resampled: the request's finer axis asks
		// more pixels than one render draws.
		s *= maxPlanDiagonal / d * (1 - 1e-9)
		w, h = ceil(dx*s), ceil(dy*s)
		for math.Hypot(w, h) > maxPlanDiagonal { // the rounding up
			s *= 0.999
			w, h = ceil(dx*s), ceil(dy*s)
		}
	}
	plan.Width, plan.Height = max(1, int(w)), max(1, int(h))
	plan.Zoom = math.Log2(s / 512)
	plan.Resample = true
	return plan
}

// ceil rounds up, forgiving the float noise of a value that is whole.
func ceil(v float64) float64 { return math.Ceil(v - 1e-6) }

// Warp maps a render made by plan onto the request's grid (bilinear
// sampling of premultiplied pixels, pixel centres at integer coordinates,
// clamped to the render's edge pixels). Pixels outside the render stay
// transparent, and so do those whose four neighbours are (a sparse
// layer's picture warps at the cost of what it draws).
func (r *GetMapRequest) Warp(src *image.RGBA, plan MapPlan) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, r.Width, r.Height))
	cx, cy := geo.LonLatToWorld(plan.CenterLon, plan.CenterLat)
	scale := 512 * math.Exp2(plan.Zoom)
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	if sw == 0 || sh == 0 {
		return dst
	}
	stepX := (r.BBox[2] - r.BBox[0]) / float64(r.Width)
	stepY := (r.BBox[3] - r.BBox[1]) / float64(r.Height)
	// Each output column's two source columns (byte offsets in a row) and
	// its weight; in is false outside the render.
	type column struct {
		o0, o1 int
		fx     float64
		in     bool
	}
	cols := make([]column, r.Width)
	for i := range cols {
		wx, _ := r.toWorld(r.BBox[0]+(float64(i)+0.5)*stepX, 0)
		sx := (wx-cx)*scale + float64(sw)/2 - 0.5
		if sx < -0.5 || sx > float64(sw)-0.5 {
			continue
		}
		x0 := math.Floor(sx)
		ix := int(x0)
		cols[i] = column{o0: 4 * clampInt(ix, sw), o1: 4 * clampInt(ix+1, sw), fx: sx - x0, in: true}
	}
	for j := 0; j < r.Height; j++ {
		_, wy := r.toWorld(r.BBox[0], r.BBox[3]-(float64(j)+0.5)*stepY)
		sy := (wy-cy)*scale + float64(sh)/2 - 0.5
		if sy < -0.5 || sy > float64(sh)-0.5 {
			continue
		}
		y0 := math.Floor(sy)
		fy := sy - y0
		iy := int(y0)
		top := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+clampInt(iy, sh)):]
		bottom := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+clampInt(iy+1, sh)):]
		row := dst.Pix[j*dst.Stride:]
		for i, c := range cols {
			if !c.in {
				continue
			}
			a, b := top[c.o0:c.o0+4:c.o0+4], top[c.o1:c.o1+4:c.o1+4]
			d0, d1 := bottom[c.o0:c.o0+4:c.o0+4], bottom[c.o1:c.o1+4:c.o1+4]
			if word(a)|word(b)|word(d0)|word(d1) == 0 {
				continue
			}
			out := row[4*i : 4*i+4 : 4*i+4]
			for k := 0; k < 4; k++ {
				t := float64(a[k])*(1-c.fx) + float64(b[k])*c.fx
				u := float64(d0[k])*(1-c.fx) + float64(d1[k])*c.fx
				out[k] = uint8(t*(1-fy) + u*fy + 0.5)
			}
		}
	}
	return dst
}

// clampInt returns i within 0..n-1.
func clampInt(i, n int) int { return max(0, min(n-1, i)) }

// word is a pixel's four bytes as one number (0 for transparent black).
func word(p []byte) uint32 { return binary.LittleEndian.Uint32(p) }
