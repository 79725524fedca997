package text

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateShapings = flag.Bool("update-shapings", false, "rewrite testdata/shapings.txt from the current Shape")

// varied is a lookup whose advances differ from glyph to glyph (so that
// justification and balancing see lines of different widths): 8 + r mod 7,
// the space 6 with no bitmap, CJK one em; '?' is missing.
func varied(stack string, r rune) (Metrics, bool) {
	switch {
	case r == '?':
		return Metrics{}, false
	case r == ' ':
		return Metrics{Advance: 6}, true
	case r >= 0x3000 && r <= 0x9FFF, r >= 0xFE10 && r <= 0xFF60:
		return Metrics{Width: 22, Height: 22, Left: 1, Top: -5, Advance: OneEm}, true
	}
	adv := float64(8 + int(r)%7)
	return Metrics{Width: int(adv) - 2, Height: 17, Left: 1, Top: -7, Advance: adv}, true
}

// shapeCase is one text of the regression table.
type shapeCase struct {
	name string
	secs []Section
	opt  Options
}

func shapeCases() []shapeCase {
	txt := func(s string) Section { return Section{Text: s, FontStack: "f"} }
	scaled := func(s string, k float64, align *float64) Section {
		return Section{Text: s, FontStack: "g", Scale: k, VAlign: align, Tag: 1}
	}
	img := func(w, h float64, align *float64) Section {
		return Section{Image: &Image{Name: "i", Width: w, Height: h}, VAlign: align, Tag: 2}
	}
	top, mid := 0.0, 0.5
	texts := []struct {
		name string
		secs []Section
		opt  Options
	}{
		{"one line", []Section{txt("Main Street")}, Options{}},
		{"broken", []Section{txt("Rue de la Grande Fontaine Saint Paul")}, Options{MaxWidth: 10 * OneEm}},
		{"newlines and an empty line", []Section{txt("North\n\nGate  Road ")}, Options{MaxWidth: 10 * OneEm}},
		{"letter spacing", []Section{txt("Spaced out words here")}, Options{MaxWidth: 6 * OneEm, Spacing: 3}},
		{"arabic drops spacing", []Section{txt("شارع الملك")}, Options{Spacing: 3}},
		{"bidi", []Section{txt("שלום (world) עולם")}, Options{MaxWidth: 5 * OneEm}},
		{"missing glyphs", []Section{txt("a?b ??")}, Options{}},
		{"mixed scales", []Section{scaled("Big ", 1.6, nil), txt("small "), scaled("tiny", 0.7, &mid), scaled(" top", 1.2, &top)}, Options{MaxWidth: 6 * OneEm}},
		{"mixed scales, tall lines", []Section{scaled("Big\n", 1.5, nil), txt("small")}, Options{LineHeight: 2 * OneEm}},
		{"images", []Section{txt("to "), img(30, 40, nil), txt(" and "), img(12, 8, &mid), txt(" back")}, Options{MaxWidth: 5 * OneEm, ImageScale: 1.25, BreakImageScale: 1.1}},
		{"image on top", []Section{img(20, 50, &top), scaled("x", 1.3, nil)}, Options{ImageScale: 0.8, Spacing: 1}},
		{"short line under a plain one", []Section{txt("Plain\n"), scaled("small print", 0.7, nil)}, Options{MaxWidth: 10 * OneEm}},
		{"only short lines", []Section{scaled("small\nprint", 0.8, nil)}, Options{MaxWidth: 10 * OneEm}},
		{"a line of missing glyphs", []Section{txt("ab\n??\ncd")}, Options{MaxWidth: 10 * OneEm}},
		{"missing image", []Section{txt("a"), img(0, 0, nil), txt("b")}, Options{}},
		{"vertical", []Section{txt("中文（道路）")}, Options{Vertical: true, MaxWidth: 3 * OneEm}},
		{"vertical mixed", []Section{txt("東京 Tower"), scaled("駅", 1.5, nil), img(16, 30, nil)}, Options{Vertical: true, Spacing: 2}},
		{"line vertical", []Section{txt("新宿ABC通り（東）")}, Options{LineVertical: true}},
		{"line vertical scaled", []Section{scaled("大", 1.4, nil), txt("Route 66")}, Options{LineVertical: true, Spacing: 1}},
	}
	anchors := []string{"center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right"}
	justifies := []string{"left", "center", "right", "auto"}
	var out []shapeCase
	for ti, tx := range texts {
		for _, a := range anchors {
			for _, j := range justifies {
				o := tx.opt
				if o.LineHeight == 0 {
					o.LineHeight = 1.2 * OneEm
				}
				o.HAlign, o.VAlign = AnchorAlign(a)
				o.Justify = JustifyOf(j, a)
				if ti%3 == 1 {
					o.Offset = [2]float64{float64(ti), -2.5}
				}
				out = append(out, shapeCase{name: fmt.Sprintf("%s/%s/%s", tx.name, a, j), secs: tx.secs, opt: o})
			}
		}
	}
	return out
}

// formatShaping writes a shaping as one line per glyph after a header line
// with the box, in the form testdata/shapings.txt keeps.
func formatShaping(name string, sh Shaping) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	fmt.Fprintf(&b, "= %s | %s %s %s %s | lines %d vertical %t\n", name, f(sh.Left), f(sh.Top), f(sh.Right), f(sh.Bottom), sh.Lines, sh.Vertical)
	for _, g := range sh.Glyphs {
		img := "-"
		if g.Image != nil {
			img = fmt.Sprintf("%s:%sx%s", g.Image.Name, f(g.Image.Width), f(g.Image.Height))
		}
		fmt.Fprintf(&b, "%U %q %s %d %s %s up=%t adv=%s img=%s\n", g.Rune, g.FontStack, f(g.Scale), g.Tag, f(g.X), f(g.Y), g.Upright, f(g.Metrics.Advance), img)
	}
	return b.String()
}

// TestShapeTable compares Shape over a table of texts (one and more lines,
// mixed scales, images, vertical writing, letter spacing, every anchor and
// justification) with the shapings recorded in testdata/shapings.txt.
// Numbers must agree to 1e-9 em pixels; everything else exactly.
func TestShapeTable(t *testing.T) {
	path := filepath.Join("testdata", "shapings.txt")
	cases := shapeCases()
	if *updateShapings {
		var b strings.Builder
		for _, c := range cases {
			b.WriteString(formatShaping(c.name, Shape(c.secs, varied, c.opt)))
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := readShapings(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cases) {
		t.Fatalf("%s holds %d shapings, the table %d", path, len(want), len(cases))
	}
	for i, c := range cases {
		got := formatShaping(c.name, Shape(c.secs, varied, c.opt))
		if !sameShaping(got, want[i]) {
			t.Errorf("%s:\ngot\n%swant\n%s", c.name, got, want[i])
		}
	}
}

// readShapings splits the recorded file into one text per shaping.
func readShapings(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recorded shapings: %w", err)
	}
	defer f.Close()
	var out []string
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "= ") && cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(line + "\n")
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out, sc.Err()
}

// sameShaping compares two formatted shapings field by field, numbers to
// within 1e-9.
func sameShaping(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		x, errx := strconv.ParseFloat(fa[i], 64)
		y, erry := strconv.ParseFloat(fb[i], 64)
		if errx != nil || erry != nil || math.Abs(x-y) > 1e-9 {
			return false
		}
	}
	return true
}
