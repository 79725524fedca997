package clienttest

import (
	"bytes"
	"encoding/json"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/web"
)

// needTool skips (or, with TESSERA_REQUIRE_TOOLS=1, fails) when ok is false.
func needTool(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if fixtures.RequireTools() {
		t.Fatalf("%s is required (TESSERA_REQUIRE_TOOLS=1) but missing", what)
	}
	t.Skipf("%s is missing: skipping", what)
}

// viewerResult is what internal/web/browsertest/run.mjs prints per page.
type viewerResult struct {
	Name              string         `json:"name"`
	Errors            []string       `json:"errors"`
	TileRequests      int            `json:"tileRequests"`
	TileResponses     int            `json:"tileResponses"`
	Loaded            bool           `json:"loaded"`
	RenderedFeatures  int            `json:"renderedFeatures"`
	SourceLayers      []string       `json:"sourceLayers"`
	Status            string         `json:"status"`
	RenderedAfterHide *int           `json:"renderedAfterHide"`
	RenderedAfterShow *int           `json:"renderedAfterShow"`
	PopupTitle        string         `json:"popupTitle"`
	PopupText         string         `json:"popupText"`
	ClickedProps      map[string]any `json:"clickedProps"`
}

// TestMapLibreViewers opens Tessera's viewer pages (/tiles/{name}/) in
// headless Chromium with MapLibre GL JS, through the driver of
// internal/web/browsertest (run.mjs): a vector MBTiles, a raster MBTiles
// and a raster PMTiles tileset served by the real server. Each map must
// load with no console error, failed request or HTTP error; tiles must be
// requested from the server, and the server's access log must show every
// tile request answered 200 or 204 and no request at all answered 4xx/5xx.
// The vector map must render features of its one source layer, hide and
// show them with the layer checkbox and open a popup naming a clicked
// city; the raster maps must show many colours.
func TestMapLibreViewers(t *testing.T) {
	t.Parallel()
	root := fixtures.RepoRoot()
	chromium := chromiumTool(t)
	node := fixtures.Tool(t, "node")
	driver := filepath.Join(root, "internal", "web", "browsertest", "run.mjs")
	_, errD := os.Stat(driver)
	needTool(t, errD == nil, "the viewer driver "+driver)
	pw := filepath.Join(root, ".cache", "npm-test", "node_modules", "playwright-core")
	_, errP := os.Stat(filepath.Join(pw, "package.json"))
	needTool(t, errP == nil, "playwright-core (scripts/test-tools-npm.sh)")
	needTool(t, web.HasMapLibre(), "MapLibre GL JS in internal/web/static/vendor (scripts/web-assets.sh)")

	e := startServer(t, fixtureVector, fixtureRaster, fixturePMTiles)
	shots := os.Getenv("TESSERA_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	type page struct {
		Name        string `json:"name"`
		URL         string `json:"url"`
		Kind        string `json:"kind"`
		TilePattern string `json:"tilePattern"`
		Screenshot  string `json:"screenshot"`
	}
	var pages []page
	for _, p := range []struct{ name, kind, ext string }{
		{nameVector, "vector", "pbf"},
		{nameRaster, "raster", "png"},
		{namePMTiles, "raster", "png"},
	} {
		pages = append(pages, page{
			Name: p.name, URL: e.URL + "/tiles/" + p.name + "/", Kind: p.kind,
			TilePattern: `/tiles/` + regexp.QuoteMeta(p.name) + `/\d+/\d+/\d+\.` + p.ext + `$`,
			Screenshot:  filepath.Join(shots, "clienttest-"+p.name+".png"),
		})
	}
	cfg, err := json.Marshal(map[string]any{"pages": pages})
	if err != nil {
		t.Fatal(err)
	}
	mark := e.mark()
	out, stderr, err := run(t.Context(), t, []string{"PLAYWRIGHT_CORE_DIR=" + pw, "CHROMIUM=" + chromium}, node, driver, string(cfg))
	if err != nil {
		t.Fatalf("run.mjs: %v\n%s", err, stderr)
	}
	var results []viewerResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("run.mjs output %q: %v\n%s", out, err, stderr)
	}
	if len(results) != len(pages) {
		t.Fatalf("%d results for %d pages", len(results), len(pages))
	}
	reqs := e.since(mark)
	for _, a := range reqs {
		if a.Status >= 400 {
			t.Errorf("the browser's request %s failed", a)
		}
	}
	for i, r := range results {
		p := pages[i]
		if len(r.Errors) > 0 {
			t.Errorf("%s: browser errors: %q", p.Name, r.Errors)
		}
		if !r.Loaded || r.TileRequests == 0 || r.TileResponses == 0 || r.Status != "" {
			t.Errorf("%s: loaded %v, %d tile requests, %d tile responses, status %q", p.Name, r.Loaded, r.TileRequests, r.TileResponses, r.Status)
		}
		tiles := matching(reqs, regexp.MustCompile(`^/tiles/`+regexp.QuoteMeta(p.Name)+`/\d+/\d+/\d+\.\w+$`))
		counts := map[int]int{}
		for _, a := range tiles {
			counts[a.Status]++
			if a.Status != http.StatusOK && a.Status != http.StatusNoContent {
				t.Errorf("%s: tile request %s", p.Name, a)
			}
		}
		// The browser may answer a repeated tile (world copies) from its
		// cache, never the other way round.
		if counts[http.StatusOK] == 0 || len(tiles) > r.TileRequests {
			t.Errorf("%s: the server answered %v tile requests by status, the browser made %d", p.Name, counts, r.TileRequests)
		}
		for _, doc := range []string{"/tiles/" + p.Name + "/", "/tiles/" + p.Name + "/tiles.json"} {
			if len(matching(reqs, regexp.MustCompile("^"+regexp.QuoteMeta(doc)+"$"))) == 0 {
				t.Errorf("%s: the page never requested %s", p.Name, doc)
			}
		}
		n := fixtures.Colours(t, p.Screenshot)
		t.Logf("%s: %d tile requests (server: %v by status), %d rendered features from %v, screenshot %s with %d colours",
			p.Name, r.TileRequests, counts, r.RenderedFeatures, r.SourceLayers, p.Screenshot, n)
		if p.Kind == "raster" && n < 50 {
			t.Errorf("%s: the raster map shows only %d colours", p.Name, n)
		}
		if p.Kind == "raster" {
			// The viewer gives MapLibre the TileJSON tileSize: each tile is
			// drawn into that many CSS pixels, so it must be the tiles'
			// real size or the map shows the wrong zoom's detail.
			status, _, b := e.get(t.Context(), "/tiles/"+p.Name+"/tiles.json")
			var tj struct {
				TileSize int `json:"tileSize"`
			}
			if err := json.Unmarshal(b, &tj); status != http.StatusOK || err != nil {
				t.Fatalf("%s: TileJSON: %d %v", p.Name, status, err)
			}
			img, _, err := image.DecodeConfig(bytes.NewReader(e.tile(t.Context(), p.Name, 0, 0, 0, "png")))
			if err != nil {
				t.Fatalf("%s: tile 0/0/0: %v", p.Name, err)
			}
			if tj.TileSize != img.Width {
				t.Errorf("%s: TileJSON tileSize %d, but the tiles are %dx%d pixels", p.Name, tj.TileSize, img.Width, img.Height)
			}
		}
	}

	vec := results[0]
	if vec.RenderedFeatures == 0 || strings.Join(vec.SourceLayers, ",") != "cities" {
		t.Errorf("vector: %d rendered features from source layers %v, want some from [cities]", vec.RenderedFeatures, vec.SourceLayers)
	}
	if vec.RenderedAfterHide == nil || *vec.RenderedAfterHide != 0 || vec.RenderedAfterShow == nil || *vec.RenderedAfterShow != vec.RenderedFeatures {
		t.Errorf("vector: layer toggle left %v features hidden and %v shown again (want 0 and %d)", vec.RenderedAfterHide, vec.RenderedAfterShow, vec.RenderedFeatures)
	}
	name, _ := vec.ClickedProps["name"].(string)
	if vec.PopupTitle != "cities" || name == "" || !strings.Contains(vec.PopupText, name) {
		t.Errorf("vector: popup %q / %q for the clicked feature %v", vec.PopupTitle, vec.PopupText, vec.ClickedProps)
	}
}
