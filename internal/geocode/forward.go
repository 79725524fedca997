package geocode

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tesseramaps/tessera/internal/geo"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
)

// Ranking weights. A feature's score is its text score (0..1: the share of
// the query matched, lowered when the name has words the query lacks) plus
// wImportance times its importance (type, population, capital rank) plus,
// with proximity, wProximity times a closeness term.
const (
	wImportance = 0.42
	wProximity  = 0.4
	wLanguage   = 0.02
	// initialWeight is the share of a lone letter among other query
	// words, against 1 for a word.
	initialWeight = 0.25
	// wAlias lowers the score per query word matched through a word
	// that means the same ("st" for "saint") instead of as written.
	wAlias    = 0.03
	wCoverage = 0.4
	// wExactName is the bonus of a name that is exactly the query.
	wExactName = 0.4
	// wImportantLocality is the bonus of an exactly named locality of at
	// least importantPopulation people, or a capital, over regions of the
	// same name; countries have it too.
	wImportantLocality  = 0.12
	importantPopulation = 20000
	// wRelevanceCover is how much the name's words missing from the query
	// lower the relevance.
	wRelevanceCover = 0.3
	// relevanceAlternate is the relevance factor of untagged alternates.
	relevanceAlternate = 0.9
	// trailingWeight is the weight of a name's words not typed yet.
	trailingWeight = 0.2
	// minAreaImportance is the lowest importance of an area feature
	// (subregions start at 0.3), which bounds the scan for context words.
	minAreaImportance = 0.3 // weight of the share of the name's words matched
	proximityKM       = 150.0

	scorePrefixBase = 0.9 // a completed prefix: importance decides among completions
	scoreFuzzy1     = 0.82
	scoreFuzzy1Shrt = 0.76
	scoreFuzzy2     = 0.62
	scoreContext    = 0.95
	scoreAlternate  = 0.96 // factor of names in a language (English, or any when none is requested)
	scoreUntagged   = 0.92 // factor of untagged alternate names (GeoNames alternatenames)
	scoreForeign    = 0.88 // factor of names in a language other than the requested one
	scoreObscure    = 0.85 // factor of abbreviations among the untagged alternates

	capExact        = 6000
	capFuzzy        = 400
	capPrefixToken  = 300
	capPrefixTotal  = 4000
	maxPrefixToks   = 64
	prefixScanMax   = 400_000
	maxCandidates   = 20_000
	contextTop      = 300
	capContextScan  = 5000
	capSpatialScan  = 100_000 // names scanned beyond the cap with bbox or proximity
	proximityScanKM = 100.0   // radius of that scan around the proximity point
)

// qtok is one query token with its matching dictionary tokens.
type qtok struct {
	s      string
	weight float64 // share of the query it stands for (initialWeight for a lone letter)
	runes  int
	exact  int              // token id or -1
	same   []int            // tokens of words that mean the same ("st", "saint")
	fuzzy  map[uint32]uint8 // token id -> edit distance
	prefix bool
	lo, hi int // prefix range of the dictionary
}

// nameMatch is the best match of a feature's names.
type nameMatch struct {
	feat      int
	name      int // name entry
	text      float64
	matched   float64 // sum of matched token qualities
	unmatched uint32  // bitmask of query tokens not matched by the name
	score     float64
}

func fuzzyQuality(d uint8, runes int) float64 {
	switch {
	case d == 0:
		return 1
	case d == 1 && runes < 6:
		return scoreFuzzy1Shrt
	case d == 1:
		return scoreFuzzy1
	}
	return scoreFuzzy2
}

// fuzzyTokens finds dictionary tokens within the edit budget of q through
// the deletion index (index tokens with up to one deletion, the query with
// up to two): all single edits, transpositions and most double edits.
func (ix *Index) fuzzyTokens(q string, runes int) map[uint32]uint8 {
	maxEd := textnorm.MaxEdits(runes)
	if maxEd == 0 || runes > maxFuzzyRunes {
		return nil
	}
	out := map[uint32]uint8{}
	seen := map[uint64]bool{}
	probe := func(s string) {
		h := hashString(s)
		if seen[h] {
			return
		}
		seen[h] = true
		c := &ix.c
		j := sort.Search(len(c.DelHash), func(i int) bool { return c.DelHash[i] >= h })
		for ; j < len(c.DelHash) && c.DelHash[j] == h; j++ {
			t := c.DelTok[j]
			if _, ok := out[t]; ok {
				continue
			}
			if d := textnorm.Distance(q, ix.tok(t), maxEd); d <= maxEd && d > 0 {
				out[t] = uint8(d)
			}
		}
	}
	probe(q)
	textnorm.Deletions(q, func(d1 string) {
		probe(d1)
		if maxEd >= 2 {
			textnorm.Deletions(d1, probe)
		}
	})
	return out
}

