package text

import "unicode"

// This file holds the character classes of vertical writing as GL renderers
// use them (after Unicode's VerticalOrientation.txt, blocks of the
// supplementary planes left out), and the punctuation that vertical writing
// replaces by its vertical presentation forms.

// Orientation is how a character is drawn in a vertical line.
type Orientation int

const (
	// Rotated characters (Latin letters, digits, most symbols) lie along
	// the line: turned 90 degrees clockwise in a vertical line.
	Rotated Orientation = iota
	// Upright characters (CJK ideographs, kana, hangul, CJK punctuation)
	// stand upright in a vertical line.
	Upright
	// Neutral characters take the orientation of their neighbours.
	Neutral
)

// inRange reports whether lo <= r <= hi.
func inRange(r, lo, hi rune) bool { return r >= lo && r <= hi }

// ideographicScript reports whether r is of a script that breaks lines
// between any two characters (Han, kana, bopomofo, Yi and the like).
func ideographicScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo,
		unicode.Yi, unicode.Tangut, unicode.Nushu, unicode.Khitan_Small_Script)
}

// IsUpright reports whether r stands upright in vertical writing.
func IsUpright(r rune) bool {
	if r == 0x02EA || r == 0x02EB { // the yin and yang departing tone marks
		return true
	}
	if r < 0x1100 {
		return false
	}
	switch {
	case inRange(r, 0xFE30, 0xFE4F): // CJK Compatibility Forms
		return !inRange(r, 0xFE49, 0xFE4F)
	case inRange(r, 0x3300, 0x33FF), // CJK Compatibility
		inRange(r, 0x31C0, 0x31EF), // CJK Strokes
		inRange(r, 0x3200, 0x32FF), // Enclosed CJK Letters and Months
		inRange(r, 0x2FF0, 0x2FFF), // Ideographic Description Characters
		inRange(r, 0x3190, 0x319F), // Kanbun
		inRange(r, 0xFE10, 0xFE1F), // Vertical Forms
		inRange(r, 0x4DC0, 0x4DFF): // Yijing Hexagram Symbols
		return true
	case inRange(r, 0x3000, 0x303F): // CJK Symbols and Punctuation, less brackets and the wavy dash
		return !inRange(r, 0x3008, 0x3011) && !inRange(r, 0x3014, 0x301F) && r != 0x3030
	case inRange(r, 0x30A0, 0x30FF): // Katakana, less the prolonged sound mark
		return r != 0x30FC
	case inRange(r, 0xFF00, 0xFFEF): // Halfwidth and Fullwidth Forms
		return r != 0xFF08 && r != 0xFF09 && r != 0xFF0D && !inRange(r, 0xFF1A, 0xFF1E) &&
			r != 0xFF3B && r != 0xFF3D && r != 0xFF3F && !inRange(r, 0xFF5B, 0xFFDF) &&
			r != 0xFFE3 && !inRange(r, 0xFFE8, 0xFFEF)
	case inRange(r, 0xFE50, 0xFE6F): // Small Form Variants
		return !inRange(r, 0xFE58, 0xFE5E) && !inRange(r, 0xFE63, 0xFE66)
	}
	return unicode.In(r, unicode.Canadian_Aboriginal, unicode.Hangul) || ideographicScript(r)
}

// isNeutral reports whether r takes its neighbours' orientation in
// vertical writing.
func isNeutral(r rune) bool {
	switch r {
	case 0x00A7, 0x00A9, 0x00AE, 0x00B1, 0x00BC, 0x00BD, 0x00BE, 0x00D7, 0x00F7,
		0x2016, 0x2020, 0x2021, 0x2030, 0x2031, 0x203B, 0x203C, 0x2042, 0x2047, 0x2048, 0x2049, 0x2051,
		0x221E, 0x2234, 0x2235, 0x232B, 0x23CF, 0xFFFC, 0xFFFD:
		return true
	}
	switch {
	case inRange(r, 0x2100, 0x214F), // Letterlike Symbols
		inRange(r, 0x2150, 0x218F), // Number Forms
		inRange(r, 0x2300, 0x2307), inRange(r, 0x230C, 0x231F), inRange(r, 0x2324, 0x2328),
		inRange(r, 0x237D, 0x239A), inRange(r, 0x23BE, 0x23CD), inRange(r, 0x23D1, 0x23DB),
		inRange(r, 0x23E2, 0x23FF),                             // parts of Miscellaneous Technical
		inRange(r, 0x2400, 0x2422), inRange(r, 0x2424, 0x243F), // Control Pictures less the open box
		inRange(r, 0x2440, 0x245F),                             // Optical Character Recognition
		inRange(r, 0x2460, 0x24FF),                             // Enclosed Alphanumerics
		inRange(r, 0x25A0, 0x25FF),                             // Geometric Shapes
		inRange(r, 0x2600, 0x2619), inRange(r, 0x2620, 0x26FF), // Miscellaneous Symbols less the pointing indexes
		inRange(r, 0x2B12, 0x2B2F), inRange(r, 0x2B50, 0x2B59), inRange(r, 0x2BB8, 0x2BEB),
		inRange(r, 0x2700, 0x2767), inRange(r, 0x2776, 0x2793), // Dingbats
		inRange(r, 0x3000, 0x303F), // CJK Symbols and Punctuation
		inRange(r, 0x30A0, 0x30FF), // Katakana
		inRange(r, 0xE000, 0xF8FF), // Private Use Area
		inRange(r, 0xFE30, 0xFE4F), // CJK Compatibility Forms
		inRange(r, 0xFE50, 0xFE6F), // Small Form Variants
		inRange(r, 0xFF00, 0xFFEF): // Halfwidth and Fullwidth Forms
		return true
	}
	return false
}

