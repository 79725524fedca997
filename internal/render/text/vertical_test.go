package text

import (
	"math"
	"testing"
)

func TestOrientationOf(t *testing.T) {
	tests := []struct {
		r    rune
		want Orientation
	}{
		{'東', Upright},      // CJK ideograph
		{'あ', Upright},      // hiragana
		{'タ', Upright},      // katakana
		{'ー', Neutral},      // the prolonged sound mark is not upright
		{'한', Upright},      // hangul syllable
		{'ᐁ', Upright},      // Canadian syllabics
		{'。', Upright},      // CJK punctuation
		{'「', Neutral},      // CJK brackets are not upright
		{'〜', Neutral},      // the wave dash is among the brackets left out
		{'〰', Neutral},      // wavy dash
		{'︵', Upright},      // a vertical form
		{'﹉', Neutral},      // dashed overline
		{'Ａ', Upright},      // fullwidth Latin
		{'（', Neutral},      // fullwidth parenthesis
		{'ｶ', Neutral},      // halfwidth katakana
		{'A', Rotated},      // Latin
		{'7', Rotated},      // digit
		{'ب', Rotated},      // Arabic
		{'½', Neutral},      // a vulgar fraction
		{'©', Neutral},      // copyright sign
		{'☆', Neutral},      // miscellaneous symbols
		{'☛', Rotated},      // a pointing index
		{'\u02EA', Upright}, // yin departing tone mark
		{'ㄅ', Upright},      // bopomofo
		{'ꀀ', Upright},      // Yi
	}
	for _, tc := range tests {
		if got := OrientationOf(tc.r); got != tc.want {
			t.Errorf("OrientationOf(%q U+%04X) = %d, want %d", tc.r, tc.r, got, tc.want)
		}
	}
}

