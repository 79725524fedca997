package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"log/slog"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/symbols"
	"github.com/tesseramaps/tessera/internal/style"
)

// layoutStyle is a style of one symbol layer over a vector tile of zoom 0
// with a labelled point, drawn with mem:// glyphs and sprite.
const layoutStyle = `{"version": 8, "center": [0, 0], "zoom": 0,
	"glyphs": "mem://{fontstack}/{range}.pbf", "sprite": "mem://sprite",
	"sources": {"v": {"type": "vector", "maxzoom": 0, "tiles": ["mem://t/{z}/{x}/{y}.pbf"]}},
	"layers": [
		{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
		{"id": "s", "type": "symbol", "source": "v", "source-layer": "p",
			"layout": {"text-field": "AB", "text-font": ["F"], "text-size": 24, "icon-image": "sq", "text-offset": [0, 1.5]},
			"paint": {"text-color": "black"}}]}`

// layoutResources returns the resources of layoutStyle: glyphs of the
// given advance (0: none served) and a sprite icon of the given size and
// colour.
func layoutResources(t *testing.T, advance uint32, icon int, c color.NRGBA) mapResources {
	l, err := mvt.NewLayerBuilder("p", 4096)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(mvt.Feature{Geometry: mvt.Geometry{Type: mvt.Point, Points: []mvt.XY{{X: 2048, Y: 2048}}}}); err != nil {
		t.Fatal(err)
	}
	tile, err := mvt.EncodeTile(l)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, icon, icon))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	sheet := rendertest.EncodePNG(t, img)
	res := mapResources{
		"mem://t/0/0/0.pbf": tile,
		"mem://sprite.json": fmt.Appendf(nil, `{"sq": {"x": 0, "y": 0, "width": %d, "height": %d, "pixelRatio": 1}}`, icon, icon),
		"mem://sprite.png":  sheet,
	}
	if advance > 0 {
		stacks, err := glyphs.DecodeRange(glyphRange("F", "AB"))
		if err != nil {
			t.Fatal(err)
		}
		var gs []glyphs.Glyph
		for _, g := range stacks[0].Glyphs {
			g.Advance = advance
			gs = append(gs, g)
		}
		res["mem://F/0-255.pbf"] = glyphs.EncodeRange(glyphs.Fontstack{Name: "F", Range: "0-255", Glyphs: gs})
	}
	return res
}

