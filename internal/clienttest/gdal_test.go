package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// halfWorld is half the width of the Web Mercator square, in metres.
const halfWorld = 20037508.342789244

// gdalEnv keeps GDAL's WMS/WMTS disk cache in the test's temporary folder
// (off, and elsewhere than the user's home) so that every run really
// fetches the tiles from the server.
func gdalEnv(t *testing.T) []string {
	return []string{
		"GDAL_ENABLE_WMS_CACHE=NO",
		"GDAL_DEFAULT_WMS_CACHE_PATH=" + filepath.Join(t.TempDir(), "gdalwmscache"),
		"GDAL_HTTP_TIMEOUT=20",
		"GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR",
		"CPL_DEBUG=OFF",
	}
}

// gdalInfo is the part of `gdalinfo -json` the tests read.
type gdalInfo struct {
	Size             []int     `json:"size"`
	GeoTransform     []float64 `json:"geoTransform"`
	CoordinateSystem struct {
		WKT string `json:"wkt"`
	} `json:"coordinateSystem"`
	Metadata map[string]map[string]string `json:"metadata"`
	Bands    []struct {
		Type                string `json:"type"`
		ColorInterpretation string `json:"colorInterpretation"`
	} `json:"bands"`
}

func decodePNG(t *testing.T, what string, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode %s: %v", what, err)
	}
	return img
}

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

// TestGDALWMTS opens each raster tileset's WMTS capabilities with GDAL's WMTS
// driver, checks the layer it finds (identifier, title, grid, bands), then
// cuts a 64x64 window straddling two tiles of the most detailed zoom with
// gdal_translate: GDAL must fetch exactly those tiles through the server and
// its pixels must equal the pixels of the tiles the server serves (which,
// for MBTiles, are the bytes stored in the file).
func TestGDALWMTS(t *testing.T) {
	t.Parallel()
	gdalinfo := fixtures.Tool(t, "gdalinfo")
	translate := fixtures.Tool(t, "gdal_translate")
	e := startServer(t, fixtureRaster, fixturePMTiles)
	ctx := t.Context()

	cases := []struct {
		name, fixture, title string
		maxZoom, tileSize    int
	}{
		// Facts of the fixture files: the MBTiles metadata rows name and
		// maxzoom and its 256-pixel PNG tiles; the PMTiles header's max
		// zoom, its metadata name and its 512-pixel PNG tiles.
		{nameRaster, fixtureRaster, "Geography Class", 1, 256},
		{namePMTiles, fixturePMTiles, "ne2sr", 1, 512},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			caps := e.URL + "/tiles/" + tc.name + "/WMTSCapabilities.xml"
			mark := e.mark()
			out, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "-json", "WMTS:"+caps+",layer="+tc.name)
			if err != nil {
				t.Fatalf("gdalinfo: %v\n%s", err, stderr)
			}
			var info gdalInfo
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("gdalinfo -json: %v\n%s", err, out)
			}
			checkWebMercatorRaster(t, info, tc.tileSize, tc.maxZoom, tc.title)
			for _, a := range e.since(mark) {
				if a.Path != "/tiles/"+tc.name+"/WMTSCapabilities.xml" || a.Status != http.StatusOK {
					t.Errorf("gdalinfo made an unexpected request: %s", a)
				}
			}

			// A window across the boundary of tiles (z, 0, 0) and (z, 1, 0).
			const w, h = 64, 64
			x0, y0, z := tc.tileSize-w/2, tc.tileSize/2-h/2, tc.maxZoom
			png := filepath.Join(t.TempDir(), "window.png")
			mark = e.mark()
			_, stderr, err = run(ctx, t, gdalEnv(t), translate, "-q", "-of", "PNG",
				"-srcwin", fmt.Sprint(x0), fmt.Sprint(y0), fmt.Sprint(w), fmt.Sprint(h), "WMTS:"+caps, png)
			if err != nil {
				t.Fatalf("gdal_translate: %v\n%s", err, stderr)
			}
			tileRe := regexp.MustCompile(`^/tiles/` + regexp.QuoteMeta(tc.name) + `/\d+/\d+/\d+\.png$`)
			fetched := map[string]int{}
			for _, a := range matching(e.since(mark), tileRe) {
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

			// The pixels the server serves, tile by tile.
			tiles := map[[2]int]image.Image{}
			for _, x := range []int{0, 1} {
				data := e.tile(ctx, tc.name, z, x, 0, "png")
				if strings.HasSuffix(tc.fixture, ".mbtiles") {
					if stored := storedTile(ctx, t, fixtures.Path(t, tc.fixture), z, x, 0); !bytes.Equal(stored, data) {
						t.Errorf("tile %d/%d/0: the server's %d bytes differ from the %d stored", z, x, len(data), len(stored))
					}
				}
				img := decodePNG(t, fmt.Sprintf("tile %d/%d/0", z, x), data)
				if img.Bounds().Dx() != tc.tileSize || img.Bounds().Dy() != tc.tileSize {
					t.Fatalf("tile %d/%d/0 is %v, the fixture's tiles are %d pixels", z, x, img.Bounds(), tc.tileSize)
				}
				tiles[[2]int{x, 0}] = img
			}
			mismatches, opaque, colours := 0, 0, map[color.NRGBA]bool{}
			for py := 0; py < h; py++ {
				for px := 0; px < w; px++ {
					gx, gy := x0+px, y0+py
					tile := tiles[[2]int{gx / tc.tileSize, gy / tc.tileSize}]
					tb := tile.Bounds()
					wantC := nrgba(tile.At(tb.Min.X+gx%tc.tileSize, tb.Min.Y+gy%tc.tileSize))
					gotC := nrgba(got.At(got.Bounds().Min.X+px, got.Bounds().Min.Y+py))
					if gotC != wantC {
						if mismatches < 3 {
							t.Errorf("pixel (%d,%d): GDAL %v, tile %v", gx, gy, gotC, wantC)
						}
						mismatches++
					}
					if gotC.A > 0 {
						opaque++
					}
					colours[gotC] = true
				}
			}
			if mismatches > 0 {
				t.Errorf("%d of %d pixels differ from the served tiles", mismatches, w*h)
			}
			if opaque == 0 || len(colours) < 10 {
				t.Errorf("window is nearly empty: %d non-transparent pixels, %d colours", opaque, len(colours))
			}
			t.Logf("%s: %v, window of %d colours from %v", tc.name, info.Size, len(colours), fetched)
		})
	}

	t.Run("unknown layer", func(t *testing.T) {
		// GDAL reads the capabilities, finds no such layer and opens nothing.
		caps := "/tiles/" + nameRaster + "/WMTSCapabilities.xml"
		mark := e.mark()
		_, stderr, err := run(ctx, t, gdalEnv(t), gdalinfo, "WMTS:"+e.URL+caps+",layer=nope")
		reqs := e.since(mark)
		if err == nil {
			t.Errorf("gdalinfo opened a layer the capabilities do not list:\n%s", stderr)
		}
		if len(reqs) == 0 || len(matching(reqs, tileURLRe)) > 0 {
			t.Errorf("requests %v, want only the capabilities", reqs)
		}
		for _, a := range reqs {
			if a.Path != caps || a.Status != http.StatusOK {
				t.Errorf("unexpected request %s", a)
			}
		}
	})
}