func TestAllowsVerticalWriting(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"Tokyo", false},
		{"東京", true},
		{"Tokyo 東京", true},
		{"(1) - 2", false},
		{"서울", true},
		{"", false},
	}
	for _, tc := range tests {
		if got := AllowsVerticalWriting(tc.s); got != tc.want {
			t.Errorf("AllowsVerticalWriting(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestToVerticalForms(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"「新宿」駅、渋谷。", "﹁新宿﹂駅︑渋谷︒"},
		{"大阪(おおさか)", "大阪︵おおさか︶"},
		{"東京—大阪", "東京︱大阪"},
		// Beside a rotated character punctuation stays as it is.
		{"A-B", "A-B"},
		{"東京 (Tokyo)", "東京 (Tokyo)"},
		{"東京(大阪)", "東京︵大阪︶"},
		// Punctuation among punctuation turns too.
		{"!?", "︕︖"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := string(ToVerticalForms([]rune(tc.in))); got != tc.want {
			t.Errorf("ToVerticalForms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// cjk is a lookup with full-width ideographs (advance 24), half-width
// Latin (advance 12) and the space (advance 6).
func cjk(stack string, r rune) (Metrics, bool) {
	switch {
	case r == ' ':
		return Metrics{Advance: 6}, true
	case r < 0x80:
		return Metrics{Width: 10, Height: 17, Left: 1, Top: -7, Advance: 12}, true
	}
	return Metrics{Width: 22, Height: 22, Left: 1, Top: -4, Advance: 24}, true
}

func TestShapeVertical(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		opt     Options
		wantX   []float64 // pen positions along the column
		upright []bool
		runes   string // the glyphs drawn
		lines   int
		box     [4]float64 // left, top, right, bottom before turning
	}{
		{
			name: "ideographs stacked an em apart, centred", text: "東京都",
			opt:     Options{LineHeight: 24, HAlign: 0.5, VAlign: 0.5, Vertical: true},
			wantX:   []float64{-36, -12, 12},
			upright: []bool{true, true, true}, runes: "東京都", lines: 1,
			box: [4]float64{-36, -12, 36, 12},
		},
		{
			name: "Latin and digits upright an em each, the space along the column", text: "東 A1",
			opt:     Options{LineHeight: 24, HAlign: 0, VAlign: 0.5, Vertical: true},
			wantX:   []float64{0, 24, 30, 54},
			upright: []bool{true, false, true, true}, runes: "東 A1", lines: 1,
			box: [4]float64{0, -12, 78, 12},
		},
		{
			name: "punctuation in its vertical forms", text: "「東」。",
			opt:     Options{LineHeight: 24, HAlign: 0, VAlign: 0, Vertical: true},
			wantX:   []float64{0, 24, 48, 72},
			upright: []bool{true, true, true, true}, runes: "﹁東﹂︒", lines: 1,
			box: [4]float64{0, 0, 96, 24},
		},
		{
			name: "broken into two columns", text: "東京都大阪府",
			opt:     Options{LineHeight: 24, HAlign: 0, VAlign: 0, MaxWidth: 72, Vertical: true},
			wantX:   []float64{0, 24, 48, 0, 24, 48},
			upright: []bool{true, true, true, true, true, true}, runes: "東京都大阪府", lines: 2,
			box: [4]float64{0, 0, 72, 48},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := Shape([]Section{{Text: tc.text}}, cjk, tc.opt)
			if !sh.Vertical {
				t.Fatal("shaping not marked vertical")
			}
			if got := runesOf(sh); got != tc.runes {
				t.Fatalf("glyphs %q, want %q", got, tc.runes)
			}
			for i, g := range sh.Glyphs {
				if math.Abs(g.X-tc.wantX[i]) > 1e-9 {
					t.Errorf("glyph %d (%q) at x %g, want %g", i, g.Rune, g.X, tc.wantX[i])
				}
				if g.Upright != tc.upright[i] {
					t.Errorf("glyph %d (%q) upright %v, want %v", i, g.Rune, g.Upright, tc.upright[i])
				}
			}
			if sh.Lines != tc.lines {
				t.Errorf("%d lines, want %d", sh.Lines, tc.lines)
			}
			if got := [4]float64{sh.Left, sh.Top, sh.Right, sh.Bottom}; got != tc.box {
				t.Errorf("box %v, want %v", got, tc.box)
			}
		})
	}
}

// TestVerticalShift checks that each upright glyph of a column is drawn an
// advance below the one before it, in the same column, and that a second
// line is a column to the left (once the label is turned clockwise).
func TestVerticalShift(t *testing.T) {
	sh := Shape([]Section{{Text: "東京都大阪府"}}, cjk, Options{LineHeight: 24, MaxWidth: 72, HAlign: 0.5, VAlign: 0.5, Vertical: true})
	if len(sh.Glyphs) != 6 {
		t.Fatalf("%d glyphs, want 6", len(sh.Glyphs))
	}
	for i := 1; i < 3; i++ {
		x0, y0 := sh.Glyphs[i-1].VerticalShift()
		x1, y1 := sh.Glyphs[i].VerticalShift()
		if x1 != x0 || y1-y0 != OneEm {
			t.Errorf("glyph %d shifted (%g, %g) after (%g, %g): want an em below in the same column", i, x1, y1, x0, y0)
		}
	}
	xa, ya := sh.Glyphs[0].VerticalShift()
	xb, yb := sh.Glyphs[3].VerticalShift()
	if xb != xa-24 || yb != ya {
		t.Errorf("second column starts at (%g, %g), first at (%g, %g): want a line to the left", xb, yb, xa, ya)
	}
	// The turned column is centred on the anchor: a single column of one
	// em-wide glyph (left 1 less the SDF border, width 22) spans the
	// anchor's x.
	one := Shape([]Section{{Text: "東"}}, cjk, Options{LineHeight: 24, HAlign: 0.5, VAlign: 0.5, Vertical: true})
	g := one.Glyphs[0]
	dx, _ := g.VerticalShift()
	left := float64(g.Metrics.Left) - g.Metrics.Advance/2 + dx
	if right := left + float64(g.Metrics.Width); math.Abs(left+right) > 1e-9 {
		t.Errorf("glyph spans x %g..%g, want it centred on the anchor", left, right)
	}
}

func TestLineUprights(t *testing.T) {
	tests := []struct {
		name, in, out, up string // up: U upright, - along the line
	}{
		{"ideographs", "東京駅", "東京駅", "UUU"},
		{"a word lies along", "東京Tower", "東京Tower", "UU-----"},
		{"a short code stands", "JR東日本", "JR東日本", "UUUUU"},
		{"four capitals are a word", "ABCD線", "ABCD線", "----U"},
		{"numbers of any length", "国道12345号", "国道12345号", "UUUUUUUU"},
		{"a number's hyphen between uprights turns", "1-2丁目", "1︲2丁目", "UUUUU"},
		{"lower case is not a code", "Ab駅", "Ab駅", "--U"},
		{"spaces end runs and lie", "東 A1 西", "東 A1 西", "U-UU-U"},
		{"punctuation between uprights turns", "東京(駅)", "東京︵駅︶", "UUUUU"},
		{"punctuation beside a word stays", "東京-Tower", "東京-Tower", "UU------"},
		{"ideographic comma takes its form", "東、西", "東︑西", "UUU"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := ToVerticalForms([]rune(tc.in))
			out, up := LineUprights(rs, func(int) bool { return false })
			if string(out) != tc.out {
				t.Errorf("text %q, want %q", string(out), tc.out)
			}
			got := make([]byte, len(up))
			for i, u := range up {
				got[i] = '-'
				if u {
					got[i] = 'U'
				}
			}
			if string(got) != tc.up {
				t.Errorf("uprights %s, want %s", got, tc.up)
			}
		})
	}
}

func TestShapeLineVertical(t *testing.T) {
	lookup := func(_ string, r rune) (Metrics, bool) {
		if r < 0x1100 {
			return Metrics{Advance: 10, Width: 8, Height: 14}, true
		}
		return Metrics{Advance: 24, Width: 22, Height: 22}, true
	}
	sh := Shape([]Section{{Text: "東Tower 12"}}, lookup, Options{LineHeight: 1.2 * OneEm, HAlign: 0.5, VAlign: 0.5, Justify: 0.5, LineVertical: true})
	want := []struct {
		upright bool
		adv     float64 // how far the next glyph's pen is
	}{{true, 24}, {false, 10}, {false, 10}, {false, 10}, {false, 10}, {false, 10}, {false, 10}, {true, 24}, {true, 24}}
	if len(sh.Glyphs) != len(want) {
		t.Fatalf("%d glyphs, want %d", len(sh.Glyphs), len(want))
	}
	for i, w := range want {
		g := sh.Glyphs[i]
		if g.Upright != w.upright {
			t.Errorf("glyph %d (%c) upright %v, want %v", i, g.Rune, g.Upright, w.upright)
		}
		if i+1 < len(want) {
			if d := sh.Glyphs[i+1].X - g.X; math.Abs(d-w.adv) > 1e-9 {
				t.Errorf("glyph %d (%c) advances %v, want %v", i, g.Rune, d, w.adv)
			}
		}
	}
	if sh.Vertical {
		t.Error("a line label's vertical alternative is not turned as a column")
	}
}
