package text

import (
	"strings"
	"testing"
)

// visual returns the text in visual order, line by line, as Shape draws
// it (bidi controls left out, mirrored glyphs in right-to-left runs).
func visual(s string, breaks ...int) []string {
	rs := []rune(s)
	b := NewBidi(rs)
	var out []string
	start := 0
	for _, end := range append(breaks, len(rs)) {
		order, rtl := b.Visual(start, end)
		var line []rune
		for k, i := range order {
			r := rs[i]
			if rtl[k] {
				r = Mirror(r)
			}
			line = append(line, r)
		}
		out = append(out, string(line))
		start = end
	}
	return out
}

func TestVisualOrder(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		breaks []int
		want   []string
	}{
		{"left to right is unchanged", "abc def", nil, []string{"abc def"}},
		{"Hebrew is reversed", "אבג", nil, []string{"גבא"}},
		{"numbers stay left to right in RTL text", "אבג 123", nil, []string{"123 גבא"}},
		{"a Hebrew run inside Latin", "abc אבג def", nil, []string{"abc גבא def"}},
		{"a Latin run inside Hebrew", "אבג abc דהו", nil, []string{"והד abc גבא"}},
		{"brackets around Latin in RTL text are mirrored", "אבג (abc)", nil, []string{"(abc) גבא"}},
		{"brackets around Hebrew in LTR text keep the LTR side", "abc (אבג)", nil, []string{"abc (גבא)"}},
		{"brackets inside RTL text are mirrored", "א(ב)ג", nil, []string{"ג(ב)א"}},
		// A minus sign is a neutral, not part of the number: it takes the
		// right-to-left direction around it (UAX #9 W4-W6, N1).
		{"a sign before a number in RTL text", "אבג -1.5", nil, []string{"1.5- גבא"}},
		{"Arabic-Indic digits after Arabic letters", "سلام۳۹", nil, []string{"۳۹مالس"}},
		{"the paragraph direction comes from the first strong letter", "123 אבג abc", nil, []string{"abc גבא 123"}},
		{"bidi controls are removed", "\u202Eabc\u202C", nil, []string{"cba"}},
		{"marks are removed", "abc\u200F", nil, []string{"abc"}},
		// Each line is reordered on its own, with the paragraph's direction:
		// the first line holds the first logical words, the trailing space
		// of a right-to-left line goes to its left.
		{"lines broken on the logical text", "אבג דהו abc def", []int{8, 12}, []string{" והד גבא", " abc", "def"}},
		{"the RTL paragraph's trailing space", "אבג דהו", []int{4}, []string{" גבא", "והד"}},
		{"a newline starts a new paragraph", "abc\nאבג", []int{4}, []string{"abc\n", "גבא"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := visual(tc.in, tc.breaks...)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("visual(%q, %v) = %q, want %q", tc.in, tc.breaks, got, tc.want)
			}
		})
	}
}

// TestPublishedLineBreaking checks the line-breaking example published
// with GL JS's RTL text plugin: an Arabic name and its transliteration,
// shaped, broken in three on the logical text, then reordered.
func TestPublishedLineBreaking(t *testing.T) {
	shaped := []rune(ShapeArabic("مكتبة الإسكندرية Maktabat al-Iskandarīyah"))
	// Break after the Arabic words' trailing space and after "al-".
	first := strings.Index(string(shaped), "Maktabat")
	b1 := len([]rune(string(shaped)[:first]))
	b2 := b1 + len([]rune("Maktabat al-"))
	got := visual(string(shaped), b1, b2)
	want := []string{" \uFE94\uFEF3\uFEAD\uFEAA\uFEE8\uFEDC\uFEB3\uFEF9\uFE8D \uFE94\uFE92\uFE98\uFEDC\uFEE3", "Maktabat al-", "Iskandarīyah"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %+q\nwant  %+q", got, want)
	}
}

// rtlFixed is a lookup where each code point has an advance of its own
// (so that the order of the glyphs shows in their positions).
func rtlFixed(stack string, r rune) (Metrics, bool) {
	if r == ' ' {
		return Metrics{Advance: 6}, true
	}
	return Metrics{Width: 10, Height: 17, Left: 1, Top: -7, Advance: 12}, true
}

