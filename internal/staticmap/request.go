package staticmap

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Limits of one request. The URI limit (8192 bytes) bounds most of them
// already; these keep the work of a request bounded whatever the URI holds.
const (
	MaxSize        = 2048 // width and height, in CSS pixels
	MaxPaths       = 50   // path parameters (the deprecated encodedpath counts as one)
	MaxMarkerSets  = 50   // markers parameters
	MaxMarkers     = 200  // markers over all markers parameters
	MaxPoints      = 5000 // path points over all paths
	MaxTextRunes   = 100  // marker label characters
	MaxZoom        = 24.0 // the deepest zoom of a center view
	MaxPathWidth   = 100.0
	MaxMarkerScale = 8.0
)

// Mode is how the viewport is given.
type Mode int

// The viewport modes.
const (
	Center Mode = iota // lon,lat,zoom
	Bounds             // minx,miny,maxx,maxy
	Auto               // fitted to the paths and markers
)

// Corner is where the attribution goes.
type Corner string

// The attribution positions; NoAttribution turns it off.
const (
	BottomRight   Corner = "bottomright"
	BottomLeft    Corner = "bottomleft"
	TopLeft       Corner = "topleft"
	TopRight      Corner = "topright"
	NoAttribution Corner = "false"
)

// Anchor is the point of a marker icon placed on the marker's position.
type Anchor string

// The marker anchors.
var anchors = map[string]bool{
	"center": true, "top": true, "bottom": true, "left": true, "right": true,
	"top-left": true, "top-right": true, "bottom-left": true, "bottom-right": true,
}

// Default overlay styles.
var (
	DefaultStroke = expr.Color{R: 0, G: 64.0 / 255, B: 1, A: 0.8}
	DefaultWidth  = 3.0
)

// Path is a line (or a polygon, when it has a fill) drawn over the map.
type Path struct {
	Points   []orb.Point // lon, lat; unwrapped across the antimeridian when Shortest
	Stroke   expr.Color
	Fill     *expr.Color // nil: not filled
	Width    float64     // stroke width in CSS pixels; 0 draws no stroke
	Shortest bool
}

// Marker is an icon, optionally with a text label, drawn over the map.
type Marker struct {
	Point  orb.Point
	Text   string
	Icon   string // empty: the default marker; an http(s) URL; or a sprite icon name
	Anchor Anchor
	Scale  float64
}

// Request is a parsed static map request.
type Request struct {
	Mode        Mode
	Center      orb.Point // Center mode
	Zoom        float64   // Center mode
	Bounds      orb.Bound // Bounds mode; Max[0] may exceed 180 across the antimeridian
	Width       int       // CSS pixels
	Height      int
	Scale       int // 1 or 2
	Format      imageenc.Format
	Paths       []Path
	Markers     []Marker
	Attribution Corner
	Padding     float64
	LatLng      bool
}

// Error is a request problem: what is wrong and where. Every error Parse
// returns is one.
type Error struct {
	Where string // the parameter or path segment
	Msg   string
}

func (e *Error) Error() string { return e.Where + ": " + e.Msg }

