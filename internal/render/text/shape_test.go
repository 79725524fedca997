package text

import (
	"math"
	"testing"
)

// fixed returns a lookup where every glyph is 10 pixels wide with an
// advance of 12, except the space (advance 6, no bitmap) and 'W' (advance
// 20); '?' is missing.
func fixed(stack string, r rune) (Metrics, bool) {
	switch r {
	case '?':
		return Metrics{}, false
	case ' ':
		return Metrics{Advance: 6}, true
	case 'W':
		return Metrics{Width: 18, Height: 17, Left: 1, Top: -7, Advance: 20}, true
	}
	return Metrics{Width: 10, Height: 17, Left: 1, Top: -7, Advance: 12}, true
}

func xs(sh Shaping) []float64 {
	out := make([]float64, len(sh.Glyphs))
	for i, g := range sh.Glyphs {
		out[i] = g.X
	}
	return out
}

func TestShape(t *testing.T) {
	tests := []struct {
		name                     string
		text                     string
		opt                      Options
		wantX                    []float64
		wantY0                   float64 // y of the first glyph
		left, top, right, bottom float64
		lines                    int
	}{
		{
			name: "centred one line", text: "ab",
			opt:   Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5},
			wantX: []float64{-12, 0}, wantY0: -17,
			left: -12, top: -12, right: 12, bottom: 12, lines: 1,
		},
		{
			name: "left anchored, letter spacing", text: "ab",
			opt:   Options{LineHeight: 24, Spacing: 2, Justify: 0, HAlign: 0, VAlign: 0.5},
			wantX: []float64{0, 14}, wantY0: -17,
			left: 0, top: -12, right: 26, bottom: 12, lines: 1,
		},
		{
			name: "bottom-right anchor with offset", text: "ab",
			opt:   Options{LineHeight: 24, Justify: 1, HAlign: 1, VAlign: 1, Offset: [2]float64{5, -5}},
			wantX: []float64{-19, -7}, wantY0: -17 - 12 - 5,
			left: -19, top: -29, right: 5, bottom: -5, lines: 1,
		},
		{
			name: "missing glyph is left out", text: "a?b",
			opt:   Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5},
			wantX: []float64{-12, 0}, wantY0: -17,
			left: -12, top: -12, right: 12, bottom: 12, lines: 1,
		},
		{
			name: "two lines, right justified", text: "aaaa W",
			opt: Options{LineHeight: 24, MaxWidth: 40, Justify: 1, HAlign: 0.5, VAlign: 0.5},
			// Line 1 "aaaa" is 48 wide, line 2 "W" 20: W moves right by 28.
			wantX: []float64{-24, -12, 0, 12, 4}, wantY0: -29,
			left: -24, top: -24, right: 24, bottom: 24, lines: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := Shape([]Section{{Text: tc.text, FontStack: "f"}}, fixed, tc.opt)
			got := xs(sh)
			if len(got) != len(tc.wantX) {
				t.Fatalf("glyph x = %v, want %v", got, tc.wantX)
			}
			for i := range got {
				if math.Abs(got[i]-tc.wantX[i]) > 1e-9 {
					t.Fatalf("glyph x = %v, want %v", got, tc.wantX)
				}
			}
			if sh.Glyphs[0].Y != tc.wantY0 {
				t.Errorf("first glyph y = %v, want %v", sh.Glyphs[0].Y, tc.wantY0)
			}
			if sh.Left != tc.left || sh.Top != tc.top || sh.Right != tc.right || sh.Bottom != tc.bottom {
				t.Errorf("box = %v %v %v %v, want %v %v %v %v", sh.Left, sh.Top, sh.Right, sh.Bottom, tc.left, tc.top, tc.right, tc.bottom)
			}
			if sh.Lines != tc.lines {
				t.Errorf("lines = %d, want %d", sh.Lines, tc.lines)
			}
		})
	}
}

func TestShapeNothing(t *testing.T) {
	sh := Shape([]Section{{Text: "???", FontStack: "f"}}, fixed, Options{LineHeight: 24})
	if len(sh.Glyphs) != 0 || sh.Lines != 0 {
		t.Fatalf("got %d glyphs, %d lines; want none", len(sh.Glyphs), sh.Lines)
	}
}

