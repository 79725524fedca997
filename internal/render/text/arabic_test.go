package text

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/runenames"
)

// TestShapeArabicForms checks the positional forms by their Unicode names
// (from golang.org/x/text, independent of the generated tables): a letter
// joins the one before it when that one joins forward, marks are skipped,
// alef, dal and reh never join forward, lam with alef is one ligature.
func TestShapeArabicForms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // the names of the shaped characters
	}{
		{"initial medial final", "بيت", []string{"ARABIC LETTER BEH INITIAL FORM", "ARABIC LETTER YEH MEDIAL FORM", "ARABIC LETTER TEH FINAL FORM"}},
		{"right-joining letters stay apart", "دار", []string{"ARABIC LETTER DAL ISOLATED FORM", "ARABIC LETTER ALEF ISOLATED FORM", "ARABIC LETTER REH ISOLATED FORM"}},
		{"final after a dual-joining letter", "بد", []string{"ARABIC LETTER BEH INITIAL FORM", "ARABIC LETTER DAL FINAL FORM"}},
		{"isolated letter", "ب", []string{"ARABIC LETTER BEH ISOLATED FORM"}},
		{"lam alef", "لا", []string{"ARABIC LIGATURE LAM WITH ALEF ISOLATED FORM"}},
		{"joined lam alef", "فلا", []string{"ARABIC LETTER FEH INITIAL FORM", "ARABIC LIGATURE LAM WITH ALEF FINAL FORM"}},
		{"lam with hamza alef", "لأ", []string{"ARABIC LIGATURE LAM WITH ALEF WITH HAMZA ABOVE ISOLATED FORM"}},
		{"words split at spaces", "بب بب", []string{"ARABIC LETTER BEH INITIAL FORM", "ARABIC LETTER BEH FINAL FORM", "SPACE", "ARABIC LETTER BEH INITIAL FORM", "ARABIC LETTER BEH FINAL FORM"}},
		{"zero width non-joiner breaks the join", "ب\u200cب", []string{"ARABIC LETTER BEH ISOLATED FORM", "ZERO WIDTH NON-JOINER", "ARABIC LETTER BEH ISOLATED FORM"}},
		{"zero width joiner forces it", "ب\u200d", []string{"ARABIC LETTER BEH INITIAL FORM", "ZERO WIDTH JOINER"}},
		{"tatweel joins", "ـب", []string{"ARABIC TATWEEL", "ARABIC LETTER BEH FINAL FORM"}},
		{"marks are transparent and medial between joined letters", "بَب", []string{"ARABIC LETTER BEH INITIAL FORM", "ARABIC FATHA MEDIAL FORM", "ARABIC LETTER BEH FINAL FORM"}},
		{"a final mark is isolated", "بَ", []string{"ARABIC LETTER BEH ISOLATED FORM", "ARABIC FATHA ISOLATED FORM"}},
		{"dammatan has no medial form", "بٌب", []string{"ARABIC LETTER BEH INITIAL FORM", "ARABIC DAMMATAN ISOLATED FORM", "ARABIC LETTER BEH FINAL FORM"}},
		{"Persian letters", "پیک", []string{"ARABIC LETTER PEH INITIAL FORM", "ARABIC LETTER FARSI YEH MEDIAL FORM", "ARABIC LETTER KEHEH FINAL FORM"}},
		{"a letter without presentation forms does not join", "بݐ", []string{"ARABIC LETTER BEH ISOLATED FORM", "ARABIC LETTER BEH WITH THREE DOTS HORIZONTALLY BELOW"}},
		{"Latin is unchanged", "Ab", []string{"LATIN CAPITAL LETTER A", "LATIN SMALL LETTER B"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range ShapeArabic(tc.in) {
				got = append(got, runenames.Name(r))
			}
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("ShapeArabic(%q) = %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestShapeArabicPublished checks the published examples of GL JS's RTL
// text plugin (ICU's shaper).
func TestShapeArabicPublished(t *testing.T) {
	tests := []struct{ in, want string }{
		{"سلام۳۹", "\uFEB3\uFEFC\uFEE1۳۹"},
		{"اليَمَن", "\uFE8D\uFEDF\uFEF4\uFE77\uFEE4\uFE77\uFEE6"},
	}
	for _, tc := range tests {
		if got := ShapeArabic(tc.in); got != tc.want {
			t.Errorf("ShapeArabic(%q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

// TestShapeArabicAllLetters checks every dual-joining letter that has its
// four forms: three in a row take the initial, medial and final forms, as
// their names say.
func TestShapeArabicAllLetters(t *testing.T) {
	n := 0
	for r := rune(0x0620); r <= 0x06FF; r++ {
		name := runenames.Name(r)
		forms, ok := presentationForms[r]
		if !ok || forms[formMedial] == 0 || !strings.HasPrefix(name, "ARABIC LETTER ") {
			continue
		}
		n++
		got := []rune(ShapeArabic(string([]rune{r, r, r})))
		want := []string{" INITIAL FORM", " MEDIAL FORM", " FINAL FORM"}
		if len(got) != 3 {
			t.Errorf("%s: %d characters", name, len(got))
			continue
		}
		for i := range got {
			// (Alef maksura's joining forms are named for Uighur.)
			if g := runenames.Name(got[i]); !strings.HasSuffix(g, want[i]) || !strings.Contains(g, strings.TrimPrefix(name, "ARABIC LETTER ")) {
				t.Errorf("%s at %d: %s, want %s", name, i, g, name+want[i])
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d dual-joining letters with four forms", n)
	}
}
