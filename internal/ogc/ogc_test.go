package ogc

import (
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"
)

// Reference values of the WebMercatorQuad definition (OGC 17-083r4 Annex D),
// written here as published, to cross-check the formulas.
const (
	refScaleZ0    = 559082264.0287178
	refCellZ0     = 156543.03392804097
	refOriginEdge = 20037508.3427892
)

func mustEndpoint(t testing.TB, base, q string) Endpoint {
	t.Helper()
	e, err := NewEndpoint(base, q)
	if err != nil {
		t.Fatalf("NewEndpoint(%q, %q): %v", base, q, err)
	}
	return e
}

func TestNewEndpoint(t *testing.T) {
	tests := []struct {
		base, query       string
		wantBase, wantURL string // wantURL is URL("/x")
		wantErr           bool
	}{
		{"https://maps.example.com", "", "https://maps.example.com", "https://maps.example.com/x", false},
		{"https://maps.example.com/", "?key=abc", "https://maps.example.com", "https://maps.example.com/x?key=abc", false},
		{"http://localhost:8080/tessera/", "key=a b", "http://localhost:8080/tessera", "http://localhost:8080/tessera/x?key=a+b", false},
		{"https://h", "b=2&a=1", "https://h", "https://h/x?a=1&b=2", false},
		{"ftp://h", "", "", "", true},
		{"/relative", "", "", "", true},
		{"https://h/?q=1", "", "", "", true},
		{"https://h/#frag", "", "", "", true},
		{"https://user:pw@h", "", "", "", true},
		{"https://h", "a=%zz", "", "", true},
		{"://", "", "", "", true},
	}
	for _, tt := range tests {
		e, err := NewEndpoint(tt.base, tt.query)
		if (err != nil) != tt.wantErr {
			t.Errorf("NewEndpoint(%q, %q) error = %v, wantErr %v", tt.base, tt.query, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if e.Base() != tt.wantBase || e.URL("/x") != tt.wantURL {
			t.Errorf("NewEndpoint(%q, %q) = base %q url %q, want %q %q", tt.base, tt.query, e.Base(), e.URL("/x"), tt.wantBase, tt.wantURL)
		}
	}
	if _, err := TileJSON(TileSet{ID: "a", Format: "png"}, Endpoint{}); err == nil {
		t.Error("zero Endpoint accepted")
	}
}

func TestCellSizeAndScale(t *testing.T) {
	for z := 0; z <= 30; z++ {
		p := math.Exp2(float64(z))
		// independent formula: earth circumference / pixels across the world
		wantCell := 2 * math.Pi * 6378137 / (256 * p)
		if got := CellSize(z, 256); math.Abs(got-wantCell) > 1e-9*wantCell {
			t.Errorf("CellSize(%d) = %v, want %v", z, got, wantCell)
		}
		if got, want := CellSize(z, 256), refCellZ0/p; math.Abs(got-want) > 1e-12*want {
			t.Errorf("CellSize(%d) = %v, reference %v", z, got, want)
		}
		if got, want := ScaleDenominator(z, 256), refScaleZ0/p; math.Abs(got-want) > 1e-9*want {
			t.Errorf("ScaleDenominator(%d) = %v, reference %v", z, got, want)
		}
		if got, want := ScaleDenominator(z, 512), refScaleZ0/(2*p); math.Abs(got-want) > 1e-9*want {
			t.Errorf("ScaleDenominator(%d, 512) = %v, want %v", z, got, want)
		}
	}
	if math.Abs(OriginShift-refOriginEdge) > 1e-6 {
		t.Errorf("OriginShift = %v, reference %v", OriginShift, refOriginEdge)
	}
	// MaxLat is the latitude whose Mercator y equals the x of 180 degrees.
	if y := math.Atan(math.Sinh(math.Pi)) * 180 / math.Pi; math.Abs(y-MaxLat) > 1e-12 {
		t.Errorf("MaxLat = %v, want %v", MaxLat, y)
	}
}

// tileLonLat returns the bounds of XYZ tile (x, y, z) with the inverse
// Mercator formula.
func tileLonLat(x, y, z int) (w, s, e, n float64) {
	p := math.Exp2(float64(z))
	lat := func(row float64) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*row/p))) * 180 / math.Pi }
	return float64(x)/p*360 - 180, lat(float64(y + 1)), float64(x+1)/p*360 - 180, lat(float64(y))
}

