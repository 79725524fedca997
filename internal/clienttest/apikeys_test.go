package clienttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/web"
)

// apiJSON sends a JSON request to the server with an Authorization header
// and decodes the JSON answer into out, failing the test on any status but
// want.
func apiJSON(t *testing.T, method, u, auth string, body any, want int, out any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d", method, u, resp.StatusCode, want)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, u, err)
		}
	}
}

// keyPage is an HTML page of another site showing the relief map with
// MapLibre GL JS (loaded from the map server) and an API key; it sets
// window.tesseraDone when the map is idle or has failed, and reports the
// status of a failure.
func keyPage(base, key string) string {
	b, _ := json.Marshal(base)
	k, _ := json.Marshal(key)
	return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Tessera map with a key</title>
<link rel="stylesheet" href="` + base + `/static/vendor/maplibre-gl.css"><script src="` + base + `/static/vendor/maplibre-gl.js"></script>
<style>html, body { margin: 0; } #map { width: 800px; height: 500px; background: #ff00ff; }</style>
</head><body><div id="map"></div>
<script>
const base = ` + string(b) + `, key = ` + string(k) + `;
const done = (info) => { window.tesseraInfo = info || null; window.tesseraDone = true; };
const map = new maplibregl.Map({ container: 'map', style: base + '/maps/relief/style.json?key=' + encodeURIComponent(key),
  center: [8, 47], zoom: 2, fadeDuration: 0, attributionControl: false });
map.on('error', (e) => done({ failed: true, status: (e.error && e.error.status) || 0, message: String(e.error && e.error.message) }));
map.once('idle', () => done({ failed: false, loaded: map.loaded() }));
</script></body></html>
`
}

// TestAPIKeyOrigins loads the relief map in headless Chromium from a page
// of another site (another origin than the map server), with api_keys
// required, through the account API's keys: a key restricted to the
// page's origin shows the map (style, TileJSON, tiles and glyphs all
// answered with the key the server carried into their URLs); a key
// restricted to another origin gets 403 for the style, and no tile is
// served.
func TestAPIKeyOrigins(t *testing.T) {
	t.Parallel()
	chromium := chromiumTool(t)
	node := fixtures.Tool(t, "node")
	pw := filepath.Join(fixtures.RepoRoot(), ".cache", "npm-test", "node_modules", "playwright-core")
	_, errP := os.Stat(filepath.Join(pw, "package.json"))
	needTool(t, errP == nil, "playwright-core (scripts/test-tools-npm.sh)")
	needTool(t, web.HasMapLibre(), "MapLibre GL JS in internal/web/static/vendor (scripts/web-assets.sh)")

	e := serveDataDirWith(t, imagesDataDir(t), func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	pages := newPageSet(map[string]string{})
	mux := http.NewServeMux()
	mux.Handle("GET /{page}", servePages(pages))
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	siteHost := strings.TrimPrefix(site.URL, "http://")
	serverHost := strings.TrimPrefix(e.URL, "http://")
	if siteHost == serverHost {
		t.Fatal("the page and the map server share an origin")
	}

	// A service token from the admin API, keys from the account API.
	var tok struct{ Token string }
	apiJSON(t, "POST", e.URL+"/v1/admin/tokens", "Basic "+adminCredentials, map[string]string{"name": "browser"}, http.StatusCreated, &tok)
	type key struct{ Token string }
	var good, other key
	apiJSON(t, "POST", e.URL+"/v1/api_keys", "Token "+tok.Token, map[string]any{"name": "site", "origins": []string{siteHost}}, http.StatusOK, &good)
	apiJSON(t, "POST", e.URL+"/v1/api_keys", "Token "+tok.Token, map[string]any{"name": "elsewhere", "origins": []string{serverHost}}, http.StatusOK, &other)
	pages.Set("good", keyPage(e.URL, good.Token))
	pages.Set("other", keyPage(e.URL, other.Token))

	shots := shotDir(t)
	type pageCfg struct {
		Name         string `json:"name"`
		URL          string `json:"url"`
		ImagePattern string `json:"imagePattern"`
		Screenshot   string `json:"screenshot"`
	}
	tilePattern := `/tiles/[^/]+/\d+/\d+/\d+\.\w+\?key=`
	driver, err := filepath.Abs(filepath.Join("testdata", "mapclients.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]mapClientResult{}
	logs := map[string][]access{}
	for _, name := range []string{"good", "other"} {
		c := pageCfg{name, site.URL + "/" + name + ".html", tilePattern, filepath.Join(shots, "apikey-"+name+".png")}
		cfg, err := json.Marshal(map[string]any{"pages": []pageCfg{c}})
		if err != nil {
			t.Fatal(err)
		}
		mark := settled(e)
		out, stderr, err := runFor(t.Context(), t, renderWait, []string{"PLAYWRIGHT_CORE_DIR=" + pw, "CHROMIUM=" + chromium}, node, driver, string(cfg))
		if err != nil {
			t.Fatalf("mapclients.mjs %s: %v\n%s", name, err, stderr)
		}
		var rs []mapClientResult
		if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 1 {
			t.Fatalf("mapclients.mjs %s output %q: %v\n%s", name, out, err, stderr)
		}
		results[name] = rs[0]
		settled(e)
		logs[name] = e.since(mark)
	}

	// The key of the page's origin: the map shows, every request answered.
	g := results["good"]
	if len(g.Errors) > 0 {
		t.Errorf("good key: browser errors %q", g.Errors)
	}
	if g.Info["failed"] != false {
		t.Errorf("good key: the map reported %v", g.Info)
	}
	tiles200 := 0
	for _, im := range g.Images {
		if im.Status == http.StatusOK {
			tiles200++
		} else if im.Status != http.StatusNoContent {
			t.Errorf("good key: %s answered %d", im.URL, im.Status)
		}
		if u, err := url.Parse(im.URL); err != nil || u.Query().Get("key") != good.Token {
			t.Errorf("good key: tile URL %s does not carry the key", im.URL)
		}
	}
	if tiles200 == 0 || len(g.Pending) > 0 {
		t.Errorf("good key: %d tiles answered 200, pending %v", tiles200, g.Pending)
	}
	seen := map[string]bool{}
	for _, a := range logs["good"] {
		seen[a.Path] = true
		if a.Status != http.StatusOK && a.Status != http.StatusNoContent && !strings.HasPrefix(a.Path, "/static/") {
			t.Errorf("good key: server answered %s", a)
		}
	}
	for _, p := range []string{"/maps/relief/style.json", "/tiles/" + nameRaster + "/tiles.json", "/tiles/" + nameVector + "/tiles.json"} {
		if !seen[p] {
			t.Errorf("good key: the page never requested %s", p)
		}
	}
	img := readPNG(t, filepath.Join(shots, "apikey-good.png"))
	bg := pageBackground
	s := statsOf(img, &bg)
	if s.Colours < 50 || s.Share > 0.02 {
		t.Errorf("good key: the map is not drawn: %d colours, page background %.1f%%", s.Colours, 100*s.Share)
	}

	// The key of another origin: 403 for the style, nothing else served.
	o := results["other"]
	if o.Info["failed"] != true || fmt.Sprint(o.Info["status"]) != "403" {
		t.Errorf("other key: the map reported %v, want a 403 failure", o.Info)
	}
	if !slicesContainMatch(o.Errors, regexp.MustCompile(`^HTTP 403 .*/maps/relief/style\.json\?key=`)) {
		t.Errorf("other key: browser errors %q name no 403 for the style", o.Errors)
	}
	if len(o.Images) > 0 {
		t.Errorf("other key: tiles were requested: %v", o.Images)
	}
	forbidden := 0
	for _, a := range logs["other"] {
		switch {
		case a.Status == http.StatusForbidden:
			forbidden++
		case !strings.HasPrefix(a.Path, "/static/"):
			t.Errorf("other key: server answered %s", a)
		}
	}
	if forbidden == 0 {
		t.Error("other key: the server refused nothing")
	}
	t.Logf("good key: %d tiles (%d answered 200), screenshot %d colours; other key: %v, server log %v", len(g.Images), tiles200, s.Colours, o.Info, logs["other"])
}

func slicesContainMatch(list []string, re *regexp.Regexp) bool {
	for _, s := range list {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
