package text

import "math"

// Line breaking of point labels (text-max-width) as balanced lines. A text
// of width W (its advances, without blanks at its end) is set in
// k = ceil(W / maxWidth) lines, or one more than its newlines if that is
// more (fewer when it has fewer break opportunities), of about the same
// width w = W / k. Among the ways to split it into k lines at its break
// opportunities, each newline ending a line, the one chosen minimises
//
//	sum over lines of (visible width - w)^2 + the break's penalty
//
// where a line ending a paragraph (at a newline or the end of the text) and
// shorter than w costs nothing: balanced text may end short, not long. It
// is found by dynamic programming over the opportunities and the lines
// (O(k m^2) for m opportunities at worst; lines far wider than w, or than
// twice the maximum width where there is another way, are not tried). Of
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

// maxLines bounds the lines of one paragraph (and so the work of breaking
// it): text-max-width near zero would otherwise ask for a line per
// character.
const maxLines = 64

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
	return t.balance(maxWidth)
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

// candidate is a place a line may start (or the text end), and whether a
// newline makes it one.
type candidate struct {
	at     int
	forced bool
}

// balance returns the line starts of the text.
func (t *breakText) balance(maxWidth float64) []int {
	n := len(t.x) - 1
	cands := []candidate{{0, true}}
	for i := 1; i < n; i++ {
		switch {
		case t.at(i-1) == '\n':
			cands = append(cands, candidate{i, true})
		case t.opportunity(i):
			cands = append(cands, candidate{i, false})
		}
	}
	cands = append(cands, candidate{n, true})
	m := len(cands)
	paragraphs := 0
	for _, c := range cands[1:] {
		if c.forced {
			paragraphs++
		}
	}
	total := t.visible(0, n)
	k := max(int(math.Min(math.Ceil(total/maxWidth), maxLines)), paragraphs)
	k = min(k, m-1)
	if k <= 1 {
		return nil
	}
	ideal := total / float64(k)
	reach := 2 * maxWidth
	// cost[l][j] is the least cost of setting the text before cands[j] in
	// l lines, prev[l][j] the candidate the last of them starts at.
	cost := make([][]float64, k+1)
	prev := make([][]int, k+1)
	for l := range cost {
		cost[l] = make([]float64, m)
		prev[l] = make([]int, m)
		for j := range cost[l] {
			cost[l][j] = math.Inf(1)
		}
	}
	cost[0][0] = 0
	penalties := make([]float64, m) // of a line ending at each candidate
	for j, c := range cands[1 : m-1] {
		penalties[j+1] = breakPenalty(t.at(c.at-1), t.at(c.at))
	}
	for l := 1; l <= k; l++ {
		for j := l; j < m; j++ {
			if (j == m-1) != (l == k) {
				continue // only the k-th line ends the text
			}
			end, penalty := cands[j].at, penalties[j]
			for i := j - 1; i >= l-1; i-- {
				if math.IsInf(cost[l-1][i], 1) {
					if cands[i].forced {
						break // no line crosses a newline
					}
					continue // (the first line starts at 0 only)
				}
				w := t.visible(cands[i].at, end)
				dev := w - ideal
				if !math.IsInf(cost[l][j], 1) && (dev > 0 && dev*dev >= cost[l][j] || w > reach) {
					// With advances of zero or more, earlier starts only
					// cost more; lines over twice the maximum width are
					// taken only when there is no other way.
					break
				}
				c := cost[l-1][i]
				if !cands[j].forced || dev > 0 {
					c += dev * dev
				}
				c += penalty
				if c < cost[l][j] {
					cost[l][j], prev[l][j] = c, i
				}
				if cands[i].forced {
					break // no line crosses a newline
				}
			}
		}
	}
	if math.IsInf(cost[k][m-1], 1) {
		return nil // not reached: k is at most the lines the text can take
	}
	starts := make([]int, k-1)
	for l, j := k, m-1; l > 1; l-- {
		j = prev[l][j]
		starts[l-2] = cands[j].at
	}
	return starts
}
