package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

// The map of the image tests: the geography-class-png raster tileset (a
// political world map of many colours) under the cities of world_cities
// as circles. Labels are left out: the renderer does not draw them yet.
const (
	reliefID    = "relief"
	reliefTitle = "Relief and cities"
)

func reliefMap() testMap {
	return testMap{
		ID: reliefID, Title: reliefTitle,
		Style: map[string]any{
			"version": 8,
			"name":    reliefTitle,
			"center":  []float64{8, 47},
			"zoom":    2,
			"sources": map[string]any{
				"relief": map[string]any{"type": "raster", "url": "mbtiles://" + nameRaster, "tileSize": 256},
				"cities": map[string]any{"type": "vector", "url": "mbtiles://" + nameVector},
			},
			"layers": []any{
				map[string]any{"id": "background", "type": "background", "paint": map[string]any{"background-color": colourBackground}},
				map[string]any{"id": "relief", "type": "raster", "source": "relief"},
				map[string]any{
					"id": "city-dots", "type": "circle", "source": "cities", "source-layer": "cities",
					"paint": map[string]any{"circle-radius": 3, "circle-color": colourCircle, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1},
				},
			},
		},
	}
}

// imagesDataDir is mapsDataDir with the raster tileset and the relief map.
func imagesDataDir(t *testing.T) string {
	t.Helper()
	dir := mapsDataDir(t)
	src := fixtures.Path(t, fixtureRaster)
	if err := copyFile(src, filepath.Join(dir, server.TilesDir, filepath.Base(src))); err != nil {
		t.Fatal(err)
	}
	writeMap(t, dir, reliefMap())
	return dir
}

// imageStats describes an image: its size, how many distinct colours it
// has, the share of its pixels of the most common colour and the share of
// pixels of one given colour.
type imageStats struct {
	W, H     int
	Colours  int
	TopShare float64
	Share    float64 // of the colour asked for (0 when none)
}

func statsOf(img image.Image, of *color.NRGBA) imageStats {
	r := img.Bounds()
	counts := map[color.NRGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			counts[nrgba(img.At(x, y))]++
		}
	}
	s := imageStats{W: r.Dx(), H: r.Dy(), Colours: len(counts)}
	n := float64(r.Dx() * r.Dy())
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	if n > 0 {
		s.TopShare = float64(top) / n
		if of != nil {
			s.Share = float64(counts[*of]) / n
		}
	}
	return s
}

// checkDrawn fails unless an image of the relief map is drawn: many
// colours (the political map has dozens) and no colour over half of it
// (a blank, one-colour or error image has one).
func checkDrawn(t *testing.T, what string, img image.Image) imageStats {
	t.Helper()
	s := statsOf(img, nil)
	if s.Colours < 20 || s.TopShare > 0.5 {
		t.Errorf("%s is not a drawn map: %d colours, the commonest covers %.0f%%", what, s.Colours, 100*s.TopShare)
	}
	return s
}

// diffShare is the share of the pixels of two images of one size that
// differ by more than 48 in a colour channel.
func diffShare(t *testing.T, a, b image.Image) float64 {
	t.Helper()
	ra, rb := a.Bounds(), b.Bounds()
	if ra.Dx() != rb.Dx() || ra.Dy() != rb.Dy() {
		t.Fatalf("images of different sizes: %v, %v", ra, rb)
	}
	far := func(x, y uint8) bool { return int(x) > int(y)+48 || int(y) > int(x)+48 }
	n := 0
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			p, q := nrgba(a.At(ra.Min.X+x, ra.Min.Y+y)), nrgba(b.At(rb.Min.X+x, rb.Min.Y+y))
			if far(p.R, q.R) || far(p.G, q.G) || far(p.B, q.B) || far(p.A, q.A) {
				n++
			}
		}
	}
	return float64(n) / float64(ra.Dx()*ra.Dy())
}

// renderWait bounds a client run that waits on map renders; renderEnv
// gives GDAL as long for each of its requests (its default in gdalEnv is
// 20 s). Renders are slow under the race detector on a busy machine.
const renderWait = 150 * time.Second

func renderEnv(t *testing.T) []string { return append(gdalEnv(t), "GDAL_HTTP_TIMEOUT=120") }

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodePNG(t, path, b)
}

