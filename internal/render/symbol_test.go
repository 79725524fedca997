package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/render/rendertest"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/glyphs"
)

// glyphRange builds a glyph PBF whose glyphs are solid squares of 10 px.
func glyphRange(stack string, runes string) []byte {
	fs := glyphs.Fontstack{Name: stack, Range: "0-255"}
	for _, r := range runes {
		bm := make([]byte, 16*16)
		for y := 0; y < 16; y++ {
			for x := 0; x < 16; x++ {
				// Distance to the square's edge, encoded as the ranges do.
				d := math.Min(math.Min(float64(x)+0.5-3, 13-float64(x)-0.5), math.Min(float64(y)+0.5-3, 13-float64(y)-0.5))
				bm[y*16+x] = byte(math.Max(0, math.Min(255, 192+d*32)))
			}
		}
		fs.Glyphs = append(fs.Glyphs, glyphs.Glyph{ID: uint32(r), Bitmap: bm, Width: 10, Height: 10, Left: 0, Top: -12, Advance: 12})
	}
	return glyphs.EncodeRange(fs)
}

func spritePNG(t *testing.T) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			img.SetNRGBA(x, y, color.NRGBA{0, 0, 255, 255})
		}
	}
	return rendertest.EncodePNG(t, img)
}

func TestRenderSymbols(t *testing.T) {
	r := newRenderer(t)
	good := glyphRange("F", "AB")
	tests := []struct {
		name   string
		layout string
		res    mapResources
		// the colour at the centre and 20 px left of it
		centre, left [4]uint8
	}{
		{"text", `"text-field": "A", "text-font": ["F"], "text-size": 24`,
			mapResources{"mem://F/0-255.pbf": good}, [4]uint8{0, 0, 0, 255}, [4]uint8{255, 255, 255, 255}},
		{"format section colour", `"text-field": ["format", "A", {"text-color": "red"}], "text-font": ["F"], "text-size": 24`,
			mapResources{"mem://F/0-255.pbf": good}, [4]uint8{255, 0, 0, 255}, [4]uint8{255, 255, 255, 255}},
		{"corrupt glyph range draws nothing", `"text-field": "A", "text-font": ["F"]`,
			mapResources{"mem://F/0-255.pbf": good[:len(good)/2]}, [4]uint8{255, 255, 255, 255}, [4]uint8{255, 255, 255, 255}},
		{"icon", `"icon-image": "sq"`,
			mapResources{"mem://sprite.json": []byte(`{"sq": {"x": 0, "y": 0, "width": 8, "height": 8, "pixelRatio": 1}}`), "mem://sprite.png": spritePNG(t)},
			[4]uint8{0, 0, 255, 255}, [4]uint8{255, 255, 255, 255}},
		{"corrupt sprite is skipped", `"icon-image": "sq"`,
			mapResources{"mem://sprite.json": []byte(`{"sq": {"x": 0, "y": 0, "width": 80`), "mem://sprite.png": spritePNG(t)},
			[4]uint8{255, 255, 255, 255}, [4]uint8{255, 255, 255, 255}},
		{"icon outside its sheet is skipped", `"icon-image": "sq"`,
			mapResources{"mem://sprite.json": []byte(`{"sq": {"x": 4, "y": 0, "width": 8, "height": 8}}`), "mem://sprite.png": spritePNG(t)},
			[4]uint8{255, 255, 255, 255}, [4]uint8{255, 255, 255, 255}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, pointSymbolStyle(tc.layout, ""))
			img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), tc.res)
			if err != nil {
				t.Fatal(err)
			}
			at := func(x, y int) [4]uint8 {
				o := img.PixOffset(x, y)
				return [4]uint8(img.Pix[o : o+4])
			}
			if p := at(32, 32); p != tc.centre {
				t.Errorf("centre %v, want %v", p, tc.centre)
			}
			if p := at(12, 32); p != tc.left {
				t.Errorf("left %v, want %v", p, tc.left)
			}
		})
	}
}

