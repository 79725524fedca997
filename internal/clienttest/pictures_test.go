package clienttest

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/pyramid"
	"github.com/tesseramaps/tessera/internal/web"
)

// picturePage shows the image id of the server at base with MapLibre GL
// JS: a raster source over the image's tiles, bounded by the image's
// extent read from image.json (the pyramid's pixel space at the top left
// of the web mercator grid), fitted to the view.
func picturePage(base, id string) string {
	b, _ := json.Marshal(base)
	i, _ := json.Marshal(id)
	return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Tessera image</title>
<link rel="stylesheet" href="` + base + `/static/vendor/maplibre-gl.css"><script src="` + base + `/static/vendor/maplibre-gl.js"></script>
<style>html, body { margin: 0; } #map { width: 800px; height: 500px; background: #ff00ff; }</style>
</head><body><div id="map"></div>
<script>
const base = ` + string(b) + `, id = ` + string(i) + `;
const done = (info) => { window.tesseraInfo = info || null; window.tesseraDone = true; };
fetch(base + '/images/' + id + '/image.json').then((r) => r.json()).then((im) => {
  // The image at full resolution spans width x height of the 256 * 2^maxzoom
  // pixels of the world; a hair inside, so that no tile past it is asked.
  const world = im.tileSize * Math.pow(2, im.maxzoom);
  const lon = (px) => -180 + 360 * px / world;
  const lat = (py) => 180 / Math.PI * Math.atan(Math.sinh(Math.PI * (1 - 2 * py / world)));
  const bounds = [lon(0), lat(im.height - 0.5), lon(im.width - 0.5), lat(0)];
  const map = new maplibregl.Map({ container: 'map', fadeDuration: 0, attributionControl: false, renderWorldCopies: false,
    bounds: [[bounds[0], bounds[1]], [bounds[2], bounds[3]]],
    style: { version: 8, sources: { picture: { type: 'raster', tiles: [base + '/images/' + id + '/{z}/{x}/{y}'],
      tileSize: im.tileSize, minzoom: im.minzoom, maxzoom: im.maxzoom, bounds: bounds, attribution: im.attribution } },
      layers: [{ id: 'picture', type: 'raster', source: 'picture', paint: { 'raster-fade-duration': 0 } }] } });
  map.on('error', (e) => done({ failed: true, message: String(e.error && e.error.message) }));
  map.once('idle', () => done({ failed: false, zoom: map.getZoom() }));
}).catch((e) => done({ failed: true, message: String(e) }));
</script></body></html>
`
}

// TestPictureMapLibre shows an image pyramid in headless Chromium with
// MapLibre GL JS: the page reads image.json, asks only tiles on the
// picture (every one answered 200 or 204), and the screenshot shows the
// picture's four quadrant colours.
func TestPictureMapLibre(t *testing.T) {
	t.Parallel()
	chromium := chromiumTool(t)
	node := fixtures.Tool(t, "node")
	pw := filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules", "playwright-core")
	_, errP := os.Stat(filepath.Join(pw, "package.json"))
	needTool(t, errP == nil, "playwright-core (scripts/test-tools-npm.sh)")
	needTool(t, web.HasMapLibre(), "MapLibre GL JS in internal/web/static/vendor (scripts/web-assets.sh)")

	// A 1500 x 900 picture (zooms 0..3) of four coloured quadrants.
	dir := t.TempDir()
	quadrants := [4]color.NRGBA{{200, 30, 30, 255}, {30, 160, 40, 255}, {30, 60, 200, 255}, {230, 200, 20, 255}}
	src := image.NewNRGBA(image.Rect(0, 0, 1500, 900))
	for y := 0; y < 900; y++ {
		for x := 0; x < 1500; x++ {
			src.SetNRGBA(x, y, quadrants[2*(y/450)+x/750])
		}
	}
	if _, err := pyramid.WriteMBTiles(context.Background(), pyramid.ImageRows(src), filepath.Join(dir, server.ImagesDir, "plan.mbtiles"), "plan",
		pyramid.Meta{Attribution: "Tessera tests"}, pyramid.Options{}); err != nil {
		t.Fatal(err)
	}
	e := serveDataDir(t, dir)
	pages := map[string]string{"plan": picturePage(e.URL, "plan")}
	mux := http.NewServeMux()
	mux.Handle("GET /{page}", servePages(newPageSet(pages)))
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	shot := filepath.Join(shotDir(t), "picture-plan.png")
	cfg, _ := json.Marshal(map[string]any{"pages": []map[string]string{{
		"name": "plan", "url": site.URL + "/plan.html", "imagePattern": `/images/plan/\d+/\d+/\d+`, "screenshot": shot,
	}}})
	driver, err := filepath.Abs(filepath.Join("testdata", "mapclients.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runFor(t.Context(), t, renderWait, []string{"PLAYWRIGHT_CORE_DIR=" + pw, "CHROMIUM=" + chromium}, node, driver, string(cfg))
	if err != nil {
		t.Fatalf("mapclients.mjs: %v\n%s", err, stderr)
	}
	var rs []mapClientResult
	if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 1 {
		t.Fatalf("mapclients.mjs output %q: %v\n%s", out, err, stderr)
	}
	r := rs[0]
	if len(r.Errors) > 0 || r.Info["failed"] != false {
		t.Errorf("browser errors %q, info %v", r.Errors, r.Info)
	}
	ok := 0
	for _, im := range r.Images {
		switch im.Status {
		case http.StatusOK:
			ok++
		case http.StatusNoContent:
		default:
			t.Errorf("%s answered %d", im.URL, im.Status)
		}
	}
	if ok == 0 || len(r.Pending) > 0 {
		t.Errorf("%d tiles answered 200, pending %v", ok, r.Pending)
	}
	img := readPNG(t, shot)
	counts := map[color.NRGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	total := b.Dx() * b.Dy()
	for i, q := range quadrants {
		if counts[q] < total/10 {
			t.Errorf("quadrant %d colour %v covers %d of %d pixels", i, q, counts[q], total)
		}
	}
	t.Logf("%d tiles (%d answered 200), zoom %v, quadrant pixels %d %d %d %d of %d", len(r.Images), ok, r.Info["zoom"],
		counts[quadrants[0]], counts[quadrants[1]], counts[quadrants[2]], counts[quadrants[3]], total)
}