// getMap asks the server for a GetMap image with Go's HTTP client: the
// reference the clients' images are compared with.
func (e *env) getMap(t *testing.T, path, query string) image.Image {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), renderWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+path+"?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s?%s: %v", path, query, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s?%s: %d %s %v %.300s", path, query, res.StatusCode, res.Header.Get("Content-Type"), err, b)
	}
	return decodePNG(t, "GetMap "+query, b)
}

// TestGDALMapWMS reads the relief map through GDAL's WMS driver with
// gdal_translate -outsize from a GetMap URL ("WMS:<base>/maps/relief/wms?
// ...", and the same through /maps/wms), in WMS 1.3.0 and 1.1.1, in
// EPSG:3857 and in EPSG:4326 (whose 1.3.0 BBOX is latitude first). GDAL
// must ask the server for GetMap images only (every one answered 200),
// write a PNG of exactly the size asked that is a drawn map, identical
// between the two versions (the same area whatever the axis order), and
// close to the server's own image of the area at that size (in CRS:84,
// longitude first, for EPSG:4326): a map drawn with swapped axes or
// elsewhere would differ in most pixels.
func TestGDALMapWMS(t *testing.T) {
	t.Parallel()
	translate := fixtures.Tool(t, "gdal_translate")
	ctx := t.Context()
	e := serveDataDir(t, imagesDataDir(t))
	const w, h = 300, 200
	type area struct {
		crs              string
		bbox130, bbox111 string // the BBOX of each version
		reference        string // the same area for the reference GetMap
	}
	areas := []area{
		{"EPSG:3857", "-2000000,3000000,4000000,8000000", "-2000000,3000000,4000000,8000000",
			"crs=EPSG:3857&bbox=-2000000,3000000,4000000,8000000"},
		{"EPSG:4326", "30,-20,60,40", "-20,30,40,60", "crs=CRS:84&bbox=-20,30,40,60"},
	}
	// From the capabilities of each version: GDAL lists the map as a
	// subdataset of that version (a GetMap URL of the whole world) and
	// gdal_translate draws it.
	t.Run("capabilities", func(t *testing.T) {
		var images []image.Image
		for _, version := range []string{"1.3.0", "1.1.1"} {
			caps := e.URL + "/maps/relief/wms?SERVICE=WMS&VERSION=" + version + "&REQUEST=GetCapabilities"
			out, stderr, err := run(ctx, t, gdalEnv(t), fixtures.Tool(t, "gdalinfo"), "-json", "WMS:"+caps)
			if err != nil {
				t.Fatalf("gdalinfo %s: %v\n%s", caps, err, stderr)
			}
			var info gdalInfo
			if err := json.Unmarshal(out, &info); err != nil {
				t.Fatalf("gdalinfo -json: %v\n%s", err, out)
			}
			sub := info.Metadata["SUBDATASETS"]
			name, desc := sub["SUBDATASET_1_NAME"], sub["SUBDATASET_1_DESC"]
			if len(sub) != 2 || desc != reliefTitle || !strings.Contains(name, "VERSION="+version) || !strings.Contains(name, "LAYERS=relief") {
				t.Fatalf("WMS %s: GDAL lists subdatasets %v", version, sub)
			}
			png := filepath.Join(t.TempDir(), "world.png")
			mark := settled(e)
			if _, stderr, err := runFor(ctx, t, renderWait, renderEnv(t), translate, "-q", "-of", "PNG", "-outsize", "400", "190", name, png); err != nil {
				t.Fatalf("gdal_translate %s: %v\n%s", name, err, stderr)
			}
			settled(e)
			for _, a := range e.since(mark) {
				if a.Path != "/maps/relief/wms" || a.Status != http.StatusOK {
					t.Errorf("WMS %s: unexpected request %s", version, a)
				}
			}
			img := readPNG(t, png)
			if img.Bounds().Dx() != 400 || img.Bounds().Dy() != 190 {
				t.Fatalf("WMS %s: GDAL wrote %v, want 400x190", version, img.Bounds())
			}
			checkDrawn(t, "GDAL's world in WMS "+version, img)
			images = append(images, img)
		}
		// 1.3.0 names the world in CRS:84, 1.1.1 in EPSG:4326: the same
		// longitude-first box, the same image.
		if d := diffShare(t, images[0], images[1]); d != 0 {
			t.Errorf("the worlds of WMS 1.3.0 and 1.1.1 differ in %.1f%% of pixels", 100*d)
		}
	})
	for _, path := range []string{"/maps/relief/wms", "/maps/wms"} {
		for _, a := range areas {
			t.Run(path+" "+a.crs, func(t *testing.T) {
				ref := e.getMap(t, path, fmt.Sprintf("service=WMS&version=1.3.0&request=GetMap&layers=relief&styles=&format=image/png&width=%d&height=%d&%s", w, h, a.reference))
				var images []image.Image
				for _, v := range []struct{ version, crsKey, bbox string }{{"1.3.0", "CRS", a.bbox130}, {"1.1.1", "SRS", a.bbox111}} {
					src := fmt.Sprintf("WMS:%s%s?SERVICE=WMS&VERSION=%s&REQUEST=GetMap&LAYERS=relief&%s=%s&BBOX=%s&FORMAT=image/png",
						e.URL, path, v.version, v.crsKey, a.crs, v.bbox)
					out := filepath.Join(t.TempDir(), "map.png")
					mark := settled(e)
					_, stderr, err := runFor(ctx, t, renderWait, renderEnv(t), translate, "-q", "-of", "PNG", "-outsize", fmt.Sprint(w), fmt.Sprint(h), src, out)
					if err != nil {
						t.Fatalf("gdal_translate %s: %v\n%s", src, err, stderr)
					}
					settled(e)
					reqs := e.since(mark)
					if len(reqs) == 0 {
						t.Errorf("%s: GDAL made no request", v.version)
					}
					for _, r := range reqs {
						if r.Path != path || r.Status != http.StatusOK {
							t.Errorf("%s: unexpected request %s", v.version, r)
						}
					}
					img := readPNG(t, out)
					if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
						t.Fatalf("%s: GDAL wrote %v, want %dx%d", v.version, img.Bounds(), w, h)
					}
					s := checkDrawn(t, "GDAL's "+v.version+" image", img)
					d := diffShare(t, img, ref)
					t.Logf("%s %s: %d colours, commonest %.0f%%, %.1f%% of pixels far from the server's image", v.version, a.crs, s.Colours, 100*s.TopShare, 100*d)
					if d > 0.15 {
						t.Errorf("%s: %.0f%% of GDAL's pixels differ from the server's image of the area", v.version, 100*d)
					}
					images = append(images, img)
				}
				if d := diffShare(t, images[0], images[1]); d != 0 {
					t.Errorf("WMS 1.3.0 and 1.1.1 images of the same area differ in %.1f%% of pixels", 100*d)
				}
			})
		}
	}
}

