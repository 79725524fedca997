package geocode

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
	"golang.org/x/text/unicode/norm"
)

// displayName returns feature i's name in lang with the language it is in
// (copied out of the mapped file: results outlive Close): the name in lang,
// else English, else the default name (language ""). With no language
// (lang ""), the name in the place's own language, else the default name.
//
// The official long form of the default name wins over a shorter name in
// the place's own language that it extends ("Kempten (Allgäu)", "Halle
// (Saale)", not "Kempten", "Halle").
func (ix *Index) displayName(i int, lang string) (string, string) {
	local := ix.localLanguage(i)
	if lang == "" && local != "" {
		if s := ix.localName(i, local); s != "" {
			if def := ix.str(ix.c.FName[i]); extendsName(def, s) {
				return strings.Clone(def), ""
			}
			return s, local
		}
	}
	if lang != "" {
		if s := ix.localName(i, lang); s != "" {
			if def := ix.str(ix.c.FName[i]); lang == local && extendsName(def, s) {
				return strings.Clone(def), ""
			}
			return s, lang
		}
		if lang != "en" {
			if s := ix.localName(i, "en"); s != "" {
				return s, "en"
			}
		}
	}
	return strings.Clone(ix.str(ix.c.FName[i])), ""
}

// extendsName reports whether long is short followed by more words (an
// official qualifier: "Kempten (Allgäu)" extends "Kempten").
func extendsName(long, short string) bool {
	if short == "" || len(long) <= len(short) || long[0] != short[0] && long[0] < utf8.RuneSelf && short[0] < utf8.RuneSelf &&
		long[0]|0x20 != short[0]|0x20 {
		return false // the common cases, without folding
	}
	l, s := textnorm.Tokens(long), textnorm.Tokens(short)
	return len(l) > len(s) && len(s) > 0 && slices.Equal(l[:len(s)], s)
}

// answerName is the name a forward result is given (see docs/geocoding.md,
// "Names"), when it is not the display name: without a language,
// the name that matched when it is an exonym (a name of the place, not its
// local name: "Munich" for "munich"); with a language, the name that is the
// whole query when the data tags it with no language or the place has no
// name in the requested one ("Breslau", "Sosnowitz"). A query spelling the
// display name with other diacritics ("Toruń" for the English "Torun")
// gets its own spelling back.
func (ix *Index) answerName(m nameMatch, query, lang, display string) (string, bool) {
	c := &ix.c
	entry := ix.str(c.NStr[m.name])
	if isAbbreviation(entry) || textEqual(display, query) {
		return "", false
	}
	if textnorm.Fold(entry) == textnorm.Fold(display) {
		// The same name but for diacritics or case: the form the query
		// spelt, else the display form (which keeps them).
		if textEqual(entry, query) {
			return strings.Clone(entry), true
		}
		return "", false
	}
	if shortFormOf(display, entry) {
		return "", false // "Chamonix" of "Chamonix-Mont-Blanc": the official form
	}
	official := c.NFlags[m.name]&nameOfficial != 0
	tags := c.NLangList[c.NLangStart[m.name]:c.NLangStart[m.name+1]]
	if lang == "" {
		if (official || len(tags) > 0) && !slices.Contains(tags, packLang(ix.localLanguage(m.feat))) {
			return strings.Clone(entry), true
		}
		return "", false
	}
	// The whole query is a name of the place, and the place has no name of
	// its own in the requested language (none, or only its default or
	// English name filed under it), while the name typed is one the data
	// gives no other language: the user calls it so ("Breslau",
	// "Tschenstochau" with language=de).
	if textnorm.Fold(entry) != textnorm.Fold(query) {
		return "", false
	}
	inLang := ix.localName(m.feat, lang)
	if inLang == "" {
		return strings.Clone(entry), true
	}
	f := textnorm.Fold(inLang)
	noOwn := f == textnorm.Fold(ix.str(c.FName[m.feat])) || f == textnorm.Fold(ix.localName(m.feat, "en"))
	if noOwn && !official && len(tags) == 0 {
		return strings.Clone(entry), true
	}
	return "", false
}

// shortFormOf reports whether short is long cut short: each of its words
// begins the word of long at the same place ("Paris 17" of "Paris 17e
// Arrondissement").
func shortFormOf(long, short string) bool {
	l, s := textnorm.Tokens(long), textnorm.Tokens(short)
	if len(s) == 0 || len(s) > len(l) {
		return false
	}
	for i := range s {
		if !strings.HasPrefix(l[i], s[i]) {
			return false
		}
	}
	return true
}

// textEqual compares names letter for letter, case aside.
func textEqual(a, b string) bool {
	return strings.EqualFold(norm.NFC.String(strings.TrimSpace(a)), norm.NFC.String(strings.TrimSpace(b)))
}

// hierarchy returns the context features of i, smallest first.
func (ix *Index) hierarchy(i int) []int {
	c := &ix.c
	var out []int
	for _, p := range []int32{c.FLocality[i], c.FSubregion[i], c.FRegion[i], c.FCountry[i]} {
		if p >= 0 && int(p) != i {
			out = append(out, int(p))
		}
	}
	return out
}

