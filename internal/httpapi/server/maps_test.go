package server

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/glyphs"
)

const testStyle = `{
  "version": 8,
  "name": "Roads map",
  "center": [10, 25],
  "zoom": 1.5,
  "sources": {"roads": {"type": "vector", "url": "/tiles/roads/tiles.json"}},
  "glyphs": "/fonts/{fontstack}/{range}.pbf",
  "sprite": "/maps/city/sprite",
  "layers": [
    {"id": "bg", "type": "background", "paint": {"background-color": "#eee"}},
    {"id": "roads", "type": "line", "source": "roads", "source-layer": "roads"}
  ]
}`

const testIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12" viewBox="0 0 12 12"><circle cx="6" cy="6" r="5" fill="#c33"/></svg>`

// mapEnv is a testEnv with a map "city" (style and one icon), a broken map,
// and Open Sans from the shared fixtures when present.
// mapEnv serves the test maps (city, bad, ghost); more changes the
// configuration.
func mapEnv(t *testing.T, more ...func(*config.Config)) *testEnv {
	return newEnv(t, func(c *config.Config) {
		for _, f := range more {
			f(c)
		}
		maps := filepath.Join(c.DataDir, MapsDir)
		os.MkdirAll(filepath.Join(maps, "city", "icons"), 0o755)
		os.WriteFile(filepath.Join(maps, "city", "style.json"), []byte(testStyle), 0o644)
		os.WriteFile(filepath.Join(maps, "city", "icons", "dot.svg"), []byte(testIcon), 0o644)
		os.MkdirAll(filepath.Join(maps, "bad"), 0o755)
		os.WriteFile(filepath.Join(maps, "bad", "style.json"), []byte(`{"version": 8, "sources": {}, "layers": [{"id": "x", "type": "background", "paint": {"background-color": "bluish"}}]}`), 0o644)
		os.MkdirAll(filepath.Join(maps, "ghost"), 0o755)
		os.WriteFile(filepath.Join(maps, "ghost", "style.json"), []byte(`{"version": 8, "sources": {"g": {"type": "vector", "url": "mbtiles://nowhere"}}, "glyphs": "/fonts/{fontstack}/{range}.pbf", "layers": [{"id": "g", "type": "fill", "source": "g", "source-layer": "a"}, {"id": "s", "type": "symbol", "source": "g", "source-layer": "a", "layout": {"text-field": "x", "text-font": ["Missing Font"], "icon-image": "nosuchicon"}}]}`), 0o644)
		if dir := fixtures.SharedDir(); dir != "" {
			font, err := os.ReadFile(filepath.Join(dir, "fixtures/tileserver-gl/public/resources/fonts/OpenSans-Regular.ttf"))
			if err == nil {
				os.MkdirAll(filepath.Join(c.DataDir, FontsDir), 0o755)
				os.WriteFile(filepath.Join(c.DataDir, FontsDir, "OpenSans-Regular.ttf"), font, 0o644)
			}
		}
	})
}