func TestTileRangeBruteForce(t *testing.T) {
	boxes := [][4]float64{
		{-180, -MaxLat, 180, MaxLat},
		{-10, 30, 40, 60},
		{5, 45, 10, 48},
		{0, 0, 90, 66.51326044311186}, // exact tile edges at z=2
		{-0.001, -0.001, 0.001, 0.001},
		{179.9, -10, 180, 10},
		{-180, 80, -179, MaxLat},
	}
	for _, b := range boxes {
		for z := 0; z <= 7; z++ {
			c0, c1, r0, r1 := tileRange(b, z)
			n := 1 << z
			w0, w1, h0, h1 := n, -1, n, -1
			for x := 0; x < n; x++ {
				for y := 0; y < n; y++ {
					tw, ts, te, tn := tileLonLat(x, y, z)
					// positive-area overlap, with a tolerance for float noise at edges
					const eps = 1e-9
					if math.Min(te, b[2])-math.Max(tw, b[0]) > eps && math.Min(tn, b[3])-math.Max(ts, b[1]) > eps {
						w0, w1, h0, h1 = min(w0, x), max(w1, x), min(h0, y), max(h1, y)
					}
				}
			}
			if c0 != w0 || c1 != w1 || r0 != h0 || r1 != h1 {
				t.Errorf("tileRange(%v, %d) = cols %d..%d rows %d..%d, brute force %d..%d %d..%d", b, z, c0, c1, r0, r1, w0, w1, h0, h1)
			}
		}
	}
}

var hostileID = `a b/../"<x>{z}?&`