// TestGDALMapWMTSPixels reads pixels of the relief map's WMTS layers (256
// and 512-pixel tiles) with GDAL's WMTS driver: a 128x128 window at zoom 2
// (-oo TILEMATRIX=2) across the corner of four tiles. GDAL must fetch
// exactly those four raster tiles (200), and its pixels must be the
// pixels of the tiles the server serves, a drawn map.
func TestGDALMapWMTSPixels(t *testing.T) {
	t.Parallel()
	translate := fixtures.Tool(t, "gdal_translate")
	ctx := t.Context()
	e := serveDataDir(t, imagesDataDir(t))
	caps := e.URL + "/maps/relief/WMTSCapabilities.xml"
	for _, tc := range []struct {
		layer, prefix string
		size          int
	}{{"relief", "/maps/relief/256", 256}, {"relief_512", "/maps/relief", 512}} {
		t.Run(tc.layer, func(t *testing.T) {
			const z, win = 2, 128
			x0, y0 := tc.size-win/2, tc.size-win/2
			out := filepath.Join(t.TempDir(), "window.png")
			mark := settled(e)
			_, stderr, err := runFor(ctx, t, renderWait, renderEnv(t), translate, "-q", "-of", "PNG", "-oo", fmt.Sprintf("TILEMATRIX=%d", z),
				"-srcwin", fmt.Sprint(x0), fmt.Sprint(y0), fmt.Sprint(win), fmt.Sprint(win), "WMTS:"+caps+",layer="+tc.layer, out)
			if err != nil {
				t.Fatalf("gdal_translate: %v\n%s", err, stderr)
			}
			settled(e)
			tileRe := regexp.MustCompile(`^` + regexp.QuoteMeta(tc.prefix) + `/\d+/\d+/\d+\.png$`)
			fetched := map[string]int{}
			for _, a := range e.since(mark) {
				if tileRe.MatchString(a.Path) {
					fetched[a.Path] = a.Status
				} else if a.Path != "/maps/relief/WMTSCapabilities.xml" || a.Status != http.StatusOK {
					t.Errorf("unexpected request %s", a)
				}
			}
			want := map[string]int{}
			for _, xy := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				want[fmt.Sprintf("%s/%d/%d/%d.png", tc.prefix, z, xy[0], xy[1])] = http.StatusOK
			}
			if fmt.Sprint(fetched) != fmt.Sprint(want) {
				t.Errorf("GDAL fetched %v, want %v", fetched, want)
			}
			got := readPNG(t, out)
			if got.Bounds().Dx() != win || got.Bounds().Dy() != win {
				t.Fatalf("window is %v, want %dx%d", got.Bounds(), win, win)
			}
			checkDrawn(t, "GDAL's window", got)
			tiles := map[[2]int]image.Image{}
			for p := range want {
				status, h, b := e.get(ctx, p)
				if status != http.StatusOK || h.Get("Content-Type") != "image/png" {
					t.Fatalf("GET %s: %d %s", p, status, h.Get("Content-Type"))
				}
				var x, y int
				if _, err := fmt.Sscanf(strings.TrimPrefix(p, tc.prefix), "/2/%d/%d.png", &x, &y); err != nil {
					t.Fatal(err)
				}
				img := decodePNG(t, p, b)
				if img.Bounds().Dx() != tc.size || img.Bounds().Dy() != tc.size {
					t.Fatalf("%s is %v, want %d pixels", p, img.Bounds(), tc.size)
				}
				tiles[[2]int{x, y}] = img
			}
			bad := 0
			for py := 0; py < win; py++ {
				for px := 0; px < win; px++ {
					gx, gy := x0+px, y0+py
					tile := tiles[[2]int{gx / tc.size, gy / tc.size}]
					wantC := nrgba(tile.At(tile.Bounds().Min.X+gx%tc.size, tile.Bounds().Min.Y+gy%tc.size))
					if gotC := nrgba(got.At(got.Bounds().Min.X+px, got.Bounds().Min.Y+py)); gotC != wantC {
						if bad < 3 {
							t.Errorf("pixel (%d,%d): GDAL %v, tile %v", gx, gy, gotC, wantC)
						}
						bad++
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d pixels differ from the served tiles", bad, win*win)
			}
		})
	}
}

// owslibImagesScript gets map images with OWSLib: argv[1] a WMS URL,
// argv[2] the WMTS capabilities, argv[3] the folder to write them in. It
// prints one JSON line per image: its file, the URL OWSLib asked and the
// Content-Type answered.
const owslibImagesScript = `
import json, os, sys
from owslib.wms import WebMapService
from owslib.wmts import WebMapTileService

wms_url, wmts_url, out = sys.argv[1:4]
res = []
def save(name, resp, **kw):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(resp.read())
    d = {"file": path, "url": resp.geturl(), "type": resp.info().get("Content-Type")}
    d.update(kw)
    res.append(d)

for version in ("1.1.1", "1.3.0"):
    wms = WebMapService(wms_url, version=version, timeout=120)
    assert "relief" in wms.contents, list(wms.contents)
    # OWSLib takes boxes in x/y order and puts EPSG:4326 latitude first in 1.3.0.
    for srs, bbox, size in (("EPSG:3857", (-2000000, 3000000, 4000000, 8000000), (301, 203)),
                            ("EPSG:4326", (-20, 30, 40, 60), (256, 160))):
        resp = wms.getmap(layers=["relief"], styles=[""], srs=srs, bbox=bbox, size=size, format="image/png")
        save("wms-%s-%s.png" % (version, srs[5:]), resp, version=wms.identification.version, srs=srs, size=list(size))

wmts = WebMapTileService(wmts_url, timeout=120)
for layer in ("relief", "relief_512"):
    lyr = wmts.contents[layer]
    tms = list(lyr.tilematrixsetlinks)[0]
    resp = wmts.gettile(layer=layer, tilematrixset=tms, tilematrix="2", row=1, column=1, format="image/png")
    save("wmts-%s.png" % layer, resp, layer=layer)
json.dump(res, sys.stdout)
`

// TestOWSLibMapImages gets images of the relief map with OWSLib: GetMap
// through WebMapService in WMS 1.1.1 and 1.3.0 (from the map's WMS and
// from the all-maps WMS), in EPSG:3857 and EPSG:4326, must be PNGs of
// exactly the size asked, drawn, the same in both versions and the same
// as the server's CRS:84 image of the area for EPSG:4326 (axis order);
// WebMapTileService.gettile of both WMTS layers must return the PNG tile
// of the layer's size that the tile URL serves.
func TestOWSLibMapImages(t *testing.T) {
	t.Parallel()
	python := owslibPython(t)
	e := serveDataDir(t, imagesDataDir(t))
	for _, wmsPath := range []string{"/maps/relief/wms", "/maps/wms"} {
		t.Run(wmsPath, func(t *testing.T) {
			dir := t.TempDir()
			out, stderr, err := runFor(t.Context(), t, renderWait, nil, python, "-c", owslibImagesScript, e.URL+wmsPath, e.URL+"/maps/relief/WMTSCapabilities.xml", dir)
			if err != nil {
				t.Fatalf("OWSLib: %v\n%s", err, stderr)
			}
			var res []struct {
				File, URL, Type, Version, SRS, Layer string
				Size                                 []int
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("OWSLib output %s: %v", out, err)
			}
			if len(res) != 6 {
				t.Fatalf("%d images, want 6: %s", len(res), out)
			}
			byKey := map[string]image.Image{}
			for _, r := range res {
				img := readPNG(t, r.File)
				if r.Type != "image/png" {
					t.Errorf("%s: Content-Type %q", r.URL, r.Type)
				}
				if r.Layer != "" {
					size := 256
					if r.Layer == "relief_512" {
						size = 512
					}
					if img.Bounds().Dx() != size || img.Bounds().Dy() != size {
						t.Errorf("WMTS %s: tile %v, want %d pixels", r.Layer, img.Bounds(), size)
					}
					checkDrawn(t, "WMTS tile "+r.URL, img)
					u := strings.TrimPrefix(r.URL, e.URL)
					status, _, b := e.get(t.Context(), u)
					if status != http.StatusOK || !bytes.Equal(b, mustRead(t, r.File)) {
						t.Errorf("WMTS %s: OWSLib's tile %s differs from the one served (%d)", r.Layer, r.URL, status)
					}
					continue
				}
				if r.Version != "" && !strings.Contains(r.URL, "version="+r.Version) {
					t.Errorf("GetMap %s does not ask for version %s", r.URL, r.Version)
				}
				if !strings.HasPrefix(r.URL, e.URL+wmsPath+"?") {
					t.Errorf("GetMap went to %s, not %s", r.URL, e.URL+wmsPath)
				}
				if len(r.Size) != 2 || img.Bounds().Dx() != r.Size[0] || img.Bounds().Dy() != r.Size[1] {
					t.Errorf("GetMap %s: image %v, asked %v", r.URL, img.Bounds(), r.Size)
				}
				checkDrawn(t, "GetMap "+r.URL, img)
				byKey[r.Version+" "+r.SRS] = img
			}
			for _, srs := range []string{"EPSG:3857", "EPSG:4326"} {
				a, b := byKey["1.1.1 "+srs], byKey["1.3.0 "+srs]
				if a == nil || b == nil {
					t.Errorf("%s: images of versions %v", srs, byKey)
					continue
				}
				if d := diffShare(t, a, b); d != 0 {
					t.Errorf("%s: the 1.1.1 and 1.3.0 images differ in %.1f%% of pixels", srs, 100*d)
				}
			}
			if img := byKey["1.3.0 EPSG:4326"]; img != nil {
				ref := e.getMap(t, wmsPath, "service=WMS&version=1.3.0&request=GetMap&layers=relief&styles=&format=image/png&width=256&height=160&crs=CRS:84&bbox=-20,30,40,60")
				if d := diffShare(t, img, ref); d != 0 {
					t.Errorf("EPSG:4326 image differs from the CRS:84 image of the same area in %.1f%% of pixels", 100*d)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGDALMapWMSLabels lets GDAL's WMS driver fetch a map with one label
// at 60°N in EPSG:4326 (as GDAL asks by default), in WMS 1.3.0 and 1.1.1,
// through a service description of exactly one 512x256 block: the label
// in GDAL's picture keeps the width and height it has in the server's
// EPSG:3857 picture at the same scale across, and its place about its
// point. (Before issue 19 the label came back half its height.)
func TestGDALMapWMSLabels(t *testing.T) {
	t.Parallel()
	translate := fixtures.Tool(t, "gdal_translate")
	dir := mapsDataDir(t)
	writeRawMap(t, dir, "label", []byte(`{"version": 8, "glyphs": "/fonts/{fontstack}/{range}.pbf",
		"sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [10, 60]}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
			{"id": "label", "type": "symbol", "source": "p", "layout": {"text-field": "Hamburg", "text-font": ["`+fontRegular+`"], "text-size": 20}}]}`))
	e := serveDataDir(t, dir)
	// labelBox returns the box of the label's dark pixels about the
	// pixel of its point.
	labelBox := func(img image.Image, ax, ay int) image.Rectangle {
		var box image.Rectangle
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
					box = box.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		if box.Empty() {
			t.Fatal("no label drawn")
		}
		return box.Sub(image.Pt(ax, ay))
	}
	// The reference: EPSG:3857 with square pixels, 512 pixels across 20
	// degrees of longitude, centred on the point.
	const r = 6378137.0
	mx, my := r*10*math.Pi/180, r*math.Log(math.Tan(math.Pi/4+60*math.Pi/360))
	half := 256 * 2 * math.Pi * r / (512 * 18)
	ref := labelBox(e.getMap(t, "/maps/label/wms", fmt.Sprintf("service=WMS&version=1.3.0&request=GetMap&layers=label&styles=&format=image/png&width=512&height=512&crs=EPSG:3857&bbox=%f,%f,%f,%f",
		mx-half, my-half, mx+half, my+half)), 256, 256)
	t.Logf("EPSG:3857: label %v (%dx%d) about its point", ref, ref.Dx(), ref.Dy())
	// GDAL writes the box in the order BBoxOrder says: latitude first
	// for 1.3.0 (the CRS's axis order).
	for _, v := range []struct{ version, crsTag, order string }{{"1.3.0", "CRS", "yxYX"}, {"1.1.1", "SRS", "xyXY"}} {
		xml := fmt.Sprintf(`<GDAL_WMS>
  <Service name="WMS"><Version>%s</Version><ServerUrl>%s/maps/label/wms?</ServerUrl><Layers>label</Layers>
    <%s>EPSG:4326</%s><BBoxOrder>%s</BBoxOrder><ImageFormat>image/png</ImageFormat></Service>
  <DataWindow><UpperLeftX>0</UpperLeftX><UpperLeftY>65</UpperLeftY><LowerRightX>20</LowerRightX><LowerRightY>55</LowerRightY>
    <SizeX>512</SizeX><SizeY>256</SizeY></DataWindow>
  <BlockSizeX>512</BlockSizeX><BlockSizeY>256</BlockSizeY><BandsCount>3</BandsCount>
</GDAL_WMS>`, v.version, e.URL, v.crsTag, v.crsTag, v.order)
		src := filepath.Join(t.TempDir(), "label.xml")
		if err := os.WriteFile(src, []byte(xml), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "label.png")
		mark := settled(e)
		if _, stderr, err := runFor(t.Context(), t, renderWait, renderEnv(t), translate, "-q", "-of", "PNG", src, out); err != nil {
			t.Fatalf("gdal_translate %s: %v\n%s", v.version, err, stderr)
		}
		settled(e)
		reqs := e.since(mark)
		if len(reqs) != 1 || reqs[0].Path != "/maps/label/wms" || reqs[0].Status != http.StatusOK {
			t.Errorf("WMS %s: GDAL's requests %v, want one GetMap", v.version, reqs)
		}
		img := readPNG(t, out)
		if img.Bounds().Dx() != 512 || img.Bounds().Dy() != 256 {
			t.Fatalf("WMS %s: GDAL wrote %v, want 512x256", v.version, img.Bounds())
		}
		got := labelBox(img, 256, 128) // 10°E, 60°N
		t.Logf("WMS %s EPSG:4326 through GDAL: label %v (%dx%d) about its point", v.version, got, got.Dx(), got.Dy())
		near := func(a, b int) bool { return max(a-b, b-a) <= 1 }
		if !near(got.Min.X, ref.Min.X) || !near(got.Max.X, ref.Max.X) || !near(got.Min.Y, ref.Min.Y) || !near(got.Max.Y, ref.Max.Y) {
			t.Errorf("WMS %s: GDAL's label %v about its point, the server's in EPSG:3857 %v", v.version, got, ref)
		}
	}
}