func TestMapEndpoints(t *testing.T) {
	e := mapEnv(t)
	st := e.do("GET", "/maps/city/style.json?key=abc", nil)
	if st.status != 200 || !json.Valid(st.body) {
		t.Fatalf("style.json: %d %s", st.status, st.body)
	}
	served := decodeJSON[struct {
		Sources map[string]struct {
			URL string `json:"url"`
		} `json:"sources"`
		Glyphs string `json:"glyphs"`
		Sprite string `json:"sprite"`
		Layers []any  `json:"layers"`
	}](t, st.body)
	if got := served.Sources["roads"].URL; got != e.http.URL+"/tiles/roads/tiles.json?key=abc" {
		t.Errorf("source url = %q", got)
	}
	if served.Glyphs != e.http.URL+"/fonts/{fontstack}/{range}.pbf?key=abc" || served.Sprite != e.http.URL+"/maps/city/sprite?key=abc" {
		t.Errorf("glyphs %q sprite %q", served.Glyphs, served.Sprite)
	}
	if len(served.Layers) != 2 {
		t.Errorf("layers = %d", len(served.Layers))
	}
	// A style naming a tileset that does not exist is still served.
	if r := e.do("GET", "/maps/ghost/style.json", nil); r.status != 200 || !strings.Contains(string(r.body), "/tiles/nowhere/tiles.json") {
		t.Errorf("style with a missing tileset: %d", r.status)
	}
	// Sprites: 1x and 2x, PNG and JSON.
	for _, tt := range []struct {
		path, ctype string
		ratio       float64
	}{
		{"/maps/city/sprite.json", "application/json", 1}, {"/maps/city/sprite@2x.json", "application/json", 2},
		{"/maps/city/sprite.png", "image/png", 0}, {"/maps/city/sprite@2x.png", "image/png", 0},
	} {
		r := e.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != tt.ctype {
			t.Errorf("%s: %d %q", tt.path, r.status, r.header.Get("Content-Type"))
			continue
		}
		if tt.ratio > 0 {
			idx := decodeJSON[map[string]struct {
				Width, Height int
				PixelRatio    float64
			}](t, r.body)
			if d, ok := idx["dot"]; !ok || d.PixelRatio != tt.ratio || d.Width != int(12*tt.ratio) {
				t.Errorf("%s: index %v", tt.path, idx)
			}
		}
	}
	checkError(t, e.do("GET", "/maps/city/sprite@3x.png", nil), 404)
	checkError(t, e.do("GET", "/maps/city/sprite.gif", nil), 404)

	// Documents.
	tj := decodeJSON[map[string]any](t, e.do("GET", "/maps/city/tiles.json", nil).body)
	if tiles := tj["tiles"].([]any); !strings.HasPrefix(tiles[0].(string), e.http.URL+"/maps/city/") || tj["tileSize"].(float64) != 512 {
		t.Errorf("tiles.json = %v", tj)
	}
	tj256 := decodeJSON[map[string]any](t, e.do("GET", "/maps/city/256/tiles.json", nil).body)
	if tiles := tj256["tiles"].([]any); !strings.HasPrefix(tiles[0].(string), e.http.URL+"/maps/city/256/") {
		t.Errorf("256/tiles.json = %v", tj256)
	}
	// The TileJSON's center is the style's center and zoom (not [0,0,0]).
	for _, doc := range []map[string]any{tj, tj256} {
		if c, _ := doc["center"].([]any); len(c) != 3 || c[0] != 10.0 || c[1] != 25.0 || c[2] != 1.5 {
			t.Errorf("tiles.json center = %v, want the style's [10, 25, 1.5]", doc["center"])
		}
	}
	for _, p := range []string{"/maps/city/tiles", "/maps/city/tileMatrixSet"} {
		if r := e.do("GET", p, nil); r.status != 200 || !json.Valid(r.body) {
			t.Errorf("%s: %d", p, r.status)
		}
	}
	for _, p := range []string{"/maps/city/WMTSCapabilities.xml", "/WMTSCapabilities.xml", "/maps/city/wms?service=WMS&request=GetCapabilities", "/maps/wms?SERVICE=WMS&REQUEST=GetCapabilities"} {
		r := e.do("GET", p, nil)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/xml") {
			t.Errorf("%s: %d", p, r.status)
			continue
		}
		if err := xml.Unmarshal(r.body, new(struct{})); err != nil || !strings.Contains(string(r.body), "city") {
			t.Errorf("%s: %v", p, err)
		}
		if strings.Contains(string(r.body), "bad") {
			t.Errorf("%s lists the invalid map", p)
		}
	}
	checkError(t, e.do("GET", "/maps/city/wms", nil), 400)
	// GetMap without VERSION: a WMS exception report, not a JSON error.
	if r := e.do("GET", "/maps/wms?service=WMS&request=GetMap", nil); r.status != 400 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/xml") ||
		!strings.Contains(string(r.body), `code="MissingParameterValue"`) {
		t.Errorf("GetMap without VERSION: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	// GetCapabilities negotiates its version: 1.1.1 (whose GetMap is
	// served) for a client that asks for it or for anything earlier, 1.3.0
	// otherwise, each with its media type.
	for _, tc := range []struct{ query, root, ctype string }{
		{"service=WMS&request=GetCapabilities&version=1.1.1", "<WMT_MS_Capabilities version=\"1.1.1\"", "application/vnd.ogc.wms_xml"},
		{"SERVICE=WMS&REQUEST=GetCapabilities&WMTVER=1.0.0", "<WMT_MS_Capabilities version=\"1.1.1\"", "application/vnd.ogc.wms_xml"},
		{"service=WMS&request=GetCapabilities&version=1.3.0", "<WMS_Capabilities", "text/xml"},
		{"service=WMS&request=GetCapabilities&version=2.0.0", "<WMS_Capabilities", "text/xml"},
	} {
		for _, p := range []string{"/maps/city/wms?", "/maps/wms?"} {
			r := e.do("GET", p+tc.query, nil)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(r.body), tc.root) ||
				xml.Unmarshal(r.body, new(struct{})) != nil || !strings.Contains(string(r.body), "<Name>city</Name>") {
				t.Errorf("%s%s: %d %s\n%.300s", p, tc.query, r.status, r.header.Get("Content-Type"), r.body)
			}
		}
	}
	if v := e.do("GET", "/maps/city/", nil); v.status != 200 || !strings.Contains(string(v.body), "/maps/city/style.json") {
		t.Errorf("viewer: %d", v.status)
	}
	if rd := e.do("GET", "/maps/city", nil); rd.status != 301 {
		t.Errorf("redirect: %d", rd.status)
	}

	// Unknown, invalid and unpublished maps: 404 everywhere.
	for _, p := range []string{"/maps/nope/style.json", "/maps/bad/style.json", "/maps/bad/", "/maps/city/nothing"} {
		checkError(t, e.do("GET", p, nil), 404)
	}
	e.admin("POST", "/maps/city/unpublish", nil)
	for _, p := range []string{"/maps/city/style.json", "/maps/city/sprite.png", "/maps/city/tiles.json", "/maps/city/256/tiles.json", "/maps/city/", "/maps/city/wms?service=WMS&request=GetCapabilities", "/maps/city/WMTSCapabilities.xml"} {
		checkError(t, e.do("GET", p, nil), 404)
	}
	if all := e.do("GET", "/WMTSCapabilities.xml", nil); strings.Contains(string(all.body), "/maps/city/") {
		t.Error("all-maps WMTS lists an unpublished map")
	}
}

