package geocode

// Local names. With no language preference a place is named in its own
// language, its country's main language: "München", not "Munich"; "Wien",
// not "Vienna". The countries' languages come from the countries-list
// package and are kept in the index's metadata; an index without them, or a
// place without a name in that language, keeps the default name.

// loadLocalLanguages fills ix.localLang from the metadata.
func (ix *Index) loadLocalLanguages() {
	ix.localLang = make(map[uint16]uint16, len(ix.meta.LocalLanguages))
	for cc, lang := range ix.meta.LocalLanguages {
		if c, l := packLang(cc), packLang(lang); c != 0 && l != 0 {
			ix.localLang[c] = l
		}
	}
}

// localLanguage is the language of feature i's country ("" when unknown).
func (ix *Index) localLanguage(i int) string {
	if l, ok := ix.localLang[ix.c.FCC[i]]; ok {
		return unpackLang(l)
	}
	return ""
}
