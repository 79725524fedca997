package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// crs3857 is the OGC URI of Web Mercator, the bbox-crs that GDAL 3.6 needs.
const crs3857 = "http://www.opengis.net/def/crs/EPSG/0/3857"

// TestGDALOGCAPI opens Tessera's OGC API collections with GDAL's OGCAPI
// driver. GDAL 3.6 reads a collection's extent.spatial.bbox as coordinates
// of the tile matrix set (it does not reproject a longitude/latitude bbox),
// takes the last application/json tiling-scheme link of the tileset and
// parses only the OGC TMS 1.0 JSON encoding; Tessera's collection answers
// its bbox in Web Mercator metres when asked with bbox-crs, and its tilesets
// link the TMS 2.0 encoding first and the TMS 1.0 one last. Raster tiles of
// 512 pixels are described in WebMercatorQuad512 (same tile grid, 512-pixel
// tiles). The test pins the exchange (collection, its tilesets, the
// tileset, the TMS 1.0 document), the raster GDAL builds (size,
// geotransform, CRS, bands) and the pixels gdal_translate fetches through
// the server's tile URLs, for the 256-pixel MBTiles and the 512-pixel
// PMTiles fixtures; and the vector case GDAL 3.6 cannot open.
func TestGDALOGCAPI(t *testing.T) {
	t.Parallel()
	gdalinfo := fixtures.Tool(t, "gdalinfo")
	translate := fixtures.Tool(t, "gdal_translate")
	e := startServer(t, fixtureRaster, fixturePMTiles, fixtureVector)
	ctx := t.Context()
	query := "?bbox-crs=" + crs3857

	// Facts of the fixture files (as in TestGDALWMTS): the MBTiles
	// metadata name and max zoom and its 256-pixel PNG tiles; the PMTiles
	// header's max zoom, its metadata name and its 512-pixel PNG tiles.
	cases := []struct {
		name, fixture, title, tms string
		maxZoom, tileSize         int
	}{
		{nameRaster, fixtureRaster, "Geography Class", "WebMercatorQuad", 1, 256},
		{namePMTiles, fixturePMTiles, "ne2sr", "WebMercatorQuad512", 1, 512},
	}
	for _, tc := range cases {
		collection := "/ogc/collections/" + tc.name
		t.Run("raster collection "+tc.name, func(t *testing.T) {
			mark := e.mark()
			out, stderr, err := run(ctx, t, append(gdalEnv(t), "CPL_DEBUG=ON"), gdalinfo, "-json", "OGCAPI:"+e.URL+collection+query)
			got := e.since(mark)
			t.Logf("GDAL's requests: %v", got)
			if err != nil {
				t.Fatalf("gdalinfo: %v\n%s", err, gdalMessages(stderr))
			}
			want := []string{collection, collection + "/tiles", collection + "/tiles/" + tc.tms, "/ogc/tileMatrixSets/" + tc.tms}
			if len(got) != len(want) {
				t.Fatalf("requests %v, want GETs of %v", got, want)
			}
			for i, a := range got {
				if a.Method != http.MethodGet || a.Path != want[i] || a.Status != http.StatusOK {
					t.Errorf("request %d: %s, want GET %s answered 200", i, a, want[i])
				}
			}
			// GDAL 3.6 takes the last JSON tiling-scheme link: the TMS 1.0 one.
			if !strings.Contains(string(stderr), "Fetch("+e.URL+"/ogc/tileMatrixSets/"+tc.tms+"?f=tms1json)") {
				t.Errorf("GDAL did not read the TMS 1.0 encoding:\n%s", gdalMessages(stderr))
			}
			var info gdalInfo
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("gdalinfo -json: %v\n%s", err, out)
			}
			checkWebMercatorRaster(t, info, tc.tileSize, tc.maxZoom, tc.title)
		})

		t.Run("raster pixels "+tc.name, func(t *testing.T) {
			// A window across the boundary of tiles z/0/0 and z/1/0.
			const w, h = 64, 64
			z, ts := tc.maxZoom, tc.tileSize
			x0, y0 := ts-w/2, ts/2-h/2
			png := filepath.Join(t.TempDir(), "window.png")
			mark := e.mark()
			_, stderr, err := run(ctx, t, gdalEnv(t), translate, "-q", "-of", "PNG",
				"-srcwin", fmt.Sprint(x0), fmt.Sprint(y0), fmt.Sprint(w), fmt.Sprint(h), "OGCAPI:"+e.URL+collection+query, png)
			if err != nil {
				t.Fatalf("gdal_translate: %v\n%s", err, gdalMessages(stderr))
			}
			fetched := map[string]int{}
			for _, a := range matching(e.since(mark), tileURLRe) {
				fetched[a.Path] = a.Status
			}
			want := map[string]int{
				fmt.Sprintf("/tiles/%s/%d/0/0.png", tc.name, z): http.StatusOK,
				fmt.Sprintf("/tiles/%s/%d/1/0.png", tc.name, z): http.StatusOK,
			}
			if fmt.Sprint(fetched) != fmt.Sprint(want) {
				t.Errorf("gdal_translate fetched tiles %v, want %v", fetched, want)
			}
			b, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			got := decodePNG(t, "gdal_translate output", b)
			if got.Bounds().Dx() != w || got.Bounds().Dy() != h {
				t.Fatalf("window is %v, want %dx%d", got.Bounds(), w, h)
			}
			var imgs [2]image.Image
			for x := range imgs {
				data := e.tile(ctx, tc.name, z, x, 0, "png")
				if strings.HasSuffix(tc.fixture, ".mbtiles") {
					if stored := storedTile(ctx, t, fixtures.Path(t, tc.fixture), z, x, 0); !bytes.Equal(stored, data) {
						t.Errorf("tile %d/%d/0: the server's %d bytes differ from the %d stored", z, x, len(data), len(stored))
					}
				}
				imgs[x] = decodePNG(t, fmt.Sprintf("tile %d/%d/0", z, x), data)
				if imgs[x].Bounds().Dx() != ts || imgs[x].Bounds().Dy() != ts {
					t.Fatalf("tile %d/%d/0 is %v, the fixture's tiles are %d pixels", z, x, imgs[x].Bounds(), ts)
				}
			}
			mismatches, colours := 0, map[color.NRGBA]bool{}
			for py := 0; py < h; py++ {
				for px := 0; px < w; px++ {
					gx, gy := x0+px, y0+py
					tile := imgs[gx/ts]
					wantC := nrgba(tile.At(tile.Bounds().Min.X+gx%ts, tile.Bounds().Min.Y+gy%ts))
					gotC := nrgba(got.At(got.Bounds().Min.X+px, got.Bounds().Min.Y+py))
					if gotC != wantC {
						if mismatches < 3 {
							t.Errorf("pixel (%d,%d): GDAL %v, tile %v", gx, gy, gotC, wantC)
						}
						mismatches++
					}
					colours[gotC] = true
				}
			}
			if mismatches > 0 {
				t.Errorf("%d of %d pixels differ from the served tiles", mismatches, w*h)
			}
			if len(colours) < 10 {
				t.Errorf("window is nearly empty: %d colours", len(colours))
			}
		})
	}

	t.Run("collections list", func(t *testing.T) {
		// GDAL lists the collections as subdatasets named by their self
		// links, which carry the bbox-crs of the request.
		out, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "-json", "OGCAPI:"+e.URL+"/ogc/collections"+query)
		if err != nil {
			t.Fatalf("gdalinfo: %v\n%s", err, gdalMessages(stderr))
		}
		var info gdalInfo
		if err := json.Unmarshal(out, &info); err != nil {
			t.Fatalf("gdalinfo -json: %v\n%s", err, out)
		}
		sub := info.Metadata["SUBDATASETS"]
		for i, name := range []string{nameRaster, namePMTiles, nameVector} { // the catalog's order: by name
			want := "OGCAPI:" + e.URL + "/ogc/collections/" + name + "?bbox-crs=" + url.QueryEscape(crs3857)
			if got := sub[fmt.Sprintf("SUBDATASET_%d_NAME", i+1)]; got != want {
				t.Errorf("subdataset %d is %q, want %q (all: %v)", i+1, got, want, sub)
			}
		}
		if len(sub) != 6 {
			t.Errorf("subdatasets %v, want the three collections", sub)
		}
	})

	t.Run("landing page", func(t *testing.T) {
		// From /ogc GDAL follows the data link to /ogc/collections.
		mark := e.mark()
		out, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "-json", "OGCAPI:"+e.URL+"/ogc")
		got := e.since(mark)
		if err != nil {
			t.Fatalf("gdalinfo: %v\n%s", err, gdalMessages(stderr))
		}
		if len(got) != 2 || got[0].Path != "/ogc" || got[1].Path != "/ogc/collections" || got[0].Status != 200 || got[1].Status != 200 {
			t.Errorf("requests %v, want /ogc then /ogc/collections", got)
		}
		var info gdalInfo
		if err := json.Unmarshal(out, &info); err != nil {
			t.Fatalf("gdalinfo -json: %v\n%s", err, out)
		}
		if got, want := info.Metadata["SUBDATASETS"]["SUBDATASET_1_NAME"], "OGCAPI:"+e.URL+"/ogc/collections/"+nameRaster; got != want {
			t.Errorf("first subdataset %q, want %q", got, want)
		}
	})

	t.Run("longitude latitude bbox", func(t *testing.T) {
		// Without bbox-crs the extent is in CRS84, as OGC API - Common
		// says. GDAL 3.6 uses those degrees as metres and cuts a window of
		// zero pixels; later GDAL versions reproject the bbox.
		ver, err := runQuiet(t, gdalinfo, "--version")
		if err != nil || !strings.HasPrefix(string(ver), "GDAL 3.6.") {
			t.Skipf("pins GDAL 3.6's behaviour; this is %s", strings.TrimSpace(string(ver)))
		}
		_, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "OGCAPI:"+e.URL+"/ogc/collections/"+nameRaster)
		if err == nil || !strings.Contains(string(stderr), "Computed -srcwin") {
			t.Errorf("GDAL 3.6 opened the CRS84 collection: err %v\n%s", err, gdalMessages(stderr))
		}
	})

	t.Run("vector collection", func(t *testing.T) {
		// Known gap, on GDAL's side: Debian 12's GDAL 3.6.2 follows the
		// whole chain for the vector tileset (collection, tilesets,
		// tileset, TMS 1.0) and then opens nothing, without a message.
		// Its compiled OGCAPI driver has no vector-tile branch (traced
		// with gdb: it matches the MVT item link, parses the tile matrix
		// set, then only looks for a raster tile URL; the tiled vector
		// layer is never constructed). This pins that; when ogrinfo starts
		// opening the collection (another GDAL), the test fails and must
		// assert the layers and features.
		ogrinfo := fixtures.Tool(t, "ogrinfo")
		c := "/ogc/collections/" + nameVector
		mark := e.mark()
		out, _, err := run(ctx, t, gdalEnv(t), ogrinfo, "-ro", "-so", "OGCAPI:"+e.URL+c+query)
		got := e.since(mark)
		t.Logf("GDAL's requests: %v", got)
		want := []string{c, c + "/tiles", c + "/tiles/WebMercatorQuad", "/ogc/tileMatrixSets/WebMercatorQuad"}
		if len(got) != len(want) {
			t.Fatalf("requests %v, want GETs of %v", got, want)
		}
		for i, a := range got {
			if a.Path != want[i] || a.Status != http.StatusOK {
				t.Errorf("request %d: %s, want GET %s answered 200", i, a, want[i])
			}
		}
		if err == nil {
			t.Fatalf("ogrinfo now opens the vector collection: make this test assert its layers\n%s", out)
		}
		// The tileset GDAL read links templated MVT tiles.
		status, _, body := e.get(ctx, c+"/tiles/WebMercatorQuad")
		var doc struct {
			Links []struct{ Href, Rel, Type string }
		}
		if status != http.StatusOK || json.Unmarshal(body, &doc) != nil {
			t.Fatalf("tileset: %d %.200s", status, body)
		}
		mvt := 0
		for _, l := range doc.Links {
			if l.Rel == "item" && l.Type == "application/vnd.mapbox-vector-tile" &&
				strings.Contains(l.Href, "{tileMatrix}") && strings.Contains(l.Href, "{tileRow}") && strings.Contains(l.Href, "{tileCol}") {
				mvt++
			}
		}
		if mvt != 1 {
			t.Errorf("the tileset has %d templated MVT item links, want 1: %s", mvt, body)
		}
	})
}