func runesOf(sh Shaping) string {
	var b strings.Builder
	for _, g := range sh.Glyphs {
		b.WriteRune(g.Rune)
	}
	return b.String()
}

func TestShapeRTL(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		opt   Options
		want  string // the glyphs in drawing order
		lines int
	}{
		{"Arabic is shaped and reversed", "سلام", Options{LineHeight: 24}, "\uFEE1\uFEFC\uFEB3", 1},
		{"mixed with Latin and digits", "شارع 12 Main", Options{LineHeight: 24}, "Main 12 \uFEC9\uFEAD\uFE8E\uFEB7", 1},
		// Breaking before reordering: the first logical word is on the
		// first line (reordering first would put the last word there).
		{"lines broken before reordering", "אבג דהו", Options{LineHeight: 24, MaxWidth: 40}, "גבאוהד", 2},
		{"mirrored brackets", "אבג (דהו)", Options{LineHeight: 24}, "(והד) גבא", 1},
		{"no letter spacing for Arabic", "بب", Options{LineHeight: 24, Spacing: 5}, "\uFE90\uFE91", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := Shape([]Section{{Text: tc.text}}, rtlFixed, tc.opt)
			if got := runesOf(sh); got != tc.want || sh.Lines != tc.lines {
				t.Errorf("glyphs %+q in %d lines, want %+q in %d", got, sh.Lines, tc.want, tc.lines)
			}
			// Glyphs of a line are laid left to right.
			for i := 1; i < len(sh.Glyphs); i++ {
				a, b := sh.Glyphs[i-1], sh.Glyphs[i]
				if a.Y == b.Y && b.X <= a.X {
					t.Errorf("glyph %d at x %v after %v", i, b.X, a.X)
				}
			}
		})
	}
	// Letter spacing is ignored for Arabic: two joined letters touch.
	sh := Shape([]Section{{Text: "بب"}}, rtlFixed, Options{LineHeight: 24, Spacing: 5})
	if len(sh.Glyphs) == 2 && sh.Glyphs[1].X-sh.Glyphs[0].X != 12 {
		t.Errorf("Arabic glyphs %v apart, want the advance 12", sh.Glyphs[1].X-sh.Glyphs[0].X)
	}
}

// TestVisualIsPermutation reorders pseudo-random mixes of letters,
// numbers, neutrals, brackets and bidi controls: every line's visual order
// must hold each of its characters once, controls left out.
func TestVisualIsPermutation(t *testing.T) {
	alphabet := []rune("aZ אב سل٣9-+.,:( )[]\u00a0\t\n\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u0300\u064e")
	seed := uint32(1)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for c := 0; c < 2000; c++ {
		rs := make([]rune, 1+next(40))
		for i := range rs {
			rs[i] = alphabet[next(len(alphabet))]
		}
		b := NewBidi(rs)
		var breaks []int
		for i := 1; i < len(rs); i++ {
			if next(6) == 0 {
				breaks = append(breaks, i)
			}
		}
		start := 0
		for _, end := range append(breaks, len(rs)) {
			order, rtl := b.Visual(start, end)
			if len(rtl) != len(order) {
				t.Fatalf("%+q: %d directions for %d characters", string(rs), len(rtl), len(order))
			}
			seen := map[int]bool{}
			for _, i := range order {
				if i < start || i >= end || seen[i] {
					t.Fatalf("%+q line %d-%d: order %v", string(rs), start, end, order)
				}
				seen[i] = true
			}
			for i := start; i < end; i++ {
				if !seen[i] && !bidiControl(rs[i]) {
					t.Fatalf("%+q line %d-%d: %U left out", string(rs), start, end, rs[i])
				}
			}
			start = end
		}
		// The shaper takes any such text without panicking.
		Shape([]Section{{Text: string(rs)}}, rtlFixed, Options{LineHeight: 24, MaxWidth: 60})
	}
}
