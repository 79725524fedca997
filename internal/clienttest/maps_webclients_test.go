package clienttest

import (
	"encoding/json"
	"fmt"
	"image/color"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// webClientTools returns node, Chromium, playwright-core and the folder of
// the npm packages holding OpenLayers (ol) and Leaflet, skipping (or
// failing under TESSERA_REQUIRE_TOOLS=1) when one is missing; all come
// from scripts/test-tools-npm.sh and scripts/apt-packages.sh test.
func webClientTools(t *testing.T) (node, chromium, playwright, modules string) {
	t.Helper()
	chromium = chromiumTool(t)
	node = fixtures.Tool(t, "node")
	modules = filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules")
	playwright = filepath.Join(modules, "playwright-core")
	for _, f := range []string{"playwright-core/package.json", "ol/dist/ol.js", "ol/ol.css", "leaflet/dist/leaflet.js", "leaflet/dist/leaflet.css"} {
		_, err := os.Stat(filepath.Join(modules, f))
		needTool(t, err == nil, f+" (scripts/test-tools-npm.sh)")
	}
	return node, chromium, playwright, modules
}

// pageSet holds HTML pages by name; pages may be added while a site
// serves them.
type pageSet struct {
	mu sync.Mutex
	m  map[string]string
}

func newPageSet(pages map[string]string) *pageSet { return &pageSet{m: pages} }

// Set adds or replaces a page.
func (p *pageSet) Set(name, html string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[name] = html
}

func (p *pageSet) get(name string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	html, ok := p.m[name]
	return html, ok
}

// servePages answers GET /NAME.html with the page NAME of pages (looked
// up per request, so pages may be added after the site starts).
func servePages(pages *pageSet) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		html, ok := pages.get(strings.TrimSuffix(r.PathValue("page"), ".html"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(html))
	}
}

// chromiumTool returns the Chromium executable ($CHROMIUM, else Debian's),
// skipping (or failing under TESSERA_REQUIRE_TOOLS=1) when it is missing.
func chromiumTool(t *testing.T) string {
	t.Helper()
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	_, err := os.Stat(chromium)
	needTool(t, err == nil, "chromium ("+chromium+"; apt-get install -y chromium)")
	return chromium
}

// pageBackground is the colour of the pages' map element: a pixel of it
// on a screenshot is a pixel no map image covers.
var pageBackground = color.NRGBA{R: 255, G: 0, B: 255, A: 255}

