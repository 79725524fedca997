package geocode

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
)

type nameEntry struct {
	str      string
	folded   string
	langs    []uint16
	official bool
}

// Name entry flags.
const nameOfficial = 1

// assemble lays the features out as columns with the search structures:
// the feature and name columns, the token dictionary and its postings, the
// deletion neighbourhoods for typo tolerance, the spatial grids and the
// id lookup.
func assemble(ctx context.Context, feats []*bfeat, attribution []string, localLanguages map[string]string) (*columns, error) {
	c := &columns{}
	strs := newInterner()
	toks := &tokenTable{ids: map[string]uint32{}}
	c.FGeomOff = append(c.FGeomOff, 0)
	c.FExtraOff = append(c.FExtraOff, 0)
	c.FLangStart = append(c.FLangStart, 0)
	c.FNameStart = append(c.FNameStart, 0)
	c.NTokStart = append(c.NTokStart, 0)
	c.NLangStart = append(c.NLangStart, 0)
	var entries []nameEntry
	for i, f := range feats {
		if i%20000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		langs, err := c.appendFeature(strs, f)
		if err != nil {
			return nil, err
		}
		entries = searchNames(entries[:0], f, langs)
		c.appendNames(strs, toks, i, entries)
	}
	c.StrBlob, c.StrOff = strs.blob, strs.off
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	toks.sortInto(c)
	c.buildPostings(len(toks.strs))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.buildDeletions()
	c.buildPointGrids()
	c.buildAreaGrid()
	c.buildIDLookup()
	meta := indexMeta{LocalLanguages: localLanguages, Attribution: strings.Join(attribution, ", "), Features: len(feats), Names: len(c.NFeat), Tokens: len(toks.strs),
		Built: time.Now().UTC().Format(time.RFC3339)}
	var err error
	if c.Meta, err = json.Marshal(meta); err != nil {
		return nil, fmt.Errorf("marshal index metadata: %w", err)
	}
	return c, nil
}

// appendFeature adds one feature's columns: type, numbers, names, position,
// box, hierarchy, extras, geometry and its display names per language. It
// returns the languages with a display name, sorted.
func (c *columns) appendFeature(strs *interner, f *bfeat) ([]string, error) {
	c.FType = append(c.FType, uint8(f.typ))
	c.FNum = append(c.FNum, f.num)
	c.FName = append(c.FName, strs.id(f.name))
	c.FRef = append(c.FRef, strs.id(f.ref))
	c.FLon = append(c.FLon, toE7(clampLon(f.lon)))
	c.FLat = append(c.FLat, toE7(clampLat(f.lat)))
	bb := f.bbox
	if !f.hasBBox {
		bb = [4]float64{f.lon, f.lat, f.lon, f.lat}
	}
	c.FBBox = append(c.FBBox, toE7(clampLon(bb[0])), toE7(clampLat(bb[1])), toE7(clampLon(bb[2])), toE7(clampLat(bb[3])))
	c.FCountry = append(c.FCountry, int32(f.country))
	c.FRegion = append(c.FRegion, int32(f.region))
	c.FSubregion = append(c.FSubregion, int32(f.subregion))
	c.FLocality = append(c.FLocality, int32(f.locality-1))
	if f.extra != nil {
		b, err := json.Marshal(f.extra)
		if err != nil {
			return nil, fmt.Errorf("marshal feature extras: %w", err)
		}
		c.ExtraBlob = append(c.ExtraBlob, b...)
	}
	c.FExtraOff = append(c.FExtraOff, uint64(len(c.ExtraBlob)))
	var cc uint16
	if len(f.cc) == 2 {
		cc = packLang(f.cc)
	}
	c.FCC = append(c.FCC, cc)
	c.FPop = append(c.FPop, uint32(min(f.pop, math.MaxUint32)))
	c.FImp = append(c.FImp, float32(f.imp))
	c.FFlags = append(c.FFlags, designationIndex(f.design)|f.kind<<4|uint32(min(f.capital, 15))<<12)
	if f.geom != nil {
		c.GeomBlob = encodeGeometry(c.GeomBlob, f.geom)
	}
	c.FGeomOff = append(c.FGeomOff, uint64(len(c.GeomBlob)))
	// Localized display names: one per language, the preferred form.
	langs := make([]string, 0, len(f.names))
	for l, ns := range f.names {
		if len(ns) > 0 && packLang(l) != 0 {
			langs = append(langs, l)
		}
	}
	slices.Sort(langs)
	for _, l := range langs {
		c.LangCode = append(c.LangCode, packLang(l))
		c.LangName = append(c.LangName, strs.id(f.names[l][0]))
	}
	c.FLangStart = append(c.FLangStart, uint32(len(c.LangCode)))
	return langs, nil
}