func TestTileJSON(t *testing.T) {
	e := mustEndpoint(t, "https://maps.example.com/", "?key=abc")
	layers := `[{"id":"cities","fields":{"name":"String"},"minzoom":0,"maxzoom":6}]`
	tests := []struct {
		name         string
		ts           TileSet
		wantTile     string
		wantFormat   string
		wantVector   bool
		wantTileSize int
		wantBounds   [4]float64
		wantCenter   [3]float64
		wantErr      bool
	}{
		{
			name:     "vector",
			ts:       TileSet{ID: "world", Title: "World", Format: "pbf", MaxZoom: 6, Bounds: [4]float64{-10, 30, 40, 60}, Center: [3]float64{1, 2, 9}, VectorLayers: json.RawMessage(layers)},
			wantTile: "https://maps.example.com/tiles/world/{z}/{x}/{y}.pbf?key=abc", wantFormat: "pbf", wantVector: true,
			wantBounds: [4]float64{-10, 30, 40, 60}, wantCenter: [3]float64{1, 2, 6},
		},
		{
			name:     "vector flag, no format, bad layers",
			ts:       TileSet{ID: "v", Vector: true, MinZoom: 2, MaxZoom: 4, VectorLayers: json.RawMessage(`{"not":"array"}`)},
			wantTile: "https://maps.example.com/tiles/v/{z}/{x}/{y}.pbf?key=abc", wantFormat: "pbf", wantVector: true,
			wantBounds: [4]float64{-180, -MaxLat, 180, MaxLat}, wantCenter: [3]float64{0, 0, 2},
		},
		{
			name:     "raster jpeg 512",
			ts:       TileSet{ID: "sat", Format: "jpeg", MaxZoom: 3, TileSize: 512, Bounds: [4]float64{10, 10, 5, 20}},
			wantTile: "https://maps.example.com/tiles/sat/{z}/{x}/{y}.jpg?key=abc", wantFormat: "jpg", wantTileSize: 512,
			wantBounds: [4]float64{-180, -MaxLat, 180, MaxLat}, wantCenter: [3]float64{0, 0, 0},
		},
		{
			name:     "hostile id is escaped",
			ts:       TileSet{ID: hostileID, Format: "png", MaxZoom: 1},
			wantTile: "https://maps.example.com/tiles/" + url.PathEscape(hostileID) + "/{z}/{x}/{y}.png?key=abc", wantFormat: "png", wantTileSize: 256,
			wantBounds: [4]float64{-180, -MaxLat, 180, MaxLat}, wantCenter: [3]float64{0, 0, 0},
		},
		{name: "dot-dot id", ts: TileSet{ID: "..", Format: "png"}, wantErr: true},
		{name: "dot id", ts: TileSet{ID: ".", Format: "png"}, wantErr: true},
		{name: "empty id", ts: TileSet{Format: "png"}, wantErr: true},
		{name: "bad zoom", ts: TileSet{ID: "a", Format: "png", MinZoom: 5, MaxZoom: 2}, wantErr: true},
		{name: "zoom too deep", ts: TileSet{ID: "a", Format: "png", MaxZoom: 31}, wantErr: true},
		{name: "bad format", ts: TileSet{ID: "a", Format: "../x"}, wantErr: true},
		{name: "bad tile size", ts: TileSet{ID: "a", Format: "png", TileSize: 300}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := TileJSON(tt.ts, e)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			raw, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"tilejson", "name", "version", "scheme", "tiles", "minzoom", "maxzoom", "bounds", "center", "format"} {
				if _, ok := got[k]; !ok {
					t.Errorf("missing field %q in %s", k, raw)
				}
			}
			if got["tilejson"] != "3.0.0" || got["scheme"] != "xyz" || got["format"] != tt.wantFormat {
				t.Errorf("tilejson/scheme/format = %v %v %v", got["tilejson"], got["scheme"], got["format"])
			}
			tiles := got["tiles"].([]any)
			if len(tiles) != 1 || tiles[0] != tt.wantTile {
				t.Errorf("tiles = %v, want %q", tiles, tt.wantTile)
			}
			// the id survives a round trip through URL parsing as one segment
			u, err := url.Parse(strings.NewReplacer("{z}", "1", "{x}", "2", "{y}", "3").Replace(tiles[0].(string)))
			if err != nil {
				t.Fatal(err)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			id := ""
			if len(segs) > 2 {
				id, _ = url.PathUnescape(segs[2])
			}
			if len(segs) != 6 || id != tt.ts.ID || u.Query().Get("key") != "abc" {
				t.Errorf("tile URL path segments %q query %q", segs, u.RawQuery)
			}
			_, hasVL := got["vector_layers"]
			if hasVL != tt.wantVector {
				t.Errorf("vector_layers present = %v, want %v", hasVL, tt.wantVector)
			}
			if tt.wantVector {
				if _, ok := got["vector_layers"].([]any); !ok {
					t.Errorf("vector_layers is not an array: %v", got["vector_layers"])
				}
			}
			size, _ := got["tileSize"].(float64)
			if int(size) != tt.wantTileSize {
				t.Errorf("tileSize = %v, want %d", got["tileSize"], tt.wantTileSize)
			}
			for i, v := range got["bounds"].([]any) {
				if v.(float64) != tt.wantBounds[i] {
					t.Errorf("bounds = %v, want %v", got["bounds"], tt.wantBounds)
					break
				}
			}
			for i, v := range got["center"].([]any) {
				if v.(float64) != tt.wantCenter[i] {
					t.Errorf("center = %v, want %v", got["center"], tt.wantCenter)
					break
				}
			}
		})
	}
}

func TestMapTileJSON(t *testing.T) {
	e := mustEndpoint(t, "http://localhost:8080", "")
	m := Map{ID: "basic", Format: "webp", MaxZoom: 14}
	for _, tc := range []struct {
		size int
		want string
	}{{512, "http://localhost:8080/maps/basic/{z}/{x}/{y}.webp"}, {256, "http://localhost:8080/maps/basic/256/{z}/{x}/{y}.webp"}} {
		d, err := MapTileJSON(m, e, tc.size)
		if err != nil {
			t.Fatal(err)
		}
		if d.Tiles[0] != tc.want || d.TileSize != tc.size || d.Format != "webp" || d.VectorLayers != nil {
			t.Errorf("size %d: tiles %v tileSize %d format %q", tc.size, d.Tiles, d.TileSize, d.Format)
		}
	}
	if _, err := MapTileJSON(m, e, 128); err == nil {
		t.Error("tile size 128 accepted")
	}
	if _, err := MapTileJSON(Map{ID: "v", Format: "pbf"}, e, 256); err == nil {
		t.Error("vector map format accepted")
	}
}

// collectStrings returns every string value of a decoded JSON document.
func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, y := range x {
			collectStrings(y, out)
		}
	case map[string]any:
		for _, y := range x {
			collectStrings(y, out)
		}
	}
}

