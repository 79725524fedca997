package text

//go:generate go run gen_tables.go -ucd /usr/share/unicode

import (
	"sort"
	"unicode"
)

// joiningType is a character's Arabic joining type (ArabicShaping.txt).
type joiningType uint8

const (
	joiningU joiningType = iota // non-joining
	joiningR                    // joins the character before it (right-joining)
	joiningL                    // joins the character after it (left-joining)
	joiningD                    // joins both sides (dual-joining)
	joiningC                    // causes its neighbours to join (tatweel, ZWJ)
	joiningT                    // transparent: marks skipped when joining
)

// joiningRange gives the joining type of a range of code points.
type joiningRange struct {
	lo, hi rune
	t      joiningType
}

// pairedBracket is a bracket's Bidi_Paired_Bracket and whether it opens.
type pairedBracket struct {
	pair rune
	open bool
}

// Code points of the shaping rules.
const (
	lam     = 0x0644
	zwj     = 0x200D
	tatweel = 0x0640
)

// joining returns the joining type of r as a renderer drawing presentation
// forms from glyph ranges sees it: the types of ArabicShaping.txt, marks and
// format characters not listed there are transparent, and a letter with no
// presentation forms cannot be drawn joined, so it is non-joining (ICU's
// shaper, which the RTL text plugin of GL JS uses, does the same).
func joining(r rune) joiningType {
	i := sort.Search(len(joiningRanges), func(i int) bool { return joiningRanges[i].hi >= r })
	if i < len(joiningRanges) && joiningRanges[i].lo <= r {
		t := joiningRanges[i].t
		if t == joiningR || t == joiningL || t == joiningD {
			if _, ok := presentationForms[r]; !ok {
				return joiningU
			}
		}
		return t
	}
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) && r != 0x200C {
		return joiningT
	}
	return joiningU
}

// joinsAfter reports whether a character of type t connects to the one
// that follows it in logical order; joinsBefore whether it connects to the
// one before.
func joinsAfter(t joiningType) bool  { return t == joiningD || t == joiningL || t == joiningC }
func joinsBefore(t joiningType) bool { return t == joiningD || t == joiningR || t == joiningC }

// Positional forms, as indices into presentationForms.
const (
	formIsolated = iota
	formFinal
	formInitial
	formMedial
)

// ShapeArabic replaces the Arabic letters of s (in logical order) by their
// presentation forms: each letter takes its isolated, initial, medial or
// final form by whether it joins the letters beside it (Unicode's joining
// types, marks being transparent), lam followed by alef becomes one
// ligature, and the harakat take their isolated or medial (on a joined
// letter) forms. Text without Arabic letters is returned unchanged. This
// is what GL JS's RTL text plugin does (ICU's u_shapeArabic with letter
// shaping, logical order, the text shrinking by the merged alefs) before
// glyphs are looked up.
func ShapeArabic(s string) string {
	if !hasArabic(s) {
		return s
	}
	rs := []rune(s)
	types := make([]joiningType, len(rs))
	for i, r := range rs {
		types[i] = joining(r)
	}
	// neighbour returns the index of the nearest non-transparent character
	// before (step -1) or after (step 1) i, or -1.
	neighbour := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(rs); j += step {
			if types[j] != joiningT {
				return j
			}
		}
		return -1
	}
	out := make([]rune, 0, len(rs))
	skip := -1 // the alef merged into a lam-alef ligature
	for i, r := range rs {
		if i == skip {
			continue
		}
		t := types[i]
		if t == joiningT {
			out = append(out, shapeMark(rs, types, i, neighbour))
			continue
		}
		forms, ok := presentationForms[r]
		if !ok {
			out = append(out, r)
			continue
		}
		prev, next := neighbour(i, -1), neighbour(i, 1)
		before := joinsBefore(t) && prev >= 0 && joinsAfter(types[prev])
		if r == lam && next >= 0 {
			if lig, ok := lamAlefForms[rs[next]]; ok {
				f := lig[formIsolated]
				if before {
					f = lig[formFinal]
				}
				out = append(out, f)
				skip = next
				continue
			}
		}
		after := joinsAfter(t) && next >= 0 && joinsBefore(types[next])
		form := formIsolated
		switch {
		case before && after:
			form = formMedial
		case before:
			form = formFinal
		case after:
			form = formInitial
		}
		out = append(out, pick(forms, form, r))
	}
	return string(out)
}

// shapeMark returns the presentation form of the mark at i: harakat take
// their medial form between two joined letters (not inside a lam-alef) and
// their isolated form elsewhere; other marks are left as they are.
func shapeMark(rs []rune, types []joiningType, i int, neighbour func(int, int) int) rune {
	forms, ok := markForms[rs[i]]
	if !ok {
		return rs[i]
	}
	prev, next := neighbour(i, -1), neighbour(i, 1)
	if prev >= 0 && next >= 0 && joinsAfter(types[prev]) && joinsBefore(types[next]) && forms[1] != 0 {
		if _, ligature := lamAlefForms[rs[next]]; !(ligature && rs[prev] == lam) {
			return forms[1]
		}
	}
	if forms[0] != 0 {
		return forms[0]
	}
	return rs[i]
}

// pick returns the presentation form of a letter, falling back to the
// nearest form it has (a medial to a final, an initial to an isolated).
func pick(forms [4]rune, form int, r rune) rune {
	for ; form >= 0; form -= 2 {
		if forms[form] != 0 {
			return forms[form]
		}
	}
	if forms[formIsolated] != 0 {
		return forms[formIsolated]
	}
	return r
}

// hasArabic reports whether s has a character of the Arabic blocks that
// shaping may change.
func hasArabic(s string) bool {
	for _, r := range s {
		if r >= 0x0600 && r <= 0x06FF || r >= 0x0750 && r <= 0x077F || r >= 0x08A0 && r <= 0x08FF {
			return true
		}
	}
	return false
}
