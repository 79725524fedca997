package clienttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// owslibScript reads a WMTS service with OWSLib and prints what it found as
// JSON: argv[1] is the capabilities URL, argv[2] the layer, argv[3] a JSON
// list of [z, x, y] tiles to get.
const owslibScript = `
import hashlib, json, sys
from owslib.wmts import WebMapTileService

url, layer, wanted = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
wmts = WebMapTileService(url)
lyr = wmts.contents[layer]
out = {
    "title": wmts.identification.title,
    "type": wmts.identification.type,
    "version": wmts.identification.version,
    "restonly": bool(wmts.restonly),
    "layers": sorted(wmts.contents),
    "layer": {
        "title": lyr.title,
        "formats": lyr.formats,
        "bbox": list(lyr.boundingBoxWGS84) if lyr.boundingBoxWGS84 else None,
        "resources": [r.get("template") for r in lyr.resourceURLs if r.get("resourceType") == "tile"],
        "limits": {
            tms: {tm: [l.mintilerow, l.maxtilerow, l.mintilecol, l.maxtilecol]
                  for tm, l in link.tilematrixlimits.items()}
            for tms, link in lyr.tilematrixsetlinks.items()
        },
    },
    "matrixsets": {
        tid: {
            "crs": tms.crs,
            "matrices": {
                mid: {
                    "scale": m.scaledenominator,
                    "topleft": list(m.topleftcorner),
                    "tile": [m.tilewidth, m.tileheight],
                    "matrix": [m.matrixwidth, m.matrixheight],
                }
                for mid, m in tms.tilematrix.items()
            },
        }
        for tid, tms in wmts.tilematrixsets.items()
    },
    "tiles": [],
}
tms = next(iter(lyr.tilematrixsetlinks))
for z, x, y in wanted:
    r = wmts.gettile(layer=layer, tilematrixset=tms, tilematrix=str(z), row=y, column=x, format=lyr.formats[0])
    data = r.read()
    out["tiles"].append({"z": z, "x": x, "y": y, "url": r.geturl(), "bytes": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()})
json.dump(out, sys.stdout)
`

type owslibResult struct {
	Title    string   `json:"title"`
	Type     string   `json:"type"`
	Version  string   `json:"version"`
	RestOnly bool     `json:"restonly"`
	Layers   []string `json:"layers"`
	Layer    struct {
		Title     string                      `json:"title"`
		Formats   []string                    `json:"formats"`
		BBox      []float64                   `json:"bbox"`
		Resources []string                    `json:"resources"`
		Limits    map[string]map[string][]int `json:"limits"`
	} `json:"layer"`
	MatrixSets map[string]struct {
		CRS      string `json:"crs"`
		Matrices map[string]struct {
			Scale   float64   `json:"scale"`
			TopLeft []float64 `json:"topleft"`
			Tile    []int     `json:"tile"`
			Matrix  []int     `json:"matrix"`
		} `json:"matrices"`
	} `json:"matrixsets"`
	Tiles []struct {
		Z, X, Y int
		URL     string `json:"url"`
		Bytes   int    `json:"bytes"`
		SHA256  string `json:"sha256"`
	} `json:"tiles"`
}

