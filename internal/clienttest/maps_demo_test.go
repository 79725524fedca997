package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/demo"
	"github.com/tesseramaps/tessera/internal/fixtures"
)

// diffPixels counts the pixels of two screenshots of the same size that
// differ by more than 48 in a colour channel, away from the edges.
func diffPixels(t *testing.T, a, b string) int {
	t.Helper()
	ba, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	ia, err := png.Decode(bytes.NewReader(ba))
	if err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
	ib, err := png.Decode(bytes.NewReader(bb))
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if ia.Bounds() != ib.Bounds() {
		t.Fatalf("screenshots of different sizes: %v, %v", ia.Bounds(), ib.Bounds())
	}
	r := ia.Bounds()
	n := 0
	abs := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	for y := r.Min.Y + 4; y < r.Max.Y-4; y++ {
		for x := r.Min.X + 4; x < r.Max.X-4; x++ {
			p, q := nrgba(ia.At(x, y)), nrgba(ib.At(x, y))
			if abs(p.R, q.R) > 48 || abs(p.G, q.G) > 48 || abs(p.B, q.B) > 48 {
				n++
			}
		}
	}
	return n
}

// demoStyleLayers returns the ids of the symbol layers of a served style by
// source layer.
func demoStyleLayers(t *testing.T, doc []byte) map[string][]string {
	t.Helper()
	var s struct {
		Layers []struct {
			ID          string `json:"id"`
			Type        string `json:"type"`
			SourceLayer string `json:"source-layer"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatalf("style: %v", err)
	}
	out := map[string][]string{}
	for _, l := range s.Layers {
		if l.Type == "symbol" {
			out[l.SourceLayer] = append(out[l.SourceLayer], l.ID)
		}
	}
	return out
}

// maplibreDemoOverWorld returns MapLibre's demo style (a fixture of martin)
// with its source, demotiles.maplibre.org, replaced by the demo world
// tileset, whose "countries" layer it draws, and its glyphs by the server's;
// the layers of source layers the demo tileset lacks (geolines, centroids)
// are left out, as MapLibre reports each as an error.
func maplibreDemoOverWorld(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, fixtureStyles["maplibre-demo"]))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s["sources"] = map[string]any{"maplibre": map[string]any{"type": "vector", "url": "mbtiles://world"}}
	s["glyphs"] = "/fonts/{fontstack}/{range}.pbf"
	have := map[string]bool{demo.LayerWater: true, demo.LayerLand: true, demo.LayerCountries: true,
		demo.LayerBoundaries: true, demo.LayerPlaces: true, demo.LayerCountryLabels: true}
	layers, _ := s["layers"].([]any)
	var kept []any
	for _, l := range layers {
		sl, _ := l.(map[string]any)["source-layer"].(string)
		if sl == "" || have[sl] {
			kept = append(kept, l)
		}
	}
	if len(kept) < 3 {
		t.Fatalf("MapLibre's demo style keeps only %d layers over the demo tileset", len(kept))
	}
	s["layers"] = kept
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDemoMap builds the demo world (zooms 0 to 3, packages from the
// repository's .cache/opendata) and checks its map "world" as users see
// it: MapLibre GL JS in Chromium draws it at pixel ratios 1 and 2 with no
// error, with country names and city names placed (symbols of the
// country_labels and places layers), every glyph range and sprite it asks
// for answered 200, and the labels visible on the screenshot (hiding the
// symbol layers changes many pixels); gl-style-validate accepts the served
// style. MapLibre's own demo style, pointed at the demo tileset, is drawn
// too (its countries).
func TestDemoMap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the demo world (about 15 s): skipped with -short")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		needTool(t, false, "npm (the demo fetches its data with it)")
	}
	validate := styleValidator(t)
	browserTools(t)
	ctx := t.Context()
	dir := t.TempDir()
	start := time.Now()
	err := demo.Build(ctx, demo.Options{
		DataDir: dir, CacheDir: filepath.Join(fixtures.RepoRoot(), ".cache", "opendata"), MaxZoom: 3,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("build the demo: %v", err)
	}
	t.Logf("demo built in %v", time.Since(start).Round(time.Millisecond))
	writeRawMap(t, dir, "maplibre-demo", maplibreDemoOverWorld(t))
	e := serveDataDir(t, dir)

	status, _, styleDoc := e.get(ctx, "/maps/"+demo.WorldMap+"/style.json")
	if status != http.StatusOK {
		t.Fatalf("GET /maps/world/style.json: %d %s", status, styleDoc)
	}
	symbols := demoStyleLayers(t, styleDoc)
	countryLayers, placeLayers := symbols["country_labels"], symbols["places"]
	if len(countryLayers) == 0 || len(placeLayers) == 0 {
		t.Fatalf("the demo style has no symbol layers for country_labels or places: %v", symbols)
	}
	var allSymbols []string
	for _, ids := range symbols {
		allSymbols = append(allSymbols, ids...)
	}

	t.Run("gl-style-validate", func(t *testing.T) {
		for _, id := range []string{demo.WorldMap, "maplibre-demo"} {
			status, _, b := e.get(ctx, "/maps/"+id+"/style.json")
			if status != http.StatusOK {
				t.Fatalf("GET /maps/%s/style.json: %d %s", id, status, b)
			}
			path := filepath.Join(t.TempDir(), id+".json")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, err := run(ctx, t, nil, validate, path)
			if err != nil || len(bytes.TrimSpace(out)) > 0 {
				t.Errorf("gl-style-validate rejects the served %s style: %v\n%s%s", id, err, out, stderr)
			}
		}
	})

	shots := shotDir(t)
	var pages []mapPage
	for _, scale := range []int{1, 2} {
		name := "world@" + map[int]string{1: "1x", 2: "2x"}[scale]
		pages = append(pages, mapPage{
			Name: name, URL: e.URL + "/maps/world/?mode=vector", Scale: scale, SymbolLayers: allSymbols, LabelProperty: "name",
			Screenshot:       filepath.Join(shots, "clienttest-demo-"+name+".png"),
			ScreenshotHidden: filepath.Join(shots, "clienttest-demo-"+name+"-nosymbols.png"),
		})
	}
	pages = append(pages, mapPage{
		Name: "maplibre-demo", URL: e.URL + "/maps/maplibre-demo/?mode=vector", Scale: 1, LabelProperty: "name",
		Screenshot: filepath.Join(shots, "clienttest-demo-maplibre-demo.png"),
	})
	mark := settled(e)
	results := viewMaps(ctx, t, pages)
	settled(e)
	for _, a := range e.since(mark) {
		if a.Status >= 400 {
			t.Errorf("the browser's request %s failed", a)
		}
	}
	tileRe := regexp.MustCompile(`^/tiles/world/\d+/\d+/\d+(\.pbf)?$`)
	spriteRe := regexp.MustCompile(`^/maps/world/sprite(@2x)?\.(json|png)$`)
	for i, r := range results {
		p := pages[i]
		t.Run(p.Name, func(t *testing.T) {
			if len(r.Errors) > 0 {
				t.Errorf("browser errors: %q", r.Errors)
			}
			for _, w := range r.Warnings {
				if strings.Contains(w, "could not be loaded") || strings.Contains(w, "glyph") {
					t.Errorf("browser warning: %s", w)
				}
			}
			if !r.Loaded || r.Status != "" {
				t.Errorf("loaded %v, status %q", r.Loaded, r.Status)
			}
			glyphs, sprites, tiles := map[string]int{}, map[string]int{}, 0
			for _, res := range r.Responses {
				u, err := url.Parse(res.URL)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					continue
				}
				switch path := u.EscapedPath(); {
				case strings.HasPrefix(path, "/fonts/"):
					glyphs[path] = res.Status
				case spriteRe.MatchString(path):
					sprites[strings.TrimPrefix(path, "/maps/world/")] = res.Status
				case tileRe.MatchString(path):
					tiles++
				}
				if res.Status >= 400 {
					t.Errorf("HTTP %d for %s", res.Status, res.URL)
				}
			}
			if tiles == 0 {
				t.Errorf("no tile of the world tileset was requested")
			}
			if p.Name == "maplibre-demo" {
				// MapLibre's demo draws the countries of the tileset.
				if r.RenderedByLayer["countries-fill"] == 0 || r.RenderedByLayer["countries-boundary"] == 0 {
					t.Errorf("rendered by layer %v, want countries-fill and countries-boundary", r.RenderedByLayer)
				}
				t.Logf("rendered by layer %v, %d tiles", r.RenderedByLayer, tiles)
				return
			}
			for g, s := range glyphs {
				if s != http.StatusOK {
					t.Errorf("glyph range %s answered %d", g, s)
				}
			}
			if len(glyphs) == 0 {
				t.Errorf("no glyph range was requested")
			}
			suffix := map[int]string{1: "", 2: "@2x"}[p.Scale]
			for _, f := range []string{"sprite" + suffix + ".json", "sprite" + suffix + ".png"} {
				if sprites[f] != http.StatusOK {
					t.Errorf("sprites requested %v, want %s answered 200", sprites, f)
				}
			}
			if len(sprites) != 2 {
				t.Errorf("sprites requested %v, want only those of ratio %d", sprites, p.Scale)
			}
			countries, places := labelsOf(r, countryLayers), labelsOf(r, placeLayers)
			t.Logf("country labels %v; place labels %v; glyphs %v; sprites %v", countries, places, glyphs, sprites)
			// The view (centre 10°E 25°N, zoom 1.5) spans Africa, Europe
			// and western Asia: among the labels are some of their
			// largest countries and some capitals.
			if len(countries) < 5 || !containsAny(countries, "Algeria", "Libya", "Egypt", "Sudan", "Chad", "Niger", "Mali", "Saudi Arabia") {
				t.Errorf("country labels %v", countries)
			}
			if len(places) < 3 || !containsAny(places, "Cairo", "Paris", "Rome", "Madrid", "Algiers", "London", "Berlin", "Moscow", "Riyadh", "Kinshasa", "Lagos") {
				t.Errorf("place labels %v", places)
			}
			if r.RenderedAfterHide == nil || *r.RenderedAfterHide != 0 {
				t.Errorf("%v symbols rendered after hiding the symbol layers", r.RenderedAfterHide)
			}
			changed := diffPixels(t, p.Screenshot, p.ScreenshotHidden)
			n := len(countries) + len(places)
			// A label of a few letters covers well over 40 pixels at 1x.
			if changed < 40*n*p.Scale*p.Scale {
				t.Errorf("hiding %d labels changed only %d pixels of the screenshot", n, changed)
			}
			t.Logf("screenshot %s: hiding the symbols changes %d pixels", p.Screenshot, changed)

			// Tessera's own picture of the same view (the style's centre
			// and zoom, the map's size at the page's scale, no attribution)
			// looks like MapLibre's, labels and icons included.
			shot, err := os.ReadFile(p.ScreenshotHidden)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			static := fmt.Sprintf("/maps/world/static/10,25,1.5/%dx%d%s.png?attribution=false", cfg.Width/p.Scale, cfg.Height/p.Scale, suffix)
			status, _, body := e.get(ctx, static)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", static, status, body)
			}
			ours := filepath.Join(shots, "clienttest-demo-"+p.Name+"-tessera.png")
			if err := os.WriteFile(ours, body, 0o644); err != nil {
				t.Fatal(err)
			}
			share := yiqDifferingShare(t, ours, p.Screenshot)
			t.Logf("Tessera's static picture %s differs from MapLibre's %s in %.2f%% of its pixels", ours, p.Screenshot, 100*share)
			if bound := maxStaticDifference[p.Scale]; share > bound {
				t.Errorf("Tessera's picture of the view differs from MapLibre's in %.2f%% of its pixels (at most %.2f%%)", 100*share, 100*bound)
			}
		})
	}
}

// maxStaticDifference bounds the share of pixels where Tessera's picture of
// a view may differ from MapLibre's (see docs/images.md for why this much).
// Measured 6.19% at 1x and 6.94% at 2x; the bounds leave room only for
// the browser's run-to-run variation (0.05 points seen).
var maxStaticDifference = map[int]float64{1: 0.065, 2: 0.072}

// yiqDifferingShare is the share of pixels of two pictures of one size
// whose colours differ by more than pixelmatch's default threshold (0.1 of
// the YIQ range, as the rendering suite counts), both over white.
func yiqDifferingShare(t *testing.T, a, b string) float64 {
	t.Helper()
	load := func(path string) image.Image {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("decode %s: %v", path, err)
		}
		return img
	}
	ia, ib := load(a), load(b)
	if ia.Bounds().Size() != ib.Bounds().Size() {
		t.Fatalf("pictures of different sizes: %v, %v", ia.Bounds(), ib.Bounds())
	}
	const threshold = 35215 * 0.1 * 0.1
	r := ia.Bounds()
	n := 0
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			p, q := nrgba(ia.At(r.Min.X+x, r.Min.Y+y)), nrgba(ib.At(ib.Bounds().Min.X+x, ib.Bounds().Min.Y+y))
			over := func(c, a uint8) float64 { return 255 + (float64(c)-255)*float64(a)/255 }
			dr, dg, db := over(p.R, p.A)-over(q.R, q.A), over(p.G, p.A)-over(q.G, q.A), over(p.B, p.A)-over(q.B, q.A)
			yy := dr*0.29889531 + dg*0.58662247 + db*0.11448223
			ii := dr*0.59597799 - dg*0.27417610 - db*0.32180189
			qq := dr*0.21147017 - dg*0.52261711 + db*0.31114694
			if 0.5053*yy*yy+0.299*ii*ii+0.1957*qq*qq > threshold {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

// labelsOf returns the labels rendered by the given symbol layers.
func labelsOf(r mapPageResult, layers []string) []string {
	var out []string
	for _, id := range layers {
		out = append(out, r.Labels[id]...)
	}
	return out
}

func containsAny(list []string, want ...string) bool {
	for _, w := range want {
		for _, s := range list {
			if s == w {
				return true
			}
		}
	}
	return false
}