// TestLayoutCacheStale: a kept layout is not used once the glyphs or the
// sprite it was made from change under the same style; the picture is
// the one a renderer that kept nothing draws.
func TestLayoutCacheStale(t *testing.T) {
	st := parse(t, layoutStyle)
	blue, red := color.NRGBA{0, 0, 255, 255}, color.NRGBA{255, 0, 0, 255}
	steps := []struct {
		name string
		res  mapResources
	}{
		{"first", layoutResources(t, 12, 8, blue)},
		{"same", layoutResources(t, 12, 8, blue)},
		{"wider glyphs", layoutResources(t, 24, 8, blue)},
		{"no glyphs", layoutResources(t, 0, 8, blue)},
		{"glyphs back", layoutResources(t, 24, 8, blue)},
		{"bigger icon", layoutResources(t, 24, 16, blue)},
		{"other icon colour", layoutResources(t, 24, 16, red)},
	}
	r := testRenderer(t, true)
	v := ViewOf(st, 128, 128, 1)
	var last any
	var lastImg *image.RGBA
	for i, step := range steps {
		img, err := r.Render(context.Background(), st, v, step.res)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := New(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		fresh.layouts = symbols.NewLayoutCache(0)
		want, err := fresh.Render(context.Background(), st, v, step.res)
		if err != nil {
			t.Fatal(err)
		}
		if n := differentPixels(img, want); n != 0 {
			t.Errorf("%s: %d pixels differ from a render with no kept layout", step.name, n)
		}
		if r.layouts.Len() != 1 {
			t.Fatalf("%s: %d layouts kept, want 1", step.name, r.layouts.Len())
		}
		var tl any
		for _, v := range r.layouts.All() {
			tl = v
		}
		if reused := tl == last; reused != (step.name == "same") {
			t.Errorf("%s: layout reused %v", step.name, reused)
		}
		if changed := i > 0 && differentPixels(img, lastImg) != 0; i > 0 && changed == (step.name == "same") {
			t.Errorf("%s: the picture changed %v", step.name, changed)
		}
		last, lastImg = tl, img
	}
}

func differentPixels(a, b *image.RGBA) int {
	if a.Rect != b.Rect {
		return a.Rect.Dx() * a.Rect.Dy()
	}
	n := 0
	for i := 0; i < len(a.Pix); i += 4 {
		if [4]uint8(a.Pix[i:i+4]) != [4]uint8(b.Pix[i:i+4]) {
			n++
		}
	}
	return n
}

// streetViews returns the street style of the shared benchmark and views
// of it that share its tiles: other zooms (one of another layout zoom,
// whose line labels are laid out on the tiles sliced), a pan, a turn, @2x,
// a tilt, and a margin and grid of labels as raster tiles have them.
func streetViews(t *testing.T) (*style.Style, sources.Resources, []View) {
	st, res := streetStyle(t)
	base := ViewOf(st, 384, 384, 1)
	views := []View{base}
	add := func(f func(v *View)) {
		v := base
		f(&v)
		views = append(views, v)
	}
	add(func(v *View) { v.Zoom += 0.6 })
	add(func(v *View) { v.Zoom += 1.3 })
	add(func(v *View) { v.Center[0] += 0.004 })
	add(func(v *View) { v.Bearing = 30 })
	add(func(v *View) { v.Width, v.Height, v.PixelRatio = 256, 256, 2 })
	add(func(v *View) { v.Zoom, v.Pitch = v.Zoom+1.3, 20 })
	add(func(v *View) { v.LabelMargin, v.LabelGrid = 128, 256 })
	return st, res, views
}

// TestLayoutCacheViews: views drawn from kept layouts (made by other
// views or by the same) are those of a renderer that keeps none.
func TestLayoutCacheViews(t *testing.T) {
	st, res, views := streetViews(t)
	want := make([]*image.RGBA, len(views))
	ref := testRenderer(t, false)
	for i, v := range views {
		var err error
		if want[i], err = ref.Render(context.Background(), st, v, res); err != nil {
			t.Fatal(err)
		}
	}
	r := testRenderer(t, true)
	for pass := range 2 {
		for i, v := range views {
			img, err := r.Render(context.Background(), st, v, res)
			if err != nil {
				t.Fatal(err)
			}
			if n := differentPixels(img, want[i]); n != 0 {
				t.Errorf("pass %d, view %d (%+v): %d pixels differ", pass, i, v, n)
			}
		}
		if r.layouts.Len() == 0 || r.layouts.Bytes() > symbols.DefaultLayoutCacheBytes {
			t.Errorf("pass %d: %d layouts of %d bytes kept", pass, r.layouts.Len(), r.layouts.Bytes())
		}
		// The layouts of the layers without icons serve 1x and @2x; the
		// others are kept for each.
		sprites := r.layouts.BySprite()
		if sprites["none"] == 0 || sprites["1x"] == 0 || sprites["@2x"] == 0 {
			t.Errorf("pass %d: layouts by sprite %v", pass, sprites)
		}
	}
}

// TestLayoutCacheConcurrent renders two views at once on one renderer,
// sharing kept layouts, again and again.
func TestLayoutCacheConcurrent(t *testing.T) {
	st, res, views := streetViews(t)
	views = []View{views[0], views[3]} // a pan: the same tiles
	ref := testRenderer(t, false)
	want := make([]*image.RGBA, len(views))
	for i, v := range views {
		var err error
		if want[i], err = ref.Render(context.Background(), st, v, res); err != nil {
			t.Fatal(err)
		}
	}
	r := testRenderer(t, true)
	var wg sync.WaitGroup
	for i, v := range views {
		wg.Go(func() {
			for range 3 {
				img, err := r.Render(context.Background(), st, v, res)
				if err != nil {
					t.Error(err)
					return
				}
				if n := differentPixels(img, want[i]); n != 0 {
					t.Errorf("view %d: %d pixels differ", i, n)
				}
			}
		})
	}
	wg.Wait()
}

// TestLayoutCacheFittedIconSpots: the anchors along a line of a label
// whose icon is fitted to its text, which depend on the text's size at the
// view's zoom, are not kept: two views of one layout zoom draw them apart.
func TestLayoutCacheFittedIconSpots(t *testing.T) {
	l, err := mvt.NewLayerBuilder("p", 4096)
	if err != nil {
		t.Fatal(err)
	}
	line := []mvt.XY{{X: -100, Y: 2048}, {X: 4196, Y: 2048}}
	if ok, err := l.Add(mvt.Feature{Geometry: mvt.Geometry{Type: mvt.LineString, Lines: [][]mvt.XY{line}}}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	tile, err := mvt.EncodeTile(l)
	if err != nil {
		t.Fatal(err)
	}
	res := layoutResources(t, 12, 8, color.NRGBA{0, 0, 255, 255})
	res["mem://t/0/0/0.pbf"] = tile
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 0,
		"glyphs": "mem://{fontstack}/{range}.pbf", "sprite": "mem://sprite",
		"sources": {"v": {"type": "vector", "maxzoom": 0, "tiles": ["mem://t/{z}/{x}/{y}.pbf"]}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "s", "type": "symbol", "source": "v", "source-layer": "p",
				"layout": {"symbol-placement": "line", "symbol-spacing": 100, "text-field": "AB", "text-font": ["F"],
					"text-size": ["interpolate", ["linear"], ["zoom"], 0, 8, 1, 40],
					"icon-image": "sq", "icon-text-fit": "both", "icon-text-fit-padding": [0, 30, 0, 30]},
				"paint": {"text-color": "black"}}]}`)
	views := []View{{Zoom: 0.9, Width: 400, Height: 120, PixelRatio: 1}, {Zoom: 0.1, Width: 400, Height: 120, PixelRatio: 1}}
	r := testRenderer(t, true)
	ref := testRenderer(t, false)
	for i, v := range views {
		img, want := renderPair(t, r, ref, st, v, res)
		if n := differentPixels(img, want); n != 0 {
			t.Errorf("view %d: %d pixels differ", i, n)
		}
	}
	if r.layouts.Len() != 1 {
		t.Errorf("%d layouts kept, want 1", r.layouts.Len())
	}
}

// TestLayoutsGoWithTheirTiles: a layout points into its decoded tile, so
// the renderer keeps it only while it keeps the tile: when other tiles push
// the street tiles out of the decoded tiles' cache, their layouts go too,
// and the views drawn after are those of a renderer that keeps nothing.
func TestLayoutsGoWithTheirTiles(t *testing.T) {
	st, res, views := streetViews(t)
	r := testRenderer(t, true)
	ref := testRenderer(t, false)
	check := func(when string) int {
		for _, p := range r.layouts.Check(r.decoded.Holds) {
			t.Errorf("%s: %s", when, p)
		}
		return r.layouts.Len()
	}
	if _, err := r.Render(context.Background(), st, views[0], res); err != nil {
		t.Fatal(err)
	}
	if check("first view") == 0 {
		t.Fatal("no layout kept after a view: the test shows nothing")
	}
	// Other tiles take the decoded tiles' room.
	for i := range 8 {
		r.decoded.Put(fmt.Sprint("other-", i), &sources.VectorTile{Size: r.decoded.Max() / 5})
	}
	if n := check("others read"); n != 0 {
		t.Errorf("%d layouts kept after their tiles were let go of", n)
	}
	for _, v := range views {
		img, want := renderPair(t, r, ref, st, v, res)
		if n := differentPixels(img, want); n != 0 {
			t.Errorf("view %+v: %d pixels differ from a render with no kept layout", v, n)
		}
		check(fmt.Sprintf("view %+v", v))
	}
}

// TestKeepLayouts: a renderer told not to keep layouts lets go of those it
// kept and keeps none after, and draws the same pictures.
func TestKeepLayouts(t *testing.T) {
	st, res, views := streetViews(t)
	r := testRenderer(t, true)
	kept, err := r.Render(context.Background(), st, views[0], res)
	if err != nil {
		t.Fatal(err)
	}
	if r.layouts.Len() == 0 {
		t.Fatal("no layout kept by default")
	}
	r.KeepLayouts(false)
	if r.layouts.Len() != 0 || r.layouts.Bytes() != 0 || r.layouts.Tiles() != 0 {
		t.Fatalf("%d layouts (%d bytes) still kept", r.layouts.Len(), r.layouts.Bytes())
	}
	img, err := r.Render(context.Background(), st, views[0], res)
	if err != nil {
		t.Fatal(err)
	}
	if r.layouts.Len() != 0 {
		t.Errorf("%d layouts kept after a render", r.layouts.Len())
	}
	if n := differentPixels(img, kept); n != 0 {
		t.Errorf("%d pixels differ without kept layouts", n)
	}
	r.KeepLayouts(true)
	if _, err := r.Render(context.Background(), st, views[0], res); err != nil {
		t.Fatal(err)
	}
	if r.layouts.Len() == 0 {
		t.Error("no layout kept once told to keep them again")
	}
}

// testRenderer returns a renderer; keep says whether it keeps symbol
// layouts between renders.
func testRenderer(t *testing.T, keep bool) *Renderer {
	t.Helper()
	r := newRenderer(t)
	if !keep {
		r.layouts = symbols.NewLayoutCache(0)
	}
	return r
}

// renderPair draws a view with r and with ref and returns both pictures.
func renderPair(t *testing.T, r, ref *Renderer, st *style.Style, v View, res sources.Resources) (img, want *image.RGBA) {
	t.Helper()
	img, err := r.Render(context.Background(), st, v, res)
	if err != nil {
		t.Fatal(err)
	}
	want, err = ref.Render(context.Background(), st, v, res)
	if err != nil {
		t.Fatal(err)
	}
	return img, want
}
