package text

import "golang.org/x/text/unicode/bidi"

// visualLines puts each line of the logical text in visual order: lines
// are consecutive slices of chars (broken on the logical text), the levels
// are resolved over the whole text so that every line of a paragraph
// shares its direction, and a character in a right-to-left run is replaced
// by mirror's result (its mirrored glyph). Text with no right-to-left
// character is returned as it is.
func visualLines(chars []char, lines [][]char, mirror func(c char, r rune) char) [][]char {
	if !needsBidi(chars) {
		return lines
	}
	rs := make([]rune, len(chars))
	for i, c := range chars {
		rs[i] = c.r
	}
	b := NewBidi(rs)
	out := make([][]char, len(lines))
	start := 0
	for li, line := range lines {
		order, rtl := b.Visual(start, start+len(line))
		v := make([]char, len(order))
		for k, i := range order {
			v[k] = chars[i]
			if rtl[k] {
				if m := Mirror(chars[i].r); m != chars[i].r {
					v[k] = mirror(chars[i], m)
				}
			}
		}
		out[li] = v
		start += len(line)
	}
	return out
}

// needsBidi reports whether a text has a character that can make a run
// right-to-left.
func needsBidi(chars []char) bool {
	for _, c := range chars {
		if c.r < 0x0590 {
			continue
		}
		p, _ := bidi.LookupRune(c.r)
		switch p.Class() {
		case bidi.R, bidi.AL, bidi.RLE, bidi.RLO, bidi.RLI, bidi.FSI:
			return true
		}
	}
	return false
}

// spacingKeepsJoins reports whether text-letter-spacing may apply to the
// sections: as in GL, not to text with Arabic letters (their joins would
// break).
func spacingKeepsJoins(sections []Section) bool {
	for _, s := range sections {
		for _, r := range s.Text {
			switch {
			case r >= 0x0600 && r <= 0x06FF, r >= 0x0750 && r <= 0x077F, r >= 0x08A0 && r <= 0x08FF,
				r >= 0xFB50 && r <= 0xFDFF, r >= 0xFE70 && r <= 0xFEFF:
				return false
			}
		}
	}
	return true
}
