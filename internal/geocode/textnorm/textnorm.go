// Package textnorm normalizes place names and queries for matching: Unicode
// compatibility decomposition (NFKD), removal of the combining marks of
// Latin, Greek and Cyrillic letters (diacritics; the marks of other scripts,
// such as Devanagari vowel signs, are part of the word and kept), case folding,
// a few letter foldings NFKD does not cover (ß, æ, ø, ł, ...), removal of
// apostrophes, and splitting into tokens on any other non-letter, non-digit
// rune. It also provides the bounded edit distance used for fuzzy matching.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// special folds letters that NFKD leaves alone.
var special = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'ł': "l", 'Ł': "l", 'ı': "i", 'þ': "th", 'Þ': "th", 'ħ': "h", 'Ħ': "h",
	'ŧ': "t", 'Ŧ': "t", 'ŋ': "ng", 'Ŋ': "ng", 'ĸ': "k", 'ſ': "s",
}

// isApostrophe reports runes removed without splitting a token ("Ra’s" -> "ras").
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '’', '‘', 'ʼ', 'ʻ', '`', '´', 'ʹ', 'ʾ', 'ʿ', '′':
		return true
	}
	return false
}

// Fold returns s decomposed, stripped of combining marks and apostrophes,
// lower-cased and with every run of separators replaced by one space, trimmed.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true     // suppress leading separators
	stripBase := true // the last base rune takes diacritics that can be dropped
	appendRune := func(r rune) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
			return
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	var it norm.Iter
	it.InitString(norm.NFKD, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, n := utf8.DecodeRune(seg)
			seg = seg[n:]
			isMark := unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r)
			switch {
			case isMark && (stripBase || space), isApostrophe(r):
				// dropped (a mark after a separator has no letter to belong to)
			case isMark:
				b.WriteRune(r) // vowel signs of Indic scripts, kana voicing: part of the word
			case r < utf8.RuneSelf:
				stripBase = true
				appendRune(r)
			default:
				stripBase = unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Common)
				if rep, ok := special[r]; ok {
					for _, c := range rep {
						appendRune(c)
					}
				} else {
					appendRune(r)
				}
			}
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Tokens returns the tokens of Fold(s).
func Tokens(s string) []string {
	f := Fold(s)
	if f == "" {
		return nil
	}
	return strings.Split(f, " ")
}

// MaxEdits is the number of edits fuzzy matching tolerates for a token of
// n runes: none below 4 runes, 1 up to 7, 2 from 8.
func MaxEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	default:
		return 2
	}
}

// Distance returns the optimal-string-alignment distance (Levenshtein plus
// adjacent transpositions) between a and b, or max+1 when it exceeds max.
func Distance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return max + 1
	}
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return max + 1
	}
	n := len(rb)
	prev2 := make([]int, n+1)
	prev := make([]int, n+1)
	cur := make([]int, n+1)
	for j := 0; j <= n; j++ {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= n; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[n] > max {
		return max + 1
	}
	return prev[n]
}

// Deletions calls fn with every string obtained from s by deleting exactly
// one rune (duplicates included). s must be shorter than 64 runes.
func Deletions(s string, fn func(string)) {
	for i, r := range s {
		fn(s[:i] + s[i+utf8.RuneLen(r):])
	}
}
