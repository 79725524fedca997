package text

import (
	"reflect"
	"testing"
)

func breaksOf(s string, maxWidth float64) []int {
	rs := []rune(s)
	return LineBreaks(len(rs), func(i int) rune { return rs[i] }, func(i int) float64 {
		if rs[i] == ' ' {
			return 6
		}
		return 12
	}, maxWidth)
}

func TestLineBreaks(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		maxWidth float64
		want     []int
	}{
		{"fits", "ab cd", 240, nil},
		{"no width, no breaks", "ab cd", 0, nil},
		{"two balanced lines", "aaaa bbbb", 60, []int{5}},
		// Three words over two lines: the break that balances the
		// lines best goes after the second word.
		{"balanced, not greedy", "aa bb cccc", 80, []int{6}},
		{"three lines", "Test Test Test", 60, []int{5, 10}},
		{"two of three words on the first line", "Test Test Test", 120, []int{10}},
		{"newline forces a break", "ab\ncd", 240, []int{3}},
		{"after a hyphen", "aaaa-bbbb", 60, []int{5}},
		{"ideographs break anywhere", "中文中文", 30, []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := breaksOf(tc.text, tc.maxWidth); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LineBreaks(%q, %v) = %v, want %v", tc.text, tc.maxWidth, got, tc.want)
			}
		})
	}
}
