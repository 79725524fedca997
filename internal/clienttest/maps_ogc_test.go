package clienttest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// mapLayer is a WMTS layer the map capabilities must list: each map gives
// a layer of 256-pixel tiles named by its id and one of 512-pixel tiles.
type mapLayer struct {
	ID, Title, Template string
	TileSize            int
}

// mapLayers returns the WMTS layers of the test maps served at base.
func mapLayers(base string, maps []testMap) []mapLayer {
	var out []mapLayer
	for _, m := range maps {
		out = append(out,
			mapLayer{m.ID, m.Title, base + "/maps/" + m.ID + "/256/{TileMatrix}/{TileCol}/{TileRow}.png", 256},
			mapLayer{m.ID + "_512", m.Title + " (512 px tiles)", base + "/maps/" + m.ID + "/{TileMatrix}/{TileCol}/{TileRow}.png", 512})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// TestGDALMapWMTS opens the WMTS capabilities of one map
// (/maps/{id}/WMTSCapabilities.xml) and of all maps (/WMTSCapabilities.xml)
// with GDAL's WMTS driver: gdalinfo must list every layer as a subdataset
// and open each of them as a Web Mercator raster of the map's zooms, with
// the map's title, fetching only the capabilities (TestGDALMapWMTSPixels
// reads the layers' pixels).
func TestGDALMapWMTS(t *testing.T) {
	t.Parallel()
	gdalinfo := fixtures.Tool(t, "gdalinfo")
	ctx := t.Context()
	e := serveDataDir(t, mapsDataDir(t))
	maps := testMaps()
	cases := []struct {
		path   string
		layers []mapLayer
	}{
		{"/maps/cities/WMTSCapabilities.xml", mapLayers(e.URL, maps[:1])},
		{"/maps/cities-bold/WMTSCapabilities.xml", mapLayers(e.URL, maps[1:])},
		{"/WMTSCapabilities.xml", mapLayers(e.URL, maps)},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			caps := e.URL + tc.path
			mark := settled(e)
			out, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "-json", "WMTS:"+caps)
			if err != nil {
				t.Fatalf("gdalinfo: %v\n%s", err, stderr)
			}
			var info gdalInfo
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("gdalinfo -json: %v\n%s", err, out)
			}
			// GDAL names each layer (and tile matrix set) as a subdataset.
			sub := info.Metadata["SUBDATASETS"]
			got := map[string]bool{}
			for k, v := range sub {
				if !strings.HasSuffix(k, "_NAME") {
					continue
				}
				i := strings.Index(v, ",layer=")
				if !strings.HasPrefix(v, "WMTS:"+caps) || i < 0 {
					t.Errorf("subdataset %s = %q", k, v)
					continue
				}
				layer, _, _ := strings.Cut(v[i+len(",layer="):], ",")
				got[layer] = true
			}
			var want []string
			for _, l := range tc.layers {
				want = append(want, l.ID)
			}
			var gotIDs []string
			for id := range got {
				gotIDs = append(gotIDs, id)
			}
			sort.Strings(gotIDs)
			if !slices.Equal(gotIDs, want) {
				t.Errorf("GDAL lists layers %v, want %v (subdatasets %v)", gotIDs, want, sub)
			}

			for _, l := range tc.layers {
				out, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "-json", "WMTS:"+caps+",layer="+l.ID)
				if err != nil {
					t.Errorf("gdalinfo layer %s: %v\n%s", l.ID, err, stderr)
					continue
				}
				var li gdalInfo
				if err := json.Unmarshal(out, &li); err != nil {
					t.Fatalf("gdalinfo -json: %v\n%s", err, out)
				}
				// The maps' zooms are 0 to 22; GDAL's raster sizes are C
				// ints, so its WMTS driver stops at the deepest tile matrix
				// narrower than 2^31 pixels (z21 for 512-pixel tiles).
				z := 22
				for l.TileSize<<z > math.MaxInt32 {
					z--
				}
				size := l.TileSize << z
				if len(li.Size) != 2 || li.Size[0] != size || li.Size[1] != size {
					t.Errorf("%s: size %v, want %dx%d", l.ID, li.Size, size, size)
				}
				if len(li.GeoTransform) != 6 || math.Abs(li.GeoTransform[0]+halfWorld) > 1e-3 || math.Abs(li.GeoTransform[3]-halfWorld) > 1e-3 ||
					math.Abs(li.GeoTransform[1]-2*halfWorld/float64(size)) > 1e-9 {
					t.Errorf("%s: geotransform %v", l.ID, li.GeoTransform)
				}
				if !strings.Contains(li.CoordinateSystem.WKT, `ID["EPSG",3857]`) {
					t.Errorf("%s: coordinate system is not EPSG:3857: %.200s", l.ID, li.CoordinateSystem.WKT)
				}
				if got := li.Metadata[""]["TITLE"]; got != l.Title {
					t.Errorf("%s: title %q, want %q", l.ID, got, l.Title)
				}
				if len(li.Bands) != 4 {
					t.Errorf("%s: %d bands, want 4 (RGBA of PNG tiles)", l.ID, len(li.Bands))
				}
			}
			settled(e)
			for _, a := range e.since(mark) {
				if a.Path != tc.path || a.Status != http.StatusOK {
					t.Errorf("gdalinfo made an unexpected request: %s", a)
				}
			}
		})
	}
}

