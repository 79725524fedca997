package web

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
)

// FuzzViewerPages renders pages from arbitrary ids, titles, base paths and
// query suffixes: either an error, or a page whose markup the input cannot
// change and whose document URLs keep the id as one path segment.
func FuzzViewerPages(f *testing.F) {
	f.Add("world", "World", "", "key=abc", true)
	f.Add(hostile, hostile, "/p", "a=%zz", false)
	f.Add("..", "</title><script>", "/a/b/", "?k=<v>", true)
	f.Fuzz(func(t *testing.T, id, title, base, query string, vector bool) {
		var buf bytes.Buffer
		if err := TilesetViewer(&buf, TilesetView{ID: id, Title: title, BasePath: base, Query: query, Vector: vector}); err != nil {
			return
		}
		page := buf.String()
		if strings.Count(page, "<script") != 2 || strings.Count(page, "<div") != 1 || strings.Count(page, "<a ") != 3 {
			t.Fatalf("markup changed by input:\n%s", page)
		}
		tj := attrs(page)["data-tilejson-url"]
		if len(tj) != 1 {
			t.Fatalf("data-tilejson-url = %v", tj)
		}
		path, _, _ := strings.Cut(tj[0], "?")
		segs := strings.Split(path, "/")
		n := len(segs)
		if n < 4 || segs[0] != "" || segs[n-1] != "tiles.json" || segs[n-3] != "tiles" {
			t.Fatalf("tilejson URL %q", tj[0])
		}
		dec := make([]string, 0, n)
		for _, sg := range segs {
			d, err := url.PathUnescape(sg)
			if err != nil {
				t.Fatalf("segment %q of %q: %v", sg, tj[0], err)
			}
			dec = append(dec, d)
		}
		if gotBase := strings.Join(dec[:n-3], "/"); gotBase != strings.TrimRight(base, "/") {
			t.Fatalf("base path %q decoded from %q, want %q", gotBase, tj[0], base)
		}
		if dec[n-2] != id {
			t.Fatalf("id %q decoded from %q, want %q", dec[n-2], tj[0], id)
		}
		buf.Reset()
		if err := MapViewer(&buf, MapView{ID: id, Title: title, BasePath: base, Query: query}); err != nil {
			t.Fatalf("map viewer refused what the tileset viewer accepted: %v", err)
		}
		if strings.Count(buf.String(), "<script") != 2 {
			t.Fatalf("map page markup changed by input")
		}
	})
}
