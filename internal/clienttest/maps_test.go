package clienttest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/mvt"
)

// mapPageResult is what testdata/mapview.mjs prints per page.
type mapPageResult struct {
	Name      string   `json:"name"`
	Errors    []string `json:"errors"`
	Warnings  []string `json:"warnings"`
	Responses []struct {
		URL    string `json:"url"`
		Status int    `json:"status"`
	} `json:"responses"`
	Loaded            bool                `json:"loaded"`
	DevicePixelRatio  float64             `json:"devicePixelRatio"`
	Status            string              `json:"status"`
	StyleName         string              `json:"styleName"`
	Sprite            any                 `json:"sprite"`
	Glyphs            string              `json:"glyphs"`
	Sources           []string            `json:"sources"`
	Images            []string            `json:"images"`
	RenderedByLayer   map[string]int      `json:"renderedByLayer"`
	Labels            map[string][]string `json:"labels"`
	RenderedAfterHide *int                `json:"renderedAfterHide"`
}

// mapPage is one page for testdata/mapview.mjs.
type mapPage struct {
	Name             string   `json:"name"`
	URL              string   `json:"url"`
	Scale            int      `json:"scale"`
	SymbolLayers     []string `json:"symbolLayers"`
	LabelProperty    string   `json:"labelProperty"`
	Screenshot       string   `json:"screenshot"`
	ScreenshotHidden string   `json:"screenshotHidden"`
}