// owslibMapsScript reads the WMS (argv[1]) and WMTS (argv[2]) capabilities
// of maps with OWSLib and prints what it found as JSON.
const owslibMapsScript = `
import json, sys
from owslib.wms import WebMapService
from owslib.wmts import WebMapTileService

wms = WebMapService(sys.argv[1], version='1.3.0')
getmap = wms.getOperationByName('GetMap')
out = {"wms": {
    "type": wms.identification.type,
    "version": wms.identification.version,
    "title": wms.identification.title,
    "getmap_formats": getmap.formatOptions,
    "getmap_url": [m.get("url") for m in getmap.methods if m.get("type") == "Get"],
    "capabilities_formats": wms.getOperationByName('GetCapabilities').formatOptions,
    "layers": {
        name: {
            "title": l.title,
            "parent": l.parent.name if l.parent is not None else None,
            "parent_title": l.parent.title if l.parent is not None else None,
            "children": [c.name for c in l.children],
            "crs": sorted(l.crsOptions),
            "wgs84": list(l.boundingBoxWGS84) if l.boundingBoxWGS84 else None,
            "bboxes": {b[4]: list(b[:4]) for b in l.crs_list},
            "opaque": l.opaque,
        }
        for name, l in wms.contents.items()
    },
}}
wmts = WebMapTileService(sys.argv[2])
out["wmts"] = {
    "type": wmts.identification.type,
    "version": wmts.identification.version,
    "layers": {
        name: {
            "title": l.title,
            "formats": l.formats,
            "wgs84": list(l.boundingBoxWGS84) if l.boundingBoxWGS84 else None,
            "templates": [r.get("template") for r in l.resourceURLs if r.get("resourceType") == "tile"],
            "matrixsets": sorted(l.tilematrixsetlinks),
        }
        for name, l in wmts.contents.items()
    },
    "matrixsets": {
        tid: {"crs": tms.crs, "tile": sorted({(m.tilewidth, m.tileheight) for m in tms.tilematrix.values()}),
              "matrices": len(tms.tilematrix)}
        for tid, tms in wmts.tilematrixsets.items()
    },
}
json.dump(out, sys.stdout)
`

type owslibMapsResult struct {
	WMS struct {
		Type, Version, Title string
		GetMapFormats        []string `json:"getmap_formats"`
		GetMapURL            []string `json:"getmap_url"`
		CapabilitiesFormats  []string `json:"capabilities_formats"`
		Layers               map[string]struct {
			Title       string
			Parent      *string
			ParentTitle *string `json:"parent_title"`
			Children    []string
			CRS         []string
			WGS84       []float64
			BBoxes      map[string][]float64
			Opaque      int
		}
	}
	WMTS struct {
		Type, Version string
		Layers        map[string]struct {
			Title      string
			Formats    []string
			WGS84      []float64
			Templates  []string
			MatrixSets []string
		}
		MatrixSets map[string]struct {
			CRS      string
			Tile     [][]int
			Matrices int
		}
	}
}