// pointSymbolStyle is a style of one symbol layer with the layout and
// paint properties given (JSON object members) over a white background,
// drawing a point at the centre of a zoom-0 view, with the glyphs and
// sprite of mem:// URLs.
func pointSymbolStyle(layout, paint string) string {
	return `{"version": 8, "center": [0, 0], "zoom": 0,
		"glyphs": "mem://{fontstack}/{range}.pbf", "sprite": "mem://sprite",
		"sources": {"g": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "s", "type": "symbol", "source": "g", "layout": {` + layout + `}, "paint": {` + paint + `}}]}`
}

func TestVariableAnchor(t *testing.T) {
	r := newRenderer(t)
	// Two labels at one point: the second goes to its next anchor, below.
	for _, tc := range []struct {
		variable string
		below    [4]uint8
	}{
		{`["center", "top"]`, [4]uint8{0, 0, 0, 255}},
		{`["center"]`, [4]uint8{255, 255, 255, 255}},
	} {
		doc := replaceLayout(`{"version": 8, "center": [0, 0], "zoom": 0, "glyphs": "mem://{fontstack}/{range}.pbf",
		"sources": {"g": {"type": "geojson", "data": {"type": "MultiPoint", "coordinates": [[0, 0], [0, 0]]}}},
		"layers": [
			{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "s", "type": "symbol", "source": "g", "layout": {"text-field": "A", "text-font": ["F"], "text-size": 24,
				"text-radial-offset": 1.2, "text-variable-anchor": LAYOUT}}]}`, tc.variable)
		st := parse(t, doc)
		img, err := r.Render(context.Background(), st, ViewOf(st, 128, 128, 1), mapResources{"mem://F/0-255.pbf": glyphRange("F", "A")})
		if err != nil {
			t.Fatal(err)
		}
		at := func(x, y int) [4]uint8 {
			o := img.PixOffset(x, y)
			return [4]uint8(img.Pix[o : o+4])
		}
		if p := at(64, 64); p != [4]uint8{0, 0, 0, 255} {
			t.Errorf("%s: centre %v, want black", tc.variable, p)
		}
		// "top" puts the top of the text box 1.2 em (less GL's baseline
		// allowance) below the point: the glyph square spans 31-41 px
		// below it.
		if p := at(64, 100); p != tc.below {
			t.Errorf("%s: below %v, want %v", tc.variable, p, tc.below)
		}
	}
}

