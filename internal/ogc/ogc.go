// Package ogc builds the machine-readable descriptions of tilesets and maps that
// Tessera publishes: TileJSON, OGC API - Tiles tileset metadata and tile matrix
// sets, the OGC conformance declaration, WMTS 1.0.0 capabilities and WMS 1.3.0
// capabilities.
//
// The package is pure: it knows no HTTP. Callers describe a tileset (TileSet) or
// a map (Map) and give an Endpoint (the absolute base URL of the server plus an
// optional query suffix such as "key=abc"); every URL inside the produced
// documents is absolute and carries the query suffix.
//
// All documents use the WebMercatorQuad tiling (EPSG:3857, "GoogleMapsCompatible"
// in WMTS), with tiles addressed as XYZ (row 0 at the north).
//
// The OGC API tree under /ogc (collections.go) describes every tileset as an
// OGC API - Common collection with one OGC API - Tiles tileset, in
// WebMercatorQuad, or in WebMercatorQuad512 (the same grid with 512-pixel
// tiles) for raster tiles of 512 pixels. Tile matrix sets are served in the
// OGC TMS 2.0 JSON encoding and, with f=tms1json, in the TMS 1.0 (OGC
// 17-083r2) JSON encoding that GDAL 3.6 reads; a collection's extent is in
// CRS84, or in EPSG:3857 metres when asked with bbox-crs (GDAL 3.6 takes the
// bbox as tile matrix set coordinates).
package ogc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
)

// MaxZoomLimit is the largest zoom level accepted in a description.
const MaxZoomLimit = 30

// TileSet describes one tileset served under /tiles/{ID}/.
type TileSet struct {
	ID          string // identifier used in public URLs (path-escaped when used)
	Title       string // human title; ID when empty
	Description string
	Attribution string // HTML fragment, passed through as text
	Version     string // tileset version; "1.0.0" when empty
	// Format is the tile format: pbf (or mvt) for vector tiles, png, jpg (or
	// jpeg), webp for raster tiles. Other short alphanumeric extensions are
	// accepted and described as application/octet-stream.
	Format string
	// Vector marks vector tiles; implied by Format pbf or mvt.
	Vector           bool
	MinZoom, MaxZoom int
	// Bounds is west, south, east, north in degrees; the zero value (or invalid
	// bounds) means the whole Web Mercator world.
	Bounds [4]float64
	// Center is longitude, latitude, zoom; the zero value means the middle of
	// Bounds at MinZoom. The zoom is clamped into [MinZoom, MaxZoom].
	Center [3]float64
	// VectorLayers is the TileJSON vector_layers array (from MBTiles metadata
	// "json" or PMTiles metadata); ignored for raster tilesets.
	VectorLayers json.RawMessage
	// TileSize is the pixel size of raster tiles (256 or 512); 256 when zero.
	TileSize int
}

// Map describes one rendered map served under /maps/{ID}/ (raster tiles of
// 512 px at /maps/{ID}/{z}/{x}/{y}.{ext} and 256 px at
// /maps/{ID}/256/{z}/{x}/{y}.{ext}).
type Map struct {
	ID          string
	Title       string
	Description string
	Attribution string
	Format      string // png, jpg (or jpeg), webp
	Bounds      [4]float64
	Center      [3]float64
	MinZoom     int
	MaxZoom     int
}

// Endpoint is the absolute root of the public API plus an optional query
// suffix carried into every URL. Build it with NewEndpoint.
type Endpoint struct {
	base  string // scheme://host[/path], no trailing slash
	query string // encoded query without '?', may be empty
}

