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
	b.Reset()
	if err := Index(&b, IndexView{}); err != nil || !strings.Contains(b.String(), "No tilesets yet") {
		t.Errorf("empty index: %v", err)
	}
}