// mercatorX and mercatorY project longitude and latitude to Web Mercator
// metres (EPSG:3857).
func mercatorX(lon float64) float64 { return lon * math.Pi / 180 * 6378137 }
func mercatorY(lat float64) float64 {
	return math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * 6378137
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestOWSLibMaps reads the WMS 1.3.0 capabilities of one map
// (/maps/{id}/wms?service=WMS&request=GetCapabilities) and of all maps
// (/maps/wms?...) with OWSLib's WebMapService, and the matching WMTS
// capabilities with WebMapTileService: layer names and titles, the CRS
// list (EPSG:3857, EPSG:4326, CRS:84), bounding boxes that agree with each
// other in every CRS once OWSLib has put EPSG:4326's latitude-first axes
// back in order, GetMap formats and URL; the WMTS layers, their tile URL
// templates and tile matrix sets.
func TestOWSLibMaps(t *testing.T) {
	t.Parallel()
	python := owslibPython(t)
	ctx := t.Context()
	e := serveDataDir(t, mapsDataDir(t))
	maps := testMaps()
	cases := []struct {
		name, wms, wmts, getMap string
		maps                    []testMap
	}{
		{"cities", "/maps/cities/wms?service=WMS&request=GetCapabilities", "/maps/cities/WMTSCapabilities.xml", "/maps/cities/wms", maps[:1]},
		{"all maps", "/maps/wms?service=WMS&request=GetCapabilities", "/WMTSCapabilities.xml", "/maps/wms", maps},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mark := settled(e)
			out, stderr, err := run(ctx, t, nil, python, "-c", owslibMapsScript, e.URL+tc.wms, e.URL+tc.wmts)
			if err != nil {
				t.Fatalf("OWSLib: %v\n%s", err, stderr)
			}
			var r owslibMapsResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("OWSLib output: %v\n%s", err, out)
			}
			settled(e)
			reqs := e.since(mark)
			for _, a := range reqs {
				if a.Status != http.StatusOK {
					t.Errorf("OWSLib's request %s", a)
				}
			}
			if len(reqs) != 2 {
				t.Errorf("OWSLib made %d requests, want the two capabilities: %v", len(reqs), reqs)
			}

			w := r.WMS
			if w.Type != "WMS" || w.Version != "1.3.0" || w.Title == "" {
				t.Errorf("WMS service: type %q, version %q, title %q", w.Type, w.Version, w.Title)
			}
			if !slices.Contains(w.GetMapFormats, "image/png") {
				t.Errorf("GetMap formats %v lack image/png (the maps' format)", w.GetMapFormats)
			}
			for _, f := range w.GetMapFormats {
				if f != "image/png" && f != "image/jpeg" && f != "image/webp" {
					t.Errorf("GetMap format %q", f)
				}
			}
			if !slices.Contains(w.CapabilitiesFormats, "text/xml") {
				t.Errorf("GetCapabilities formats %v", w.CapabilitiesFormats)
			}
			if len(w.GetMapURL) != 1 || !strings.HasPrefix(w.GetMapURL[0], e.URL+tc.getMap) {
				t.Errorf("GetMap URL %v, want %s", w.GetMapURL, e.URL+tc.getMap)
			}
			var names []string
			for n := range w.Layers {
				names = append(names, n)
			}
			sort.Strings(names)
			var want []string
			for _, m := range tc.maps {
				want = append(want, m.ID)
			}
			if !slices.Equal(names, want) {
				t.Errorf("WMS layers %v, want %v", names, want)
			}
			for _, m := range tc.maps {
				l, ok := w.Layers[m.ID]
				if !ok {
					continue
				}
				if l.Title != m.Title {
					t.Errorf("WMS layer %s: title %q, want %q", m.ID, l.Title, m.Title)
				}
				if len(tc.maps) > 1 && (l.Parent != nil || l.ParentTitle == nil || *l.ParentTitle == "") {
					t.Errorf("WMS layer %s: parent %v %v, want an unnamed root layer with a title", m.ID, l.Parent, l.ParentTitle)
				}
				if want := []string{"CRS:84", "EPSG:3857", "EPSG:4326"}; !slices.Equal(l.CRS, want) {
					t.Errorf("WMS layer %s: CRS %v, want %v (inherited from the root layer where there is one)", m.ID, l.CRS, want)
				}
				checkWMSBoxes(t, m.ID, l.WGS84, l.BBoxes)
			}

			wt := r.WMTS
			if wt.Type != "OGC WMTS" || wt.Version != "1.0.0" {
				t.Errorf("WMTS service: type %q, version %q", wt.Type, wt.Version)
			}
			layers := mapLayers(e.URL, tc.maps)
			var wantIDs, gotIDs []string
			for _, l := range layers {
				wantIDs = append(wantIDs, l.ID)
			}
			for id := range wt.Layers {
				gotIDs = append(gotIDs, id)
			}
			sort.Strings(gotIDs)
			if !slices.Equal(gotIDs, wantIDs) {
				t.Errorf("WMTS layers %v, want %v", gotIDs, wantIDs)
			}
			for _, ml := range layers {
				l, ok := wt.Layers[ml.ID]
				if !ok {
					continue
				}
				if l.Title != ml.Title || !slices.Equal(l.Formats, []string{"image/png"}) {
					t.Errorf("WMTS layer %s: title %q, formats %v; want %q, [image/png]", ml.ID, l.Title, l.Formats, ml.Title)
				}
				if !slices.Equal(l.Templates, []string{ml.Template}) {
					t.Errorf("WMTS layer %s: tile templates %v, want [%s]", ml.ID, l.Templates, ml.Template)
				}
				if b := l.WGS84; len(b) != 4 || !near(b[0], -180, 1e-9) || !near(b[2], 180, 1e-9) || b[1] > -85 || b[3] < 85 {
					t.Errorf("WMTS layer %s: WGS84 box %v, want the world", ml.ID, b)
				}
				if len(l.MatrixSets) != 1 {
					t.Errorf("WMTS layer %s: tile matrix sets %v", ml.ID, l.MatrixSets)
					continue
				}
				ms, ok := wt.MatrixSets[l.MatrixSets[0]]
				if !ok {
					t.Errorf("WMTS layer %s: tile matrix set %s is not described", ml.ID, l.MatrixSets[0])
					continue
				}
				if !strings.Contains(ms.CRS, "3857") || ms.Matrices != 23 || fmt.Sprint(ms.Tile) != fmt.Sprint([][]int{{ml.TileSize, ml.TileSize}}) {
					t.Errorf("WMTS layer %s: tile matrix set %s: CRS %q, %d matrices, tiles %v; want EPSG:3857, 23 (zooms 0-22), %d px",
						ml.ID, l.MatrixSets[0], ms.CRS, ms.Matrices, ms.Tile, ml.TileSize)
				}
			}
		})
	}
}