// searchNames lists a feature's searchable names into entries: the default
// name, the localized names (tagged with their language), the alternates
// and the POI categories, each folded form once.
func searchNames(entries []nameEntry, f *bfeat, langs []string) []nameEntry {
	seen := map[string]int{}
	add := func(s, lang string, official bool) {
		s = strings.TrimSpace(s)
		if s == "" || len(s) > 200 {
			return
		}
		fold := textnorm.Fold(s)
		if fold == "" {
			return
		}
		code := packLang(lang)
		if j, ok := seen[fold]; ok {
			if code != 0 && !slices.Contains(entries[j].langs, code) {
				entries[j].langs = append(entries[j].langs, code)
			}
			return
		}
		seen[fold] = len(entries)
		e := nameEntry{str: s, folded: fold, official: official}
		if code != 0 {
			e.langs = []uint16{code}
		}
		entries = append(entries, e)
	}
	add(f.name, "", true)
	for _, l := range langs {
		for _, s := range f.names[l] {
			add(s, l, false)
		}
	}
	for j, s := range f.alts {
		add(s, "", j == 0 && f.asciiAlt)
	}
	if f.extra != nil {
		for _, cat := range f.extra.Categories {
			add(strings.ReplaceAll(cat, "_", " "), "", false)
		}
	}
	return entries
}

// tokenTable numbers the distinct tokens of the names in order of first
// sight.
type tokenTable struct {
	ids  map[string]uint32
	strs []string
}

func (t *tokenTable) id(tok string) uint32 {
	id, ok := t.ids[tok]
	if !ok {
		id = uint32(len(t.strs))
		t.ids[tok] = id
		t.strs = append(t.strs, tok)
	}
	return id
}

// appendNames adds the name columns of feature i: each name's string,
// languages, flags and tokens.
func (c *columns) appendNames(strs *interner, toks *tokenTable, i int, entries []nameEntry) {
	for _, e := range entries {
		words := strings.Split(e.folded, " ")
		if len(words) > maxNameTokens {
			words = words[:maxNameTokens]
		}
		c.NFeat = append(c.NFeat, uint32(i))
		c.NStr = append(c.NStr, strs.id(e.str))
		slices.Sort(e.langs)
		c.NLangList = append(c.NLangList, e.langs...)
		c.NLangStart = append(c.NLangStart, uint32(len(c.NLangList)))
		var fl uint8
		if e.official {
			fl |= nameOfficial
		}
		c.NFlags = append(c.NFlags, fl)
		for _, w := range words {
			if utf8.RuneCountInString(w) <= maxTokenRunes {
				c.NToks = append(c.NToks, toks.id(w))
			}
		}
		c.NTokStart = append(c.NTokStart, uint32(len(c.NToks)))
	}
	c.FNameStart = append(c.FNameStart, uint32(len(c.NFeat)))
}

// sortInto writes the token dictionary sorted (TokBlob, TokOff) and
// renumbers the name tokens to match.
func (t *tokenTable) sortInto(c *columns) {
	perm := make([]uint32, len(t.strs))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return strings.Compare(t.strs[a], t.strs[b]) })
	newID := make([]uint32, len(t.strs))
	c.TokOff = append(c.TokOff, 0)
	for newI, old := range perm {
		newID[old] = uint32(newI)
		c.TokBlob = append(c.TokBlob, t.strs[old]...)
		c.TokOff = append(c.TokOff, uint32(len(c.TokBlob)))
	}
	for i, tok := range c.NToks {
		c.NToks[i] = newID[tok]
	}
}

// buildPostings lists, per token, the names that hold it (each name once).
func (c *columns) buildPostings(tokens int) {
	counts := make([]uint32, tokens+1)
	m := len(c.NFeat)
	eachDistinct := func(nm int, fn func(tok uint32)) {
		toks := c.NToks[c.NTokStart[nm]:c.NTokStart[nm+1]]
		for j, t := range toks {
			if !slices.Contains(toks[:j], t) {
				fn(t)
			}
		}
	}
	for nm := 0; nm < m; nm++ {
		eachDistinct(nm, func(t uint32) { counts[t+1]++ })
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	c.PostStart = slices.Clone(counts)
	c.Postings = make([]uint32, counts[len(counts)-1])
	fill := slices.Clone(counts)
	for nm := 0; nm < m; nm++ {
		eachDistinct(nm, func(t uint32) {
			c.Postings[fill[t]] = uint32(nm)
			fill[t]++
		})
	}
}

// buildDeletions indexes the deletion neighbourhood (distance 1) of every
// token of 4 to maxFuzzyRunes runes, by hash, for typo tolerance.
func (c *columns) buildDeletions() {
	type del struct {
		h   uint64
		tok uint32
	}
	var dels []del
	for t := 0; t+1 < len(c.TokOff); t++ {
		s := string(c.TokBlob[c.TokOff[t]:c.TokOff[t+1]])
		rc := utf8.RuneCountInString(s)
		if rc < 4 || rc > maxFuzzyRunes {
			continue
		}
		dels = append(dels, del{hashString(s), uint32(t)})
		textnorm.Deletions(s, func(d string) { dels = append(dels, del{hashString(d), uint32(t)}) })
	}
	slices.SortFunc(dels, func(a, b del) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.tok, b.tok)
	})
	dels = slices.Compact(dels)
	c.DelHash = make([]uint64, len(dels))
	c.DelTok = make([]uint32, len(dels))
	for i, d := range dels {
		c.DelHash[i], c.DelTok[i] = d.h, d.tok
	}
}