func TestAnchorAlignAndJustify(t *testing.T) {
	tests := []struct {
		anchor   string
		h, v, js float64
	}{
		{"center", 0.5, 0.5, 0.5},
		{"top-left", 0, 0, 0},
		{"bottom-right", 1, 1, 1},
		{"left", 0, 0.5, 0},
		{"top", 0.5, 0, 0.5},
		{"top-right", 1, 0, 1},
		{"right", 1, 0.5, 1},
		{"bottom-left", 0, 1, 0},
		{"bottom", 0.5, 1, 0.5},
		{"middle", 0.5, 0.5, 0.5}, // not a value: centred
	}
	for _, tc := range tests {
		h, v := AnchorAlign(tc.anchor)
		if h != tc.h || v != tc.v {
			t.Errorf("AnchorAlign(%q) = %v, %v; want %v, %v", tc.anchor, h, v, tc.h, tc.v)
		}
		if js := JustifyOf("auto", tc.anchor); js != tc.js {
			t.Errorf("JustifyOf(auto, %q) = %v, want %v", tc.anchor, js, tc.js)
		}
	}
}

func TestShapeImages(t *testing.T) {
	img := func(w, h float64) Section { return Section{Image: &Image{Name: "i", Width: w, Height: h}} }
	txt := func(s string) Section { return Section{Text: s, FontStack: "f"} }
	center := 0.5
	centred := txt("a")
	centred.VAlign = &center
	tests := []struct {
		name   string
		secs   []Section
		opt    Options
		wantX  []float64
		wantY  []float64
		images []bool // which glyphs are images
		box    [4]float64
		lines  int
	}{
		{
			// The image is 30 em pixels tall at scale 1.5: 6 more than the
			// line's em, so the line is 6 taller and the text sits on its
			// bottom, 6 below the image's top.
			name: "tall image pushes the line", secs: []Section{txt("a"), img(20, 20)},
			opt:   Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5, ImageScale: 1.5},
			wantX: []float64{-21, -9}, wantY: []float64{-9, -15}, images: []bool{false, true},
			box: [4]float64{-21, -15, 21, 15}, lines: 1,
		},
		{
			name: "vertical-align center", secs: []Section{centred, img(20, 20)},
			opt:   Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5, ImageScale: 1.5},
			wantX: []float64{-21, -9}, wantY: []float64{-12, -15}, images: []bool{false, true},
			box: [4]float64{-21, -15, 21, 15}, lines: 1,
		},
		{
			name: "image missing from the sprite", secs: []Section{txt("a"), img(0, 0)},
			opt:   Options{LineHeight: 24, Justify: 0.5, HAlign: 0.5, VAlign: 0.5, ImageScale: 1.5},
			wantX: []float64{-6}, wantY: []float64{-17}, images: []bool{false},
			box: [4]float64{-6, -12, 6, 12}, lines: 1,
		},
		{
			name: "letter spacing follows an image", secs: []Section{img(10, 10), txt("a")},
			opt:   Options{LineHeight: 24, Spacing: 2, HAlign: 0, VAlign: 0.5},
			wantX: []float64{0, 12}, wantY: []float64{-3, -17}, images: []bool{true, false},
			box: [4]float64{0, -12, 24, 12}, lines: 1,
		},
		{
			// 20 + 36 wide over 30: two lines, broken after the image,
			// the only place a line may break.
			name: "a line breaks after an image", secs: []Section{img(20, 10), txt("aaa")},
			opt:   Options{LineHeight: 24, MaxWidth: 30, HAlign: 0, VAlign: 0},
			wantX: []float64{0, 0, 12, 24}, wantY: []float64{9, 19, 19, 19}, images: []bool{true, false, false, false},
			box: [4]float64{0, 0, 36, 48}, lines: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := Shape(tc.secs, fixed, tc.opt)
			if len(sh.Glyphs) != len(tc.wantX) {
				t.Fatalf("%d glyphs, want %d", len(sh.Glyphs), len(tc.wantX))
			}
			for i, g := range sh.Glyphs {
				if math.Abs(g.X-tc.wantX[i]) > 1e-9 || math.Abs(g.Y-tc.wantY[i]) > 1e-9 {
					t.Errorf("glyph %d at %v, %v; want %v, %v", i, g.X, g.Y, tc.wantX[i], tc.wantY[i])
				}
				if (g.Image != nil) != tc.images[i] {
					t.Errorf("glyph %d image %v, want %v", i, g.Image != nil, tc.images[i])
				}
			}
			got := [4]float64{sh.Left, sh.Top, sh.Right, sh.Bottom}
			for i := range got {
				if math.Abs(got[i]-tc.box[i]) > 1e-9 {
					t.Errorf("box %v, want %v", got, tc.box)
					break
				}
			}
			if sh.Lines != tc.lines {
				t.Errorf("lines = %d, want %d", sh.Lines, tc.lines)
			}
		})
	}
}