// placeName joins the feature's name with its region and country.
func (ix *Index) placeName(i int, lang, name string) string {
	c := &ix.c
	parts := []string{name}
	t := PlaceType(c.FType[i])
	if ex := ix.extra(i); ex != nil && ex.Address != "" && t == TypeAddress {
		parts[0] = ex.Address + " " + name
	}
	if l := c.FLocality[i]; l >= 0 && int(l) != i {
		n, _ := ix.displayName(int(l), lang)
		parts = append(parts, n)
	}
	if r := c.FRegion[i]; r >= 0 && int(r) != i && t > TypeRegion {
		n, _ := ix.displayName(int(r), lang)
		if n != name {
			parts = append(parts, n)
		}
	}
	if ct := c.FCountry[i]; ct >= 0 && int(ct) != i {
		n, _ := ix.displayName(int(ct), lang)
		parts = append(parts, n)
	}
	return strings.Join(parts, ", ")
}

func (ix *Index) properties(i int) Properties {
	c := &ix.c
	fl := c.FFlags[i]
	p := Properties{Ref: strings.Clone(ix.str(c.FRef[i])), CountryCode: strings.ToLower(unpackLang(c.FCC[i]))}
	if k := int(fl>>4) & 0xf; k < len(kinds) {
		p.Kind = kinds[k]
	}
	if d := int(fl) & 0xf; d < len(designations) {
		p.PlaceDesignation = designations[d]
	}
	if ex := ix.extra(i); ex != nil {
		p.Categories = ex.Categories
		p.FeatureTags = ex.Tags
		p.Postcodes = ex.Postcodes
		p.Sources = ex.Sources
	}
	return p
}

// extra decodes the rarely used members of feature i (nil when none).
func (ix *Index) extra(i int) *featureExtra {
	b := ix.c.ExtraBlob[ix.c.FExtraOff[i]:ix.c.FExtraOff[i+1]]
	if len(b) == 0 {
		return nil
	}
	var ex featureExtra
	if json.Unmarshal(b, &ex) != nil {
		return nil
	}
	return &ex
}

func (ix *Index) bbox(i int) [4]float64 {
	b := ix.c.FBBox[4*i : 4*i+4]
	return [4]float64{fromE7(b[0]), fromE7(b[1]), fromE7(b[2]), fromE7(b[3])}
}

// feature renders feature i in the requested languages; fullGeom returns
// the stored geometry (country polygons) instead of the center point.
func (ix *Index) feature(i int, langs []string, fullGeom bool) Feature {
	c := &ix.c
	t := PlaceType(c.FType[i])
	first := ""
	if len(langs) > 0 {
		first = langs[0]
	}
	ctr := ix.center(i)
	f := Feature{
		ID:            ix.featureID(i),
		Properties:    ix.properties(i),
		BBox:          ix.bbox(i),
		Center:        [2]float64{ctr[0], ctr[1]},
		PlaceType:     []string{t.String()},
		PlaceTypeName: []string{t.Label(first)},
		Geometry:      orb.Point(ctr),
	}
	// language is the query's primary language (spec); the language each
	// text is really in goes to language_xx.
	f.Text, _ = ix.displayName(i, first)
	f.Language = first
	if ex := ix.extra(i); ex != nil {
		f.Address = ex.Address
	}
	f.PlaceName = ix.placeName(i, first, f.Text)
	if len(langs) > 1 {
		for _, l := range langs {
			txt, got := ix.displayName(i, l)
			f.Localized = append(f.Localized, Localized{Lang: l, Text: txt, Language: got, PlaceName: ix.placeName(i, l, txt)})
		}
	}
	if fullGeom {
		if g, err := ix.geometry(i); err == nil && g != nil {
			f.Geometry = g
		}
	}
	for _, p := range ix.hierarchy(i) {
		cx := Context{ID: ix.featureID(p), Properties: ix.properties(p)}
		cx.Text, _ = ix.displayName(p, first)
		cx.Language = first
		if len(langs) > 1 {
			for _, l := range langs {
				txt, got := ix.displayName(p, l)
				cx.Localized = append(cx.Localized, Localized{Lang: l, Text: txt, Language: got})
			}
		}
		f.Context = append(f.Context, cx)
	}
	return f
}

// setMatching fills matching_text and matching_place_name when the name that
// matched the query differs from the displayed text.
func (ix *Index) setMatching(f *Feature, nameEntry int, langs []string) {
	if nameEntry < 0 {
		return
	}
	m := strings.Clone(ix.str(ix.c.NStr[nameEntry]))
	if m == f.Text {
		return
	}
	for _, l := range f.Localized {
		if l.Text == m {
			return
		}
	}
	first := ""
	if len(langs) > 0 {
		first = langs[0]
	}
	f.MatchingText = m
	f.MatchingPlaceName = ix.placeName(int(ix.c.NFeat[nameEntry]), first, m)
}