func TestBackgroundPattern(t *testing.T) {
	r := newRenderer(t)
	// A 2x2 pattern of red and blue columns repeats every 2 pixels.
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for y := 0; y < 2; y++ {
		img.SetNRGBA(0, y, color.NRGBA{255, 0, 0, 255})
		img.SetNRGBA(1, y, color.NRGBA{0, 0, 255, 255})
	}
	res := mapResources{"mem://s.json": []byte(`{"p": {"x": 0, "y": 0, "width": 2, "height": 2, "pixelRatio": 1}}`), "mem://s.png": rendertest.EncodePNG(t, img)}
	for _, tc := range []struct {
		name, pattern string
		want0, want1  [4]uint8
	}{
		{"pattern", `"p"`, [4]uint8{255, 0, 0, 255}, [4]uint8{0, 0, 255, 255}},
		{"missing image draws nothing", `"nothing"`, [4]uint8{}, [4]uint8{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 0, "sprite": "mem://s", "sources": {},
				"layers": [{"id": "bg", "type": "background", "paint": {"background-pattern": `+tc.pattern+`}}]}`)
			out, err := r.Render(context.Background(), st, ViewOf(st, 8, 8, 1), res)
			if err != nil {
				t.Fatal(err)
			}
			at := func(x, y int) [4]uint8 {
				o := out.PixOffset(x, y)
				return [4]uint8(out.Pix[o : o+4])
			}
			if p0, p1 := at(4, 4), at(5, 4); p0 != tc.want0 || p1 != tc.want1 {
				t.Errorf("pixels %v %v, want %v %v", p0, p1, tc.want0, tc.want1)
			}
		})
	}
}

func TestSortKeyPlacement(t *testing.T) {
	r := newRenderer(t)
	// Two overlapping labels, red first in the data: the lower sort key
	// is placed first and wins the spot.
	for _, tc := range []struct {
		name, key string
		want      [4]uint8
	}{
		{"data order", `0`, [4]uint8{255, 0, 0, 255}},
		{"sort key", `["get", "k"]`, [4]uint8{0, 0, 255, 255}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 0, "glyphs": "mem://{fontstack}/{range}.pbf",
				"sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
					{"type": "Feature", "properties": {"k": 2, "c": "red"}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
					{"type": "Feature", "properties": {"k": 1, "c": "blue"}, "geometry": {"type": "Point", "coordinates": [0, 0]}}]}}},
				"layers": [
					{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
					{"id": "s", "type": "symbol", "source": "g", "layout": {"text-field": "A", "text-font": ["F"], "text-size": 24,
						"symbol-sort-key": `+tc.key+`}, "paint": {"text-color": ["get", "c"]}}]}`)
			img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), mapResources{"mem://F/0-255.pbf": glyphRange("F", "A")})
			if err != nil {
				t.Fatal(err)
			}
			o := img.PixOffset(32, 32)
			if p := [4]uint8(img.Pix[o : o+4]); p != tc.want {
				t.Errorf("centre %v, want %v", p, tc.want)
			}
		})
	}
}

// TestTextImages draws images inside text: the 8x8 square of the sprite
// as one glyph of a label at text-size 24 (scale 1), so its advance spans
// 4 pixels each side of the anchor and, as GL places an image glyph, it is
// drawn from one pixel into the advance and 2 pixels below the anchor
// (the line's em bottom-aligns it 16 below the glyph box's -17, and its
// top is 3 below that).
func TestTextImages(t *testing.T) {
	r := newRenderer(t)
	sprite := func(sdf bool) mapResources {
		return mapResources{
			"mem://sprite.json": []byte(fmt.Sprintf(`{"sq": {"x": 0, "y": 0, "width": 8, "height": 8, "pixelRatio": 1, "sdf": %t},
				"wide": {"x": 0, "y": 0, "width": 8, "height": 8, "pixelRatio": 1}}`, sdf)),
			"mem://sprite.png": spritePNG(t), "mem://F/0-255.pbf": glyphRange("F", "AB")}
	}
	white, blue, red := [4]uint8{255, 255, 255, 255}, [4]uint8{0, 0, 255, 255}, [4]uint8{255, 0, 0, 255}
	type probe struct {
		x, y int
		want [4]uint8
	}
	tests := []struct {
		name   string
		layout string
		res    mapResources
		probes []probe
	}{
		{"image alone", `"text-field": ["format", ["image", "sq"], {}], "text-font": ["F"], "text-size": 24`, sprite(false),
			[]probe{{33, 37, blue}, {29, 34, blue}, {36, 41, blue}, {28, 37, white}, {37, 37, white}, {33, 33, white}, {33, 42, white}}},
		{"image at half the text size is drawn at its size", `"text-field": ["format", ["image", "sq"], {}], "text-font": ["F"], "text-size": 12`, sprite(false),
			[]probe{{32, 34, blue}, {29, 34, blue}, {36, 34, blue}, {28, 34, white}, {37, 34, white}}},
		{"missing image draws nothing", `"text-field": ["format", ["image", "nope"], {}], "text-font": ["F"], "text-size": 24`, sprite(false),
			[]probe{{33, 37, white}}},
		{"SDF image takes the text colour", `"text-field": ["format", ["image", "sq"], {}], "text-font": ["F"], "text-size": 24`, sprite(true),
			[]probe{{33, 37, red}, {33, 33, white}}},
		// icon-text-fit takes the text's box: the image's 8-pixel advance
		// across and the line's 24 pixels down.
		{"icon-text-fit counts the image", `"text-field": ["format", ["image", "sq"], {}], "text-font": ["F"], "text-size": 24,
			"icon-image": "wide", "icon-text-fit": "both"`, sprite(true),
			[]probe{{32, 22, blue}, {35, 22, blue}, {28, 22, blue}, {37, 22, white}, {26, 22, white}, {33, 37, red}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, pointSymbolStyle(tc.layout, `"text-color": "red"`))
			img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), tc.res)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.probes {
				o := img.PixOffset(p.x, p.y)
				if got := [4]uint8(img.Pix[o : o+4]); got != p.want {
					t.Errorf("pixel %d,%d = %v, want %v", p.x, p.y, got, p.want)
				}
			}
		})
	}
}