func fail(where, format string, args ...any) error {
	return &Error{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// IsRequestError reports whether err is a problem of the request (a 400).
func IsRequestError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Parse reads a static map request: viewport is the path segment after
// /static/ ("auto", "lon,lat,zoom" or "minx,miny,maxx,maxy"), size the last
// segment ("{width}x{height}{@2x}.{format}") and q the query.
func Parse(viewport, size string, q url.Values) (*Request, error) {
	r := &Request{Attribution: BottomRight, Padding: 0.1, Scale: 1}
	var err error
	if r.LatLng, err = boolParam(q, "latlng"); err != nil {
		return nil, err
	}
	if err := r.parseSize(size); err != nil {
		return nil, err
	}
	if err := r.parseViewport(viewport); err != nil {
		return nil, err
	}
	if v := q.Get("padding"); q.Has("padding") {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(p) || p < 0 || p >= 0.5 {
			return nil, fail("padding", "%q is not a number from 0 up to (not including) 0.5", v)
		}
		r.Padding = p
	}
	if q.Has("attribution") {
		switch c := Corner(strings.ToLower(q.Get("attribution"))); c {
		case BottomRight, BottomLeft, TopLeft, TopRight, NoAttribution:
			r.Attribution = c
		default:
			return nil, fail("attribution", "%q is not one of bottomright, bottomleft, topleft, topright, false", q.Get("attribution"))
		}
	}
	shortest, err := boolParam(q, "shortest")
	if err != nil {
		return nil, err
	}
	defaults, err := deprecatedStyle(q)
	if err != nil {
		return nil, err
	}
	defaults.Shortest = shortest
	if len(q["path"])+len(q["encodedpath"]) > MaxPaths {
		return nil, fail("path", "at most %d paths are allowed", MaxPaths)
	}
	points := 0
	for i, v := range q["path"] {
		where := "path"
		if len(q["path"]) > 1 {
			where = fmt.Sprintf("path %d", i+1)
		}
		p, err := r.parsePath(where, v, defaults)
		if err != nil {
			return nil, err
		}
		points += len(p.Points)
		r.Paths = append(r.Paths, p)
	}
	for _, v := range q["encodedpath"] {
		pts, err := DecodePolyline(v)
		if err != nil {
			return nil, fail("encodedpath", "%v", err)
		}
		if len(pts) < 2 {
			return nil, fail("encodedpath", "a path needs at least two points, %d given", len(pts))
		}
		p := defaults
		p.Points = pts
		points += len(pts)
		r.Paths = append(r.Paths, p)
	}
	if points > MaxPoints {
		return nil, fail("path", "the paths have %d points; at most %d are allowed", points, MaxPoints)
	}
	for i := range r.Paths {
		if r.Paths[i].Shortest {
			r.Paths[i].Points = unwrap(r.Paths[i].Points)
		}
	}
	if len(q["markers"]) > MaxMarkerSets {
		return nil, fail("markers", "at most %d markers parameters are allowed", MaxMarkerSets)
	}
	for i, v := range q["markers"] {
		where := "markers"
		if len(q["markers"]) > 1 {
			where = fmt.Sprintf("markers %d", i+1)
		}
		ms, err := r.parseMarkers(where, v)
		if err != nil {
			return nil, err
		}
		r.Markers = append(r.Markers, ms...)
		if len(r.Markers) > MaxMarkers {
			return nil, fail("markers", "at most %d markers are allowed", MaxMarkers)
		}
	}
	if r.Mode == Auto && len(r.Paths) == 0 && len(r.Markers) == 0 {
		return nil, fail("auto", "an auto-fitted image needs at least one path or marker")
	}
	return r, nil
}

// parseSize reads "{width}x{height}{@2x}.{format}".
func (r *Request) parseSize(s string) error {
	dot := strings.LastIndexByte(s, '.')
	if dot < 0 {
		return fail("size", "%q has no format (expected e.g. 600x400.png or 600x400@2x.webp)", s)
	}
	f, err := imageenc.ParseFormat(s[dot+1:])
	if err != nil {
		return fail("format", "%v", err)
	}
	if f == imageenc.Basis {
		return fail("format", "static maps are png, jpg or webp, not basis (a raster tile format)")
	}
	r.Format = f
	dims := s[:dot]
	if d, ok := strings.CutSuffix(dims, "@2x"); ok {
		r.Scale, dims = 2, d
	}
	ws, hs, ok := strings.Cut(dims, "x")
	if !ok {
		return fail("size", "%q is not {width}x{height}", dims)
	}
	if r.Width, err = dimension("width", ws); err != nil {
		return err
	}
	if r.Height, err = dimension("height", hs); err != nil {
		return err
	}
	return nil
}

// dimension reads a width or height: digits only, 1 to MaxSize (a number
// too long for an int is outside the range too, not "not a number").
func dimension(name, s string) (int, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fail(name, "%q is not a whole number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxSize {
		if len(s) > 12 {
			s = s[:12] + "..."
		}
		return 0, fail(name, "%s is outside 1..%d", s, MaxSize)
	}
	return n, nil
}

// parseViewport reads the viewport segment.
func (r *Request) parseViewport(s string) error {
	if s == "auto" {
		r.Mode = Auto
		return nil
	}
	parts := strings.Split(s, ",")
	nums := make([]float64, len(parts))
	for i, p := range parts {
		v, err := number(p)
		if err != nil {
			return fail("viewport", "%q: value %d %v", s, i+1, err)
		}
		nums[i] = v
	}
	switch len(nums) {
	case 3:
		lon, lat := nums[0], nums[1]
		if r.LatLng {
			lon, lat = lat, lon
		}
		r.Mode, r.Center, r.Zoom = Center, orb.Point{lon, lat}, nums[2]
		if err := checkLonLat(r.Center); err != nil {
			return fail("center", "%v", err)
		}
		if r.Zoom < 0 || r.Zoom > MaxZoom {
			return fail("zoom", "%v is outside 0..%v", r.Zoom, MaxZoom)
		}
		return nil
	case 4:
		w, s, e, n := nums[0], nums[1], nums[2], nums[3]
		if r.LatLng {
			w, s, e, n = nums[1], nums[0], nums[3], nums[2]
		}
		for _, p := range []orb.Point{{w, s}, {e, n}} {
			if err := checkLonLat(p); err != nil {
				return fail("bounds", "%v", err)
			}
		}
		if s > n {
			return fail("bounds", "the south latitude %v is north of the north latitude %v", s, n)
		}
		if e < w { // across the antimeridian
			e += 360
		}
		r.Mode, r.Bounds = Bounds, orb.Bound{Min: orb.Point{w, s}, Max: orb.Point{e, n}}
		return nil
	}
	return fail("viewport", "%q is neither lon,lat,zoom nor minx,miny,maxx,maxy nor auto", s)
}

func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

func checkLonLat(p orb.Point) error {
	if p[0] < -180 || p[0] > 180 {
		return fmt.Errorf("longitude %v is outside -180..180", p[0])
	}
	if p[1] < -geo.MaxLat || p[1] > geo.MaxLat {
		return fmt.Errorf("latitude %v is outside -%.4f..%.4f (the Web Mercator map)", p[1], geo.MaxLat, geo.MaxLat)
	}
	return nil
}

// point reads "lon,lat" (or "lat,lon" with latlng).
func (r *Request) point(a, b string) (orb.Point, error) {
	x, err := number(a)
	if err != nil {
		return orb.Point{}, err
	}
	y, err := number(b)
	if err != nil {
		return orb.Point{}, err
	}
	p := orb.Point{x, y}
	if r.LatLng {
		p = orb.Point{y, x}
	}
	return p, checkLonLat(p)
}

func boolParam(q url.Values, name string) (bool, error) {
	if !q.Has(name) {
		return false, nil
	}
	return boolValue(name, q.Get(name))
}

func boolValue(where, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, fail(where, "%q is not true or false", v)
}

func colorValue(where, v string) (expr.Color, error) {
	c, ok := expr.ParseColor(v)
	if !ok {
		return expr.Color{}, fail(where, "%q is not a CSS colour", v)
	}
	return c, nil
}

func widthValue(where, v string) (float64, error) {
	w, err := number(v)
	if err != nil || w < 0 || w > MaxPathWidth {
		return 0, fail(where, "%q is not a width from 0 to %v pixels", v, MaxPathWidth)
	}
	return w, nil
}

// deprecatedStyle reads the deprecated fill, stroke and width parameters:
// the style of the deprecated encodedpath and the default of every path
// that does not set its own.
func deprecatedStyle(q url.Values) (Path, error) {
	p := Path{Stroke: DefaultStroke, Width: DefaultWidth}
	if q.Has("fill") {
		c, err := colorValue("fill", q.Get("fill"))
		if err != nil {
			return p, err
		}
		p.Fill = &c
	}
	if q.Has("stroke") {
		c, err := colorValue("stroke", q.Get("stroke"))
		if err != nil {
			return p, err
		}
		p.Stroke = c
	}
	if q.Has("width") {
		w, err := widthValue("width", q.Get("width"))
		if err != nil {
			return p, err
		}
		p.Width = w
	}
	return p, nil
}

// options splits the leading "key:value|" options (keys from allowed) off
// a path or markers value and returns them with the rest.
func options(where, v string, allowed ...string) (map[string]string, string, error) {
	opts := map[string]string{}
	for {
		seg, rest, more := strings.Cut(v, "|")
		key, val, ok := strings.Cut(seg, ":")
		if !ok || key == "enc" {
			return opts, v, nil
		}
		known := false
		for _, a := range allowed {
			known = known || a == key
		}
		if !known {
			return nil, "", fail(where, "unknown option %q (allowed: %s)", key, strings.Join(allowed, ", "))
		}
		if _, dup := opts[key]; dup {
			return nil, "", fail(where, "the option %q is given twice", key)
		}
		opts[key] = val
		if !more {
			return opts, "", nil
		}
		v = rest
	}
}

// parsePath reads one path value.
func (r *Request) parsePath(where, v string, defaults Path) (Path, error) {
	p := defaults
	opts, rest, err := options(where, v, "fill", "stroke", "width", "shortest")
	if err != nil {
		return p, err
	}
	for k, val := range opts {
		w := where + " option " + k
		switch k {
		case "fill":
			c, err := colorValue(w, val)
			if err != nil {
				return p, err
			}
			p.Fill = &c
		case "stroke":
			if p.Stroke, err = colorValue(w, val); err != nil {
				return p, err
			}
		case "width":
			if p.Width, err = widthValue(w, val); err != nil {
				return p, err
			}
		case "shortest":
			if p.Shortest, err = boolValue(w, val); err != nil {
				return p, err
			}
		}
	}
	if enc, ok := strings.CutPrefix(rest, "enc:"); ok {
		pts, err := DecodePolyline(enc)
		if err != nil {
			return p, fail(where, "%v", err)
		}
		p.Points = pts
	} else if rest != "" {
		for i, pair := range strings.Split(rest, "|") {
			if len(p.Points) >= MaxPoints {
				return p, fail(where, "more than %d points", MaxPoints)
			}
			a, b, ok := strings.Cut(pair, ",")
			if !ok {
				return p, fail(where, "point %d: %q is not lon,lat", i+1, pair)
			}
			pt, err := r.point(a, b)
			if err != nil {
				return p, fail(where, "point %d: %v", i+1, err)
			}
			p.Points = append(p.Points, pt)
		}
	}
	if len(p.Points) < 2 {
		return p, fail(where, "a path needs at least two points, %d given", len(p.Points))
	}
	return p, nil
}

// parseMarkers reads one markers value: options, then lon,lat[,text]
// entries.
func (r *Request) parseMarkers(where, v string) ([]Marker, error) {
	opts, rest, err := options(where, v, "icon", "anchor", "scale")
	if err != nil {
		return nil, err
	}
	base := Marker{Anchor: "", Scale: 1}
	if icon, ok := opts["icon"]; ok {
		if icon == "" {
			return nil, fail(where+" option icon", "empty")
		}
		if strings.Contains(icon, "://") {
			u, err := url.Parse(icon)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fail(where+" option icon", "%q is not an http(s) URL", icon)
			}
		}
		base.Icon = icon
	}
	if a, ok := opts["anchor"]; ok {
		a = strings.ToLower(a)
		if !anchors[a] {
			return nil, fail(where+" option anchor", "%q is not one of center, top, bottom, left, right, top-left, top-right, bottom-left, bottom-right", a)
		}
		base.Anchor = Anchor(a)
	}
	if s, ok := opts["scale"]; ok {
		f, err := number(s)
		if err != nil || f <= 0 || f > MaxMarkerScale {
			return nil, fail(where+" option scale", "%q is not a number above 0 and at most %v", s, MaxMarkerScale)
		}
		base.Scale = f
	}
	if rest == "" {
		return nil, fail(where, "no marker position given (lon,lat)")
	}
	var out []Marker
	for i, entry := range strings.Split(rest, "|") {
		if len(out) >= MaxMarkers {
			return nil, fail(where, "more than %d markers", MaxMarkers)
		}
		parts := strings.SplitN(entry, ",", 3)
		if len(parts) < 2 {
			return nil, fail(where, "marker %d: %q is not lon,lat[,text]", i+1, entry)
		}
		pt, err := r.point(parts[0], parts[1])
		if err != nil {
			return nil, fail(where, "marker %d: %v", i+1, err)
		}
		m := base
		m.Point = pt
		if len(parts) == 3 {
			if n := len([]rune(parts[2])); n > MaxTextRunes {
				return nil, fail(where, "marker %d: the text has %d characters; at most %d are allowed", i+1, n, MaxTextRunes)
			}
			m.Text = parts[2]
		}
		out = append(out, m)
	}
	return out, nil
}

// unwrap shifts longitudes by whole turns so that no step between two
// consecutive points exceeds 180 degrees: the shortest way round.
func unwrap(pts []orb.Point) []orb.Point {
	out := make([]orb.Point, len(pts))
	for i, p := range pts {
		if i > 0 {
			prev := out[i-1][0]
			for p[0]-prev > 180 {
				p[0] -= 360
			}
			for p[0]-prev < -180 {
				p[0] += 360
			}
		}
		out[i] = p
	}
	return out
}