func checkURLsCarryQuery(t *testing.T, doc any, base, key string) {
	t.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var strs []string
	collectStrings(v, &strs)
	n := 0
	for _, s := range strs {
		if !strings.HasPrefix(s, "http") || strings.HasPrefix(s, "http://www.opengis.net/") {
			continue
		}
		n++
		if !strings.HasPrefix(s, base+"/") || !strings.HasSuffix(s, "?"+key) {
			t.Errorf("URL %q does not start with %q and end with ?%s", s, base, key)
		}
	}
	if n == 0 {
		t.Error("no URL found")
	}
}

func TestOGCTileSet(t *testing.T) {
	base := "https://maps.example.com/sub"
	e := mustEndpoint(t, base, "key=abc")
	ts := TileSet{
		ID: "world", Title: "World", Description: "d", Attribution: "© me", Format: "pbf", MinZoom: 1, MaxZoom: 5,
		Bounds: [4]float64{-10, 30, 40, 60},
		VectorLayers: json.RawMessage(`[{"id":"cities","description":"Cities","minzoom":3,"maxzoom":9,"fields":{"name":"String","pop":"Number","cap":"Boolean","x":"weird"}},
			{"id":"","fields":{}}, {"nope":1}, {"id":"roads"}]`),
	}
	d, err := OGCTileSet(ts, e)
	if err != nil {
		t.Fatal(err)
	}
	checkURLsCarryQuery(t, d, base, "key=abc")
	if d.DataType != "vector" || d.CRS != "http://www.opengis.net/def/crs/EPSG/0/3857" ||
		d.TileMatrixSetURI != "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad" || d.Title != "World" {
		t.Errorf("header fields: %+v", d)
	}
	rels := map[string]Link{}
	for _, l := range d.Links {
		rels[l.Rel] = l
	}
	if rels["self"].Href != base+"/tiles/world/tiles?key=abc" {
		t.Errorf("self = %+v", rels["self"])
	}
	if l := rels["http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"]; l.Href != base+"/tiles/world/tileMatrixSet?key=abc" {
		t.Errorf("tiling-scheme = %+v", l)
	}
	if l := rels["item"]; !l.Templated || l.Type != "application/vnd.mapbox-vector-tile" ||
		l.Href != base+"/tiles/world/{tileMatrix}/{tileCol}/{tileRow}.pbf?key=abc" {
		t.Errorf("item = %+v", l)
	}
	if len(d.TileMatrixSetLimits) != 5 {
		t.Fatalf("limits: %d levels, want 5", len(d.TileMatrixSetLimits))
	}
	for _, lim := range d.TileMatrixSetLimits {
		var z int
		if _, err := fmtSscan(lim.TileMatrix, &z); err != nil {
			t.Fatal(err)
		}
		c0, c1, r0, r1 := tileRange(ts.Bounds, z)
		if lim.MinTileCol != c0 || lim.MaxTileCol != c1 || lim.MinTileRow != r0 || lim.MaxTileRow != r1 {
			t.Errorf("limit %+v, want %d..%d %d..%d", lim, c0, c1, r0, r1)
		}
	}
	if len(d.Layers) != 2 || d.Layers[0].ID != "cities" || d.Layers[1].ID != "roads" {
		t.Fatalf("layers = %+v", d.Layers)
	}
	c := d.Layers[0]
	if c.MinTileMatrix != "3" || c.MaxTileMatrix != "5" || c.DataType != "vector" || c.Description != "Cities" {
		t.Errorf("cities layer = %+v", c)
	}
	p := c.PropertiesSchema.Properties
	if p["name"].Type != "string" || p["pop"].Type != "number" || p["cap"].Type != "boolean" || p["x"].Description != "weird" {
		t.Errorf("properties = %+v", p)
	}
	if d.BoundingBox.LowerLeft != [2]float64{-10, 30} || d.BoundingBox.UpperRight != [2]float64{40, 60} {
		t.Errorf("bbox = %+v", d.BoundingBox)
	}
	if d.CenterPoint.Coordinates != [2]float64{15, 45} || d.CenterPoint.TileMatrix != "1" {
		t.Errorf("center = %+v", d.CenterPoint)
	}

	md, err := OGCMap(Map{ID: "m", Format: "jpg", MaxZoom: 2}, e)
	if err != nil {
		t.Fatal(err)
	}
	checkURLsCarryQuery(t, md, base, "key=abc")
	found := false
	for _, l := range md.Links {
		if l.Rel == "item" {
			found = l.Href == base+"/maps/m/256/{tileMatrix}/{tileCol}/{tileRow}.jpg?key=abc" && l.Type == "image/jpeg"
		}
	}
	if !found || md.DataType != "map" || len(md.Layers) != 0 || len(md.TileMatrixSetLimits) != 3 {
		t.Errorf("map tileset doc = %+v", md)
	}
}

