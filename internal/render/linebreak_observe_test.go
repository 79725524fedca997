package render

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestObserveLineBreaks finds how MapLibre GL JS breaks labels into lines,
// from its pictures (how the observations of
// internal/render/text/testdata/gl-line-breaks.json were made). It runs
// only when TESSERA_LINEBREAK_OBSERVE names a file DIR/NAME.txt of labels,
// one a line: text-max-width in ems, a tab, the text ("\n" for a newline),
// and optionally a tab and text-justify, a tab and text-anchor, a tab and
// text-letter-spacing in ems. DIR holds
// glyphs/ (a link to the suite's render-tests/glyphs).
//
//  1. Without DIR/NAME.png the test writes DIR/NAME.json: the labels in a
//     grid of 3 by 4 cells, 800x600 pixels at zoom 1, in the suite's Open
//     Sans Semibold at 16 px.
//  2. Draw it with MapLibre GL JS (with the RTL text plugin for Arabic):
//     node testdata/maplibre-reference.mjs DIR/NAME.json 800 600 DIR/NAME.png
//     (the script finds playwright-core, maplibre-gl and the plugin where
//     scripts/test-tools-npm.sh installs them; env PLAYWRIGHT_CORE_DIR,
//     MAPLIBRE_DIR, RTL_TEXT_PLUGIN override).
//  3. Run the test again: for each label it draws the text broken at every
//     subset of its spaces and hyphens (up to 11 of them) with
//     text-max-width off and
//     logs the lines whose picture matches GL's cell, pixel for pixel, and
//     Tessera's own lines where they differ.
func TestObserveLineBreaks(t *testing.T) {
	file := os.Getenv("TESSERA_LINEBREAK_OBSERVE")
	if file == "" {
		t.Skip("TESSERA_LINEBREAK_OBSERVE is not set: nothing to observe")
	}
	dir, name := filepath.Dir(file), strings.TrimSuffix(filepath.Base(file), ".txt")
	labels, err := readObservedLabels(file)
	if err != nil {
		t.Fatal(err)
	}
	gl, err := rawNRGBA(filepath.Join(dir, name+".png"))
	if err != nil {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), observeStyle(labels, -1, ""), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skipf("wrote %s.json: draw it with MapLibre GL JS as %s.png", name, name)
	}
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	draw1 := func(doc []byte) *image.NRGBA {
		st := parse(t, string(doc))
		img, err := r.Render(context.Background(), st, ViewOf(st, observeW, observeH, 1), localResources{Root: dir})
		if err != nil {
			t.Fatal(err)
		}
		out := image.NewNRGBA(img.Rect)
		draw.Draw(out, out.Rect, img, img.Rect.Min, draw.Src)
		return out
	}
	ours := draw1(observeStyle(labels, -1, ""))
	for i, l := range labels {
		cell := observeCell(i)
		same := differingIn(ours, gl, cell) == 0
		msg := fmt.Sprintf("%d %q at %g em: ", i, l.text, l.maxWidth)
		lines, ok := matchingBreaks(l.text, func(broken string) bool {
			return differingIn(draw1(observeStyle(labels, i, broken)), gl, cell) == 0
		})
		if ok {
			msg += fmt.Sprintf("GL %q", lines)
		} else {
			msg += "GL's lines not found"
		}
		if !same {
			mine, _ := matchingBreaks(l.text, func(broken string) bool {
				return differingIn(draw1(observeStyle(labels, i, broken)), ours, cell) == 0
			})
			msg += fmt.Sprintf("; Tessera %q", mine)
		}
		t.Log(msg)
	}
}

const observeW, observeH, observeCols, observeRows = 800, 600, 3, 4

// observedLabel is a line of an observation file.
type observedLabel struct {
	maxWidth        float64
	text            string
	justify, anchor string
	spacing         float64
}

