package clienttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/web"
)

// Fonts of the test maps (tileserver-gl's copies of Open Sans) and the
// names the glyph server gives them (family and style of their name table).
const (
	fixtureFontRegular = "fixtures/tileserver-gl/public/resources/fonts/OpenSans-Regular.ttf"
	fixtureFontBold    = "fixtures/tileserver-gl/public/resources/fonts/OpenSans-Bold.ttf"
	fontRegular        = "Open Sans Regular"
	fontBold           = "Open Sans Bold"
)

// Colours the test maps draw with, chosen far apart so that a screenshot
// tells the circle, the icon and the text of a city apart.
const (
	colourBackground = "#dfe9f2"
	colourCircle     = "#2a9d8f"
	colourText       = "#101010"
	colourHalo       = "#ffffff"
	colourIcon       = "#e63946"
)

// pinSVG is the icon of the test maps: a red disc with a white ring, drawn
// for these tests.
const pinSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="14" height="14" viewBox="0 0 14 14">
  <circle cx="7" cy="7" r="6" fill="#ffffff"/>
  <circle cx="7" cy="7" r="4.5" fill="` + colourIcon + `"/>
</svg>
`

// testMap is one map written into the data directory: its style (as the
// operator writes it, with server-relative URLs) and its icons.
type testMap struct {
	ID    string
	Title string
	Font  string
	Style map[string]any
	Icons map[string]string // file name -> SVG
}

// citiesMap returns a map of the world_cities fixture tileset (layer
// "cities" with "name"): a background, a circle per city and a symbol
// layer with the city's name in font and the icon "pin". The three URL
// forms the server resolves are spread over the maps: srcURL is the
// source's url, glyphs and sprite the style's templates.
func citiesMap(id, title, font, srcURL, glyphs, sprite string) testMap {
	return testMap{
		ID: id, Title: title, Font: font,
		Icons: map[string]string{"pin.svg": pinSVG},
		Style: map[string]any{
			"version": 8,
			"name":    title,
			"center":  []float64{8, 47},
			"zoom":    2.2,
			"sources": map[string]any{
				"cities": map[string]any{"type": "vector", "url": srcURL},
			},
			"glyphs": glyphs,
			"sprite": sprite,
			"layers": []any{
				map[string]any{"id": "background", "type": "background", "paint": map[string]any{"background-color": colourBackground}},
				map[string]any{
					"id": "city-dots", "type": "circle", "source": "cities", "source-layer": "cities",
					"paint": map[string]any{"circle-radius": 2.5, "circle-color": colourCircle},
				},
				map[string]any{
					"id": "city-labels", "type": "symbol", "source": "cities", "source-layer": "cities",
					"layout": map[string]any{
						"text-field":  []any{"get", "name"},
						"text-font":   []any{font},
						"text-size":   15,
						"text-anchor": "top",
						"text-offset": []any{0, 0.7},
						"icon-image":  "pin",
						"icon-anchor": "bottom",
					},
					"paint": map[string]any{"text-color": colourText, "text-halo-color": colourHalo, "text-halo-width": 1.5},
				},
			},
		},
	}
}

// testMaps are the maps of the map tests, over the world_cities tileset.
func testMaps() []testMap {
	return []testMap{
		citiesMap("cities", "Test cities", fontRegular, "mbtiles://world_cities", "/fonts/{fontstack}/{range}.pbf", "sprite"),
		citiesMap("cities-bold", "Test cities in bold", fontBold, "/tiles/world_cities/tiles.json", "local://fonts/{fontstack}/{range}.pbf", "/maps/cities-bold/sprite"),
	}
}

// writeMap writes a map's style.json and icons under dataDir/maps/ID.
func writeMap(t *testing.T, dataDir string, m testMap) {
	t.Helper()
	dir := filepath.Join(dataDir, server.MapsDir, m.ID)
	if err := os.MkdirAll(filepath.Join(dir, "icons"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(m.Style, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "style.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, svg := range m.Icons {
		if err := os.WriteFile(filepath.Join(dir, "icons", name), []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeRawMap writes a style document as it is (a fixture) as map id.
func writeRawMap(t *testing.T, dataDir, id string, style []byte) {
	t.Helper()
	dir := filepath.Join(dataDir, server.MapsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "style.json"), style, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mapsDataDir makes a data directory holding the world_cities tileset, the
// test maps and the two Open Sans fonts.
func mapsDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for sub, files := range map[string][]string{
		server.TilesDir: {fixtureVector},
		server.FontsDir: {fixtureFontRegular, fixtureFontBold},
	} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, rel := range files {
			src := fixtures.Path(t, rel)
			if err := copyFile(src, filepath.Join(dir, sub, filepath.Base(src))); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, m := range testMaps() {
		writeMap(t, dir, m)
	}
	return dir
}

// browserTools returns node, the Chromium executable and the folder of
// playwright-core, skipping (or failing under TESSERA_REQUIRE_TOOLS=1)
// when one of them or MapLibre GL JS is missing.
func browserTools(t *testing.T) (node, chromium, playwright string) {
	t.Helper()
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	_, errC := os.Stat(chromium)
	needTool(t, errC == nil, "chromium ("+chromium+"; apt-get install -y chromium)")
	node = fixtures.Tool(t, "node")
	playwright = filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules", "playwright-core")
	_, errP := os.Stat(filepath.Join(playwright, "package.json"))
	needTool(t, errP == nil, "playwright-core (scripts/test-tools-npm.sh)")
	needTool(t, web.HasMapLibre(), "MapLibre GL JS in internal/web/static/vendor (scripts/web-assets.sh)")
	return node, chromium, playwright
}

// styleValidator returns node and the gl-style-validate program of
// @maplibre/maplibre-gl-style-spec (installed by scripts/test-tools-npm.sh).
func styleValidator(t *testing.T) string {
	t.Helper()
	fixtures.Tool(t, "node")
	bin := filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules", ".bin", "gl-style-validate")
	_, err := os.Stat(bin)
	needTool(t, err == nil, "gl-style-validate (scripts/test-tools-npm.sh)")
	return bin
}

// owslibPython returns a Python that imports OWSLib (Debian's
// python3-owslib under /usr/bin/python3).
func owslibPython(t *testing.T) string {
	t.Helper()
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = fixtures.Tool(t, "python3")
	}
	if out, err := runQuiet(t, python, "-c", "import owslib.wms, owslib.wmts"); err != nil {
		if fixtures.RequireTools() {
			t.Fatalf("OWSLib is required (TESSERA_REQUIRE_TOOLS=1): %v\n%s", err, out)
		}
		t.Skipf("OWSLib is not installed for %s (apt-get install python3-owslib): skipping", python)
	}
	return python
}
