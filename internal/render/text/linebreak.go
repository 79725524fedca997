package text

import "math"

// breakable reports whether a line may break after r.
func breakable(r rune) bool {
	switch r {
	case 0x0a, 0x20, 0x26, 0x28, 0x29, 0x2b, 0x2d, 0x2f, 0xad, 0xb7, 0x200b, 0x2010, 0x2013, 0x2027:
		return true
	}
	return false
}

// collapsible reports whether r is white space that takes no width when
// counting a line's length.
func collapsible(r rune) bool {
	switch r {
	case 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20:
		return true
	}
	return false
}

// ideographic reports whether a line may break after r as in CJK text.
func ideographic(r rune) bool {
	switch {
	case r >= 0x2e80 && r <= 0x9fff, // CJK radicals .. unified ideographs (with kana)
		r >= 0xa000 && r <= 0xa4cf,   // Yi
		r >= 0xac00 && r <= 0xd7af,   // Hangul syllables
		r >= 0xf900 && r <= 0xfaff,   // compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f,   // CJK compatibility forms
		r >= 0xff00 && r <= 0xffef,   // half- and full-width forms
		r >= 0x20000 && r <= 0x3134f: // extension ideographs
		return true
	}
	return false
}

type lineBreak struct {
	index   int
	x       float64
	prior   *lineBreak
	badness float64
}

// LineBreaks chooses where to break a text of n code points (at(i) the
// i-th, width(i) its advance with letter spacing) into lines near maxWidth
// em pixels, as GL does: the number of lines is the least that fits the
// whole width, and the breaks minimise the squared differences of each
// line's width from the average, with penalties around parentheses and a
// forced break at each newline. It returns the indices where new lines
// start, in order.
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
	total := 0.0
	for i := 0; i < n; i++ {
		total += width(i)
	}
	lines := math.Max(1, math.Ceil(total/maxWidth))
	target := total / lines
	var potential []*lineBreak
	x := 0.0
	for i := 0; i < n; i++ {
		r := at(i)
		if !collapsible(r) {
			x += width(i)
		}
		if i < n-1 {
			ideo := ideographic(r)
			if breakable(r) || ideo || (breakAfter != nil && breakAfter(i)) {
				potential = append(potential, evaluateBreak(i+1, x, target, potential, penalty(r, at(i+1)), false))
			}
		}
	}
	last := evaluateBreak(n, x, target, potential, 0, true)
	var out []int
	for b := last; b != nil; b = b.prior {
		out = append(out, b.index)
	}
	// Reverse, and drop the end of the text itself.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if len(out) == 1 {
		return nil
	}
	return out[:len(out)-1]
}

// penalty is the cost of breaking after r (GL adds 150 after ideographs
// only with server-suggested break points, which glyph ranges do not have).
func penalty(r, next rune) float64 {
	p := 0.0
	if r == 0x0a {
		p -= 10000
	}
	if r == 0x28 || r == 0xff08 {
		p += 50
	}
	if next == 0x29 || next == 0xff09 {
		p += 50
	}
	return p
}

func badness(width, target, penalty float64, last bool) float64 {
	ragged := (width - target) * (width - target)
	if last {
		if width < target {
			return ragged / 2
		}
		return ragged * 2
	}
	return ragged + math.Abs(penalty)*penalty
}

func evaluateBreak(index int, x, target float64, potential []*lineBreak, penalty float64, last bool) *lineBreak {
	var best *lineBreak
	bestBad := badness(x, target, penalty, last)
	for _, p := range potential {
		b := badness(x-p.x, target, penalty, last) + p.badness
		if b <= bestBad {
			best, bestBad = p, b
		}
	}
	return &lineBreak{index: index, x: x, prior: best, badness: bestBad}
}
