package render

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestLayersAgainstMapLibre draws the styles of testdata/layers (heatmap,
// fill-extrusion, clustered GeoJSON, line-gradient, fill-, line- and
// circle-sort-key, images in text, vertical CJK writing: what the shared
// suite has no test of)
// and compares them with MapLibre GL JS's pictures of the same styles
// at 400x300 (and some at pixel ratio 2), made by
// testdata/maplibre-reference.mjs in headless Chromium:
//
//	cd testdata/layers && node ../maplibre-reference.mjs NAME.json 400 300 NAME.png   # or NAME@2x.png 2
//
// (MapLibre GL JS 6.17 with the RTL text plugin 0.4.0, both pinned and
// installed by scripts/test-tools-npm.sh into .cache/npm-test, where the
// script finds them; TestMapLibreReferenceRedraw checks that they draw
// the pictures again; the sprite is the suite's emerald sheet).
// Pixels differ by pixelmatch's measure (the conformance threshold). The
// heatmaps and clusters are held to the suite's default allowance
// (0.025%; none differed when the pictures were made); the extrusions to
// 0.05%: a few pixels on the edges where two faces meet land on the other
// face (GL projects in float32; 0.013%, 0.006% and 0.007% with a pattern
// when made). The patterned buildings stay inside one tile of the zoom:
// GL restarts a wall's pattern in each tile a GeoJSON polygon is cut into,
// which Tessera does not do.
//
// Set TESSERA_RENDER_OUT=DIR to keep Tessera's pictures.
func TestLayersAgainstMapLibre(t *testing.T) {
	r := newRenderer(t)
	tests := []struct {
		name  string
		limit float64 // share of differing pixels allowed
		ratio float64 // pixel ratio (0: 1); the picture is NAME@2x.png at 2
	}{
		{"heatmap", 0.00025, 0},
		{"extrusion", 0.0005, 0},
		{"cluster", 0.00025, 0},
		{"heatmap-pitched", 0.00025, 0},
		{"extrusion-light", 0.0005, 0},
		{"cluster-zoom3", 0.00025, 0},
		{"extrusion-pattern", 0.0005, 0},
		// Patterned extrusions from a GeoJSON source whose maxzoom (14)
		// is below the view's zoom (16.5): GL draws its overzoomed tiles of
		// zoom 14, so the walls' pattern starts from those tiles' corners
		// and their heights scale by that zoom (5.3% of pixels differed
		// when the view's zoom was taken).
		{"extrusion-pattern-overzoomed", 0.0005, 0},
		{"extrusion-pattern-overzoomed", 0.0005, 2},
		{"heatmap-pitched", 0.00025, 2},
		{"extrusion-light", 0.0005, 2},
		// The gradients' colours match; 0.03-0.06% of pixels, on one
		// edge of the steep parts of the sine, differ as they do when the
		// same line is drawn in one colour (a sub-pixel difference in
		// GeoJSON line geometry, not in the gradient).
		{"line-gradient", 0.0006, 0},
		{"line-gradient-step", 0.0006, 0},
		{"line-gradient-pitched", 0.00025, 0},
		{"sort-keys", 0.00025, 0},
		// text-overlap never, cooperative and always among dense labels.
		{"overlap", 0.00025, 0},
		// Raster tiles under a tilted, turned camera (testdata/layers/
		// rastergen.go makes the tiles). 0.05% of pixels differ when made,
		// all in the farthest rows, on the tiles' two-pixel white frames:
		// the mipmap level chosen there (by the GPU from its derivatives,
		// here from the neighbouring pixels' places on the map) differs.
		{"raster-pitched", 0.0006, 0},
		// Images inside text (format sections with images beside
		// scaled, coloured and vertically aligned text, line breaking;
		// letter spacing, text-rotate, a bearing and halos; along a line),
		// with the suite's emerald sprite at 1x and 2x, and the glyphs of
		// its Open Sans Semibold. GL samples these images nearest: the
		// anchors are put off half device pixels, where the texel each
		// pixel takes is the GPU's rounding noise (a pixel off, as icons
		// at such ties in the suite).
		{"text-images", 0.00025, 0},
		{"text-images", 0.00025, 2},
		{"text-images-rot", 0.00025, 0},
		{"text-images-line", 0.00025, 0},
		// text-writing-mode: CJK point labels written vertically (upright
		// ideographs, kana and Latin, punctuation in its vertical forms,
		// line breaking into columns, anchors), a Latin label left
		// horizontal, and labels tried horizontally first that are
		// written vertically where their horizontal box is taken; with
		// the suite's NotoCJK glyph ranges the text uses.
		{"vertical", 0.00025, 0},
		// CJK labels along lines steeper than 45 degrees drawn from their
		// vertical alternative (ideographs, kana, numbers and short codes
		// upright, words along the line, surrounded punctuation in its
		// vertical forms), read downwards; flatter lines and a Latin label
		// as along any line.
		{"vertical-line", 0.00025, 0},
		// GeoJSON line labels laid out on the pieces GL cuts the lines
		// into at the view's zoom: line-center labels at the middle of
		// each tile's piece (the line clipped to the tile grown by the
		// source's buffer), one per tile whose piece has its middle in
		// it, so a line crossing a tile border is labelled twice; line
		// labels spaced along each tile's piece from its start.
		{"line-pieces", 0.00025, 0},
		// Text offsets with variable anchors (testdata/layers/text-offsets.json,
		// written by hand; MapLibre GL JS 6.17's picture): for each of the
		// nine anchors text-radial-offset 0 and 1.5 and text-offset [0, 0]
		// and [1, -0.5] taken as absolute values; text-radial-offset with
		// a fixed text-anchor; text-variable-anchor-offset pairs; radial
		// offset before text-offset; a label of two lines. Under a
		// variable anchor GL puts the text box grown by text-padding at
		// the point: without that every such label was 2 px (the default
		// padding) nearer its point, 4.3% of pixels.
		{"text-offsets", 0.00025, 0},
		// Rotated labels (text-rotate 90) under variable anchors, some with
		// text-radial-offset, beside the same with fixed anchors: GL shapes
		// the text about its centre, turns it, puts the anchor's side of
		// the turned box at the point and moves it by the offset unturned.
		{"text-offsets-rotated", 0.00025, 0},
		// A fill layer over GeoJSON lines (testdata/layers/line-fill.json,
		// written by hand): GL fills, and outlines, the ring each line
		// closes, the rings of a MultiLineString grouped by winding (the
		// second, turning the other way, a hole), a line of no area drawn
		// not at all; a line longer than a tile's buffer is cut into the
		// tiles of the view's zoom first and each piece closed in its tile.
		{"line-fill", 0.00025, 0},
		// 72 GeoJSON triangles of every slope at zoom 1.37 and 2.61, their
		// vertices off the pixel grid (testdata/layers/fill-outline-ties*.json,
		// made by a script; MapLibre GL JS 6.17's pictures): GL picks an
		// outline's pixels on its ends snapped to 1/16 pixel, so where an
		// edge crosses a column's (or row's) centre within a sixteenth of
		// a pixel boundary it takes the other pixel than the exact edge's
		// nearest (0.042% and 0.037% of pixels differed so). The 0.024%
		// and 0.014% left are such near ties decided the other way (of
		// 1547 decisive pixels in seven such pictures, the snapped ends
		// give GL's in 1508, the exact ends in 1175).
		{"fill-outline-ties", 0.0003, 0},
		// 24 icons of 18 pixels (a 20-pixel quad with the atlas's
		// padding) on whole and half pixels (testdata/layers/icon-ties.json,
		// made by a script; MapLibre GL JS 6.17's picture): sampled at the
		// nearest texel, a half-pixel anchor puts pixel centres exactly on
		// texel edges, where GL takes the texel after the edge when the
		// pixel's share of the snapped quad is a binary fraction and the
		// one before it otherwise (nearestTexel): 0.985% of pixels
		// differed without. The 0.040% left are four pixels an icon, at the
		// edges whose share is 1/4 and 3/4, where GL's rounding follows
		// the icon's place in its atlas (a picture of the suite's 22-pixel
		// icons alone matched to the pixel; mixed with others, a few
		// differed at ties).
		{"icon-ties", 0.0005, 0},
		{"fill-outline-ties-z2", 0.0002, 0},
		// Arabic labels of two and three paragraphs, some mixed with
		// Latin and digits, broken by text-max-width (5 and 6 em), with
		// text-justify left, right and auto and anchors top, bottom-left
		// and right (testdata/layers/text-rtl-paragraphs.json, written by
		// hand; MapLibre GL JS 6.17 with the @mapbox/mapbox-gl-rtl-text
		// plugin, which maplibre-reference.mjs loads from the test tools;
		// GL 6.17 draws this picture identically without it). Each
		// paragraph is broken towards the whole text's ideal width: 6.058%
		// of pixels differed when every text was set in exactly
		// ceil(width / text-max-width) lines.
		{"text-rtl-paragraphs", 0.00025, 0},
		// text-radial-offset of -1.5 and of 0 everywhere in the groups of
		// text-offsets (testdata/layers/text-radial-negative.json and
		// text-radial-zero.json, made from text-offsets.json; MapLibre GL JS
		// 6.17's pictures): GL places a negative radial offset as 0, and
		// takes a radial offset of 0 as none, so that text-offset applies
		// and a fixed anchor gets no baseline allowance. Before, 5601 and
		// 651 pixels differed.
		{"text-radial-negative", 0.00025, 0},
		{"text-radial-zero", 0.00025, 0},
		// Wide lines' joins (testdata/layers/line-joins.json, written by
		// linejoinsgen.go: corners of 80-pixel lines; MapLibre GL JS
		// 6.17's picture). Round joins turning
		// 70.6, 91.2 and 112.3 degrees, where GL's fans have 3, 4 and 5
		// triangles (one fewer than the nearest whole number of 20 degree
		// steps in the turn: fanTriangles); a miter join and a round one
		// with line-miter-limit 1 at turns of 30 and 20 degrees (miters
		// of 1.035 and 1.015), which GL bevels; a bevel join turning 30
		// degrees, which GL mitres. 0.163% of pixels differed before
		// (round(turn / 20 degrees) triangles, and the miters); 0.027%
		// now: a few pixels on the corners of the lines' butt ends, and
		// one vertex of the 112.3 degree fan (turned 30 degrees) lands
		// one extrusion step (1/63 of the half width) farther out in GL:
		// its x extrusion is 56.47 steps, near the rounding tie.
		{"line-joins", 0.0003, 0},
		// text-variable-anchor-offset (testdata/layers/text-anchor-offsets.json,
		// made by a script from a grid; MapLibre GL JS 6.17's picture): each
		// of the nine anchors with one pair, at text sizes 10 to 16, offsets
		// of both signs, text-line-height 2, a label of two lines and
		// text-padding 5; and crowded labels with lists of four and six
		// pairs, where later pairs are tried as earlier ones collide
		// (text-justify auto, padding 4). The rule (symbols/textoffset.go)
		// was measured in GL's pictures of a grid of 108 labels and 84 more
		// and reproduces their ink boxes to the pixel; without its vertical
		// inset 5.573% of this picture's pixels differ.
		{"text-anchor-offsets", 0.00025, 0},
		// "{a}" tokens of a constant text-field over GeoJSON properties
		// that are arrays (nested, with a null), an object, null, true and
		// 0.1, and a missing one (testdata/layers/text-tokens.json; GL JS
		// 6.17's picture): GL writes them as JavaScript's String() does
		// ("1,2", "[object Object]", "null"), the missing one empty; 1.929%
		// of pixels differed when they were written as JSON.
		{"text-tokens", 0.00025, 0},
		// Extrusions from a vector source past its maxzoom (14), at 15.4,
		// 16.4 and 17.3 under pitch 55 (testdata/layers/tiles, written by
		// mvtgen.go: buildings across the borders of the tiles of zooms
		// 15-17, some on them, one with a courtyard). GL JS 6 cuts the
		// zoom-14 tile into tiles of the view's zoom and builds each one's
		// walls, their pattern from its corner and from where it cut each
		// ring; no wall on a cut, a wall on a tile's border in both tiles.
		// With a pattern 24.5%, 29.5% and 24.8% of pixels differed drawn
		// from the zoom-14 tile; what differs now is the walls two tiles
		// both build within their buffers, where GL's depth precision
		// picks one (see Painter.Extrusion). Without a pattern the tiles
		// change nothing: the plain pictures differed as little before.
		{"extrusion-sliced-z15", 0.015, 0},
		{"extrusion-sliced-z16", 0.0195, 0},
		{"extrusion-sliced-z17", 0.011, 0},
		{"extrusion-sliced-z16", 0.03, 2},
		// Unpitched (16.7): the tiles are as far from the camera, drawn in
		// their order; the walls in the shared stretches differ as often.
		{"extrusion-sliced-flat", 0.0215, 0},
		// At 18.6 (pitch 30, bearing -30) the tiles cut are of zoom 18,
		// GL's deepest, overscaled: 6.9% differ, nearly all in one such
		// stretch of wall, wide there, and on a near roof's edge that
		// differed as much before.
		{"extrusion-sliced-z18", 0.07, 0},
		// The same buildings from a GeoJSON source (buildings.geojson, by
		// mvtgen.go) at 16.4 and 17.3: GL cuts GeoJSON into tiles of the
		// view's zoom and restarts the walls' pattern in each; Tessera
		// still draws each polygon's walls whole (one phase). Building
		// them in the tiles cut as for vector tiles (the source's buffer
		// of 128/512, the 8192 grid) matched one view worse and the other
		// better (9.1% and 4.0%; 7.5% and 9.2% without the buffer): near
		// a border both of GL's tiles build most of a wall within their
		// quarter-tile buffers and which shows falls by triangle (a
		// diagonal seam across the wall in GL's picture). Held at the
		// level reached.
		{"extrusion-geojson-tiles", 0.071, 0},
		{"extrusion-geojson-tiles-z17", 0.0915, 0},
		// Two tall buildings across the border of two zoom-17 tiles cut
		// from a zoom-14 tile, the southern tile out of view (tiles-cut,
		// by mvtgen.go): GL draws only the northern tile's part, up to
		// its buffer, its roof too, with no wall where the tile was cut,
		// and culls the walls that face away, so the buildings stand open
		// towards the camera. 36.5% of pixels differed with whole roofs
		// and every wall drawn.
		{"extrusion-sliced-cut", 0.0005, 0},
		{"extrusion-sliced-plain-z15", 0.0015, 0},
		{"extrusion-sliced-plain-z16", 0.0008, 0},
		{"extrusion-sliced-plain-z17", 0.0005, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s@%gx", tc.name, max(1, tc.ratio)), func(t *testing.T) {
			dir := filepath.Join("testdata", "layers")
			ratio, picture := 1.0, tc.name+".png"
			if tc.ratio > 0 {
				ratio, picture = tc.ratio, fmt.Sprintf("%s@%gx.png", tc.name, tc.ratio)
			}
			raw, err := os.ReadFile(filepath.Join(dir, tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			st := parse(t, string(raw))
			img, err := r.Render(context.Background(), st, ViewOf(st, 400, 300, ratio), localResources{Root: dir})
			if err != nil {
				t.Fatal(err)
			}
			want, err := rawNRGBA(filepath.Join(dir, picture))
			if err != nil {
				t.Fatal(err)
			}
			got := image.NewNRGBA(img.Rect)
			draw.Draw(got, got.Rect, img, img.Rect.Min, draw.Src)
			if !got.Rect.Eq(want.Rect) {
				t.Fatalf("size %v, want %v", got.Rect, want.Rect)
			}
			share := float64(differing(got, want)) / float64(got.Rect.Dx()*got.Rect.Dy())
			t.Logf("%s: %.3f%% of pixels differ", picture, 100*share)
			if share > tc.limit {
				t.Errorf("%.3f%% of pixels differ from MapLibre's, over %.3f%%", 100*share, 100*tc.limit)
			}
			if out := os.Getenv("TESSERA_RENDER_OUT"); out != "" {
				os.MkdirAll(out, 0o755)
				f, err := os.Create(filepath.Join(out, "layers-"+picture))
				if err == nil {
					png.Encode(f, got)
					f.Close()
				}
			}
		})
	}
}

// TestMapLibreReferenceRedraw draws reference pictures of testdata/layers
// again with testdata/maplibre-reference.mjs and the test tools as
// scripts/test-tools-npm.sh installs them (MapLibre GL JS and its RTL text
// plugin found in their node_modules without any variable set), and
// compares them with the pictures kept: the tools reproduce what the
// renderer is held to, Arabic included. Skipped when node, Chromium or
// the packages are absent (failed under TESSERA_REQUIRE_TOOLS=1).
func TestMapLibreReferenceRedraw(t *testing.T) {
	node, chromium, modules := fixtures.MapLibre(t, filepath.Join("@mapbox", "mapbox-gl-rtl-text", "dist", "mapbox-gl-rtl-text.js"))
	dir, err := filepath.Abs(filepath.Join("testdata", "layers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"text-rtl-paragraphs"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name+".png")
			cmd := exec.CommandContext(t.Context(), node, filepath.Join(dir, "..", "maplibre-reference.mjs"), name+".json", "400", "300", out)
			cmd.Dir = dir
			// Only where the tools are: the script finds the packages in
			// them by itself.
			cmd.Env = append(os.Environ(), "TESSERA_NODE_PATH="+modules, "CHROMIUM="+chromium,
				"PLAYWRIGHT_CORE_DIR=", "MAPLIBRE_DIR=", "RTL_TEXT_PLUGIN=")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("maplibre-reference.mjs: %v\n%s", err, b)
			}
			got, err := rawNRGBA(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := rawNRGBA(filepath.Join(dir, name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Rect.Eq(want.Rect) {
				t.Fatalf("size %v, want %v", got.Rect, want.Rect)
			}
			n := differing(got, want)
			t.Logf("%s drawn again: %d pixels differ from the picture kept", name, n)
			// The suite's allowance, as TestLayersAgainstMapLibre: another
			// Chromium may set a few edge pixels otherwise.
			if share := float64(n) / float64(got.Rect.Dx()*got.Rect.Dy()); share > 0.00025 {
				t.Errorf("%.3f%% of pixels differ from the picture kept", 100*share)
			}
		})
	}
}
