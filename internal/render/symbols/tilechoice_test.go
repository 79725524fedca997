package symbols

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style"
)

// tileChoiceDir holds the views of the tile choice test and what MapLibre
// GL JS 6.17 requested and drew for them (internal/render/testdata/
// maplibre-tiles.mjs).
var tileChoiceDir = filepath.Join("..", "testdata", "tilechoice")

// glTileView is one view of testdata/tilechoice and, once observed, the
// tiles ("z/x/y") GL requested and drew for it.
type glTileView struct {
	Width     int        `json:"width"`
	Height    int        `json:"height"`
	Zoom      float64    `json:"zoom"`
	Center    [2]float64 `json:"center"`
	Bearing   float64    `json:"bearing"`
	Pitch     float64    `json:"pitch"`
	Step      float64    `json:"step"`
	Requested []string   `json:"requested"`
	Drawn     []string   `json:"drawn"`
}

func (v glTileView) String() string {
	return fmt.Sprintf("%dx%d zoom %g bearing %g pitch %g", v.Width, v.Height, v.Zoom, v.Bearing, v.Pitch)
}

// atZoom returns the tiles of zoom z among tiles, sorted.
func atZoom(tiles []string, z int) []string {
	var out []string
	for _, k := range tiles {
		if strings.HasPrefix(k, fmt.Sprint(z, "/")) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func readGLTileViews(t *testing.T, name string) []glTileView {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tileChoiceDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var views []glTileView
	if err := json.Unmarshal(data, &views); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return views
}

// tileURLs records the tile URLs a render reads ("t/z/x/y" -> "z/x/y");
// every tile is absent.
type tileURLs struct {
	mu   sync.Mutex
	keys []string
}

func (r *tileURLs) Fetch(_ context.Context, url string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, strings.TrimPrefix(url, "t/"))
	return nil, nil
}

// TestTileChoiceAgainstMapLibre holds the tiles a render reads and lays
// labels out from to those MapLibre GL JS 6.17 requested and drew for the
// same views (testdata/tilechoice, one vector source of maxzoom 14; sizes
// from 1024x256 to 256x1024, zooms 3.5 to 16.3, three bearings, pitches
// 0 to 60). Up to scene.MaxPitch (GL's default maxPitch) GL draws tiles of
// one zoom, the view's zoom rounded down (at most the source's maxzoom),
// as the render reads them: the render must read every tile GL draws, all
// of that zoom, and lay labels out from the tiles GL draws and from no
// tile GL does not request (GL requests a few tiles beyond the view under
// a tilted camera, whose labels we do not lay out: docs/rendering.md).
func TestTileChoiceAgainstMapLibre(t *testing.T) {
	st, err := style.Parse([]byte(`{"version": 8, "sources": {"v": {"type": "vector", "tiles": ["t/{z}/{x}/{y}"], "maxzoom": 14}},
		"layers": [{"id": "f", "type": "fill", "source": "v", "source-layer": "x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range readGLTileViews(t, "maplibre.json") {
		if v.Pitch > scene.MaxPitch {
			continue // the renderer draws no steeper view
		}
		checked++
		z := min(14, int(math.Floor(v.Zoom)))
		res := &tileURLs{}
		set := sources.NewSet(st, scene.View{Center: v.Center, Zoom: v.Zoom, Bearing: v.Bearing, Pitch: v.Pitch,
			Width: v.Width, Height: v.Height, PixelRatio: 1}, res, nil, nil)
		if _, err := set.Features(t.Context(), st.Layers[0]); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		read := res.keys
		slices.Sort(read)
		if got := atZoom(read, z); len(got) != len(read) {
			t.Errorf("%v: read %v, not all of zoom %d", v, read, z)
		}
		pass := NewPass(set, nil, nil)
		var labelled []string
		for _, k := range read {
			var tz, tx, ty int
			if _, err := fmt.Sscanf(k, "%d/%d/%d", &tz, &tx, &ty); err != nil {
				t.Fatalf("tile URL %q: %v", k, err)
			}
			if pass.tileInView([3]int{ty, tx, tz}) {
				labelled = append(labelled, k)
			}
		}
		requested := atZoom(v.Requested, z)
		for _, k := range v.Drawn {
			if !strings.HasPrefix(k, fmt.Sprint(z, "/")) {
				t.Errorf("%v: GL drew %s, of another zoom than %d", v, k, z)
			}
			if !slices.Contains(read, k) {
				t.Errorf("%v: GL drew %s, which the render does not read (it reads %v)", v, k, read)
			}
			if !slices.Contains(labelled, k) {
				t.Errorf("%v: GL drew %s, whose labels the render does not lay out (it lays out %v)", v, k, labelled)
			}
		}
		for _, k := range labelled {
			if !slices.Contains(requested, k) {
				t.Errorf("%v: the render lays out the labels of %s, which GL does not request (it requests %v)", v, k, requested)
			}
		}
	}
	if checked < 300 {
		t.Fatalf("only %d views up to pitch %d in %s", checked, scene.MaxPitch, tileChoiceDir)
	}
}

// TestMapLibreTileChoiceRedraw observes a few views of testdata/tilechoice
// again with internal/render/testdata/maplibre-tiles.mjs and the test
// tools (scripts/test-tools-npm.sh) and compares them with the
// observation kept: the tools reproduce what TestTileChoiceAgainstMapLibre
// holds the renderer to. Skipped when node, Chromium or the packages are
// absent (failed under TESSERA_REQUIRE_TOOLS=1).
func TestMapLibreTileChoiceRedraw(t *testing.T) {
	node, chromium, modules := fixtures.MapLibre(t)
	kept := readGLTileViews(t, "maplibre.json")
	var views []glTileView
	for i := 0; i < len(kept); i += 37 {
		v := kept[i]
		v.Requested, v.Drawn = nil, nil
		views = append(views, v)
	}
	in := filepath.Join(t.TempDir(), "views.json")
	data, err := json.Marshal(views)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(tileChoiceDir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(dir, "..", "maplibre-tiles.mjs"), in)
	cmd.Env = append(os.Environ(), "TESSERA_NODE_PATH="+modules, "CHROMIUM="+chromium, "PLAYWRIGHT_CORE_DIR=", "MAPLIBRE_DIR=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("maplibre-tiles.mjs: %v\n%s", err, stderr.String())
	}
	var got []glTileView
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("maplibre-tiles.mjs wrote %q: %v", out, err)
	}
	if len(got) != len(views) {
		t.Fatalf("%d views observed, want %d", len(got), len(views))
	}
	for i, g := range got {
		want := kept[i*37]
		z := min(14, int(math.Floor(want.Zoom)))
		if fmt.Sprint(g.Drawn) != fmt.Sprint(want.Drawn) {
			t.Errorf("%v: GL drew %v, kept %v", want, g.Drawn, want.Drawn)
		}
		// The requests of the view's zoom: a view beyond the source's
		// maxzoom also requests tiles of its own zoom, which GL does not
		// draw.
		if a, b := atZoom(g.Requested, z), atZoom(want.Requested, z); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%v: GL requested %v of zoom %d, kept %v", want, a, z, b)
		}
	}
}