// webClientPage is an HTML page showing the relief map of the server at
// base with OpenLayers or Leaflet; script builds the map and sets
// window.tesseraDone once it has drawn.
func webClientPage(base, lib, script string) string {
	head := `<link rel="stylesheet" href="/npm/ol/ol.css"><script src="/npm/ol/dist/ol.js"></script>`
	if lib == "leaflet" {
		head = `<link rel="stylesheet" href="/npm/leaflet/dist/leaflet.css"><script src="/npm/leaflet/dist/leaflet.js"></script>`
	}
	b, _ := json.Marshal(base)
	return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Tessera map in ` + lib + `</title>` + head + `
<style>html, body { margin: 0; } #map { width: 800px; height: 500px; background: #ff00ff; }
.leaflet-container { background: #ff00ff; }</style>
</head><body><div id="map"></div>
<script>
const base = ` + string(b) + `;
const done = (info) => { window.tesseraInfo = info || null; window.tesseraDone = true; };
(async () => {
` + script + `
})().catch((e) => { console.error('page: ' + e); done(); });
</script></body></html>
`
}

// The scripts of the pages. OpenLayers: a WMTS layer built from the map's
// capabilities (WMTSCapabilities + optionsFromCapabilities), an ImageWMS
// layer (WMS 1.1.1, Web Mercator view, after reading the 1.1.1
// capabilities with ol/format/WMSCapabilities) and a TileWMS layer (WMS 1.3.0 in
// EPSG:4326: OpenLayers sends the BBOX latitude first). Leaflet: the
// 256-pixel XYZ tiles. Images are loaded with CORS (crossOrigin), as
// from any other site.
const (
	olWMTSScript = `
  const text = await (await fetch(base + '/maps/relief/WMTSCapabilities.xml')).text();
  const caps = new ol.format.WMTSCapabilities().read(text);
  const layer = caps.Contents.Layer.find((l) => l.Identifier === 'relief');
  if (!layer) throw new Error('no layer relief in ' + caps.Contents.Layer.map((l) => l.Identifier));
  const options = ol.source.WMTS.optionsFromCapabilities(caps, { layer: 'relief', matrixSet: layer.TileMatrixSetLink[0].TileMatrixSet });
  if (!options) throw new Error('optionsFromCapabilities found nothing');
  options.crossOrigin = 'anonymous';
  const map = new ol.Map({ target: 'map', layers: [new ol.layer.Tile({ source: new ol.source.WMTS(options) })],
    view: new ol.View({ center: ol.proj.fromLonLat([8, 47]), zoom: 3 }) });
  map.once('rendercomplete', () => done({ url: options.urls[0], matrixSet: options.matrixSet, format: options.format, tileSize: options.tileGrid.getTileSize(0) }));
`
	olImageWMSScript = `
  const text = await (await fetch(base + '/maps/relief/wms?service=WMS&request=GetCapabilities&version=1.1.1')).text();
  const caps = new ol.format.WMSCapabilities().read(text);
  const root = caps.Capability.Layer;
  const map = new ol.Map({ target: 'map', layers: [new ol.layer.Image({ source: new ol.source.ImageWMS({
      url: base + '/maps/relief/wms', params: { LAYERS: 'relief', VERSION: '1.1.1' }, ratio: 1, crossOrigin: 'anonymous' }) })],
    view: new ol.View({ center: ol.proj.fromLonLat([8, 47]), zoom: 3 }) });
  map.once('rendercomplete', () => done({ version: caps.version, name: root.Name, title: root.Title, srs: root.SRS || root.CRS,
    getMapFormats: caps.Capability.Request.GetMap.Format }));
`
	olTileWMSScript = `
  const map = new ol.Map({ target: 'map', layers: [new ol.layer.Tile({ source: new ol.source.TileWMS({
      url: base + '/maps/wms', params: { LAYERS: 'relief', VERSION: '1.3.0' }, projection: 'EPSG:4326', crossOrigin: 'anonymous' }) })],
    view: new ol.View({ projection: 'EPSG:4326', center: [8, 40], zoom: 3 }) });
  map.once('rendercomplete', () => done());
`
	leafletScript = `
  const map = L.map('map', { fadeAnimation: false, zoomAnimation: false }).setView([47, 8], 3);
  const tiles = L.tileLayer(base + '/maps/relief/256/{z}/{x}/{y}.png', { maxZoom: 22, crossOrigin: 'anonymous', attribution: 'Tessera' });
  tiles.on('tileerror', (e) => console.error('tileerror ' + e.tile.src));
  tiles.once('load', () => done());
  tiles.addTo(map);
`
)

// mapClientResult is what testdata/mapclients.mjs prints per page.
type mapClientResult struct {
	Name   string   `json:"name"`
	Errors []string `json:"errors"`
	Images []struct {
		URL    string `json:"url"`
		Status int    `json:"status"`
		Type   string `json:"type"`
	} `json:"images"`
	Pending []string       `json:"pending"`
	Info    map[string]any `json:"info"`
}

// TestWebMapClients shows the relief map in headless Chromium with
// OpenLayers (as a WMTS layer from the map's capabilities, as an ImageWMS
// layer and as a TileWMS layer in EPSG:4326) and with Leaflet (its XYZ
// tiles /maps/relief/256/{z}/{x}/{y}.png). The pages come from another
// origin than the map server, as on any site using the map. Each page must
// draw with no console error, failed request or HTTP error; the map images
// it asks for must all be answered 200 image/png; and the screenshot of
// the map must be the drawn map: many colours, none over half of it, and
// the page's magenta background under almost no pixel.
func TestWebMapClients(t *testing.T) {
	t.Parallel()
	node, chromium, pw, modules := webClientTools(t)
	e := serveDataDir(t, imagesDataDir(t))

	pages := map[string]string{
		"ol-wmts":     webClientPage(e.URL, "ol", olWMTSScript),
		"ol-imagewms": webClientPage(e.URL, "ol", olImageWMSScript),
		"ol-tilewms":  webClientPage(e.URL, "ol", olTileWMSScript),
		"leaflet":     webClientPage(e.URL, "leaflet", leafletScript),
	}
	mux := http.NewServeMux()
	for _, pkg := range []string{"ol", "leaflet"} {
		mux.Handle("GET /npm/"+pkg+"/", http.StripPrefix("/npm/"+pkg+"/", http.FileServer(http.Dir(filepath.Join(modules, pkg)))))
	}
	mux.Handle("GET /{page}", servePages(newPageSet(pages)))
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	shots := shotDir(t)
	type pageCfg struct {
		Name         string `json:"name"`
		URL          string `json:"url"`
		ImagePattern string `json:"imagePattern"`
		Screenshot   string `json:"screenshot"`
	}
	cfgs := []pageCfg{
		{"ol-wmts", site.URL + "/ol-wmts.html", `/maps/relief/256/\d+/\d+/\d+\.png$`, ""},
		{"ol-imagewms", site.URL + "/ol-imagewms.html", `/maps/relief/wms\?.*GetMap`, ""},
		{"ol-tilewms", site.URL + "/ol-tilewms.html", `/maps/wms\?.*GetMap`, ""},
		{"leaflet", site.URL + "/leaflet.html", `/maps/relief/256/\d+/\d+/\d+\.png$`, ""},
	}
	for i := range cfgs {
		cfgs[i].Screenshot = filepath.Join(shots, "webclient-"+cfgs[i].Name+".png")
	}
	driver, err := filepath.Abs(filepath.Join("testdata", "mapclients.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	mark := settled(e)
	// One browser per page, each with its own deadline: the pages wait on
	// map renders, slow under the race detector on a busy machine.
	var results []mapClientResult
	for _, c := range cfgs {
		cfg, err := json.Marshal(map[string]any{"pages": []pageCfg{c}})
		if err != nil {
			t.Fatal(err)
		}
		out, stderr, err := runFor(t.Context(), t, renderWait, []string{"PLAYWRIGHT_CORE_DIR=" + pw, "CHROMIUM=" + chromium}, node, driver, string(cfg))
		if err != nil {
			t.Fatalf("mapclients.mjs %s: %v\n%s", c.Name, err, stderr)
		}
		var rs []mapClientResult
		if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 1 {
			t.Fatalf("mapclients.mjs %s output %q: %v\n%s", c.Name, out, err, stderr)
		}
		results = append(results, rs[0])
	}
	for i, r := range results {
		if len(r.Errors) > 0 {
			t.Errorf("%s: browser errors: %q", r.Name, r.Errors)
		}
		if len(r.Images) == 0 {
			t.Errorf("%s: no map image was requested", r.Name)
		}
		for _, im := range r.Images {
			if im.Status != http.StatusOK || im.Type != "image/png" {
				t.Errorf("%s: %s answered %d %q", r.Name, im.URL, im.Status, im.Type)
			}
		}
		if len(r.Pending) > 0 {
			t.Errorf("%s: images never answered: %v", r.Name, r.Pending)
		}
		img := readPNG(t, cfgs[i].Screenshot)
		bg := pageBackground
		s := statsOf(img, &bg)
		t.Logf("%s: %d images, screenshot %dx%d of %d colours, commonest %.0f%%, background %.1f%%, info %v",
			r.Name, len(r.Images), s.W, s.H, s.Colours, 100*s.TopShare, 100*s.Share, r.Info)
		if s.W != 800 || s.H != 500 {
			t.Errorf("%s: screenshot %dx%d, want the 800x500 map", r.Name, s.W, s.H)
		}
		if s.Colours < 50 || s.TopShare > 0.5 || s.Share > 0.02 {
			t.Errorf("%s: the map is not drawn: %d colours, the commonest covers %.0f%%, the page background %.1f%%",
				r.Name, s.Colours, 100*s.TopShare, 100*s.Share)
		}
	}
	if info := results[0].Info; fmt.Sprint(info["url"]) != e.URL+"/maps/relief/256/{TileMatrix}/{TileCol}/{TileRow}.png" || info["format"] != "image/png" {
		t.Errorf("ol-wmts: OpenLayers read the capabilities as %v", info)
	}
	if info := results[1].Info; info["version"] != "1.1.1" || info["name"] != reliefID || info["title"] != reliefTitle ||
		fmt.Sprint(info["srs"]) != "[EPSG:3857 EPSG:4326]" || fmt.Sprint(info["getMapFormats"]) != "[image/png image/jpeg image/webp]" {
		t.Errorf("ol-imagewms: OpenLayers read the WMS 1.1.1 capabilities as %v", info)
	}
	// The server saw the same: every request of the pages answered 200.
	settled(e)
	for _, a := range e.since(mark) {
		if a.Status != http.StatusOK {
			t.Errorf("server answered %s", a)
		}
	}
}
