package textnorm

import "strings"

// translit maps folded (lower-case, mark-free) Cyrillic and Greek letters to
// Latin, after common romanizations (BGN/PCGN-like for Cyrillic, ELOT-like
// for Greek). Letters NFKD leaves composed (й, ё are decomposed and lose
// their marks before this table applies).
var translit = map[rune]string{
	// Cyrillic
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ж': "zh", 'з': "z", 'и': "i", 'к': "k",
	'л': "l", 'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f",
	'х': "kh", 'ц': "ts", 'ч': "ch", 'ш': "sh", 'щ': "shch", 'ъ': "", 'ы': "y", 'ь': "", 'э': "e", 'ю': "yu",
	'я': "ya", 'є': "ye", 'і': "i", 'ґ': "g", 'ў': "u", 'ђ': "dj", 'ј': "j", 'љ': "lj", 'њ': "nj", 'ћ': "c",
	'џ': "dz", 'ѕ': "dz", 'ә': "a", 'ғ': "gh", 'қ': "q", 'ң': "ng", 'ө': "o", 'ұ': "u", 'ү': "u", 'һ': "h",
	// Greek
	'α': "a", 'β': "v", 'γ': "g", 'δ': "d", 'ε': "e", 'ζ': "z", 'η': "i", 'θ': "th", 'ι': "i", 'κ': "k",
	'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x", 'ο': "o", 'π': "p", 'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t",
	'υ': "y", 'φ': "f", 'χ': "ch", 'ψ': "ps", 'ω': "o",
}

// Transliterate romanizes the Cyrillic and Greek letters of a folded string
// (see Fold); other runes are kept. It reports whether anything changed.
func Transliterate(folded string) (string, bool) {
	changed := false
	var b strings.Builder
	for _, r := range folded {
		if rep, ok := translit[r]; ok {
			b.WriteString(rep)
			changed = true
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return folded, false
	}
	return b.String(), true
}
