package ogc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestParseBBoxCRS(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"", CRS84URI, true},
		{"http://www.opengis.net/def/crs/OGC/1.3/CRS84", CRS84URI, true},
		{"http://www.opengis.net/def/crs/EPSG/0/3857", CRS3857URI, true},
		{" http://www.opengis.net/def/crs/EPSG/0/3857 ", CRS3857URI, true},
		{"EPSG:3857", "", false},
		{"http://www.opengis.net/def/crs/EPSG/0/4326", "", false},
	}
	for _, c := range cases {
		got, err := ParseBBoxCRS(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseBBoxCRS(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseBBoxCRS(f *testing.F) {
	for _, s := range []string{"", CRS84URI, CRS3857URI, "EPSG:3857", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseBBoxCRS(s)
		if err == nil && got != CRS84URI && got != CRS3857URI {
			t.Fatalf("ParseBBoxCRS(%q) = %q", s, got)
		}
	})
}

func linkOf(links []Link, rel string) []Link {
	var out []Link
	for _, l := range links {
		if l.Rel == rel {
			out = append(out, l)
		}
	}
	return out
}

func TestOGCCollection(t *testing.T) {
	e, err := NewEndpoint("https://h/base", "key=k")
	if err != nil {
		t.Fatal(err)
	}
	ts := TileSet{ID: "a b", Title: "A", Format: "png", MinZoom: 0, MaxZoom: 3, Bounds: [4]float64{-10, -20, 30, 40}}
	// Spherical Mercator from the textbook formulas, independently of the
	// package's helpers.
	merc := func(lon, lat float64) (float64, float64) {
		const r = 6378137.0
		return r * lon * math.Pi / 180, r * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
	}
	x0, y0 := merc(-10, -20)
	x1, y1 := merc(30, 40)
	cases := []struct {
		name, crs, wantCRS, wantSelf string
		bbox                         [4]float64
	}{
		{"crs84", CRS84URI, CRS84URI, "https://h/base/ogc/collections/a%20b?key=k", [4]float64{-10, -20, 30, 40}},
		{"3857", CRS3857URI, "", "https://h/base/ogc/collections/a%20b?key=k&bbox-crs=http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F3857", [4]float64{x0, y0, x1, y1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := OGCCollection(ts, e, c.crs)
			if err != nil {
				t.Fatal(err)
			}
			if d.ID != "a b" || d.Title != "A" || d.DataType != "map" || d.Extent.Spatial.CRS != c.wantCRS {
				t.Errorf("collection %+v", d)
			}
			if len(d.Extent.Spatial.BBox) != 1 {
				t.Fatalf("bbox %v", d.Extent.Spatial.BBox)
			}
			for i, v := range d.Extent.Spatial.BBox[0] {
				if math.Abs(v-c.bbox[i]) > 1e-6*math.Max(1, math.Abs(v)) {
					t.Errorf("bbox %v, want %v", d.Extent.Spatial.BBox[0], c.bbox)
					break
				}
			}
			if s := linkOf(d.Links, "self"); len(s) != 1 || s[0].Href != c.wantSelf {
				t.Errorf("self %v, want %s", s, c.wantSelf)
			}
			if l := linkOf(d.Links, RelTilesetsMap); len(l) != 1 || l[0].Href != "https://h/base/ogc/collections/a%20b/tiles?key=k" || l[0].Type != "application/json" {
				t.Errorf("tilesets link %v", l)
			}
			if len(linkOf(d.Links, RelTilesetsVec)) != 0 {
				t.Errorf("a raster collection links vector tilesets")
			}
		})
	}
	v, err := OGCCollection(TileSet{ID: "v", Format: "pbf", MaxZoom: 2}, e, "")
	if err != nil || v.DataType != "vector" || len(linkOf(v.Links, RelTilesetsVec)) != 1 || v.Extent.Spatial.BBox[0] != [4]float64{-180, -MaxLat, 180, MaxLat} {
		t.Errorf("vector collection %+v, %v", v, err)
	}
}

func TestOGCCollections(t *testing.T) {
	e, _ := NewEndpoint("http://h", "")
	d, skipped, err := OGCCollections([]TileSet{{ID: "a", Format: "png"}, {ID: "", Format: "png"}, {ID: "c", Format: "pbf"}}, e, CRS3857URI)
	if err != nil || len(skipped) != 1 || len(d.Collections) != 2 || d.Collections[0].ID != "a" || d.Collections[1].ID != "c" {
		t.Fatalf("collections %+v, skipped %v, %v", d, skipped, err)
	}
	if s := linkOf(d.Links, "self"); len(s) != 1 || !strings.HasSuffix(s[0].Href, "/ogc/collections?bbox-crs=http%3A%2F%2Fwww.opengis.net%2Fdef%2Fcrs%2FEPSG%2F0%2F3857") {
		t.Errorf("self %v", s)
	}
	empty, _, _ := OGCCollections(nil, e, "")
	b, _ := json.Marshal(empty)
	if !strings.Contains(string(b), `"collections":[]`) {
		t.Errorf("empty list encodes as %s", b)
	}
}

func TestOGCCollectionTileSet(t *testing.T) {
	e, _ := NewEndpoint("http://h", "key=k")
	ts := TileSet{ID: "r", Format: "jpg", MinZoom: 1, MaxZoom: 4}
	d, err := OGCCollectionTileSet(ts, e)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := OGCTileSet(ts, e)
	// Same tiles, limits and template as /tiles/{id}/tiles.
	if len(d.TileMatrixSetLimits) != 4 || d.TileMatrixSetURI != WebMercatorQuadURI || d.DataType != "map" {
		t.Errorf("tileset %+v", d)
	}
	items, plainItems := linkOf(d.Links, "item"), linkOf(plain.Links, "item")
	if len(items) != 1 || len(plainItems) != 1 || items[0] != plainItems[0] || items[0].Href != "http://h/tiles/r/{tileMatrix}/{tileCol}/{tileRow}.jpg?key=k" {
		t.Errorf("item links %v vs %v", items, plainItems)
	}
	if s := linkOf(d.Links, "self"); len(s) != 1 || s[0].Href != "http://h/ogc/collections/r/tiles/WebMercatorQuad?key=k" {
		t.Errorf("self %v", s)
	}
	// TMS 2.0 first (OGC API clients take the first), TMS 1.0 last (GDAL
	// 3.6 takes the last application/json one); both typed JSON.
	ts2 := linkOf(d.Links, RelTilingScheme)
	if len(ts2) != 2 || ts2[0].Href != "http://h/ogc/tileMatrixSets/WebMercatorQuad?key=k" ||
		ts2[1].Href != "http://h/ogc/tileMatrixSets/WebMercatorQuad?key=k&f=tms1json" ||
		ts2[0].Type != "application/json" || ts2[1].Type != "application/json" {
		t.Errorf("tiling-scheme links %v", ts2)
	}
	list, err := OGCCollectionTileSets(ts, e)
	if err != nil || len(list.TileSets) != 1 {
		t.Fatalf("tilesets %+v, %v", list, err)
	}
	ref := list.TileSets[0]
	if ref.DataType != "map" || ref.TileMatrixSetURI != WebMercatorQuadURI || ref.CRS != CRS3857URI ||
		linkOf(ref.Links, "self")[0].Href != s0(linkOf(d.Links, "self")) || len(linkOf(ref.Links, RelTilingScheme)) != 2 {
		t.Errorf("tileset ref %+v", ref)
	}
}

func s0(l []Link) string {
	if len(l) == 0 {
		return ""
	}
	return l[0].Href
}

func TestTileMatrixSet1(t *testing.T) {
	const r = 6378137.0
	cases := []struct {
		id       string
		tileSize int
		uri      string
	}{
		{WebMercatorQuadID, 256, WebMercatorQuadURI},
		{WebMercatorQuad512ID, 512, ""},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			v1, err := TileMatrixSet1(c.id, 26)
			if err != nil {
				t.Fatal(err)
			}
			v2, err := matrixSet(c.id, 26, "")
			if err != nil || v2.URI != c.uri || v2.ID != c.id {
				t.Fatalf("TMS 2.0 %s: uri %q, %v", c.id, v2.URI, err)
			}
			if len(v1.TileMatrix) != 27 || len(v2.TileMatrices) != 27 {
				t.Fatalf("%d and %d matrices, want 27", len(v1.TileMatrix), len(v2.TileMatrices))
			}
			for i, m := range v1.TileMatrix {
				n := int64(1) << i
				// Tile z covers 2*pi*R / 2^z metres whatever its pixel size;
				// 0.28 mm pixels give the scale denominator.
				cell := 2 * math.Pi * r / float64(n) / float64(c.tileSize)
				wantScale := cell / 0.00028
				m2 := v2.TileMatrices[i]
				if m.Identifier != itoa(i) || m.MatrixWidth != n || m.MatrixHeight != n || m.TileWidth != c.tileSize || m.TileHeight != c.tileSize ||
					math.Abs(m.ScaleDenominator-wantScale) > 1e-9*wantScale ||
					m.TopLeftCorner != [2]float64{-math.Pi * r, math.Pi * r} {
					t.Errorf("TMS 1.0 matrix %d: %+v", i, m)
				}
				if m2.ID != m.Identifier || m2.TileWidth != c.tileSize || math.Abs(m2.CellSize-cell) > 1e-9*cell || m2.ScaleDenominator != m.ScaleDenominator {
					t.Errorf("TMS 2.0 matrix %d: %+v", i, m2)
				}
			}
			b, err := json.Marshal(v1)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"type":"TileMatrixSetType"`, `"supportedCRS":"http://www.opengis.net/def/crs/EPSG/0/3857"`, `"identifier":"` + c.id + `"`, `"topLeftCorner":[`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("TMS 1.0 JSON lacks %s", want)
				}
			}
			if strings.Contains(string(b), `"tileMatrices"`) {
				t.Errorf("TMS 1.0 JSON carries TMS 2.0 members")
			}
		})
	}
	if _, err := TileMatrixSet1("WorldCRS84Quad", 0); err == nil {
		t.Errorf("unknown tile matrix set accepted")
	}
	e, _ := NewEndpoint("http://h", "")
	d, err := OGCTileMatrixSet(WebMercatorQuadID, 0, e)
	if err != nil || len(d.TileMatrices) != 25 || s0(linkOf(d.Links, "alternate")) != "http://h/ogc/tileMatrixSets/WebMercatorQuad?f=tms1json" ||
		s0(linkOf(d.Links, "self")) != "http://h/ogc/tileMatrixSets/WebMercatorQuad" {
		t.Errorf("TMS 2.0 doc %+v, %v", d.Links, err)
	}
	if _, err := OGCTileMatrixSet("nope", 0, e); err == nil {
		t.Errorf("unknown tile matrix set accepted")
	}
	list, err := TileMatrixSets(e)
	if err != nil || len(list.TileMatrixSets) != 2 || list.TileMatrixSets[0].URI != WebMercatorQuadURI || list.TileMatrixSets[1].ID != WebMercatorQuad512ID {
		t.Errorf("list %+v, %v", list, err)
	}
}

func TestCollectionTileMatrixSet(t *testing.T) {
	e, _ := NewEndpoint("http://h", "")
	cases := []struct {
		ts   TileSet
		want string
	}{
		{TileSet{ID: "a", Format: "png"}, WebMercatorQuadID},
		{TileSet{ID: "a", Format: "png", TileSize: 256}, WebMercatorQuadID},
		{TileSet{ID: "a", Format: "webp", TileSize: 512}, WebMercatorQuad512ID},
		{TileSet{ID: "a", Format: "pbf", TileSize: 512}, WebMercatorQuadID},
	}
	for _, c := range cases {
		got, err := CollectionTileMatrixSet(c.ts)
		if err != nil || got != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.ts, got, err, c.want)
		}
		d, err := OGCCollectionTileSet(c.ts, e)
		if err != nil {
			t.Fatal(err)
		}
		if s := s0(linkOf(d.Links, "self")); s != "http://h/ogc/collections/a/tiles/"+c.want {
			t.Errorf("%+v: self %s", c.ts, s)
		}
		if ts := linkOf(d.Links, RelTilingScheme); len(ts) != 2 || ts[0].Href != "http://h/ogc/tileMatrixSets/"+c.want {
			t.Errorf("%+v: tiling schemes %v", c.ts, ts)
		}
		if wantURI := map[string]string{WebMercatorQuadID: WebMercatorQuadURI}[c.want]; d.TileMatrixSetURI != wantURI {
			t.Errorf("%+v: tileMatrixSetURI %q, want %q", c.ts, d.TileMatrixSetURI, wantURI)
		}
	}
	if _, err := CollectionTileMatrixSet(TileSet{ID: "a", Format: "png", TileSize: 300}); err == nil {
		t.Errorf("tile size 300 accepted")
	}
}

func TestLandingPage(t *testing.T) {
	e, _ := NewEndpoint("http://h/p", "")
	d, err := LandingPage(e, "")
	if err != nil || d.Title != "Tessera" {
		t.Fatalf("%+v %v", d, err)
	}
	for rel, href := range map[string]string{
		"self": "http://h/p/ogc", "data": "http://h/p/ogc/collections", RelData: "http://h/p/ogc/collections",
		RelConformance: "http://h/p/ogc/conformance", RelTilingSchemes: "http://h/p/ogc/tileMatrixSets",
	} {
		if l := linkOf(d.Links, rel); len(l) != 1 || l[0].Href != href || l[0].Type != "application/json" {
			t.Errorf("%s link %v, want %s", rel, l, href)
		}
	}
	if _, err := LandingPage(Endpoint{}, "x"); err == nil {
		t.Errorf("zero endpoint accepted")
	}
}