// posting returns up to max name ids of token t, best first.
func (ix *Index) posting(t int, max int) []uint32 {
	p := ix.c.Postings[ix.c.PostStart[t]:ix.c.PostStart[t+1]]
	if len(p) > max {
		p = p[:max]
	}
	return p
}

// prefixTokens picks the dictionary tokens of a prefix range whose best name
// is the most important, at most maxPrefixToks.
func (ix *Index) prefixTokens(lo, hi int) []int {
	if hi-lo <= maxPrefixToks {
		out := make([]int, 0, hi-lo)
		for t := lo; t < hi; t++ {
			out = append(out, t)
		}
		return out
	}
	if hi-lo > prefixScanMax {
		hi = lo + prefixScanMax
	}
	type tb struct {
		t    int
		best uint32
	}
	top := make([]tb, 0, maxPrefixToks+1)
	c := &ix.c
	for t := lo; t < hi; t++ {
		s := c.PostStart[t]
		if s == c.PostStart[t+1] {
			continue
		}
		b := c.Postings[s]
		if len(top) == maxPrefixToks && b >= top[len(top)-1].best {
			continue
		}
		i := sort.Search(len(top), func(k int) bool { return top[k].best > b })
		top = slices.Insert(top, i, tb{t, b})
		if len(top) > maxPrefixToks {
			top = top[:maxPrefixToks]
		}
	}
	out := make([]int, len(top))
	for i, x := range top {
		out[i] = x.t
	}
	return out
}

// matchName scores name entry nm against the query tokens; it returns the
// sum of token qualities, a bitmask of unmatched query tokens and the share
// of the name's tokens that were matched.
//
// With autocomplete (typing), the name's words after the last matched one
// are still to come and weigh only trailingWeight in the coverage.
func (ix *Index) matchName(nm int, qs []qtok, typing bool) (sum float64, unmatched uint32, cover float64) {
	sum, unmatched, cover, _ = ix.matchNameAlias(nm, qs, typing)
	return sum, unmatched, cover
}

// matchNameAlias is matchName that also counts the query words matched
// through a word that means the same ("st" for "Saint") rather than
// letter for letter.
func (ix *Index) matchNameAlias(nm int, qs []qtok, typing bool) (sum float64, unmatched uint32, cover float64, alias int) {
	c := &ix.c
	toks := c.NToks[c.NTokStart[nm]:c.NTokStart[nm+1]]
	var used uint32
	for i := range qs {
		q := &qs[i]
		best, bestJ, bestAlias := 0.0, -1, false
		for j, t := range toks {
			if used&(1<<j) != 0 {
				continue
			}
			var s float64
			isAlias := false
			switch {
			case int(t) == q.exact:
				s = 1
			case slices.Contains(q.same, int(t)):
				s, isAlias = 1, true
			case q.prefix && int(t) >= q.lo && int(t) < q.hi:
				s = scorePrefixBase + (1-scorePrefixBase)*float64(q.runes)/float64(max(q.runes, utf8.RuneCountInString(ix.tok(t))))
			default:
				if d, ok := q.fuzzy[t]; ok {
					s = fuzzyQuality(d, q.runes)
				}
			}
			if s > best || s == best && bestAlias && !isAlias {
				best, bestJ, bestAlias = s, j, isAlias
			}
		}
		if bestJ >= 0 {
			used |= 1 << bestJ
			sum += best * q.weight
			if bestAlias {
				alias++
			}
		} else {
			unmatched |= 1 << i
		}
	}
	if len(toks) == 0 || used == 0 {
		return sum, unmatched, 0, alias
	}
	matched := float64(bits.OnesCount32(used))
	missing := float64(len(toks)) - matched
	if typing {
		after := float64(len(toks) - bits.Len32(used)) // unmatched words after the last matched one
		missing += (trailingWeight - 1) * after
	}
	return sum, unmatched, matched / (matched + missing), alias
}