var debugNoise = regexp.MustCompile(`^(GDAL: |HTTP: libcurl|HTTP: GDAL was built|  -> )`)

// gdalMessages keeps GDAL's errors and HTTP debug lines.
func gdalMessages(stderr []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(stderr), "\n") {
		if line != "" && !debugNoise.MatchString(line) {
			fmt.Fprintln(&b, "  "+line)
		}
	}
	return b.String()
}

// TestOGCAPIDocuments reads the /ogc tree with Go's HTTP client: the links
// between the documents, the extents in both CRSs (checked against the
// tilesets' TileJSON bounds and the spherical Mercator formulas), the tile
// matrix sets in both encodings, and the answers to bad requests.
func TestOGCAPIDocuments(t *testing.T) {
	t.Parallel()
	e := startServer(t, fixtureRaster, fixturePMTiles, fixtureVector)
	ctx := t.Context()
	getJSON := func(path string, want int, v any) {
		t.Helper()
		status, h, body := e.get(ctx, path)
		if status != want {
			t.Fatalf("GET %s: %d, want %d: %.300s", path, status, want, body)
		}
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if v != nil {
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatalf("GET %s: %v: %.300s", path, err, body)
			}
		}
	}
	type link struct{ Href, Rel, Type string }
	hrefOf := func(links []link, rel string) string {
		for _, l := range links {
			if l.Rel == rel {
				return l.Href
			}
		}
		return ""
	}

	for _, p := range []string{"/ogc", "/ogc/"} {
		var landing struct{ Links []link }
		getJSON(p, http.StatusOK, &landing)
		if got := hrefOf(landing.Links, "data"); got != e.URL+"/ogc/collections" {
			t.Errorf("%s: data link %q", p, got)
		}
		if got := hrefOf(landing.Links, "http://www.opengis.net/def/rel/ogc/1.0/conformance"); got != e.URL+"/ogc/conformance" {
			t.Errorf("%s: conformance link %q", p, got)
		}
	}
	var conf struct{ ConformsTo []string }
	getJSON("/ogc/conformance", http.StatusOK, &conf)
	for _, c := range []string{
		"http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
		"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
		"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
	} {
		if !strings.Contains(strings.Join(conf.ConformsTo, " "), c) {
			t.Errorf("conformance lacks %s: %v", c, conf.ConformsTo)
		}
	}

	type collection struct {
		ID       string
		DataType string
		Extent   struct {
			Spatial struct {
				BBox [][]float64
				CRS  string
			}
		}
		Links []link
	}
	var list struct{ Collections []collection }
	getJSON("/ogc/collections", http.StatusOK, &list)
	var ids []string
	for _, c := range list.Collections {
		ids = append(ids, c.ID+"/"+c.DataType)
	}
	if got := strings.Join(ids, " "); got != nameRaster+"/map "+namePMTiles+"/map "+nameVector+"/vector" {
		t.Errorf("collections %s", got)
	}

	// The vector tileset's bounds, from its TileJSON.
	var tj struct{ Bounds []float64 }
	getJSON("/tiles/"+nameVector+"/tiles.json", http.StatusOK, &tj)
	if len(tj.Bounds) != 4 {
		t.Fatalf("TileJSON bounds %v", tj.Bounds)
	}
	merc := func(lon, lat float64) (float64, float64) {
		const r = 6378137.0
		return r * lon * math.Pi / 180, r * math.Log(math.Tan(math.Pi/4+lat*math.Pi/360))
	}
	x0, y0 := merc(tj.Bounds[0], tj.Bounds[1])
	x1, y1 := merc(tj.Bounds[2], tj.Bounds[3])
	c := "/ogc/collections/" + nameVector
	for _, tc := range []struct {
		query, crs string
		bbox       []float64
	}{
		{"", "http://www.opengis.net/def/crs/OGC/1.3/CRS84", tj.Bounds},
		{"?bbox-crs=" + url.QueryEscape(crs3857), "", []float64{x0, y0, x1, y1}},
	} {
		var col collection
		getJSON(c+tc.query, http.StatusOK, &col)
		if col.Extent.Spatial.CRS != tc.crs || len(col.Extent.Spatial.BBox) != 1 || len(col.Extent.Spatial.BBox[0]) != 4 {
			t.Fatalf("%s: extent %+v", tc.query, col.Extent)
		}
		for i, v := range col.Extent.Spatial.BBox[0] {
			if math.Abs(v-tc.bbox[i]) > 1e-6*math.Max(1, math.Abs(v)) {
				t.Errorf("%s: bbox %v, want %v", tc.query, col.Extent.Spatial.BBox[0], tc.bbox)
				break
			}
		}
		if got := hrefOf(col.Links, "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"); got != e.URL+c+"/tiles" {
			t.Errorf("tilesets-vector link %q", got)
		}
	}

	// Each collection's tilesets list names the tileset it serves, and the
	// tileset links the tile template of /tiles/{id} and the tile matrix set.
	for _, tc := range []struct{ name, tms string }{
		{nameRaster, "WebMercatorQuad"}, {namePMTiles, "WebMercatorQuad512"}, {nameVector, "WebMercatorQuad"},
	} {
		var ts struct {
			Tilesets []struct {
				DataType string
				Links    []link
			}
		}
		cp := "/ogc/collections/" + tc.name
		getJSON(cp+"/tiles", http.StatusOK, &ts)
		if len(ts.Tilesets) != 1 || hrefOf(ts.Tilesets[0].Links, "self") != e.URL+cp+"/tiles/"+tc.tms {
			t.Errorf("%s: tilesets %+v", tc.name, ts)
		}
		var doc struct{ Links []link }
		getJSON(cp+"/tiles/"+tc.tms, http.StatusOK, &doc)
		if got := hrefOf(doc.Links, "item"); !strings.HasPrefix(got, e.URL+"/tiles/"+tc.name+"/{tileMatrix}/{tileCol}/{tileRow}.") {
			t.Errorf("%s: item link %q", tc.name, got)
		}
		if got := hrefOf(doc.Links, "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"); got != e.URL+"/ogc/tileMatrixSets/"+tc.tms {
			t.Errorf("%s: first tiling-scheme link %q", tc.name, got)
		}
		other := map[string]string{"WebMercatorQuad": "WebMercatorQuad512", "WebMercatorQuad512": "WebMercatorQuad"}[tc.tms]
		getJSON(cp+"/tiles/"+other, http.StatusNotFound, nil)
	}

	// Tile matrix sets: cells of the 512-pixel set are half those of
	// WebMercatorQuad at the same zoom.
	type tms2 struct {
		ID           string
		TileMatrices []struct {
			ID        string
			CellSize  float64
			TileWidth int
		}
	}
	var wmq, wmq512 tms2
	getJSON("/ogc/tileMatrixSets/WebMercatorQuad", http.StatusOK, &wmq)
	getJSON("/ogc/tileMatrixSets/WebMercatorQuad512", http.StatusOK, &wmq512)
	if len(wmq.TileMatrices) != 25 || len(wmq512.TileMatrices) != 25 {
		t.Fatalf("%d and %d tile matrices, want 0..24", len(wmq.TileMatrices), len(wmq512.TileMatrices))
	}
	for z := range wmq.TileMatrices {
		a, b := wmq.TileMatrices[z], wmq512.TileMatrices[z]
		want := 2 * halfWorld / 256 / math.Exp2(float64(z))
		if a.TileWidth != 256 || b.TileWidth != 512 || math.Abs(a.CellSize-want) > 1e-9*want || math.Abs(b.CellSize-want/2) > 1e-9*want {
			t.Errorf("zoom %d: %+v and %+v", z, a, b)
		}
	}
	var tms1 struct {
		Type       string
		Identifier string
		TileMatrix []struct{ Identifier string }
	}
	getJSON("/ogc/tileMatrixSets/WebMercatorQuad?f=tms1json", http.StatusOK, &tms1)
	if tms1.Type != "TileMatrixSetType" || tms1.Identifier != "WebMercatorQuad" || len(tms1.TileMatrix) != 25 {
		t.Errorf("TMS 1.0 encoding: %+v", tms1)
	}
	var sets struct{ TileMatrixSets []struct{ ID string } }
	getJSON("/ogc/tileMatrixSets", http.StatusOK, &sets)
	if len(sets.TileMatrixSets) != 2 {
		t.Errorf("tile matrix sets %+v", sets)
	}

	// The per-tileset documents of /tiles/{id} are unchanged.
	var old struct{ Links []link }
	getJSON("/tiles/"+nameRaster+"/tiles", http.StatusOK, &old)
	if got := hrefOf(old.Links, "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"); got != e.URL+"/tiles/"+nameRaster+"/tileMatrixSet" {
		t.Errorf("/tiles/{id}/tiles tiling-scheme link %q", got)
	}

	// Bad requests.
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/ogc/collections/nope", http.StatusNotFound},
		{"/ogc/collections/nope/tiles", http.StatusNotFound},
		{c + "?bbox-crs=EPSG:4326", http.StatusBadRequest},
		{c + "?bbox-crs=&bbox-crs=", http.StatusBadRequest},
		{"/ogc/collections?bbox-crs=x", http.StatusBadRequest},
		{"/ogc/tileMatrixSets/WorldCRS84Quad", http.StatusNotFound},
		{"/ogc/tileMatrixSets/WebMercatorQuad?f=xml", http.StatusBadRequest},
	} {
		var msg struct{ Message string }
		getJSON(tc.path, tc.want, &msg)
		if msg.Message == "" {
			t.Errorf("GET %s: no message", tc.path)
		}
	}
}