// checkWMSBoxes checks a WMS layer's bounding boxes as OWSLib read them
// (every box in x/y order): the CRS:84 and EPSG:4326 boxes equal the
// geographic box, the EPSG:3857 box is its projection, and the box spans
// the Web Mercator world.
func checkWMSBoxes(t *testing.T, layer string, geo []float64, boxes map[string][]float64) {
	t.Helper()
	if len(geo) != 4 || geo[0] >= geo[2] || geo[1] >= geo[3] || geo[0] > -179.9 || geo[2] < 179.9 || geo[1] > -85 || geo[3] < 85 {
		t.Errorf("WMS layer %s: geographic box %v, want the Web Mercator world", layer, geo)
		return
	}
	for _, crs := range []string{"CRS:84", "EPSG:4326", "EPSG:3857"} {
		b, ok := boxes[crs]
		if !ok || len(b) != 4 {
			t.Errorf("WMS layer %s: no %s bounding box (have %v)", layer, crs, boxes)
			continue
		}
		want := geo
		if crs == "EPSG:3857" {
			want = []float64{mercatorX(geo[0]), mercatorY(geo[1]), mercatorX(geo[2]), mercatorY(geo[3])}
		}
		for i := range want {
			if !near(b[i], want[i], 1e-6) {
				t.Errorf("WMS layer %s: %s box %v, want %v", layer, crs, b, want)
				break
			}
		}
	}
}