func TestFonts(t *testing.T) {
	fixtures.Path(t, "fixtures/tileserver-gl/public/resources/fonts/OpenSans-Regular.ttf")
	e := mapEnv(t)
	r := e.do("GET", "/fonts/Open%20Sans%20Regular,Nope%20Font/0-255.pbf", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("glyphs: %d %s", r.status, r.body)
	}
	stacks, err := glyphs.DecodeRange(r.body)
	if err != nil || len(stacks) != 1 || len(stacks[0].Glyphs) < 150 || stacks[0].Name != "Open Sans Regular" {
		t.Fatalf("decoded %v: %v", len(stacks), err)
	}
	for _, g := range stacks[0].Glyphs {
		if len(g.Bitmap) > 0 && len(g.Bitmap) != int((g.Width+6)*(g.Height+6)) {
			t.Fatalf("glyph %d: bitmap of %d bytes for %dx%d", g.ID, len(g.Bitmap), g.Width, g.Height)
		}
	}
	if again := e.do("GET", "/fonts/Open%20Sans%20Regular/0-255.pbf", nil, "If-None-Match", e.do("GET", "/fonts/Open%20Sans%20Regular/0-255.pbf", nil).header.Get("ETag")); again.status != 304 {
		t.Errorf("revalidation: %d", again.status)
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/fonts/Open%20Sans%20Regular/1-256.pbf", 400},
		{"/fonts/Open%20Sans%20Regular/0-256.pbf", 400},
		{"/fonts/Open%20Sans%20Regular/0-255.json", 400},
		{"/fonts/Open%20Sans%20Regular/65536-65791.pbf", 400},
		{"/fonts/..%2F..%2Fetc/0-255.pbf", 400},
		{"/fonts/,/0-255.pbf", 400},
		{"/fonts/Nope%20Font/0-255.pbf", 404},
	} {
		r := e.do("GET", tt.path, nil)
		checkError(t, r, tt.status)
	}
}