// buildPointGrids files the point features in the coarse reverse grid and
// the dense types in the fine grid.
func (c *columns) buildPointGrids() {
	n := len(c.FType)
	cells := make([]uint32, gridW*gridH+1)
	for i := 0; i < n; i++ {
		if isPointType(PlaceType(c.FType[i])) {
			cells[gridCellOf(fromE7(c.FLon[i]), fromE7(c.FLat[i]))+1]++
		}
	}
	for i := 1; i < len(cells); i++ {
		cells[i] += cells[i-1]
	}
	c.GridStart = slices.Clone(cells)
	c.GridItems = make([]uint32, cells[len(cells)-1])
	for i := 0; i < n; i++ {
		if isPointType(PlaceType(c.FType[i])) {
			cell := gridCellOf(fromE7(c.FLon[i]), fromE7(c.FLat[i]))
			c.GridItems[cells[cell]] = uint32(i)
			cells[cell]++
		}
	}
	type fine struct{ cell, feat uint32 }
	var fines []fine
	for i := 0; i < n; i++ {
		if isFineType(PlaceType(c.FType[i])) {
			fines = append(fines, fine{fineCellOf(fromE7(c.FLon[i]), fromE7(c.FLat[i])), uint32(i)})
		}
	}
	slices.SortFunc(fines, func(a, b fine) int {
		if c := cmp.Compare(a.cell, b.cell); c != 0 {
			return c
		}
		return cmp.Compare(a.feat, b.feat)
	})
	for _, f := range fines {
		c.FineCell = append(c.FineCell, f.cell)
		c.FineFeat = append(c.FineFeat, f.feat)
	}
}

// buildAreaGrid files the polygon features (not countries) in every area
// cell their box overlaps.
func (c *columns) buildAreaGrid() {
	n := len(c.FType)
	areaCount := make([]uint32, areaW*areaH+1)
	isArea := func(i int) bool {
		return PlaceType(c.FType[i]) != TypeCountry && isAreaGeometry(c.GeomBlob[c.FGeomOff[i]:c.FGeomOff[i+1]])
	}
	cellsOf := func(i int, fn func(int)) {
		b := c.FBBox[4*i : 4*i+4]
		areaCells(fromE7(b[0]), fromE7(b[1]), fromE7(b[2]), fromE7(b[3]), fn)
	}
	for i := 0; i < n; i++ {
		if isArea(i) {
			cellsOf(i, func(cell int) { areaCount[cell+1]++ })
		}
	}
	for i := 1; i < len(areaCount); i++ {
		areaCount[i] += areaCount[i-1]
	}
	c.AreaStart = slices.Clone(areaCount)
	c.AreaItems = make([]uint32, areaCount[len(areaCount)-1])
	for i := 0; i < n; i++ {
		if isArea(i) {
			cellsOf(i, func(cell int) {
				c.AreaItems[areaCount[cell]] = uint32(i)
				areaCount[cell]++
			})
		}
	}
}

// buildIDLookup sorts the features by (type, number) for lookups by id;
// of features sharing a number, the first (most important) wins.
func (c *columns) buildIDLookup() {
	ids := make([]int, len(c.FType))
	for i := range ids {
		ids[i] = i
	}
	key := func(i int) uint64 { return uint64(c.FType[i])<<56 | c.FNum[i]&(1<<56-1) }
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	for _, i := range ids {
		k := key(i)
		if len(c.IDKey) > 0 && c.IDKey[len(c.IDKey)-1] == k {
			continue
		}
		c.IDKey = append(c.IDKey, k)
		c.IDFeat = append(c.IDFeat, uint32(i))
	}
}

type indexMeta struct {
	// LocalLanguages maps a country (ISO alpha-2) to its main language,
	// the language names are given in when the query asks for none.
	LocalLanguages map[string]string `json:"local_languages,omitempty"`
	Attribution    string            `json:"attribution"`
	Features       int               `json:"features"`
	Names          int               `json:"names"`
	Tokens         int               `json:"tokens"`
	Built          string            `json:"built"`
}
