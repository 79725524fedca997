package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
)

// mapResources serves a test's resources from memory.
type mapResources = rendertest.Files

// newRenderer returns a renderer that logs nothing.
func newRenderer(tb testing.TB) *Renderer {
	tb.Helper()
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func parse(t testing.TB, doc string) *style.Style {
	t.Helper()
	return rendertest.Parse(t, doc)
}

func TestRenderLayers(t *testing.T) {
	r := newRenderer(t)
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 0,
		"sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
			{"type": "Feature", "properties": {"kind": "a"}, "geometry": {"type": "Polygon", "coordinates": [[[-20,-20],[20,-20],[20,20],[-20,20],[-20,-20]]]}},
			{"type": "Feature", "properties": {"kind": "b"}, "geometry": {"type": "Point", "coordinates": [25, 0]}}]}}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "f", "type": "fill", "source": "g", "filter": ["==", ["get", "kind"], "a"], "paint": {"fill-color": "red", "fill-antialias": false}},
			{"id": "c", "type": "circle", "source": "g", "filter": ["==", ["geometry-type"], "Point"], "paint": {"circle-color": ["match", ["get", "kind"], "b", "blue", "black"], "circle-radius": 6}},
			{"id": "hidden", "type": "fill", "source": "g", "layout": {"visibility": "none"}, "paint": {"fill-color": "green"}}]}`)
	img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), mapResources{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int) [4]uint8 {
		o := img.PixOffset(x, y)
		return [4]uint8(img.Pix[o : o+4])
	}
	if p := at(32, 32); p != [4]uint8{255, 0, 0, 255} {
		t.Errorf("polygon centre %v, want red", p)
	}
	if p := at(2, 2); p != [4]uint8{255, 255, 255, 255} {
		t.Errorf("corner %v, want white", p)
	}
	// The point at 25°E is 512*25/360 = 35.6 px east of the centre at zoom
	// 0 (a 512 px world): the circle (radius 6) covers x = 67 - ... inside
	// the image at its left part, x 62-63.
	if p := at(63, 32); p != [4]uint8{0, 0, 255, 255} {
		t.Errorf("circle edge pixel %v, want blue", p)
	}
	// Twice the pixels at pixel ratio 2.
	img2, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 2), mapResources{})
	if err != nil || img2.Rect.Dx() != 128 {
		t.Fatalf("ratio 2: %v %v", img2.Rect, err)
	}
	if _, err := r.Render(context.Background(), st, ViewOf(st, 100000, 100000, 1), mapResources{}); err == nil {
		t.Error("a huge image was accepted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := r.Render(ctx, st, ViewOf(st, 64, 64, 1), mapResources{}); err == nil {
		t.Error("a render past its deadline went on")
	}
}

// FuzzCorruptTile feeds the vector source bytes that are not a good tile:
// the render skips them and never panics.
func FuzzCorruptTile(f *testing.F) {
	f.Add([]byte{0x1a, 0x05, 0x0a, 0x01, 'x'})
	f.Add([]byte("not a tile"))
	f.Add([]byte{0x1a, 0x80})
	r := newRenderer(f)
	st := parse(f, `{"version": 8, "center": [0, 0], "zoom": 0, "sources": {"v": {"type": "vector", "tiles": ["t/{z}/{x}/{y}"], "maxzoom": 0}},
		"layers": [{"id": "f", "type": "fill", "source": "v", "source-layer": "x", "paint": {"fill-color": "red"}},
			{"id": "l", "type": "line", "source": "v", "source-layer": "x"}, {"id": "c", "type": "circle", "source": "v", "source-layer": "x"}]}`)
	f.Fuzz(func(t *testing.T, tile []byte) {
		if _, err := r.Render(context.Background(), st, ViewOf(st, 32, 32, 1), mapResources{"t/0/0/0": tile}); err != nil {
			t.Fatalf("a corrupt tile failed the render: %v", err)
		}
	})
}

func TestClipToTile(t *testing.T) {
	b := scene.Box{X0: 0, Y0: 0, X1: 1, Y1: 1}
	// A square straddling the right edge keeps its inside half.
	ring := scene.ClipRing([]orb.Point{{0.5, 0.2}, {1.5, 0.2}, {1.5, 0.8}, {0.5, 0.8}}, b)
	if len(ring) != 4 {
		t.Fatalf("clipped ring %v", ring)
	}
	for _, p := range ring {
		if p[0] < 0.5 || p[0] > 1 {
			t.Errorf("point %v outside the kept half", p)
		}
	}
	if scene.ClipRing([]orb.Point{{2, 2}, {3, 2}, {3, 3}}, b) != nil {
		t.Error("a ring outside the box was kept")
	}
	// A line leaving and re-entering the box becomes two pieces.
	parts := scene.ClipLine([]orb.Point{{0.2, 0.5}, {1.5, 0.5}, {1.5, 0.7}, {0.2, 0.7}}, b)
	if len(parts) != 2 || parts[0][1] != (orb.Point{1, 0.5}) || parts[1][0] != (orb.Point{1, 0.7}) {
		t.Errorf("pieces %v", parts)
	}
	if len(scene.ClipLine([]orb.Point{{2, 2}, {3, 3}}, b)) != 0 {
		t.Error("a line outside the box was kept")
	}
}

func TestCutEdges(t *testing.T) {
	b := scene.Box{X0: 0.25, Y0: 0.25, X1: 0.5, Y1: 0.5}
	// A square clipped on its left and top by the tile square.
	ring := []orb.Point{{0.25, 0.25}, {0.4, 0.25}, {0.4, 0.4}, {0.25, 0.4}}
	cut := scene.Feature{Clip: &b}.CutEdge(ring)
	want := []bool{true, false, false, true}
	for i, w := range want {
		if cut(i) != w {
			t.Errorf("edge %d: cut %v, want %v", i, cut(i), w)
		}
	}
	if (scene.Feature{}).CutEdge(ring) != nil {
		t.Error("an unclipped feature has cut edges")
	}
}

func TestSplitAtCuts(t *testing.T) {
	b := scene.Box{X0: 0, Y0: 0, X1: 1, Y1: 1}
	// A ring cut along the tile's left edge (edge 3, back to the start).
	ring := scene.CloseRing([]orb.Point{{0, 0.2}, {0.5, 0.2}, {0.5, 0.8}, {0, 0.8}})
	got := scene.SplitAtCuts(ring, scene.Feature{Clip: &b}.CutEdge(ring))
	if len(got) != 1 || len(got[0]) != 4 || got[0][0] != (orb.Point{0, 0.2}) || got[0][3] != (orb.Point{0, 0.8}) {
		t.Errorf("split = %v", got)
	}
	// Cut in the middle: the two runs around the ring's start join.
	ring = scene.CloseRing([]orb.Point{{0.5, 0.2}, {1, 0.2}, {1, 0.8}, {0.5, 0.8}})
	got = scene.SplitAtCuts(ring, scene.Feature{Clip: &b}.CutEdge(ring))
	if len(got) != 1 || len(got[0]) != 4 || got[0][0] != (orb.Point{1, 0.8}) {
		t.Errorf("split = %v", got)
	}
	if got := scene.SplitAtCuts(ring, nil); len(got) != 1 || len(got[0]) != 5 {
		t.Errorf("uncut = %v", got)
	}
}

// TestConcurrentRenders renders one parsed style (its layers compiled
// once and shared) from several goroutines: the pictures are identical
// (and the race detector, under make test-race, finds nothing).
func TestConcurrentRenders(t *testing.T) {
	r := newRenderer(t)
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 1,
		"sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
			{"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Polygon", "coordinates": [[[-20,-20],[20,-20],[20,20],[-20,20],[-20,-20]]]}},
			{"type": "Feature", "properties": {"n": 2}, "geometry": {"type": "LineString", "coordinates": [[-60,10],[60,-10]]}}]}}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#fff"}},
			{"id": "f", "type": "fill", "source": "g", "filter": ["<=", ["get", "n"], ["step", ["zoom"], 0, 1, 1]], "paint": {"fill-color": ["interpolate", ["linear"], ["zoom"], 0, "red", 2, "blue"]}},
			{"id": "l", "type": "line", "source": "g", "paint": {"line-width": ["*", 2, ["get", "n"]]}}]}`)
	const n = 4
	pics := make([][]byte, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			img, err := r.Render(context.Background(), st, View{Zoom: 1, Width: 128, Height: 128, PixelRatio: 1}, mapResources{})
			if err == nil {
				pics[i] = img.Pix
			}
		}()
	}
	for range n {
		<-done
	}
	for i := range pics {
		if pics[i] == nil || string(pics[i]) != string(pics[0]) {
			t.Fatalf("render %d differs or failed", i)
		}
	}
}

