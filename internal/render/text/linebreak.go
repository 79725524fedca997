package text

import (
	"math"
	"slices"
)

// Line breaking of point labels (text-max-width), as MapLibre GL JS breaks
// them (observed from its pictures: docs/rendering.md). A text of width W
// (its advances, spaces included, without blanks at its end; all its
// paragraphs together) aims at lines of the ideal width
// w = W / ceil(W / maxWidth). The lines are chosen at its break
// opportunities, each newline ending a line and their number free, to
// minimise the sum over the lines of
//
//	(width - w)^2 (times 2 for the text's last line when longer than w,
//	times 1/2 when shorter) + the break's penalty
//
// where a line's width is that of its characters but its spaces: the
// spaces count in the ideal width, not in the lines measured against it.
// So a paragraph of a text with newlines aims at the ideal of the whole
// text, not at its own, and is broken even where its newlines already give
// the text as many lines as the ideal asks. Of splits that cost the same,
// the one with the longer first lines wins. The lines are put in visual
// order only after breaking (right-to-left paragraphs too, each line on
// its own): breaking sees the logical text.
//
// It is found by dynamic programming over the opportunities (O(m^2) for
// m opportunities at worst: earlier starts are not tried once a line alone
// costs more than the best so far, nor lines over twice the maximum width
// where there is another way).
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

// avoidPenalty is the cost of a discouraged break, in squared ideal
// widths: as much as a line off its ideal width by all of that width, so
// that such a break is taken only when every other choice is that much
// worse.
const avoidPenalty = 1

// maxLines bounds the lines the ideal width is taken for: text-max-width
// near zero would otherwise ask for a line per character.
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
	t := breakText{at: at, breakAfter: breakAfter, x: make([]float64, n+1), inked: make([]float64, n+1)}
	for i := range n {
		w := width(i)
		t.x[i+1] = t.x[i] + w
		t.inked[i+1] = t.inked[i]
		if !blank(at(i)) {
			t.inked[i+1] += w
		}
	}
	return t.balance(maxWidth)
}

// breakText is a text being broken: its characters, x[i] the advance of
// the first i of them and inked[i] that of the first i but blanks.
type breakText struct {
	at         func(int) rune
	breakAfter func(int) bool
	x, inked   []float64
}

// visible is the width of the characters from, to without blanks at the
// end.
func (t *breakText) visible(from, to int) float64 {
	for to > from && blank(t.at(to-1)) {
		to--
	}
	return t.x[to] - t.x[from]
}

// lineWidth is the width a line of the characters from, to is measured
// by: their advances but the blanks'.
func (t *breakText) lineWidth(from, to int) float64 {
	return t.inked[to] - t.inked[from]
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
	if m <= 2 {
		return nil
	}
	total := t.visible(0, n)
	ideal := total / math.Max(1, math.Min(math.Ceil(total/maxWidth), maxLines))
	if !(ideal > 0) {
		ideal = maxWidth // a text of no width still breaks at its newlines
	}
	reach := 2 * maxWidth
	// cost[j] is the least cost of the lines before cands[j], prev[j] the
	// candidate the last of them starts at (every candidate is reached:
	// the line from the one before it is always tried first).
	cost := make([]float64, m)
	prev := make([]int, m)
	for j := range cost {
		cost[j] = math.Inf(1)
	}
	cost[0] = 0
	for j := 1; j < m; j++ {
		end := cands[j].at
		penalty := 0.0
		if j < m-1 && !cands[j].forced {
			penalty = breakPenalty(t.at(end-1), t.at(end)) * ideal * ideal
		}
		for i := j - 1; i >= 0; i-- {
			w := t.lineWidth(cands[i].at, end)
			c := raggedness(w, ideal, j == m-1)
			if !math.IsInf(cost[j], 1) && (w > ideal && c >= cost[j] || w > reach) {
				break
			}
			c += cost[i] + penalty
			if c < cost[j] {
				cost[j], prev[j] = c, i
			}
			if cands[i].forced {
				break // no line crosses a newline
			}
		}
	}
	var starts []int
	for j := prev[m-1]; j > 0; j = prev[j] {
		starts = append(starts, cands[j].at)
	}
	slices.Reverse(starts)
	return starts
}

// raggedness is the cost of a line of width w where lines should be
// about ideal wide: the square of its deviation from ideal, doubled for
// the text's last line when long and halved for it when short (a short
// last line is a lesser fault than a long one).
func raggedness(w, ideal float64, last bool) float64 {
	d := w - ideal
	c := d * d
	switch {
	case last && w > ideal:
		c *= lastLongWeight
	case last:
		c *= lastShortWeight
	}
	return c
}

// The weights of the text's last line, read from the line breaks
// MapLibre GL JS draws (docs/rendering.md: with them all 199 observed
// labels are broken alike; of the weights tried, a long last line's from
// 1.6 to 2 with a short one's 0.5 do so, 0.4 or 0.6 for a short one do not).
const (
	lastLongWeight  = 2
	lastShortWeight = 0.5
)
