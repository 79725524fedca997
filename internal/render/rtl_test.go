package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// recordingResources serves files under a directory for mem:// URLs and
// records the URLs asked for.
type recordingResources struct {
	dir  string
	mu   sync.Mutex
	urls map[string]bool
}

func (r *recordingResources) Fetch(_ context.Context, url string) ([]byte, error) {
	r.mu.Lock()
	r.urls[url] = true
	r.mu.Unlock()
	return os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(strings.TrimPrefix(url, "mem://"))))
}

// TestRenderArabicLabel draws an Arabic label with the suite's glyph ranges
// of "Open Sans Semibold,Arial Unicode MS Bold", which have the Arabic
// presentation forms: the label must draw its presentation forms in visual
// order (the same picture as those forms typed in visual order and forced
// left to right), fetching the presentation-form ranges, and must differ
// from the unjoined letters in logical order that a renderer without RTL
// support would draw.
func TestRenderArabicLabel(t *testing.T) {
	root := fixtures.Path(t, "render-tests/glyphs")
	r := newRenderer(t)
	const doc = `{"version": 8, "center": [0, 0], "zoom": 0, "glyphs": "mem://{fontstack}/{range}.pbf",
		"sources": {"g": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "s", "type": "symbol", "source": "g", "layout": {"text-field": LAYOUT,
				"text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"], "text-size": 24}}]}`
	render := func(label string) ([]byte, map[string]bool) {
		t.Helper()
		st := parse(t, replaceLayout(doc, `"`+label+`"`))
		res := &recordingResources{dir: root, urls: map[string]bool{}}
		img, err := r.Render(context.Background(), st, ViewOf(st, 160, 64, 1), res)
		if err != nil {
			t.Fatal(err)
		}
		return img.Pix, res.urls
	}
	// "Cairo" in Arabic: alef, lam, qaf, alef, heh, reh, teh marbuta.
	got, urls := render("القاهرة")
	// The same as presentation forms in visual order: teh marbuta isolated
	// (reh does not join forward), reh final, heh initial, alef final, qaf
	// medial, lam initial, alef isolated (no lam-alef: the alef after lam
	// is not next to it).
	want, _ := render("\u202d\ufe93\ufeae\ufeeb\ufe8e\ufed8\ufedf\ufe8d\u202c")
	naive, _ := render("\u202d\ufe8d\ufedd\ufed5\ufe8d\ufee9\ufead\ufe93\u202c")
	ink := 0
	for i := 0; i < len(got); i += 4 {
		if got[i] < 128 {
			ink++
		}
	}
	if ink < 50 {
		t.Fatalf("the Arabic label drew %d dark pixels", ink)
	}
	if !bytes.Equal(got, want) {
		t.Error("the Arabic label differs from its presentation forms in visual order")
	}
	if bytes.Equal(got, naive) {
		t.Error("the Arabic label is drawn as unjoined letters in logical order")
	}
	var fetched []string
	for u := range urls {
		fetched = append(fetched, u)
	}
	sort.Strings(fetched)
	if !urls["mem://Open Sans Semibold,Arial Unicode MS Bold/65024-65279.pbf"] {
		t.Errorf("the presentation forms' range was not fetched: %v", fetched)
	}
}