// NewEndpoint validates base (an absolute http or https URL without query or
// fragment, e.g. "https://maps.example.com" or "https://example.com/tessera")
// and query (e.g. "?key=abc", "key=abc" or "").
func NewEndpoint(base, query string) (Endpoint, error) {
	u, err := url.Parse(base)
	if err != nil {
		return Endpoint{}, fmt.Errorf("ogc: parse base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Endpoint{}, fmt.Errorf("ogc: base URL %q: scheme must be http or https", base)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return Endpoint{}, fmt.Errorf("ogc: base URL %q: want scheme://host[/path] only", base)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	q := strings.TrimPrefix(query, "?")
	if q != "" {
		vals, err := url.ParseQuery(q)
		if err != nil {
			return Endpoint{}, fmt.Errorf("ogc: parse query suffix: %w", err)
		}
		q = vals.Encode()
	}
	return Endpoint{base: u.String(), query: q}, nil
}

// Base returns the normalised base URL (no trailing slash).
func (e Endpoint) Base() string { return e.base }

// Query returns the normalised query suffix without '?' (may be empty).
func (e Endpoint) Query() string { return e.query }

// URL joins an already escaped absolute path (starting with '/') to the base
// and appends the query suffix.
func (e Endpoint) URL(path string) string {
	if e.query == "" {
		return e.base + path
	}
	return e.base + path + "?" + e.query
}

// prefixURL is a URL that ends with '?' or '&' so that a client can append
// key-value parameters (WMS and WMTS KVP OnlineResource).
func (e Endpoint) prefixURL(path string) string {
	if e.query == "" {
		return e.base + path + "?"
	}
	return e.base + path + "?" + e.query + "&"
}

// escapeSegment escapes an id for use as one URL path segment.
func escapeSegment(id string) string { return url.PathEscape(id) }

func (e Endpoint) valid() error {
	if e.base == "" {
		return errors.New("ogc: endpoint not initialised: use NewEndpoint")
	}
	return nil
}

var extRe = regexp.MustCompile(`^[a-z0-9]{1,10}$`)

// tileFormat returns the file extension and media type of a tile format.
func tileFormat(format string, vector bool) (ext, mime string, isVector bool, err error) {
	f := strings.ToLower(strings.TrimSpace(format))
	switch f {
	case "pbf", "mvt":
		return "pbf", MediaTypeMVT, true, nil
	case "png":
		return "png", "image/png", false, nil
	case "jpg", "jpeg":
		return "jpg", "image/jpeg", false, nil
	case "webp":
		return "webp", "image/webp", false, nil
	case "":
		if vector {
			return "pbf", MediaTypeMVT, true, nil
		}
		return "", "", false, errors.New("ogc: tile format is empty")
	}
	if !extRe.MatchString(f) {
		return "", "", false, fmt.Errorf("ogc: tile format %q is not a short alphanumeric extension", format)
	}
	return f, "application/octet-stream", vector, nil
}

// MediaTypeMVT is the media type of Mapbox Vector Tiles.
const MediaTypeMVT = "application/vnd.mapbox-vector-tile"

// source is the normalised description shared by tilesets and maps.
type source struct {
	id, title, description, attribution, version string
	prefix                                       string // "/tiles/{id}" or "/maps/{id}"
	ogcTilePrefix                                string // path before {z} of the 256 px WebMercatorQuad tiles
	ext, mime                                    string
	vector                                       bool
	minZoom, maxZoom                             int
	bounds                                       [4]float64
	center                                       [3]float64
	vectorLayers                                 json.RawMessage
	tileSize                                     int
}

func checkCommon(id string, minZ, maxZ int) error {
	if id == "" {
		return errors.New("ogc: empty id")
	}
	if id == "." || id == ".." {
		// WHATWG URL parsers resolve "%2e%2e" like "..": no URL can name it
		return fmt.Errorf("ogc: id %q cannot be a URL path segment", id)
	}
	if len(id) > 1024 {
		return errors.New("ogc: id longer than 1024 bytes")
	}
	if minZ < 0 || maxZ > MaxZoomLimit || minZ > maxZ {
		return fmt.Errorf("ogc: %s: zoom range %d..%d outside 0..%d or reversed", id, minZ, maxZ, MaxZoomLimit)
	}
	return nil
}

func (ts TileSet) source() (source, error) {
	if err := checkCommon(ts.ID, ts.MinZoom, ts.MaxZoom); err != nil {
		return source{}, err
	}
	ext, mime, vector, err := tileFormat(ts.Format, ts.Vector)
	if err != nil {
		return source{}, fmt.Errorf("tileset %s: %w", ts.ID, err)
	}
	vector = vector || ts.Vector
	size := ts.TileSize
	if size == 0 {
		size = 256
	}
	if size != 256 && size != 512 {
		return source{}, fmt.Errorf("ogc: tileset %s: tile size %d, want 256 or 512", ts.ID, ts.TileSize)
	}
	esc := "/tiles/" + escapeSegment(ts.ID)
	s := source{
		id: ts.ID, title: ts.Title, description: ts.Description, attribution: ts.Attribution,
		version: ts.Version, prefix: esc, ogcTilePrefix: esc,
		ext: ext, mime: mime, vector: vector, minZoom: ts.MinZoom, maxZoom: ts.MaxZoom,
		tileSize: size,
	}
	if vector {
		s.vectorLayers = normaliseVectorLayers(ts.VectorLayers)
		s.tileSize = 0
	}
	s.finish(ts.Bounds, ts.Center)
	return s, nil
}

func (m Map) source() (source, error) {
	if err := checkCommon(m.ID, m.MinZoom, m.MaxZoom); err != nil {
		return source{}, err
	}
	ext, mime, vector, err := tileFormat(m.Format, false)
	if err != nil {
		return source{}, fmt.Errorf("map %s: %w", m.ID, err)
	}
	if vector || mime == "application/octet-stream" {
		return source{}, fmt.Errorf("ogc: map %s: format %q, want png, jpg or webp", m.ID, m.Format)
	}
	esc := "/maps/" + escapeSegment(m.ID)
	s := source{
		id: m.ID, title: m.Title, description: m.Description, attribution: m.Attribution,
		prefix: esc, ogcTilePrefix: esc + "/256",
		ext: ext, mime: mime, minZoom: m.MinZoom, maxZoom: m.MaxZoom, tileSize: 256,
	}
	s.finish(m.Bounds, m.Center)
	return s, nil
}

func (s *source) finish(b [4]float64, c [3]float64) {
	if s.title == "" {
		s.title = s.id
	}
	if s.version == "" {
		s.version = "1.0.0"
	}
	s.bounds = normaliseBounds(b)
	if c == ([3]float64{}) || !finite(c[0], c[1], c[2]) || c[0] < -180 || c[0] > 180 || c[1] < -MaxLat || c[1] > MaxLat {
		c = [3]float64{(s.bounds[0] + s.bounds[2]) / 2, (s.bounds[1] + s.bounds[3]) / 2, float64(s.minZoom)}
	}
	c[2] = math.Max(float64(s.minZoom), math.Min(float64(s.maxZoom), c[2]))
	s.center = c
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// normaliseBounds clamps bounds to the Web Mercator world; invalid bounds
// (NaN, reversed, empty, or crossing the antimeridian) become the whole world.
func normaliseBounds(b [4]float64) [4]float64 {
	world := [4]float64{-180, -MaxLat, 180, MaxLat}
	if b == ([4]float64{}) || !finite(b[0], b[1], b[2], b[3]) {
		return world
	}
	w, s, e, n := math.Max(b[0], -180), math.Max(b[1], -MaxLat), math.Min(b[2], 180), math.Min(b[3], MaxLat)
	if w >= e || s >= n {
		return world
	}
	return [4]float64{w, s, e, n}
}

// normaliseVectorLayers passes a JSON array through and replaces anything
// else (missing, null, invalid, not an array) with an empty array.
func normaliseVectorLayers(raw json.RawMessage) json.RawMessage {
	t := strings.TrimSpace(string(raw))
	if t == "" || t[0] != '[' || !json.Valid([]byte(t)) {
		return json.RawMessage("[]")
	}
	return json.RawMessage(t)
}

// vectorLayer is the part of a TileJSON vector_layers item that we read.
type vectorLayer struct {
	ID          string         `json:"id"`
	Description string         `json:"description"`
	MinZoom     *int           `json:"minzoom"`
	MaxZoom     *int           `json:"maxzoom"`
	Fields      map[string]any `json:"fields"`
}

func parseVectorLayers(raw json.RawMessage) []vectorLayer {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil
	}
	out := make([]vectorLayer, 0, len(items))
	for _, it := range items {
		var l vectorLayer
		if json.Unmarshal(it, &l) != nil || l.ID == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}