// viewMaps runs testdata/mapview.mjs over the pages and returns its
// results, one per page.
func viewMaps(ctx context.Context, t *testing.T, pages []mapPage) []mapPageResult {
	t.Helper()
	node, chromium, pw := browserTools(t)
	driver, err := filepath.Abs(filepath.Join("testdata", "mapview.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := json.Marshal(map[string]any{"pages": pages})
	if err != nil {
		t.Fatal(err)
	}
	// A minute per page: software WebGL in a browser on a busy machine
	// (the race run, other work) needed over a minute for three pages.
	out, stderr, err := runFor(ctx, t, time.Duration(len(pages))*time.Minute, []string{"PLAYWRIGHT_CORE_DIR=" + pw, "CHROMIUM=" + chromium}, node, driver, string(cfg))
	if err != nil {
		t.Fatalf("mapview.mjs: %v\n%s", err, stderr)
	}
	var results []mapPageResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("mapview.mjs output %q: %v\n%s", out, err, stderr)
	}
	if len(results) != len(pages) {
		t.Fatalf("%d results for %d pages", len(results), len(pages))
	}
	return results
}

// shotDir is where screenshots go: TESSERA_SCREENSHOT_DIR to keep them,
// else a temporary folder.
func shotDir(t *testing.T) string {
	if d := os.Getenv("TESSERA_SCREENSHOT_DIR"); d != "" {
		return d
	}
	return t.TempDir()
}

// pixelCounts counts the pixels of a screenshot that are text-dark (every
// channel below 70: the labels' colour, never the background, circle or
// icon colours), icon-red, and the rows holding text-dark pixels, away
// from the edges.
type pixelCounts struct {
	Dark, Red, DarkRows, Width, Height int
}

func countPixels(t *testing.T, path string) pixelCounts {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	r := img.Bounds()
	c := pixelCounts{Width: r.Dx(), Height: r.Dy()}
	// A margin of 4 pixels is left out: the page's header border touches
	// the map's top edge.
	for y := r.Min.Y + 4; y < r.Max.Y-4; y++ {
		row := false
		for x := r.Min.X + 4; x < r.Max.X-4; x++ {
			p := nrgba(img.At(x, y))
			switch {
			case p.R < 70 && p.G < 70 && p.B < 70:
				c.Dark++
				row = true
			case p.R > 200 && p.G < 100 && p.B < 110:
				c.Red++
			}
		}
		if row {
			c.DarkRows++
		}
	}
	return c
}

// tilesetNames reads the "name" of every feature of the "cities" layer of
// the world_cities fixture in its tiles of zooms 0 to maxZoom, with SQLite
// and the MVT decoder, independently of the server.
func tilesetNames(ctx context.Context, t *testing.T, maxZoom int) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+fixtures.Path(t, fixtureVector)+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT tile_data FROM tiles WHERE zoom_level <= ?", maxZoom)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		tile, err := mvt.Decode(gunzip(t, data))
		if err != nil {
			t.Fatalf("decode fixture tile: %v", err)
		}
		l := tile.Layer("cities")
		if l == nil {
			continue
		}
		for i := 0; i < l.Len(); i++ {
			f, err := l.Feature(i)
			if err != nil {
				t.Fatal(err)
			}
			p, err := f.Properties()
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := p["name"].(string); ok {
				names[s] = true
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestMapLibreMaps opens the map viewer (/maps/{id}/) of two maps over the
// world_cities tileset in headless Chromium with MapLibre GL JS, at device
// pixel ratios 1 and 2 and once with an API key in the page URL (written
// without the trailing slash, which the server redirects). Each page
// must load with no console error, failed request or HTTP error; the style
// MapLibre holds must carry the server's absolute sprite and glyph URLs;
// circles and symbols must be rendered, the symbols' labels must be city
// names of the tileset, the sprite's icon must be loaded, the glyph ranges
// of the map's font and the sprite of the page's pixel ratio must have
// been requested and answered 200. The screenshot must hold text-dark and
// icon-red pixels that disappear when the symbol layer is hidden.
func TestMapLibreMaps(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := serveDataDir(t, mapsDataDir(t))
	shots := shotDir(t)
	type pageCase struct {
		m     testMap
		scale int
		key   string
	}
	maps := testMaps()
	cases := []pageCase{{maps[0], 1, ""}, {maps[0], 2, ""}, {maps[1], 1, "client-key_1"}}
	var pages []mapPage
	for _, c := range cases {
		name := fmt.Sprintf("%s@%dx", c.m.ID, c.scale)
		// mode=vector: MapLibre GL JS, even under Chromium's software
		// WebGL (where the viewer would start with the server's raster tiles).
		u := e.URL + "/maps/" + c.m.ID + "/?mode=vector"
		if c.key != "" {
			// Without the trailing slash: the server redirects to the
			// viewer, keeping the key.
			name += "-key"
			u = e.URL + "/maps/" + c.m.ID + "?key=" + c.key + "&mode=vector"
		}
		pages = append(pages, mapPage{
			Name: name, URL: u, Scale: c.scale, SymbolLayers: []string{"city-labels"}, LabelProperty: "name",
			Screenshot:       filepath.Join(shots, "clienttest-map-"+name+".png"),
			ScreenshotHidden: filepath.Join(shots, "clienttest-map-"+name+"-nosymbols.png"),
		})
	}
	mark := settled(e)
	results := viewMaps(ctx, t, pages)
	settled(e)
	reqs := e.since(mark)
	for _, a := range reqs {
		if a.Status >= 400 {
			t.Errorf("the browser's request %s failed", a)
		}
	}
	for _, c := range cases {
		if c.key == "" {
			continue
		}
		redirect := matching(reqs, regexp.MustCompile(`^/maps/`+regexp.QuoteMeta(c.m.ID)+`$`))
		if len(redirect) != 1 || redirect[0].Status != http.StatusMovedPermanently {
			t.Errorf("requests of /maps/%s: %v, want one answered 301", c.m.ID, redirect)
		}
	}
	names := tilesetNames(ctx, t, 6)

	for i, r := range results {
		c, p := cases[i], pages[i]
		t.Run(p.Name, func(t *testing.T) {
			if len(r.Errors) > 0 {
				t.Errorf("browser errors: %q", r.Errors)
			}
			for _, w := range r.Warnings {
				// MapLibre warns about missing images and glyphs.
				if strings.Contains(w, "could not be loaded") || strings.Contains(w, "glyph") {
					t.Errorf("browser warning: %s", w)
				}
			}
			if !r.Loaded || r.Status != "" {
				t.Errorf("loaded %v, status %q", r.Loaded, r.Status)
			}
			if r.DevicePixelRatio != float64(c.scale) {
				t.Errorf("device pixel ratio %v, want %d", r.DevicePixelRatio, c.scale)
			}
			q := ""
			if c.key != "" {
				q = "?key=" + c.key
			}
			if r.StyleName != c.m.Title || !slices.Equal(r.Sources, []string{"cities"}) {
				t.Errorf("style %q with sources %v, want %q with [cities]", r.StyleName, r.Sources, c.m.Title)
			}
			if want := e.URL + "/maps/" + c.m.ID + "/sprite" + q; r.Sprite != want {
				t.Errorf("style sprite %v, want %s", r.Sprite, want)
			}
			if want := e.URL + "/fonts/{fontstack}/{range}.pbf" + q; r.Glyphs != want {
				t.Errorf("style glyphs %q, want %s", r.Glyphs, want)
			}
			if !slices.Contains(r.Images, "pin") {
				t.Errorf("MapLibre's images %v lack the sprite's icon pin", r.Images)
			}
			if r.RenderedByLayer["city-dots"] == 0 || r.RenderedByLayer["city-labels"] == 0 {
				t.Errorf("rendered features by layer %v, want circles and symbols", r.RenderedByLayer)
			}
			labels := r.Labels["city-labels"]
			if len(labels) < 3 {
				t.Errorf("only %d labels placed: %v", len(labels), labels)
			}
			for _, l := range labels {
				if !names[l] {
					t.Errorf("label %q is not the name of a city of the tileset", l)
				}
			}
			if r.RenderedAfterHide == nil || *r.RenderedAfterHide != 0 {
				t.Errorf("%v symbols still rendered after hiding the layer", r.RenderedAfterHide)
			}

			// What the browser requested from the server, by kind.
			base, err := url.Parse(e.URL)
			if err != nil {
				t.Fatal(err)
			}
			fontPath := "/fonts/" + url.PathEscape(c.m.Font) + "/"
			glyphRe := regexp.MustCompile(`^` + regexp.QuoteMeta(fontPath) + `(\d+)-(\d+)\.pbf$`)
			spriteRe := regexp.MustCompile(`^/maps/` + regexp.QuoteMeta(c.m.ID) + `/sprite(@2x)?\.(json|png)$`)
			tileRe := regexp.MustCompile(`^/tiles/world_cities/\d+/\d+/\d+(\.pbf)?$`)
			glyphs, sprites, tiles := map[string]int{}, map[string]int{}, 0
			for _, res := range r.Responses {
				u, err := url.Parse(res.URL)
				if err == nil && u.Scheme != "http" && u.Scheme != "https" {
					continue // blob: and data: URLs MapLibre makes itself
				}
				if err != nil || u.Host != base.Host {
					t.Errorf("request outside the server: %s", res.URL)
					continue
				}
				if res.Status >= 400 {
					t.Errorf("HTTP %d for %s", res.Status, res.URL)
				}
				var kind string
				switch p := u.EscapedPath(); {
				case glyphRe.MatchString(p):
					glyphs[p] = res.Status
					kind = "glyphs"
				case strings.HasPrefix(p, "/fonts/"):
					t.Errorf("glyphs requested for another font stack: %s (map font %q)", res.URL, c.m.Font)
				case spriteRe.MatchString(p):
					sprites[strings.TrimPrefix(p, "/maps/"+c.m.ID+"/")] = res.Status
					kind = "sprite"
				case tileRe.MatchString(p):
					tiles++
					kind = "tile"
					if res.Status != http.StatusOK && res.Status != http.StatusNoContent {
						t.Errorf("tile %s answered %d", res.URL, res.Status)
					}
				}
				if kind != "" && c.key != "" && u.Query().Get("key") != c.key {
					t.Errorf("%s request without the page's key: %s", kind, res.URL)
				}
			}
			if len(glyphs) == 0 || glyphs[fontPath+"0-255.pbf"] != http.StatusOK {
				t.Errorf("glyph ranges requested %v, want %s0-255.pbf answered 200", glyphs, fontPath)
			}
			for g, s := range glyphs {
				if s != http.StatusOK {
					t.Errorf("glyph range %s answered %d", g, s)
				}
			}
			suffix := ""
			if c.scale == 2 {
				suffix = "@2x"
			}
			want := map[string]int{"sprite" + suffix + ".json": http.StatusOK, "sprite" + suffix + ".png": http.StatusOK}
			if fmt.Sprint(sprites) != fmt.Sprint(want) {
				t.Errorf("sprite requests %v, want %v", sprites, want)
			}
			if tiles == 0 {
				t.Errorf("no tile of world_cities was requested")
			}

			// Labels and icons are on the screen, and are the symbol
			// layer's: without it, no text-dark or icon-red pixel is left.
			shown, hidden := countPixels(t, p.Screenshot), countPixels(t, p.ScreenshotHidden)
			t.Logf("%d symbols (%v), glyph ranges %v, sprites %v, %d tile responses; screenshot %s: %+v, without symbols %+v",
				r.RenderedByLayer["city-labels"], labels, glyphs, sprites, tiles, p.Screenshot, shown, hidden)
			if shown.Width != 900*c.scale {
				t.Errorf("screenshot is %d pixels wide, want %d", shown.Width, 900*c.scale)
			}
			s2 := c.scale * c.scale
			if shown.Dark < 150*s2 || shown.DarkRows < 3*12*c.scale {
				t.Errorf("too little text on the map: %d dark pixels on %d rows", shown.Dark, shown.DarkRows)
			}
			if shown.Red < 30*s2*len(labels)/2 {
				t.Errorf("too few icon pixels for %d symbols: %d", len(labels), shown.Red)
			}
			if hidden.Dark > shown.Dark/50 || hidden.Red > shown.Red/50 {
				t.Errorf("without the symbol layer: %d dark and %d red pixels (with it: %d and %d)", hidden.Dark, hidden.Red, shown.Dark, shown.Red)
			}
		})
	}
}

// spriteIndex is a sprite's JSON index.
type spriteIndex map[string]struct {
	X, Y, Width, Height int
	PixelRatio          int `json:"pixelRatio"`
}

// TestMapSprites checks the sprites MapLibre loads against the icons: the
// index at ratio 1 and 2 lists the pin at its SVG size times the ratio,
// within its PNG sheet.
func TestMapSprites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := serveDataDir(t, mapsDataDir(t))
	for _, ratio := range []int{1, 2} {
		suffix := map[int]string{1: "", 2: "@2x"}[ratio]
		p := "/maps/cities/sprite" + suffix
		status, _, b := e.get(ctx, p+".json")
		var idx spriteIndex
		if err := json.Unmarshal(b, &idx); status != http.StatusOK || err != nil {
			t.Fatalf("GET %s.json: %d %v %s", p, status, err, b)
		}
		status, _, sheet := e.get(ctx, p+".png")
		if status != http.StatusOK {
			t.Fatalf("GET %s.png: %d", p, status)
		}
		img, _, err := image.Decode(bytes.NewReader(sheet))
		if err != nil {
			t.Fatalf("%s.png: %v", p, err)
		}
		pin, ok := idx["pin"]
		if !ok || len(idx) != 1 {
			t.Fatalf("%s.json lists %v, want only pin", p, idx)
		}
		if pin.Width != 14*ratio || pin.Height != 14*ratio || pin.PixelRatio != ratio {
			t.Errorf("%s.json: pin %+v, want %dx%d at ratio %d", p, pin, 14*ratio, 14*ratio, ratio)
		}
		if !image.Rect(pin.X, pin.Y, pin.X+pin.Width, pin.Y+pin.Height).In(img.Bounds()) {
			t.Errorf("%s: pin %+v outside the sheet %v", p, pin, img.Bounds())
		}
		c := nrgba(img.At(pin.X+pin.Width/2, pin.Y+pin.Height/2))
		if c.R < 200 || c.G > 100 || c.A < 250 {
			t.Errorf("%s: the pin's centre is %v, want the icon's red", p, c)
		}
	}
}

// fixtureStyles are the peers' style fixtures served as maps by the
// validator test (map id -> path under the shared folder). Their sources,
// glyphs and sprites use every URL form: absolute third-party URLs,
// root-relative paths and tileserver-rs's /data/{id}.json.
var fixtureStyles = map[string]string{
	"maplibre-demo":    "fixtures/martin/tests/fixtures/styles/maplibre_demo.json",
	"maptiler-basic":   "fixtures/martin/tests/fixtures/styles/src2/maptiler_basic.json",
	"osm-liberty-lite": "fixtures/martin/tests/fixtures/styles/src2/osm-liberty-lite.json",
	"relative-urls":    "fixtures/martin/tests/fixtures/styles/relative_urls.json",
	"unauthorized":     "fixtures/martin/tests/fixtures/styles/unauthorized.json",
	"protomaps-light":  "fixtures/tileserver-rs/data/styles/protomaps-light/style.json",
}

// styleURLs returns the resource URLs of a style document: sprite,
// glyphs, and each source's url and tiles.
func styleURLs(t *testing.T, doc []byte) []string {
	t.Helper()
	var s struct {
		Sprite  any    `json:"sprite"`
		Glyphs  string `json:"glyphs"`
		Sources map[string]struct {
			URL   string   `json:"url"`
			Tiles []string `json:"tiles"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatalf("style: %v", err)
	}
	var out []string
	switch sp := s.Sprite.(type) {
	case string:
		out = append(out, sp)
	case []any:
		for _, v := range sp {
			if m, ok := v.(map[string]any); ok {
				u, _ := m["url"].(string)
				out = append(out, u)
			}
		}
	}
	if s.Glyphs != "" {
		out = append(out, s.Glyphs)
	}
	for _, src := range s.Sources {
		if src.URL != "" {
			out = append(out, src.URL)
		}
		out = append(out, src.Tiles...)
	}
	return out
}

// TestMapStylesValidate fetches every served style (the test maps and the
// peers' fixture styles) from /maps/{id}/style.json and runs MapLibre's
// own validator, gl-style-validate of @maplibre/maplibre-gl-style-spec, on
// it: it must report nothing. Every resource URL of a served style must be
// absolute. The validator must reject the same style with a layer of an
// unknown type, so that its silence means something.
func TestMapStylesValidate(t *testing.T) {
	t.Parallel()
	validate := styleValidator(t)
	ctx := t.Context()
	dir := mapsDataDir(t)
	ids := []string{}
	for _, m := range testMaps() {
		ids = append(ids, m.ID)
	}
	for id, rel := range fixtureStyles {
		b, err := os.ReadFile(fixtures.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		writeRawMap(t, dir, id, b)
		ids = append(ids, id)
	}
	slices.Sort(ids)
	e := serveDataDir(t, dir)
	tmp := t.TempDir()
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			for _, q := range []string{"", "?key=k%201"} {
				status, hdr, b := e.get(ctx, "/maps/"+id+"/style.json"+q)
				if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
					t.Fatalf("GET /maps/%s/style.json%s: %d %s %.200s", id, q, status, hdr.Get("Content-Type"), b)
				}
				for _, u := range styleURLs(t, b) {
					if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
						t.Errorf("served style%s has a URL that is not absolute: %q", q, u)
					}
					if q != "" && strings.HasPrefix(u, e.URL+"/") {
						_, rawQuery, _ := strings.Cut(u, "?")
						if v, err := url.ParseQuery(rawQuery); err != nil || v.Get("key") != "k 1" {
							t.Errorf("served style%s: the server's URL %q does not carry the key", q, u)
						}
					}
				}
				path := filepath.Join(tmp, id+".json")
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				out, stderr, err := run(ctx, t, nil, validate, path)
				if err != nil || len(bytes.TrimSpace(out)) > 0 || len(bytes.TrimSpace(stderr)) > 0 {
					t.Errorf("gl-style-validate rejects the served style%s: %v\n%s%s", q, err, out, stderr)
				}
			}
		})
	}

	t.Run("validator rejects a broken style", func(t *testing.T) {
		_, _, b := e.get(ctx, "/maps/cities/style.json")
		broken := bytes.Replace(b, []byte(`"type":"circle"`), []byte(`"type":"circles"`), 1)
		if bytes.Equal(broken, b) {
			t.Fatalf("served style has no compact circle layer to break: %s", b)
		}
		path := filepath.Join(tmp, "broken.json")
		if err := os.WriteFile(path, broken, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := run(ctx, t, nil, validate, path)
		if err == nil || !bytes.Contains(out, []byte(`"circles"`)) {
			t.Errorf("gl-style-validate accepted a layer of type circles: %v %s", err, out)
		}
	})
}
