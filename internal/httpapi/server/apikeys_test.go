package server

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
)

// TestKeysCarriedIntoDocuments walks the documents of a map and a tileset
// with api_keys required: every URL of this server that a style, TileJSON,
// OGC, WMTS or WMS document writes carries the key, and following it with
// no other help does not get 403.
func TestKeysCarriedIntoDocuments(t *testing.T) {
	e := mapEnv(t, func(c *config.Config) { c.APIKeys = config.APIKeysRequired })
	tok := e.serviceToken("walk")
	key := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, map[string]any{}).body).Token
	start := []string{
		"/maps/city/style.json", "/maps/city/tiles.json", "/maps/city/256/tiles.json", "/maps/city/tiles",
		"/maps/city/WMTSCapabilities.xml", "/maps/city/wms?service=WMS&request=GetCapabilities",
		"/maps/wms?SERVICE=WMS&REQUEST=GetCapabilities", "/WMTSCapabilities.xml",
		"/tiles/roads/tiles.json", "/tiles/roads/tiles", "/tiles/roads/WMTSCapabilities.xml", "/tiles/roads/tileMatrixSet",
		"/maps/city/", "/tiles/roads/", "/",
	}
	// Every document refuses a request without the key.
	for _, p := range start {
		if r := e.do("GET", p, nil); r.status != 403 || !isMessage(r.body) {
			t.Errorf("%s without a key: %d %s", p, r.status, r.body)
		}
	}
	urlRE := regexp.MustCompile(regexp.QuoteMeta(e.http.URL) + `[^"'<>\s\\]*`)
	// Links of the HTML pages are relative to the server's root.
	relRE := regexp.MustCompile(`(?:href|src|data-[a-z-]+)="(/[^"]*)"`)
	fill := strings.NewReplacer("{z}", "0", "{x}", "0", "{y}", "0", "{fontstack}", "Open Sans Regular", "{range}", "0-255",
		"{TileMatrix}", "0", "{TileCol}", "0", "{TileRow}", "0", "{tileMatrix}", "0", "{tileCol}", "0", "{tileRow}", "0", "{ratio}", "", "{r}", "")
	seen := map[string]bool{}
	queue := []string{}
	for _, p := range start {
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		queue = append(queue, e.http.URL+p+sep+"key="+key)
	}
	checked := 0
	for len(queue) > 0 && checked < 300 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		checked++
		r := e.do("GET", strings.TrimPrefix(u, e.http.URL), nil)
		if r.status == 403 {
			t.Errorf("%s: 403 %s", u, r.body)
			continue
		}
		ct := r.header.Get("Content-Type")
		if !strings.Contains(ct, "json") && !strings.Contains(ct, "xml") && !strings.Contains(ct, "html") {
			continue
		}
		links := urlRE.FindAllString(string(r.body), -1)
		if strings.Contains(ct, "html") {
			for _, m := range relRE.FindAllStringSubmatch(string(r.body), -1) {
				if m[1] != "/health" {
					links = append(links, e.http.URL+m[1])
				}
			}
		}
		for _, found := range links {
			found = html.UnescapeString(strings.ReplaceAll(found, `\u0026`, "&"))
			if strings.Contains(found, "/static/") {
				continue // the viewer's assets are never keyed
			}
			if !strings.Contains(found, "key="+key) {
				t.Errorf("%s writes %s without the key", u, found)
				continue
			}
			next := fill.Replace(found)
			if !strings.Contains(next, "{") {
				queue = append(queue, next)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d URLs followed", checked)
	}
	t.Logf("%d URLs followed", checked)
}
