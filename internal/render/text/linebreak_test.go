package text

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// testWidth is the advance of r in the tests: 6 for a space, 8 for
// brackets and ASCII punctuation, 24 for an ideograph, 12 otherwise.
func testWidth(r rune) float64 {
	switch {
	case r == ' ':
		return 6
	case ideograph(r):
		return 24
	case r < 0x80 && (r < '0' || r > 'z'):
		return 8
	}
	return 12
}

// uniformWidth is the advance of r in most cases: 6 for a space, 12
// otherwise.
func uniformWidth(r rune) float64 {
	if r == ' ' {
		return 6
	}
	return 12
}

func TestLineBreaks(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		maxWidth float64
		want     []int
		width    func(rune) float64 // uniformWidth when nil
	}{
		{"fits", "ab cd", 240, nil, nil},
		{"no width, no breaks", "ab cd", 0, nil, nil},
		{"two balanced lines", "aaaa bbbb", 60, []int{5}, nil},
		// Three words over two lines: the break that balances the
		// lines best goes after the second word.
		{"balanced, not greedy", "aa bb cccc", 80, []int{6}, nil},
		{"three lines", "Test Test Test", 60, []int{5, 10}, nil},
		// Either break leaves lines 30 from the ideal: the last line is
		// the short one.
		{"two of three words on the first line", "Test Test Test", 120, []int{10}, nil},
		{"newline forces a break", "ab\ncd", 240, []int{3}, nil},
		{"newline at the end", "ab\n", 240, nil, nil},
		{"a newline takes one of the lines", "aaaa bbbb\ncc", 60, []int{5, 10}, nil},
		// The whole text needs two lines, which the newline makes; yet its
		// first paragraph, far wider than the ideal 51, is broken again
		// (MapLibre GL JS draws "aaaa aaa\nb" at text-max-width 4 as
		// aaaa | aaa | b).
		{"a paragraph aims at the whole text's ideal", "aaaa aaa\nb", 80, []int{5, 9}, nil},
		{"after a hyphen", "aaaa-bbbb", 60, []int{5}, nil},
		{"no opportunity", "aaaaaaaaaa", 30, nil, nil},
		{"ideographs break anywhere", "中文中文", 30, []int{2}, nil},
		{"zero width space", "aaaa\u200bbbbb", 60, []int{5}, nil},
		{"hyphenation point", "aaaa\u2027bbbb", 60, []int{5}, nil},
		// The penalties: no line ends with an opening bracket or starts
		// with a closing one or a CJK full stop or comma.
		// Unpenalised, 中文中文( | 中文中文) is the balanced split.
		{"brackets stay with their text", "中文中文(中文中文)", 120, []int{4}, testWidth},
		{"no line starts with a full stop", "中文中文中。文中", 120, []int{4}, testWidth},
		// Unpenalised, the first line would be the ideal 中文中.
		{"no line starts with an ideographic comma", "中文中、文中", 96, []int{4}, testWidth},
		{"no line ends with a full-width bracket", "中文（中文中", 72, []int{4}, testWidth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := []rune(tc.text)
			w := tc.width
			if w == nil {
				w = uniformWidth
			}
			got := LineBreaks(len(rs), func(i int) rune { return rs[i] }, func(i int) float64 { return w(rs[i]) }, tc.maxWidth)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LineBreaks(%q, %v) = %v, want %v", tc.text, tc.maxWidth, got, tc.want)
			}
		})
	}
}

func TestLineBreaksAfterImages(t *testing.T) {
	// Images (X) between words without spaces: breaks only after them.
	rs := []rune("aaaXbbbXccc")
	image := func(i int) bool { return rs[i] == 'X' }
	width := func(i int) float64 { return 12 }
	at := func(i int) rune { return rs[i] }
	if got := LineBreaksWith(len(rs), at, width, 60, image); !reflect.DeepEqual(got, []int{4, 8}) {
		t.Errorf("breaks after images = %v, want [4 8]", got)
	}
	if got := LineBreaksWith(len(rs), at, width, 60, nil); got != nil {
		t.Errorf("without images = %v, want none", got)
	}
}

func TestIdeograph(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want bool
	}{
		{'a', false}, {'‧', false}, {'中', true}, {'。', true}, {'か', true}, {'한', true}, {'（', true}, {'𠀀', true}, {'€', false},
	} {
		if got := ideograph(tc.r); got != tc.want {
			t.Errorf("ideograph(%q) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// FuzzLineBreaks checks that any text, advances and maximum width give
// line starts strictly inside the text, in order, with one after each
// newline that is not the last character.
func FuzzLineBreaks(f *testing.F) {
	f.Add("Test Test Test", []byte{12, 6}, 60.0)
	f.Add("中文（中文）中文\n(民主礁)", []byte{24, 8, 24}, 96.0)
	f.Add("a\n\n\nb c-d\u200be", []byte{0, 200, 3}, 1.0)
	f.Fuzz(func(t *testing.T, s string, widths []byte, maxWidth float64) {
		rs := []rune(s)
		if len(rs) > 512 || len(widths) == 0 {
			return
		}
		width := func(i int) float64 { return float64(int(widths[i%len(widths)]) - 16) }
		got := LineBreaksWith(len(rs), func(i int) rune { return rs[i] }, width, maxWidth, func(i int) bool { return i%7 == 3 })
		prev := 0
		for _, b := range got {
			if b <= prev || b >= len(rs) {
				t.Fatalf("breaks %v of a text of %d", got, len(rs))
			}
			prev = b
		}
		if maxWidth > 0 && len(rs) > 0 {
			for i, r := range rs[:len(rs)-1] {
				if r == '\n' && !slices.Contains(got, i+1) {
					t.Fatalf("no break after the newline at %d: %v", i, got)
				}
			}
		}
	})
}

// BenchmarkLineBreaksLong breaks the longest label the renderer takes
// (1024 code points) of ideographs, every one a break opportunity, into
// the most lines a text gets.
func BenchmarkLineBreaksLong(b *testing.B) {
	rs := []rune(strings.Repeat("中文字", 342))[:1024]
	at := func(i int) rune { return rs[i] }
	width := func(int) float64 { return 24 }
	for b.Loop() {
		LineBreaks(len(rs), at, width, 24*3)
	}
}