// TestVariableAnchorOffset draws one label whose only anchor-offset pair
// puts it to the left of its point: its pixels are all left of the point.
func TestVariableAnchorOffset(t *testing.T) {
	root := fixtures.Path(t, "render-tests")
	r := newRenderer(t)
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 2, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
		"sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
		"layers": [{"id": "l", "type": "symbol", "source": "p", "layout": {"text-field": "Westward", "text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"],
			"text-variable-anchor-offset": ["right", [-0.5, 0]]}}]}`)
	img, err := r.Render(context.Background(), st, View{Zoom: 2, Width: 200, Height: 100, PixelRatio: 1}, localResources{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ink, ok := inkBox(img, 0)
	if !ok {
		t.Fatal("no label drawn")
	}
	minX, maxX := ink.Min.X, ink.Max.X-1
	// Anchored right and moved half an em (8 px at 16 px) further left.
	if maxX > 100-7 || minX > 50 {
		t.Errorf("label spans x %d..%d; want it ending left of the point (x 100) by about 8 px", minX, maxX)
	}
}

// TestWritingMode draws a CJK point label written vertically: a column
// taller than wide, centred on its point; the same label with the modes
// horizontal then vertical, and a Latin label asked to be vertical, lie
// wider than tall.
func TestWritingMode(t *testing.T) {
	r := newRenderer(t)
	tests := []struct {
		name, text, modes string
		tall              bool
	}{
		{"vertical CJK", "上京九五", `["vertical"]`, true},
		{"vertical CJK and Latin", "丸井 JR", `["vertical"]`, true},
		{"horizontal first", "上京九五", `["horizontal", "vertical"]`, false},
		{"vertical Latin stays horizontal", "Tokyo", `["vertical"]`, false},
		{"no writing mode", "上京九五", `["horizontal"]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 2, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
				"sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}}},
				"layers": [{"id": "l", "type": "symbol", "source": "p", "layout": {"text-field": "`+tc.text+`", "text-font": ["NotoCJK"],
					"text-writing-mode": `+tc.modes+`}}]}`)
			img, err := r.Render(context.Background(), st, View{Zoom: 2, Width: 200, Height: 200, PixelRatio: 1}, localResources{Root: filepath.Join("testdata", "layers")})
			if err != nil {
				t.Fatal(err)
			}
			ink, ok := inkBox(img, 0)
			if !ok {
				t.Fatal("no label drawn")
			}
			minX, minY, maxX, maxY := ink.Min.X, ink.Min.Y, ink.Max.X-1, ink.Max.Y-1
			w, h := maxX-minX+1, maxY-minY+1
			if tall := h > w; tall != tc.tall {
				t.Errorf("label is %d x %d px: taller than wide %v, want %v", w, h, tall, tc.tall)
			}
			// Centred on the point (100, 100) within a few pixels.
			if cx, cy := (minX+maxX)/2, (minY+maxY)/2; max(cx-100, 100-cx) > 4 || max(cy-100, 100-cy) > 4 {
				t.Errorf("label centred at (%d, %d), want about (100, 100)", cx, cy)
			}
		})
	}
}

// inkBox returns the box of the pixels of img whose alpha is over alpha,
// false when there are none.
func inkBox(img *image.RGBA, alpha uint8) (image.Rectangle, bool) {
	box := image.Rectangle{}
	found := false
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if img.RGBAAt(x, y).A > alpha {
				px := image.Rect(x, y, x+1, y+1)
				if found {
					box = box.Union(px)
				} else {
					box, found = px, true
				}
			}
		}
	}
	return box, found
}

// TestPlacementTileOrder: GL JS places a layer's symbols tile by tile,
// the tiles ordered by column and then by row (the top left tile first),
// so of two labels that collide across a tile edge with the same sort
// key, the one in the tile earlier in that order wins.
func TestPlacementTileOrder(t *testing.T) {
	// One point in each tile of zoom 1, 30 units (1.3 degrees) from the
	// world's centre: their labels overlap.
	type point struct {
		x, y   int
		at     mvt.XY
		colour [4]uint8
	}
	points := map[string]point{
		"tl": {0, 0, mvt.XY{X: 4066, Y: 4066}, [4]uint8{255, 0, 0, 255}},
		"tr": {1, 0, mvt.XY{X: 30, Y: 4066}, [4]uint8{0, 128, 0, 255}},
		"bl": {0, 1, mvt.XY{X: 4066, Y: 30}, [4]uint8{0, 0, 255, 255}},
		"br": {1, 1, mvt.XY{X: 30, Y: 30}, [4]uint8{0, 0, 0, 255}},
	}
	for _, tc := range []struct {
		name   string
		points []string
		want   string
	}{
		{"four tiles", []string{"br", "bl", "tr", "tl"}, "tl"},
		{"column before row", []string{"tr", "bl"}, "bl"},
		{"row within a column", []string{"br", "tr"}, "tr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A renderer of its own: the tiles' URLs are the same in
			// every case, and a renderer keeps decoded tiles.
			r := newRenderer(t)
			res := mapResources{"mem://F/0-255.pbf": glyphRange("F", "A")}
			for x := range 2 {
				for y := range 2 {
					l, err := mvt.NewLayerBuilder("p", 4096)
					if err != nil {
						t.Fatal(err)
					}
					for _, name := range tc.points {
						if p := points[name]; p.x == x && p.y == y {
							c := fmt.Sprintf("rgb(%d,%d,%d)", p.colour[0], p.colour[1], p.colour[2])
							if _, err := l.Add(mvt.Feature{Geometry: mvt.Geometry{Type: mvt.Point, Points: []mvt.XY{p.at}}, Properties: map[string]any{"c": c}}); err != nil {
								t.Fatal(err)
							}
						}
					}
					tile, err := mvt.EncodeTile(l)
					if err != nil {
						t.Fatal(err)
					}
					res[fmt.Sprintf("mem://t/1/%d/%d.pbf", x, y)] = tile
				}
			}
			st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 1, "glyphs": "mem://{fontstack}/{range}.pbf",
				"sources": {"v": {"type": "vector", "maxzoom": 1, "tiles": ["mem://t/{z}/{x}/{y}.pbf"]}},
				"layers": [
					{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
					{"id": "s", "type": "symbol", "source": "v", "source-layer": "p", "layout": {"text-field": "A", "text-font": ["F"], "text-size": 24},
						"paint": {"text-color": ["get", "c"]}}]}`)
			img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), res)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for o := 0; o < len(img.Pix); o += 4 {
				for name, p := range points {
					if [4]uint8(img.Pix[o:o+4]) == p.colour {
						seen[name]++
					}
				}
			}
			if seen[tc.want] == 0 || len(seen) != 1 {
				t.Errorf("labels drawn (pixels by point): %v, want only %s", seen, tc.want)
			}
		})
	}
}

func replaceLayout(doc, layout string) string {
	return string(bytes.Replace([]byte(doc), []byte("LAYOUT"), []byte(layout), 1))
}
