package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/store"
)

const squareIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#36c"/></svg>`

// TestSpriteSets: /sprites/{id}/sprite{scale}.{format} serves the named
// sets of DATA/sprites and the icons of maps; every parameter is checked;
// requests are counted under sprites; the map's own sprite endpoint says
// it is deprecated.
func TestSpriteSets(t *testing.T) {
	e := mapEnv(t, func(c *config.Config) {
		c.UsageFlushInterval = time.Hour
		dir := filepath.Join(c.DataDir, SpritesDir, "shapes")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "square.svg"), []byte(squareIcon), 0o644)
	})
	type entry struct {
		Width, Height int
		PixelRatio    float64
	}
	for _, c := range []struct {
		path, icon string
		width      int
		ratio      float64
	}{
		{"/sprites/shapes/sprite.json", "square", 20, 1},
		{"/sprites/shapes/sprite@2x.json", "square", 40, 2},
		{"/sprites/city/sprite.json", "dot", 12, 1}, // a map's icons
		{"/sprites/city/sprite@2x.json", "dot", 24, 2},
	} {
		r := e.do("GET", c.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", c.path, r.status, r.body)
		}
		idx := decodeJSON[map[string]entry](t, r.body)
		if got, ok := idx[c.icon]; !ok || got.Width != c.width || got.PixelRatio != c.ratio || len(idx) != 1 {
			t.Errorf("%s: %s", c.path, r.body)
		}
	}
	for _, p := range []string{"/sprites/shapes/sprite.png", "/sprites/shapes/sprite@2x.png", "/sprites/city/sprite.png"} {
		r := e.do("GET", p, nil)
		if r.status != 200 || r.header.Get("Content-Type") != "image/png" || string(r.body[1:4]) != "PNG" {
			t.Errorf("%s: %d %q", p, r.status, r.header.Get("Content-Type"))
		}
	}
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/sprites/shapes/sprite@3x.png", 400},
		{"/sprites/shapes/sprite@2.png", 400},
		{"/sprites/shapes/sprite.gif", 400},
		{"/sprites/shapes/sprite", 400},
		{"/sprites/shapes/icons.png", 400},
		{"/sprites/.hidden/sprite.png", 400},
		{"/sprites/a%20b/sprite.png", 400},
		{"/sprites/nope/sprite.png", 404},
		{"/sprites/bad/sprite.json", 404}, // an invalid map is not served
	} {
		checkError(t, e.do("GET", c.path, nil), c.status)
	}
	old := e.do("GET", "/maps/city/sprite@2x.json", nil)
	if old.status != 200 || old.header.Get("Deprecation") != "true" || old.header.Get("Link") != `</sprites/city/sprite@2x.json>; rel="successor-version"` {
		t.Errorf("map sprite: %d, Deprecation %q, Link %q", old.status, old.header.Get("Deprecation"), old.header.Get("Link"))
	}
	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/sprites"]; got != 7 {
		t.Errorf("sprite requests counted: %d, want 7", got)
	}
}

// TestSpriteSetsKeyed: with api_keys required a sprite needs a key.
func TestSpriteSetsKeyed(t *testing.T) {
	e := mapEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	tok := e.serviceToken("sprites")
	key := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, map[string]any{}).body).Token
	checkError(t, e.do("GET", "/sprites/city/sprite.json", nil), 403)
	if r := e.do("GET", "/sprites/city/sprite.json?key="+key, nil); r.status != 200 {
		t.Errorf("with a key: %d %s", r.status, r.body)
	}
}