// TestRenderDeterministic draws one view of translucent layers many times
// with one renderer: every picture is the same to the byte, however the
// layers are shared between cores (a cached tile's ETag depends on it).
func TestRenderDeterministic(t *testing.T) {
	r := newRenderer(t)
	layers := `{"id": "bg", "type": "background", "paint": {"background-color": "#fdfaf2"}}`
	for i := range 12 {
		layers += fmt.Sprintf(`, {"id": "f%d", "type": "fill", "source": "g", "paint": {"fill-color": "hsl(%d, 70%%, 50%%)", "fill-opacity": 0.37, "fill-translate": [%d, %d]}}`, i, i*30, i*7, i*3)
		layers += fmt.Sprintf(`, {"id": "l%d", "type": "line", "source": "g", "paint": {"line-color": "hsl(%d, 60%%, 40%%)", "line-opacity": 0.53, "line-width": %d}}`, i, 200-i*15, 1+i%4)
	}
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 2,
		"sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
			{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[-40,-30],[35,-25],[30,35],[-35,30],[-40,-30]]]}},
			{"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[-80,10],[0,-20],[80,15]]}}]}}},
		"layers": [`+layers+`]}`)
	v := View{Zoom: 2, Width: 512, Height: 512, PixelRatio: 1}
	first, err := r.Render(context.Background(), st, v, mapResources{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		img, err := r.Render(context.Background(), st, v, mapResources{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(img.Pix, first.Pix) {
			t.Fatalf("render %d differs from the first", i+2)
		}
	}
}

// TestDecodedTileKeyedByZoom draws a source whose tile URL has no {z} (every
// tile the same file, as the suite's extent tests have it) at zoom 0 and
// then at zoom 1 with one renderer: the tile decoded for 0/0/0 must not stand
// in for 1/0/0, whose features lie on another part of the world.
func TestDecodedTileKeyedByZoom(t *testing.T) {
	doc := `{"version": 8, "center": [0, 0], "zoom": %d,
		"sources": {"s": {"type": "vector", "tiles": ["local://tiles/14/8192/8191.pbf"], "maxzoom": 14}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "f", "type": "fill", "source": "s", "source-layer": "b", "paint": {"fill-color": "#c03030"}}
		]}`
	res := localResources{Root: filepath.Join("testdata", "layers")}
	draw := func(r *Renderer, zoom int) *image.RGBA {
		st := parse(t, fmt.Sprintf(doc, zoom))
		img, err := r.Render(context.Background(), st, ViewOf(st, 256, 256, 1), res)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	shared := newRenderer(t)
	z0 := draw(shared, 0)
	if bytes.Equal(z0.Pix, draw(newRenderer(t), 1).Pix) {
		t.Fatal("zoom 0 and zoom 1 draw the same picture: the test shows nothing")
	}
	if got, want := draw(shared, 1), draw(newRenderer(t), 1); !bytes.Equal(got.Pix, want.Pix) {
		t.Error("zoom 1 drawn after zoom 0 by one renderer differs from zoom 1 drawn afresh")
	}
}
