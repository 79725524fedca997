package text

import "math"

// Line breaking of point labels (text-max-width) as balanced lines: a text
// is cut at its forced breaks (newlines) into paragraphs, and each
// paragraph wider than the maximum width is split into the fewest lines
// that could hold it, k = ceil(width / maxWidth), of about the same width
// w = width / k. Among the ways to split it at its break opportunities, the
// one chosen minimises
//
//	sum over lines of (visible width - w)^2 + the break's penalty
//
// by dynamic programming over the opportunities (O(m^2) for m of them,
// which a label keeps small; lines far wider than w are not tried). Of
// splits that cost the same, the one with the shorter last line wins.
//
// Break opportunities: after a space or a hyphen-like character, before
// and after an ideograph (CJK text has no spaces), and after an image
// (LineBreaksWith). Penalties follow the usual rules of CJK typesetting: a
// line should not end with an opening bracket nor begin with a closing
// bracket or a comma or full stop of CJK text.

// breaksAfter reports whether a line may end after r.
func breaksAfter(r rune) bool {
	switch r {
	case ' ', '\t', '-', '\u00ad', // space, tab, hyphen-minus, soft hyphen
		'\u200b',           // zero width space
		'\u2010', '\u2013', // hyphen, en dash
		'\u2027': // hyphenation point
		return true
	}
	return false
}

// blank reports whether r takes no visible room at the end of a line.
func blank(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\u200b':
		return true
	}
	return false
}

// ideograph reports whether r belongs to a script written without spaces,
// where a line may break between any two characters: CJK ideographs and
// their punctuation, kana, hangul, bopomofo, Yi, and full-width forms.
func ideograph(r rune) bool {
	switch {
	case r < 0x2e80:
		return false
	case r <= 0x2fff, // radicals, description characters
		r >= 0x3000 && r <= 0x9fff,   // CJK punctuation, kana, bopomofo, ..., unified ideographs
		r >= 0xa000 && r <= 0xa4cf,   // Yi
		r >= 0xac00 && r <= 0xd7af,   // hangul syllables
		r >= 0xf900 && r <= 0xfaff,   // compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f,   // compatibility forms
		r >= 0xff00 && r <= 0xffef,   // half- and full-width forms
		r >= 0x20000 && r <= 0x3ffff: // supplementary ideographic planes
		return true
	}
	return false
}

// opening and closing list the brackets and punctuation a line should not
// end, respectively begin, with.
const (
	opening = "([{（［｛〔〈《「『【〘〖〚｟«‘“"
	closing = ")]}）］｝〕〉》」』】〙〗〛｠»’”、。，．：；！？・ー々〻ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
)

// avoidPenalty is the cost of a discouraged break, in squared em pixels:
// the same as a line 100 pixels (about four ideographs at the 24-pixel em)
// off its ideal width, so that such a break is taken only when every other
// choice is that much worse.
const avoidPenalty = 100 * 100

func inSet(r rune, set string) bool {
	for _, s := range set {
		if s == r {
			return true
		}
	}
	return false
}

// breakPenalty is the cost of starting a new line with next after prev.
func breakPenalty(prev, next rune) float64 {
	if inSet(prev, opening) || inSet(next, closing) {
		return avoidPenalty
	}
	return 0
}

// LineBreaks chooses where to break a text of n code points (at(i) the
// i-th, width(i) its advance with letter spacing) into lines near maxWidth
// em pixels, in balanced lines with a forced break after each newline. It
// returns the indices where new lines start, in order.
func LineBreaks(n int, at func(int) rune, width func(int) float64, maxWidth float64) []int {
	return LineBreaksWith(n, at, width, maxWidth, nil)
}

// LineBreaksWith is LineBreaks where a line may also break after each i
// for which breakAfter(i) is true (an image in the text); breakAfter may
// be nil.
func LineBreaksWith(n int, at func(int) rune, width func(int) float64, maxWidth float64, breakAfter func(int) bool) []int {
	if maxWidth <= 0 || n == 0 {
		return nil
	}
	t := breakText{at: at, breakAfter: breakAfter, x: make([]float64, n+1)}
	for i := range n {
		t.x[i+1] = t.x[i] + width(i)
	}
	var out []int
	start := 0
	for i := range n {
		if at(i) == '\n' {
			out = append(out, t.balance(start, i+1, maxWidth)...)
			if i+1 < n {
				out = append(out, i+1)
			}
			start = i + 1
		}
	}
	return append(out, t.balance(start, n, maxWidth)...)
}

// breakText is a text being broken: its characters, and x[i] the advance
// of the first i of them.
type breakText struct {
	at         func(int) rune
	breakAfter func(int) bool
	x          []float64
}

// visible is the width of the characters from, to without blanks at the
// end.
func (t *breakText) visible(from, to int) float64 {
	for to > from && blank(t.at(to-1)) {
		to--
	}
	return t.x[to] - t.x[from]
}

// opportunity reports whether a line may start at i (0 < i).
func (t *breakText) opportunity(i int) bool {
	prev, next := t.at(i-1), t.at(i)
	return breaksAfter(prev) || ideograph(prev) || ideograph(next) ||
		(t.breakAfter != nil && t.breakAfter(i-1))
}

// balance returns the line starts inside the paragraph from, to (with no
// forced break inside).
func (t *breakText) balance(from, to int, maxWidth float64) []int {
	total := t.visible(from, to)
	lines := math.Ceil(total / maxWidth)
	if lines <= 1 {
		return nil
	}
	ideal := total / lines
	// Candidate line starts, from first and to last.
	cands := []int{from}
	for i := from + 1; i < to; i++ {
		if t.opportunity(i) {
			cands = append(cands, i)
		}
	}
	cands = append(cands, to)
	// cost[j] is the least cost of the text before cands[j] set in lines,
	// prev[j] the candidate its last line starts at.
	cost := make([]float64, len(cands))
	prev := make([]int, len(cands))
	for j := 1; j < len(cands); j++ {
		end := cands[j]
		last := j == len(cands)-1
		cost[j] = math.Inf(1)
		for i := j - 1; i >= 0; i-- {
			dev := t.visible(cands[i], end) - ideal
			if dev > 0 && dev*dev >= cost[j] {
				break // with advances of zero or more, earlier starts only cost more
			}
			c := cost[i] + dev*dev
			if !last {
				c += breakPenalty(t.at(end-1), t.at(end))
			}
			if c < cost[j] {
				cost[j], prev[j] = c, i
			}
		}
	}
	var starts []int
	for j := prev[len(cands)-1]; j > 0; j = prev[j] {
		starts = append(starts, cands[j])
	}
	for a, b := 0, len(starts)-1; a < b; a, b = a+1, b-1 {
		starts[a], starts[b] = starts[b], starts[a]
	}
	return starts
}