// checkWebMercatorRaster checks what gdalinfo reports of a raster tileset
// read through the server: the size and geotransform of the whole Web
// Mercator square at the deepest zoom, EPSG:3857, the title and RGBA bands.
func checkWebMercatorRaster(t *testing.T, info gdalInfo, tileSize, maxZoom int, title string) {
	t.Helper()
	size := tileSize << maxZoom
	if len(info.Size) != 2 || info.Size[0] != size || info.Size[1] != size {
		t.Errorf("size %v, want %dx%d (tiles of %d pixels, max zoom %d)", info.Size, size, size, tileSize, maxZoom)
	}
	res := 2 * halfWorld / float64(size)
	wantGT := []float64{-halfWorld, res, 0, halfWorld, 0, -res}
	if len(info.GeoTransform) != 6 {
		t.Fatalf("geotransform %v", info.GeoTransform)
	}
	for i, v := range wantGT {
		if math.Abs(info.GeoTransform[i]-v) > 1e-6*math.Max(1, math.Abs(v)) {
			t.Errorf("geotransform %v, want %v", info.GeoTransform, wantGT)
			break
		}
	}
	if wkt := info.CoordinateSystem.WKT; !strings.Contains(wkt, `ID["EPSG",3857]`) {
		t.Errorf("coordinate system is not EPSG:3857: %.200s", wkt)
	}
	if got := info.Metadata[""]["TITLE"]; got != title {
		t.Errorf("title %q, want %q", got, title)
	}
	// PNG tiles: GDAL exposes red, green, blue and alpha bytes.
	var interp []string
	for _, b := range info.Bands {
		interp = append(interp, b.Type+"/"+b.ColorInterpretation)
	}
	if want := "Byte/Red Byte/Green Byte/Blue Byte/Alpha"; strings.Join(interp, " ") != want {
		t.Errorf("bands %v, want %s", interp, want)
	}
}
