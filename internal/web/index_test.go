package web

import (
	"strings"
	"testing"
)

func TestIndex(t *testing.T) {
	var b strings.Builder
	err := Index(&b, IndexView{
		BasePath: "/tessera",
		Maps:     []IndexItem{{ID: "world", Title: "World <map>", Meta: "map"}},
		Tilesets: []IndexItem{{ID: "a b", Meta: "vector tileset"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`href="/tessera/maps/world/"`, `World &lt;map&gt;`, `href="/tessera/tiles/a%20b/tiles.json"`, `/tessera/ogc/conformance`} {
		if !strings.Contains(out, want) {
			t.Errorf("index lacks %s", want)
		}
	}
	// A key is carried into every link but the page's assets.
	b.Reset()
	if err := Index(&b, IndexView{Query: "key=k1", Maps: []IndexItem{{ID: "world"}}, Tilesets: []IndexItem{{ID: "roads"}}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range attrRe.FindAllStringSubmatch(b.String(), -1) {
		href := m[2]
		asset := strings.Contains(href, "/static/") || strings.HasSuffix(href, "/health") || strings.HasPrefix(href, "data:")
		if asset == strings.HasSuffix(href, "?key=k1") || strings.Contains(href, "??") {
			t.Errorf("link %s: key carried %v, want %v", href, !asset, !asset)
		}
	}
	b.Reset()
	if err := Index(&b, IndexView{}); err != nil || !strings.Contains(b.String(), "No tilesets yet") {
		t.Errorf("empty index: %v", err)
	}
}
