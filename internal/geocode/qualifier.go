package geocode

import (
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
)

// Query qualifiers. A query may end with where the place is: a region by
// its code or name ("springfield, il", "paris tx", "munich bavaria") or a
// country by its ISO code or name ("paris france", "springfield usa").
// When the whole query names nothing by itself, the words before the
// qualifier are searched again among the places of the regions or countries
// it names, and those words plus the qualifier make the match.

// qualifier is a trailing part of a query that names regions or countries.
type qualifier struct {
	words  int            // how many trailing query words it takes
	admins map[int32]bool // the regions and countries it names
}

// adminCodes maps lower-case region codes (the part after the country in
// GeoNames admin1 codes: "il" of US.IL) and ISO country codes to their
// features; built on first use.
type adminCodes struct {
	once  sync.Once
	codes map[string][]int32
}

func (ix *Index) codeTable() map[string][]int32 {
	ix.admin.once.Do(func() {
		m := map[string][]int32{}
		c := &ix.c
		for i, t := range c.FType {
			switch PlaceType(t) {
			case TypeRegion:
				ref := ix.str(c.FRef[i])
				if _, code, ok := strings.Cut(strings.TrimPrefix(ref, "geonames:"), "."); ok && isLetters(code) {
					k := strings.ToLower(code)
					m[k] = append(m[k], int32(i))
				}
			case TypeCountry:
				k := strings.ToLower(unpackLang(c.FCC[i]))
				if k != "" {
					m[k] = append(m[k], int32(i))
				}
			}
		}
		ix.admin.codes = m
	})
	return ix.admin.codes
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' && r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// maxQualifierWords bounds the words a qualifier may take.
const maxQualifierWords = 3

// trailingQualifier finds the qualifier at the end of a query: the words
// after the last comma, or else the last one to three words, when they are
// a region or country code or the whole name of regions or countries. At
// least one word must be left for the place's name.
func (ix *Index) trailingQualifier(text string, words []string) *qualifier {
	if len(words) < 2 {
		return nil
	}
	try := func(n int) *qualifier {
		if n < 1 || n >= len(words) || n > maxQualifierWords {
			return nil
		}
		admins := ix.namedAdmins(words[len(words)-n:])
		if len(admins) == 0 {
			return nil
		}
		return &qualifier{words: n, admins: admins}
	}
	if i := strings.LastIndexByte(text, ','); i >= 0 {
		return try(len(textnorm.Tokens(text[i+1:])))
	}
	for n := min(maxQualifierWords, len(words)-1); n >= 1; n-- {
		if q := try(n); q != nil {
			return q
		}
	}
	return nil
}

// namedAdmins returns the regions and countries whose code is the one word
// given, or one of whose names is exactly the words given.
func (ix *Index) namedAdmins(words []string) map[int32]bool {
	out := map[int32]bool{}
	if len(words) == 1 && len(words[0]) <= 3 {
		for _, f := range ix.codeTable()[words[0]] {
			out[f] = true
		}
	}
	// Names: the postings of the rarest word, kept where the name is
	// exactly these words.
	ids := make([]int, len(words))
	rarest := -1
	c := &ix.c
	for i, w := range words {
		ids[i] = ix.findToken(w)
		if ids[i] < 0 {
			return out
		}
		n := c.PostStart[ids[i]+1] - c.PostStart[ids[i]]
		if rarest < 0 || n < c.PostStart[ids[rarest]+1]-c.PostStart[ids[rarest]] {
			rarest = i
		}
	}
	for _, nm := range ix.posting(ids[rarest], capContextScan) {
		f := c.NFeat[nm]
		if t := PlaceType(c.FType[f]); t != TypeRegion && t != TypeCountry {
			continue
		}
		toks := c.NToks[c.NTokStart[nm]:c.NTokStart[nm+1]]
		if len(toks) != len(ids) {
			continue
		}
		same := true
		for j, t := range toks {
			same = same && int(t) == ids[j]
		}
		if same {
			out[int32(f)] = true
		}
	}
	return out
}

// wholeRelevance is the relevance from which a match covering every word
// counts as naming the whole query (an untagged alternate name that is the
// query scores relevanceAlternate).
const wholeRelevance = 0.99 * relevanceAlternate

// hasWholeMatch reports whether the best match covers the whole query.
func hasWholeMatch(ms []nameMatch) bool {
	return len(ms) > 0 && ms[0].unmatched == 0 && ms[0].text >= wholeRelevance
}

// mergeQualified puts the matches of a qualified search (over nameWords of
// allWords, the rest being the qualifier, which counts as matched) before
// the plain matches, each feature once.
//
// Only qualified matches that match every word of the name count: a place
// of the qualifier's region matching part of the name ("frankfurt a" in
// Munster, whose code is "m") does not go before the plain matches.
func mergeQualified(qualified, plain []nameMatch, nameWords, allWords int) []nameMatch {
	out := make([]nameMatch, 0, len(qualified)+len(plain))
	seen := map[int]bool{}
	for _, m := range qualified {
		if m.unmatched != 0 {
			continue
		}
		m.text = (m.text*float64(nameWords) + float64(allWords-nameWords)) / float64(allWords)
		out = append(out, m)
		seen[m.feat] = true
	}
	for _, m := range plain {
		if !seen[m.feat] {
			out = append(out, m)
		}
	}
	return out
}

// fillerRelevance is the relevance below which a result is left out when
// a better one matched the whole query.
const fillerRelevance = 0.75

// dropFiller leaves out results that match much less of the query than
// the best one does, when the best one matched all of it.
func dropFiller(ms []nameMatch) []nameMatch {
	if len(ms) == 0 || ms[0].text < wholeRelevance {
		return ms
	}
	out := ms[:0]
	for _, m := range ms {
		if m.text >= fillerRelevance {
			out = append(out, m)
		}
	}
	return out
}