// TestOWSLibWMTS reads each tileset's WMTS capabilities over HTTP with
// OWSLib (Debian's python3-owslib, run by /usr/bin/python3), checks the
// service, the layer, its tile matrix set (WebMercatorQuad: matrices of
// 2^z x 2^z tiles of the tileset's tile size from a top-left corner at
// (-20037508.34, 20037508.34), halving scales) and its limits, then gets
// tiles with gettile: each must come from /tiles/{name}/{z}/{x}/{y}.{ext}
// and hold the same bytes as that URL serves (and, for MBTiles, as the file
// stores, after gzip decoding for vector tiles).
func TestOWSLibWMTS(t *testing.T) {
	t.Parallel()
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = fixtures.Tool(t, "python3")
	}
	if out, err := runQuiet(t, python, "-c", "import owslib.wmts"); err != nil {
		if fixtures.RequireTools() {
			t.Fatalf("OWSLib is required (TESSERA_REQUIRE_TOOLS=1): %v\n%s", err, out)
		}
		t.Skipf("OWSLib is not installed for %s (apt-get install python3-owslib): skipping", python)
	}
	e := startServer(t, fixtureRaster, fixturePMTiles, fixtureVector)
	ctx := t.Context()

	type tile struct{ z, x, y int }
	cases := []struct {
		name, fixture, title, format, ext string
		maxZoom, tileSize                 int
		tiles                             []tile
	}{
		// Facts of the fixture files (see TestGDALWMTS); world_cities
		// holds gzip MVT tiles at zooms 0 to 6 named "Major cities from
		// Natural Earth data".
		{nameRaster, fixtureRaster, "Geography Class", "image/png", "png", 1, 256,
			[]tile{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 0, 1}, {1, 1, 1}}},
		{namePMTiles, fixturePMTiles, "ne2sr", "image/png", "png", 1, 512,
			[]tile{{0, 0, 0}, {1, 0, 0}, {1, 1, 1}}},
		{nameVector, fixtureVector, "Major cities from Natural Earth data", "application/vnd.mapbox-vector-tile", "pbf", 6, 0,
			[]tile{{0, 0, 0}, {1, 0, 0}, {2, 1, 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			caps := e.URL + "/tiles/" + tc.name + "/WMTSCapabilities.xml"
			var want [][3]int
			for _, tl := range tc.tiles {
				want = append(want, [3]int{tl.z, tl.x, tl.y})
			}
			wantJSON, _ := json.Marshal(want)
			mark := e.mark()
			out, stderr, err := run(ctx, t, nil, python, "-c", owslibScript, caps, tc.name, string(wantJSON))
			if err != nil {
				t.Fatalf("OWSLib: %v\n%s", err, stderr)
			}
			var r owslibResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("OWSLib output: %v\n%s", err, out)
			}
			reqs := e.since(mark)
			if len(reqs) == 0 || reqs[0].Path != "/tiles/"+tc.name+"/WMTSCapabilities.xml" || reqs[0].Status != http.StatusOK {
				t.Errorf("OWSLib's first request: %v, want the capabilities answered 200", reqs)
			}

			if r.Type != "OGC WMTS" || r.Version != "1.0.0" || r.Title == "" {
				t.Errorf("service: type %q, version %q, title %q", r.Type, r.Version, r.Title)
			}
			if !r.RestOnly {
				t.Errorf("OWSLib found KVP operations; Tessera's WMTS is RESTful only")
			}
			if len(r.Layers) != 1 || r.Layers[0] != tc.name {
				t.Errorf("layers %v, want [%s]", r.Layers, tc.name)
			}
			if r.Layer.Title != tc.title {
				t.Errorf("layer title %q, want %q", r.Layer.Title, tc.title)
			}
			if len(r.Layer.Formats) != 1 || r.Layer.Formats[0] != tc.format {
				t.Errorf("formats %v, want [%s]", r.Layer.Formats, tc.format)
			}
			wantTemplate := e.URL + "/tiles/" + tc.name + "/{TileMatrix}/{TileCol}/{TileRow}." + tc.ext
			if len(r.Layer.Resources) != 1 || r.Layer.Resources[0] != wantTemplate {
				t.Errorf("tile resources %v, want [%s]", r.Layer.Resources, wantTemplate)
			}
			if b := r.Layer.BBox; len(b) != 4 || b[0] < -180 || b[2] > 180 || b[1] < -85.06 || b[3] > 85.06 || b[0] >= b[2] || b[1] >= b[3] {
				t.Errorf("WGS84 bounding box %v", b)
			}

			// The layer's one tile matrix set, described in the document.
			if len(r.Layer.Limits) != 1 {
				t.Fatalf("layer links %d tile matrix sets", len(r.Layer.Limits))
			}
			var tmsID string
			var limits map[string][]int
			for id, l := range r.Layer.Limits {
				tmsID, limits = id, l
			}
			tms, ok := r.MatrixSets[tmsID]
			if !ok {
				t.Fatalf("tile matrix set %q is not described (have %v)", tmsID, r.MatrixSets)
			}
			if !strings.Contains(tms.CRS, "3857") {
				t.Errorf("tile matrix set CRS %q", tms.CRS)
			}
			for z := 0; z <= tc.maxZoom; z++ {
				m, ok := tms.Matrices[strconv.Itoa(z)]
				if !ok {
					t.Errorf("no tile matrix %d", z)
					continue
				}
				n := 1 << z
				if m.Matrix[0] != n || m.Matrix[1] != n {
					t.Errorf("matrix %d: %v tiles, want %dx%d", z, m.Matrix, n, n)
				}
				if len(m.TopLeft) != 2 || math.Abs(m.TopLeft[0]+halfWorld) > 1e-3 || math.Abs(m.TopLeft[1]-halfWorld) > 1e-3 {
					t.Errorf("matrix %d: top-left corner %v", z, m.TopLeft)
				}
				if tc.tileSize > 0 {
					if m.Tile[0] != tc.tileSize || m.Tile[1] != tc.tileSize {
						t.Errorf("matrix %d: tiles of %v pixels, the tileset's tiles are %d", z, m.Tile, tc.tileSize)
					}
					// OGC's standardized rendering pixel is 0.28 mm.
					scale := 2 * halfWorld / float64(m.Tile[0]) / float64(n) / 0.00028
					if math.Abs(m.Scale-scale) > 1e-6*scale {
						t.Errorf("matrix %d: scale denominator %v, want %v for %d-pixel tiles", z, m.Scale, scale, m.Tile[0])
					}
				}
				if l, ok := limits[strconv.Itoa(z)]; !ok || l[0] < 0 || l[1] >= n || l[2] < 0 || l[3] >= n || l[0] > l[1] || l[2] > l[3] {
					t.Errorf("limits of matrix %d: %v", z, l)
				}
			}

			// gettile: same bytes as the tile URL.
			if len(r.Tiles) != len(tc.tiles) {
				t.Fatalf("OWSLib got %d tiles, want %d", len(r.Tiles), len(tc.tiles))
			}
			for i, got := range r.Tiles {
				tl := tc.tiles[i]
				path := fmt.Sprintf("/tiles/%s/%d/%d/%d.%s", tc.name, tl.z, tl.x, tl.y, tc.ext)
				if got.URL != e.URL+path {
					t.Errorf("gettile %v fetched %s, want %s", tl, got.URL, e.URL+path)
				}
				data := e.tile(ctx, tc.name, tl.z, tl.x, tl.y, tc.ext)
				sum := sha256.Sum256(data)
				if got.SHA256 != hex.EncodeToString(sum[:]) || got.Bytes != len(data) {
					t.Errorf("gettile %v: %d bytes (sha256 %.12s), the tile URL serves %d (%.12s)", tl, got.Bytes, got.SHA256, len(data), hex.EncodeToString(sum[:]))
				}
				if strings.HasSuffix(tc.fixture, ".mbtiles") {
					stored := storedTile(ctx, t, fixtures.Path(t, tc.fixture), tl.z, tl.x, tl.y)
					if tc.ext == "pbf" {
						stored = gunzip(t, stored)
					}
					if !bytes.Equal(stored, data) {
						t.Errorf("tile %v: served %d bytes, the file stores %d", tl, len(data), len(stored))
					}
				}
				if tc.tileSize > 0 {
					cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
					if err != nil || cfg.Width != tc.tileSize || cfg.Height != tc.tileSize {
						t.Errorf("tile %v: %dx%d pixels (%v), want %d", tl, cfg.Width, cfg.Height, err, tc.tileSize)
					}
				}
			}
			for _, a := range matching(e.since(mark), tileURLRe) {
				if a.Status != http.StatusOK {
					t.Errorf("tile request answered %s", a)
				}
			}
		})
	}
}