func TestAdminMaps(t *testing.T) {
	e := mapEnv(t)
	type mapDetail struct {
		ID, Name, Title, Format, State string
		Published                      bool
		Quality                        int
		Problems, Warnings             []string
		URLs                           map[string]string
	}
	list := decodeJSON[struct{ Items []mapDetail }](t, e.admin("GET", "/maps", nil).body)
	if len(list.Items) != 3 || list.Items[0].ID != "bad" || list.Items[0].State != "error" || list.Items[1].Title != "Roads map" {
		t.Fatalf("maps = %+v", list.Items)
	}
	if p := list.Items[0].Problems; len(p) != 1 || !strings.Contains(p[0], "layers[0].paint.background-color") || !strings.Contains(p[0], "bluish") {
		t.Errorf("problems of the invalid style = %q", p)
	}
	// A style naming a font, an icon and a tileset the server lacks is
	// served, with warnings.
	ghost := list.Items[2]
	if w := strings.Join(ghost.Warnings, ";"); ghost.ID != "ghost" || ghost.State != "ok" || len(ghost.Warnings) != 3 || !strings.Contains(w, `"Missing Font"`) || !strings.Contains(w, `"nosuchicon"`) || !strings.Contains(w, `tileset "nowhere"`) {
		t.Errorf("ghost map = %+v", ghost)
	}
	d := decodeJSON[mapDetail](t, e.admin("GET", "/maps/city", nil).body)
	if d.Title != "Roads map" {
		t.Errorf("title = %q", d.Title)
	}
	base := e.http.URL + "/maps/city"
	want := map[string]string{
		"embeddable": base + "/", "ogcTiles": base + "/tiles", "stylejson": base + "/style.json", "tilejson": base + "/tiles.json",
		"tilejson256": base + "/256/tiles.json", "wms": base + "/wms?service=WMS&request=GetCapabilities", "wmts": base + "/WMTSCapabilities.xml",
		"xyz": base + "/{z}/{x}/{y}.png", "xyz256": base + "/256/{z}/{x}/{y}.png",
	}
	for k, v := range want {
		if d.URLs[k] != v {
			t.Errorf("urls[%s] = %q, want %q", k, d.URLs[k], v)
		}
	}
	if d.Quality != 90 || d.Format != "png" || !d.Published {
		t.Errorf("defaults: %+v", d)
	}
	d = decodeJSON[mapDetail](t, e.admin("POST", "/maps/city", map[string]any{"format": "jpeg", "quality": 70}).body)
	if d.Format != "jpeg" || d.Quality != 70 || d.URLs["xyz"] != base+"/{z}/{x}/{y}.jpg" {
		t.Errorf("after change: %+v", d)
	}
	for _, body := range []map[string]any{{"format": "gif"}, {"quality": 101}, {"quality": -1}, {"name": "x"}, {"published": "yes"}} {
		checkError(t, e.admin("POST", "/maps/city", body), 400)
	}
	for _, step := range []struct {
		path string
		want bool
	}{{"/unpublish", false}, {"/unpublish", false}, {"/publish", true}, {"/publish", true}} {
		if d := decodeJSON[mapDetail](t, e.admin("POST", "/maps/city"+step.path, nil).body); d.Published != step.want {
			t.Errorf("%s: published %v", step.path, d.Published)
		}
	}
	checkError(t, e.admin("GET", "/maps/nope", nil), 404)
	del := e.admin("DELETE", "/maps/city", nil)
	if del.status != 200 || !strings.Contains(string(del.body), `"removed":["city"]`) {
		t.Errorf("delete: %d %s", del.status, del.body)
	}
	if _, err := os.Stat(filepath.Join(e.dir, MapsDir, "city")); !os.IsNotExist(err) {
		t.Error("map folder left after delete")
	}
	checkError(t, e.do("GET", "/maps/city/style.json", nil), 404)
}

// TestRenameTilesetNamesTheMaps renames the tileset a map's style names: the
// answer says which maps name the old name, the map's admin warnings say
// the tileset is missing, and renaming back clears the warning.
func TestRenameTilesetNamesTheMaps(t *testing.T) {
	e := mapEnv(t)
	list := decodeJSON[struct{ Items []struct{ ID, Name string } }](t, e.admin("GET", "/tiles", nil).body)
	var id string
	for _, it := range list.Items {
		if it.Name == "roads" {
			id = it.ID
		}
	}
	if id == "" {
		t.Fatal("no tileset roads")
	}
	cityWarnings := func() []string {
		return decodeJSON[struct{ Warnings []string }](t, e.admin("GET", "/maps/city", nil).body).Warnings
	}
	if w := cityWarnings(); len(w) != 0 {
		t.Fatalf("warnings before the rename: %q", w)
	}
	r := e.admin("POST", "/tiles/"+id, map[string]any{"name": "streets"})
	if r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.body)
	}
	got := decodeJSON[struct {
		Name              string
		MapsNamingOldName []string
	}](t, r.body)
	if got.Name != "streets" || len(got.MapsNamingOldName) != 1 || got.MapsNamingOldName[0] != "city" {
		t.Errorf("rename answer: %s", r.body)
	}
	if w := cityWarnings(); len(w) != 1 || !strings.Contains(w[0], `tileset "roads"`) {
		t.Errorf("warnings after the rename: %q", w)
	}
	// A change that is not a rename names no maps.
	r = e.admin("POST", "/tiles/"+id, map[string]any{"title": "Streets"})
	if strings.Contains(string(r.body), "mapsNamingOldName") {
		t.Errorf("a title change named maps: %s", r.body)
	}
	r = e.admin("POST", "/tiles/"+id, map[string]any{"name": "roads"})
	if r.status != 200 || strings.Contains(string(r.body), "mapsNamingOldName") {
		t.Errorf("renaming back: %d %s", r.status, r.body)
	}
	if w := cityWarnings(); len(w) != 0 {
		t.Errorf("warnings after renaming back: %q", w)
	}
}