// OrientationOf returns how r is drawn in vertical writing.
func OrientationOf(r rune) Orientation {
	switch {
	case IsUpright(r):
		return Upright
	case isNeutral(r):
		return Neutral
	}
	return Rotated
}

// AllowsVerticalWriting reports whether a text may be written vertically:
// it has at least one character that stands upright.
func AllowsVerticalWriting(s string) bool {
	for _, r := range s {
		if IsUpright(r) {
			return true
		}
	}
	return false
}

// verticalForms maps punctuation to the form vertical writing draws it in.
var verticalForms = map[rune]rune{
	'!': '︕', '#': '＃', '$': '＄', '%': '％', '&': '＆', '(': '︵', ')': '︶', '*': '＊', '+': '＋',
	',': '︐', '-': '︲', '.': '・', '/': '／', ':': '︓', ';': '︔', '<': '︿', '=': '＝', '>': '﹀',
	'?': '︖', '@': '＠', '[': '﹇', '\\': '＼', ']': '﹈', '^': '＾', '_': '︳', '`': '｀', '{': '︷',
	'|': '―', '}': '︸', '~': '～', '¢': '￠', '£': '￡', '¥': '￥', '¦': '￤', '¬': '￢', '¯': '￣',
	'–': '︲', '—': '︱', '‘': '﹃', '’': '﹄', '“': '﹁', '”': '﹂', '…': '︙', '⋯': '︙', '‧': '・',
	'₩': '￦', '、': '︑', '。': '︒', '〈': '︿', '〉': '﹀', '《': '︽', '》': '︾', '「': '﹁', '」': '﹂',
	'『': '﹃', '』': '﹄', '【': '︻', '】': '︼', '〔': '︹', '〕': '︺', '〖': '︗', '〗': '︘',
	'！': '︕', '（': '︵', '）': '︶', '，': '︐', '－': '︲', '．': '・', '：': '︓', '；': '︔',
	'＜': '︿', '＞': '﹀', '？': '︖', '［': '﹇', '］': '﹈', '＿': '︳', '｛': '︷', '｜': '―',
	'｝': '︸', '｟': '︵', '｠': '︶', '｡': '︒', '｢': '﹁', '｣': '﹂',
}

// ToVerticalForms replaces the punctuation of a text by its vertical
// forms, except where it stands beside a character that lies rotated
// (punctuation in a Latin run stays as it is). Neighbours that have a
// vertical form themselves do not count as rotated.
func ToVerticalForms(rs []rune) []rune {
	out := make([]rune, len(rs))
	rotated := func(i int) bool {
		if i < 0 || i >= len(rs) {
			return false
		}
		_, has := verticalForms[rs[i]]
		return !has && OrientationOf(rs[i]) == Rotated
	}
	for i, r := range rs {
		out[i] = r
		if v, ok := verticalForms[r]; ok && !rotated(i-1) && !rotated(i+1) {
			out[i] = v
		}
	}
	return out
}

// uprightInVerticalLabel reports whether a point label written vertically
// stands r upright: GL stands every character upright there but white
// space and the characters of complex scripts (Arabic), which lie along
// the column.
func uprightInVerticalLabel(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Arabic, r)
}

// isSymbolOrPunct reports whether r is punctuation or a symbol (Unicode
// categories P and S).
func isSymbolOrPunct(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

// maxUprightCode is the longest run of capitals and digits that stands
// upright along a steep line as a code ("JR", "A1"); a longer one is a
// word and lies along the line.
const maxUprightCode = 3

// uprightRun reports whether a run of characters that are not upright by
// themselves stands upright along a steep line, as GL JS 6 reads it: a
// number (digits, with punctuation or symbols between them) of any length,
// or a code of up to maxUprightCode capitals and digits.
func uprightRun(run []rune) bool {
	digit, number, code := false, true, len(run) <= maxUprightCode
	for _, r := range run {
		d := unicode.Is(unicode.Nd, r)
		digit = digit || d
		number = number && (d || isSymbolOrPunct(r))
		code = code && (d || unicode.IsUpper(r))
	}
	return (digit && number) || code
}

// LineUprights decides, for one line of a line label's vertical
// alternative (drawn when the line runs steeper than 45 degrees on
// screen), which characters stand upright, as GL JS 6 does with glyph
// ranges that have no vertical alternates: the characters that stand
// upright by themselves (IsUpright); in a run of other characters (up to
// white space, an upright character or an image), its digits and capitals
// when the run is a number or a short code (see uprightRun), not when it
// is in a complex script; then punctuation with a vertical form whose
// neighbours both stand upright (or the line's ends) stands upright too,
// in that form. rs is the line (its punctuation already verticalized);
// image tells the images apart. It returns the line's characters and the
// flags.
func LineUprights(rs []rune, image func(i int) bool) ([]rune, []bool) {
	out := append([]rune(nil), rs...)
	up := make([]bool, len(rs))
	for i, r := range rs {
		up[i] = IsUpright(r)
	}
	inRun := func(i int) bool { return !up[i] && !unicode.IsSpace(rs[i]) && !image(i) }
	for start := 0; start < len(rs); start++ {
		if !inRun(start) {
			continue
		}
		end := start
		for end+1 < len(rs) && inRun(end+1) {
			end++
		}
		if uprightRun(rs[start : end+1]) {
			for i := start; i <= end; i++ {
				r := rs[i]
				up[i] = (unicode.Is(unicode.Nd, r) || unicode.IsUpper(r)) && !unicode.Is(unicode.Arabic, r)
			}
		}
		start = end
	}
	for i, r := range out {
		if up[i] {
			continue
		}
		v, ok := verticalForms[r]
		if ok && (i == 0 || up[i-1]) && (i == len(out)-1 || up[i+1]) {
			up[i], out[i] = true, v
		}
	}
	return out, up
}