func readObservedLabels(file string) ([]observedLabel, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []observedLabel
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) < 2 {
			continue
		}
		w, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", file, sc.Text(), err)
		}
		l := observedLabel{maxWidth: w, text: strings.ReplaceAll(parts[1], `\n`, "\n"), justify: "center", anchor: "center"}
		if len(parts) > 2 {
			l.justify = parts[2]
		}
		if len(parts) > 3 {
			l.anchor = parts[3]
		}
		if len(parts) > 4 {
			if l.spacing, err = strconv.ParseFloat(parts[4], 64); err != nil {
				return nil, fmt.Errorf("%s: %q: %w", file, sc.Text(), err)
			}
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// observeStyle is the grid of labels; with only >= 0 it holds that label
// alone, its text replaced by broken and text-max-width off.
func observeStyle(labels []observedLabel, only int, broken string) []byte {
	var feats []any
	for i, l := range labels {
		if only >= 0 && i != only {
			continue
		}
		cx := (float64(i%observeCols)+0.5)*observeW/observeCols - observeW/2
		cy := (float64(i/observeCols)+0.5)*observeH/observeRows - observeH/2
		lon := cx / 1024 * 360
		lat := math.Atan(math.Sinh(-cy/1024*2*math.Pi)) * 180 / math.Pi
		text, w := l.text, l.maxWidth
		if only >= 0 {
			text, w = broken, 1000
		}
		feats = append(feats, map[string]any{"type": "Feature",
			"properties": map[string]any{"t": text, "w": w, "j": l.justify, "a": l.anchor, "s": l.spacing},
			"geometry":   map[string]any{"type": "Point", "coordinates": []float64{lon, lat}}})
	}
	st := map[string]any{"version": 8, "center": []float64{0, 0}, "zoom": 1, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
		"sources": map[string]any{"p": map[string]any{"type": "geojson", "data": map[string]any{"type": "FeatureCollection", "features": feats}}},
		"layers": []any{
			map[string]any{"id": "bg", "type": "background", "paint": map[string]any{"background-color": "white"}},
			map[string]any{"id": "s", "type": "symbol", "source": "p", "layout": map[string]any{"text-field": []any{"get", "t"},
				"text-font": []any{"Open Sans Semibold", "Arial Unicode MS Bold"}, "text-size": 16,
				"text-max-width": []any{"get", "w"}, "text-justify": []any{"get", "j"}, "text-anchor": []any{"get", "a"},
				"text-letter-spacing": []any{"get", "s"},
				"text-allow-overlap":  true, "text-ignore-placement": true}}}}
	b, _ := json.MarshalIndent(st, "", " ")
	return b
}

// observeCell is the part of the picture label i is drawn in.
func observeCell(i int) image.Rectangle {
	x0 := (i % observeCols) * observeW / observeCols
	y0 := (i / observeCols) * observeH / observeRows
	return image.Rect(x0, y0, x0+observeW/observeCols, y0+observeH/observeRows)
}

// differingIn counts the pixels of r that differ between a and b.
func differingIn(a, b *image.NRGBA, r image.Rectangle) int {
	ca, cb := image.NewNRGBA(r), image.NewNRGBA(r)
	draw.Draw(ca, r, a, r.Min, draw.Src)
	draw.Draw(cb, r, b, r.Min, draw.Src)
	return differing(ca, cb)
}

// matchingBreaks tries text broken at each subset of its spaces and
// hyphens (up to 11 of them: a space is replaced by the newline, a hyphen
// kept at the end of its line) and returns the lines of the first that
// matches.
func matchingBreaks(text string, matches func(broken string) bool) ([]string, bool) {
	rs := []rune(text)
	var at []int
	for i, r := range rs {
		if r == ' ' || (r == '-' && i+1 < len(rs)) {
			at = append(at, i)
		}
	}
	if len(at) > 11 {
		return nil, false
	}
	for mask := 0; mask < 1<<len(at); mask++ {
		var v []rune
		from := 0
		for b, i := range at {
			if mask&(1<<b) == 0 {
				continue
			}
			if rs[i] == ' ' {
				v = append(append(v, rs[from:i]...), '\n')
			} else {
				v = append(append(v, rs[from:i+1]...), '\n')
			}
			from = i + 1
		}
		v = append(v, rs[from:]...)
		if matches(string(v)) {
			return strings.Split(string(v), "\n"), true
		}
	}
	return nil, false
}