func TestWebMercatorQuadDoc(t *testing.T) {
	e := mustEndpoint(t, "https://h", "key=k")
	for _, tc := range []struct{ maxZoom, wantLevels int }{{5, 25}, {24, 25}, {28, 29}, {99, 31}} {
		d := WebMercatorQuad(tc.maxZoom, "")
		if len(d.TileMatrices) != tc.wantLevels {
			t.Fatalf("maxZoom %d: %d levels, want %d", tc.maxZoom, len(d.TileMatrices), tc.wantLevels)
		}
		for z, m := range d.TileMatrices {
			p := math.Exp2(float64(z))
			if m.ID != itoa(z) || m.MatrixWidth != int64(p) || m.MatrixHeight != int64(p) || m.TileWidth != 256 || m.TileHeight != 256 {
				t.Errorf("level %d: %+v", z, m)
			}
			if math.Abs(m.ScaleDenominator-refScaleZ0/p) > 1e-9*refScaleZ0/p || math.Abs(m.CellSize-refCellZ0/p) > 1e-9*refCellZ0/p {
				t.Errorf("level %d: scale %v cell %v", z, m.ScaleDenominator, m.CellSize)
			}
			if math.Abs(m.PointOfOrigin[0]+refOriginEdge) > 1e-6 || math.Abs(m.PointOfOrigin[1]-refOriginEdge) > 1e-6 || m.CornerOfOrigin != "topLeft" {
				t.Errorf("level %d: origin %v %s", z, m.PointOfOrigin, m.CornerOfOrigin)
			}
			// cellSize * tileWidth * matrixWidth spans the world
			if span := m.CellSize * 256 * float64(m.MatrixWidth); math.Abs(span-2*refOriginEdge) > 1e-3 {
				t.Errorf("level %d spans %v m", z, span)
			}
		}
	}
	d, err := TileSetMatrixSet(TileSet{ID: "x", Format: "png", MaxZoom: 3}, e)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "WebMercatorQuad" || d.CRS != "http://www.opengis.net/def/crs/EPSG/0/3857" || d.URI != WebMercatorQuadURI ||
		len(d.Links) != 1 || d.Links[0].Href != "https://h/tiles/x/tileMatrixSet?key=k" {
		t.Errorf("tms doc = %+v", d)
	}
	md, err := MapMatrixSet(Map{ID: "m", Format: "png", MaxZoom: 3}, e)
	if err != nil || md.Links[0].Href != "https://h/maps/m/tileMatrixSet?key=k" {
		t.Errorf("map tms = %+v, %v", md, err)
	}
}

func TestConformance(t *testing.T) {
	d := Conformance("pbf", "png", "jpeg", "jpg", "webp", "mvt")
	set := map[string]int{}
	for _, c := range d.ConformsTo {
		set[c]++
		if set[c] > 1 {
			t.Errorf("duplicate class %s", c)
		}
	}
	for _, want := range []string{"core", "tileset", "tilesets-list", "geodata-tilesets", "mvt", "png", "jpeg"} {
		if set["http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/"+want] != 1 {
			t.Errorf("missing tiles class %s", want)
		}
	}
	for _, not := range []string{"dataset-tilesets", "oas30"} {
		if set["http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/"+not] != 0 {
			t.Errorf("declares unimplemented class %s", not)
		}
	}
	if set["http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections"] != 1 {
		t.Errorf("missing common part 2 collections class")
	}
	for _, c := range d.ConformsTo {
		if strings.HasPrefix(c, "http://www.opengis.net/spec/ogcapi-common-1/") {
			t.Errorf("declares %s, but no API definition is served", c)
		}
	}
	if len(Conformance().ConformsTo) != len(d.ConformsTo)-3 {
		t.Errorf("encoding classes are not tied to formats: %v", Conformance().ConformsTo)
	}
}