// contextMatch tries the unmatched query tokens against the names of the
// feature's region, subregion and country; it returns the added quality and
// the tokens still unmatched.
//
// admins lists (sorted) the area features having a name with a query word
// and those names: the only names that can match.
func (ix *Index) contextMatch(f int, qs []qtok, unmatched uint32, admins []featName) (float64, uint32) {
	c := &ix.c
	var add float64
	sub := make([]qtok, 0, len(qs))
	idx := make([]int, 0, len(qs))
	for _, p := range []int32{c.FLocality[f], c.FSubregion[f], c.FRegion[f], c.FCountry[f]} {
		if p < 0 || int(p) == f || unmatched == 0 {
			continue
		}
		lo, _ := slices.BinarySearchFunc(admins, p, func(a featName, p int32) int { return cmp.Compare(a.feat, p) })
		for k := lo; k < len(admins) && admins[k].feat == p && unmatched != 0; k++ {
			nm := admins[k].name
			sub, idx = sub[:0], idx[:0]
			for i := range qs {
				if unmatched&(1<<i) != 0 {
					sub = append(sub, qs[i])
					idx = append(idx, i)
				}
			}
			s, um, cover := ix.matchName(int(nm), sub, false)
			if cover < 1 { // a context name counts only when fully given
				continue
			}
			add += s * scoreContext
			for k, i := range idx {
				if um&(1<<k) == 0 {
					unmatched &^= 1 << i
				}
			}
		}
	}
	return add, unmatched
}

type filter struct {
	types     [numTypes]bool
	countries []string
	bbox      *[4]float64
	within    map[int32]bool // regions or countries (nil: anywhere)
}

func newTypeSet(types []PlaceType, exclude bool) [numTypes]bool {
	var set [numTypes]bool
	for i := range set {
		set[i] = len(types) == 0 || exclude
	}
	for _, t := range types {
		if t < numTypes {
			set[t] = !exclude
		}
	}
	set[TypeInvalid] = false
	return set
}

func (ix *Index) pass(f int, fl *filter) bool {
	c := &ix.c
	if !fl.types[c.FType[f]] {
		return false
	}
	if len(fl.countries) > 0 && !slices.Contains(fl.countries, unpackLang(c.FCC[f])) {
		return false
	}
	if fl.within != nil && !fl.within[c.FRegion[f]] && !fl.within[c.FCountry[f]] {
		return false
	}
	if b := fl.bbox; b != nil {
		lon, lat := fromE7(c.FLon[f]), fromE7(c.FLat[f])
		if lat < b[1] || lat > b[3] {
			return false
		}
		if b[0] <= b[2] {
			return lon >= b[0] && lon <= b[2]
		}
		return lon >= b[0] || lon <= b[2]
	}
	return true
}

// Forward searches features by name.
func (ix *Index) Forward(ctx context.Context, q ForwardQuery) (SearchResults, error) {
	if err := q.validate(); err != nil {
		return SearchResults{}, err
	}
	if err := ix.acquire(); err != nil {
		return SearchResults{}, err
	}
	defer ix.mu.RUnlock()
	res := SearchResults{Type: "FeatureCollection", Attribution: ix.meta.Attribution}
	words := textnorm.Tokens(q.Text)
	if len(words) > MaxQueryTokens {
		words = words[:MaxQueryTokens]
	}
	res.Query = words
	if len(words) == 0 {
		return res, nil
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	typing := !q.NoAutocomplete
	matches := ix.forwardMatches(ctx, q, words, matchOptions{typing: typing, autocomplete: typing && !strings.HasSuffix(q.Text, " ")})
	if err := ctx.Err(); err != nil {
		return SearchResults{}, err
	}
	// A trailing region or country ("springfield, il", "paris tx") narrows
	// the search when the whole query names nothing by itself.
	if !hasWholeMatch(matches) {
		if qual := ix.trailingQualifier(q.Text, words); qual != nil {
			name := words[:len(words)-qual.words]
			qm := ix.forwardMatches(ctx, q, name, matchOptions{typing: false, within: qual.admins})
			if err := ctx.Err(); err != nil {
				return SearchResults{}, err
			}
			matches = mergeQualified(qm, matches, len(name), len(words))
		}
	}
	matches = dropFiller(matches)
	if len(matches) > limit {
		matches = matches[:limit]
	}
	first := ""
	if len(q.Languages) > 0 {
		first = q.Languages[0]
	}
	for _, m := range matches {
		f := ix.feature(m.feat, q.Languages, false)
		if txt, ok := ix.answerName(m, q.Text, first, f.Text); ok {
			f.Text = txt
			f.PlaceName = ix.placeName(m.feat, first, txt)
			if len(f.Localized) > 0 {
				f.Localized[0].Text, f.Localized[0].PlaceName = txt, f.PlaceName
			}
		}
		f.Relevance = math.Round(m.text*1e4) / 1e4
		ix.setMatching(&f, m.name, q.Languages)
		res.Features = append(res.Features, f)
	}
	return res, nil
}

// matchOptions tune one pass of forwardMatches.
type matchOptions struct {
	// typing: the name may go on beyond the query; autocomplete: the last
	// word is a prefix.
	typing, autocomplete bool
	// within keeps only features whose region or country is one of these.
	within map[int32]bool
}

func (ix *Index) forwardMatches(ctx context.Context, q ForwardQuery, words []string, opt matchOptions) []nameMatch {
	typing, autocomplete := opt.typing, opt.autocomplete
	qs := make([]qtok, len(words))
	for i, w := range words {
		qs[i] = qtok{s: w, runes: utf8.RuneCountInString(w), exact: ix.findToken(w), weight: 1}
		if qs[i].runes == 1 && len(words) > 1 && !hasDigit(w) {
			// A lone letter among other words is an initial ("Beuthen
			// O.S.", "Frankfurt a. M."): it counts, but little.
			qs[i].weight = initialWeight
		}
		for _, alt := range sameWords[w] {
			if t := ix.findToken(alt); t >= 0 {
				qs[i].same = append(qs[i].same, t)
			}
		}
		if alt, ok := ordinalShort(w); ok {
			if t := ix.findToken(alt); t >= 0 {
				qs[i].same = append(qs[i].same, t)
			}
		}
		if !q.NoFuzzy {
			qs[i].fuzzy = ix.fuzzyTokens(w, qs[i].runes)
		}
		// Cyrillic and Greek words also match their romanization, as if
		// with one more edit.
		if alt, ok := textnorm.Transliterate(w); ok {
			addAlt := func(t int, d int) {
				if t < 0 || t == qs[i].exact || d > 2 {
					return
				}
				if qs[i].fuzzy == nil {
					qs[i].fuzzy = map[uint32]uint8{}
				}
				if old, ok := qs[i].fuzzy[uint32(t)]; !ok || int(old) > d {
					qs[i].fuzzy[uint32(t)] = uint8(d)
				}
			}
			addAlt(ix.findToken(alt), 1)
			if !q.NoFuzzy {
				for t, d := range ix.fuzzyTokens(alt, utf8.RuneCountInString(alt)) {
					addAlt(int(t), int(d)+1)
				}
			}
		}
		if autocomplete && i == len(words)-1 {
			qs[i].prefix = true
			qs[i].lo, qs[i].hi = ix.prefixRange(w)
		}
	}
	c := &ix.c
	fl := filter{types: newTypeSet(q.Types, q.ExcludeTypes), countries: q.Countries, bbox: q.BBox, within: opt.within}
	filtered := len(q.Types) > 0 || len(q.Countries) > 0 || q.BBox != nil || opt.within != nil
	scale := 1
	if filtered {
		scale = 4
	}
	// Candidate names from the query tokens' postings: the most selective
	// token contributes up to its full cap, the others a shorter head (their
	// best names), which keeps long lists of common words bounded.
	sc := ix.getScratch()
	defer ix.scratchPool.Put(sc)
	var cands []uint32
	addList := func(p []uint32) {
		for _, nm := range p {
			if len(cands) >= maxCandidates*scale {
				return
			}
			if sc.nameMark[nm] != sc.stamp {
				sc.nameMark[nm] = sc.stamp
				cands = append(cands, nm)
			}
		}
	}
	type gen struct {
		toks []int
		caps int
		size int
	}
	gens := make([]gen, len(qs))
	for i := range qs {
		qt := &qs[i]
		g := &gens[i]
		if qt.exact >= 0 {
			g.toks = append(g.toks, qt.exact)
		}
		g.toks = append(g.toks, qt.same...)
		fixed := len(g.toks)
		for t := range qt.fuzzy {
			g.toks = append(g.toks, int(t))
		}
		slices.Sort(g.toks[fixed:])
		if qt.prefix && (len(qs) == 1 || qt.hi-qt.lo <= maxPrefixToks*4) {
			g.toks = append(g.toks, ix.prefixTokens(qt.lo, qt.hi)...)
		}
		for _, t := range g.toks {
			g.size += int(c.PostStart[t+1] - c.PostStart[t])
		}
	}
	sel := 0
	for i := range gens {
		if len(gens[i].toks) > 0 && (len(gens[sel].toks) == 0 || gens[i].size < gens[sel].size) {
			sel = i
		}
	}
	for i := range qs {
		qt := &qs[i]
		div := 1
		if i != sel {
			div = 4 * len(qs) // the other words bring only their best names
		}
		nPrefix := 0
		for _, t := range gens[i].toks {
			if qt.prefix && t >= qt.lo && t < qt.hi && t != qt.exact {
				nPrefix++
			}
		}
		for _, t := range gens[i].toks {
			switch {
			case t == qt.exact || slices.Contains(qt.same, t):
				addList(ix.posting(t, capExact*scale/div))
			case qt.prefix && t >= qt.lo && t < qt.hi:
				// The prefix's completions share one budget.
				addList(ix.posting(t, max(16, min(capPrefixToken, capPrefixTotal/max(1, nPrefix))*scale/div)))
			default:
				addList(ix.posting(t, max(16, capFuzzy*scale/div)))
			}
		}
	}
	// With a place to look at (bbox or proximity), the selective word's
	// names beyond its cap are scanned too, keeping only those in the box
	// or near the point: local features of modest importance still count.
	if (q.BBox != nil || q.Proximity != nil) && qs[sel].exact >= 0 {
		t := qs[sel].exact
		all := ix.c.Postings[ix.c.PostStart[t]:ix.c.PostStart[t+1]]
		from := min(len(all), capExact*scale)
		to := min(len(all), from+capSpatialScan)
		inBox := filter{types: newTypeSet(nil, false), bbox: q.BBox}
		for _, nm := range all[from:to] {
			if len(cands) >= maxCandidates*scale {
				break
			}
			f := int(c.NFeat[nm])
			if q.Proximity != nil && haversineKM(*q.Proximity, ix.center(f)) > proximityScanKM {
				continue
			}
			if q.BBox != nil && !ix.pass(f, &inBox) {
				continue
			}
			addList([]uint32{nm})
		}
	}
	// A postcode among the query's words qualifies the places it serves
	// ("lyon 69003", "nantes 44000"): they are candidates, and the
	// postcode counts as matched for them.
	covered := ix.postcodeCovers(qs)
	for f := range covered {
		for nm := c.FNameStart[f]; nm < c.FNameStart[f+1]; nm++ {
			addList([]uint32{nm})
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	lang := ""
	if len(q.Languages) > 0 {
		lang = q.Languages[0]
	}
	langCode := packLang(lang)
	langEnglish := packLang("en")
	var ms []nameMatch
	k := 0.0
	for i := range qs {
		k += qs[i].weight
	}
	for _, nm := range cands {
		f := int(c.NFeat[nm])
		if !ix.pass(f, &fl) {
			continue
		}
		sum, um, cover, alias := ix.matchNameAlias(int(nm), qs, typing)
		if sum == 0 {
			continue
		}
		if pc := covered[int32(f)] & um; pc != 0 {
			// The postcode words are matched by the place they serve
			// (the name matched the other words: sum > 0).
			um &^= pc
			for i := range qs {
				if pc&(1<<i) != 0 {
					sum += qs[i].weight
				}
			}
		}
		if um != 0 && PlaceType(c.FType[f]) == TypeAddress {
			// The house number is not part of the name.
			if ex := ix.extra(f); ex != nil && ex.Address != "" {
				num := textnorm.Fold(ex.Address)
				for i := range qs {
					if um&(1<<i) != 0 && qs[i].s == num {
						um &^= 1 << i
						sum += qs[i].weight
						break
					}
				}
			}
		}
		text := sum / k
		score := text * (1 - wCoverage + wCoverage*cover)
		// The whole query is the whole name, word for word: it beats any
		// completion or fuzzy match of a longer name ("Par" before
		// "Paris"); among such names an important locality beats a region
		// of the same name ("New York", "Schleswig").
		official := c.NFlags[nm]&nameOfficial != 0
		tags := c.NLangList[c.NLangStart[nm]:c.NLangStart[nm+1]]
		// An untagged alternate that is an abbreviation ("PAR", "NYC") is
		// obscure: it finds the place but does not rank it as its name.
		obscure := !official && len(tags) == 0 && isAbbreviation(ix.str(c.NStr[nm]))
		if um == 0 && sum == k && cover == 1 && !obscure {
			score += wExactName
			switch PlaceType(c.FType[f]) {
			case TypeCountry: // a country keeps its rank over a namesake town
				score += wImportantLocality
			case TypeLocality:
				if c.FPop[f] >= importantPopulation || c.FFlags[f]>>12&15 > 0 {
					score += wImportantLocality
				}
			}
		}
		if obscure {
			score *= scoreObscure
		}
		// A word matched as written beats the same word matched through
		// its abbreviation or expansion: "st louis" finds St. Louis before
		// Saint-Louis when they are about as important.
		score -= wAlias * float64(alias)
		// Relevance counts the name's words the query left out, a little;
		// an untagged alternate (a historical or colloquial name, a code) is
		// not the place's name: it matches, but never fully ("sao paulo"
		// is no full match of a town once called so).
		text *= 1 - wRelevanceCover*(1-cover)
		if !official && len(tags) == 0 {
			text *= relevanceAlternate
		}
		inLang := langCode != 0 && slices.Contains(tags, langCode)
		if inLang {
			score += wLanguage
		}
		// A place's own names first: its main name, then its names in a
		// language (any, without a requested one), then its untagged
		// alternates (historical, colloquial), which outrank another
		// place's main name only when that place is far less important.
		switch {
		case official || inLang:
		case len(tags) == 0:
			score *= scoreUntagged
		case langCode == 0 || slices.Contains(tags, langEnglish):
			score *= scoreAlternate
		default:
			score *= scoreForeign
		}
		m := nameMatch{feat: f, name: int(nm), text: text, matched: sum, unmatched: um, score: score}
		if sc.featMark[f] == sc.stamp {
			j := sc.featSlot[f]
			if m.score > ms[j].score {
				ms[j] = m
			}
			continue
		}
		sc.featMark[f] = sc.stamp
		sc.featSlot[f] = int32(len(ms))
		ms = append(ms, m)
	}
	for i := range ms {
		ms[i].score += wImportance * float64(c.FImp[ms[i].feat])
		if q.Proximity != nil {
			d := haversineKM(*q.Proximity, ix.center(ms[i].feat))
			ms[i].score += wProximity * proximityKM / (proximityKM + d)
		}
	}
	byScore := func(a, b nameMatch) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.feat, b.feat)
	}
	ms = topMatches(ms, contextTop, byScore) // only the best can be returned
	if len(qs) > 1 {
		// Words the name lacks may name the context ("Paris France").
		n := min(len(ms), contextTop)
		changed := false
		type ckey struct {
			loc, sub, reg, country int32
			um                     uint32
		}
		cache := map[ckey]float64{}
		// Area features and localities having a name with one of the
		// query's missing words: the only possible context matches.
		var need uint32 // query words some top candidate lacks
		for i := 0; i < n; i++ {
			need |= ms[i].unmatched
		}
		// Collected as feature<<32|name keys: sorting plain integers is
		// much cheaper than sorting pairs with a comparison function.
		var keys []uint64
		for i := range gens {
			if need&(1<<i) == 0 {
				continue
			}
			for _, t := range gens[i].toks {
				for j, nm := range ix.posting(t, capContextScan) {
					f := c.NFeat[nm]
					if c.FImp[f] < minAreaImportance && j > 64 {
						break
					}
					switch PlaceType(c.FType[f]) {
					case TypeCountry, TypeRegion, TypeSubregion, TypeLocality:
						keys = append(keys, uint64(uint32(f))<<32|uint64(nm))
					}
				}
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		admins := make([]featName, len(keys))
		for i, k := range keys {
			admins[i] = featName{int32(k >> 32), uint32(k)}
		}
		for i := 0; i < n; i++ {
			m := &ms[i]
			if m.unmatched == 0 {
				continue
			}
			key := ckey{c.FLocality[m.feat], c.FSubregion[m.feat], c.FRegion[m.feat], c.FCountry[m.feat], m.unmatched}
			add, ok := cache[key]
			if !ok {
				add, _ = ix.contextMatch(m.feat, qs, m.unmatched, admins)
				cache[key] = add
			}
			if add > 0 {
				delta := add / k
				m.text += delta
				m.score += delta
				changed = true
			}
		}
		if changed {
			slices.SortFunc(ms, byScore)
		}
	}
	for i := range ms {
		ms[i].text = math.Min(1, ms[i].text)
	}
	return ms
}

// maxPostcodeFeatures bounds the postal codes of one query word (a code
// can exist in several countries).
const maxPostcodeFeatures = 8

// postcodeCovers maps the places served by the postal codes among the query
// words to the bitmask of those words.
func (ix *Index) postcodeCovers(qs []qtok) map[int32]uint32 {
	var out map[int32]uint32
	c := &ix.c
	for i := range qs {
		if qs[i].exact < 0 || !hasDigit(qs[i].s) {
			continue
		}
		n := 0
		for _, nm := range ix.posting(qs[i].exact, capExact) {
			f := int(c.NFeat[nm])
			if PlaceType(c.FType[f]) != TypePostalCode {
				continue
			}
			if n++; n > maxPostcodeFeatures {
				break
			}
			ex := ix.extra(f)
			if ex == nil {
				continue
			}
			for _, p := range ex.Covers {
				if p >= 0 && int(p) < len(c.FType) {
					if out == nil {
						out = map[int32]uint32{}
					}
					out[p] |= 1 << i
				}
			}
		}
	}
	return out
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// sameWords lists, for the common abbreviations of place names, the words
// they stand for, and back: "st louis" finds "Saint-Louis", "fort worth"
// finds "Ft. Worth".
var sameWords = map[string][]string{
	"st": {"saint", "sainte", "sankt"}, "saint": {"st"}, "sainte": {"ste", "st"}, "ste": {"sainte"}, "sankt": {"st"},
	"mt": {"mount", "mont", "monte"}, "mount": {"mt"}, "mont": {"mt"},
	"ft": {"fort"}, "fort": {"ft"},
}

// ordinalShort reads a French ordinal written long as its short form:
// "17eme", "17ieme" (folded from "17ème", "17ième") as "17e".
func ordinalShort(w string) (string, bool) {
	i := 0
	for i < len(w) && w[i] >= '0' && w[i] <= '9' {
		i++
	}
	if i == 0 || i > 3 {
		return "", false
	}
	switch w[i:] {
	case "eme", "ieme", "em", "me":
		return w[:i] + "e", true
	}
	return "", false
}

// isAbbreviation reports whether a name is written as an abbreviation or
// code: two to four capital letters ("PAR", "NYC").
func isAbbreviation(s string) bool {
	if len(s) < 2 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// haversineKM is the great-circle distance in kilometres.
func haversineKM(a, b orb.Point) float64 { return geo.Distance(a, b) / 1000 }

// featName is a feature with one of its name entries.
type featName struct {
	feat int32
	name uint32
}

// scratch holds per-query marks over names and features, reused through a
// pool; a mark equal to stamp means "set in this query".
type scratch struct {
	stamp    uint32
	nameMark []uint32
	featMark []uint32
	featSlot []int32
}

func (ix *Index) getScratch() *scratch {
	sc, _ := ix.scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{nameMark: make([]uint32, len(ix.c.NFeat)), featMark: make([]uint32, len(ix.c.FType)),
			featSlot: make([]int32, len(ix.c.FType))}
	}
	sc.stamp++
	if sc.stamp == 0 { // wrapped: clear the marks
		clear(sc.nameMark)
		clear(sc.featMark)
		sc.stamp = 1
	}
	return sc
}

// topMatches returns the k best matches of ms by cmp (best first), using a
// bounded heap instead of sorting everything.
func topMatches(ms []nameMatch, k int, cmpFn func(a, b nameMatch) int) []nameMatch {
	if len(ms) <= k {
		slices.SortFunc(ms, cmpFn)
		return ms
	}
	// h is a heap whose root is the worst of the kept matches.
	h := make([]nameMatch, 0, k)
	worse := func(i, j int) bool { return cmpFn(h[i], h[j]) > 0 }
	down := func(i int) {
		for {
			l, best := 2*i+1, i
			if l < len(h) && worse(l, best) {
				best = l
			}
			if r := l + 1; r < len(h) && worse(r, best) {
				best = r
			}
			if best == i {
				return
			}
			h[i], h[best] = h[best], h[i]
			i = best
		}
	}
	for _, m := range ms {
		if len(h) < k {
			h = append(h, m)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !worse(i, p) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if cmpFn(m, h[0]) < 0 { // better than the worst kept
			h[0] = m
			down(0)
		}
	}
	slices.SortFunc(h, cmpFn)
	return h
}
