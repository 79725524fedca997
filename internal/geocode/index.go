package geocode

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/geo"

	"github.com/paulmach/orb"
)

// Index is an opened, immutable geocoding index. It is safe for concurrent use.
type Index struct {
	// mu is held for reading by every search and for writing by Close, so
	// the file is never unmapped under a running search.
	mu          sync.RWMutex
	closed      bool
	path        string
	c           columns
	unmap       func() error
	meta        indexMeta
	countries   []countryShape    // features with polygons, for reverse lookup
	areaShapes  sync.Map          // feature index -> *countryShape, decoded on first use
	byCC        map[string]int    // alpha-2 -> country feature
	admin       adminCodes        // region and country codes, for query qualifiers
	localLang   map[uint16]uint16 // country code -> its places' language (packed)
	scratchPool sync.Pool
}

type countryShape struct {
	feat  int
	bound orb.Bound
	polys []polyShape
}

type polyShape struct {
	bound orb.Bound
	rings []orb.Ring // outer ring first, then holes
}

func newCountryShape(feat int, g orb.Geometry) countryShape {
	cs := countryShape{feat: feat, bound: g.Bound()}
	add := func(p orb.Polygon) {
		if len(p) > 0 {
			cs.polys = append(cs.polys, polyShape{bound: p[0].Bound(), rings: p})
		}
	}
	switch g := g.(type) {
	case orb.Polygon:
		add(g)
	case orb.MultiPolygon:
		for _, p := range g {
			add(p)
		}
	}
	return cs
}

// contains reports whether p lies inside the shape (even-odd over each
// polygon's rings).
func (cs *countryShape) contains(p orb.Point) bool {
	if !cs.bound.Contains(p) {
		return false
	}
	for i := range cs.polys {
		ps := &cs.polys[i]
		if !ps.bound.Contains(p) {
			continue
		}
		if geo.Locate(p, ps.rings) != geo.Outside {
			return true
		}
	}
	return false
}

// Open maps the index file at path. Close releases it.
func Open(path string) (*Index, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("open geocoding index %s: %w", path, err)
	}
	ix := &Index{unmap: unmap, path: path}
	if err := ix.c.parse(data); err != nil {
		unmap()
		return nil, fmt.Errorf("open geocoding index %s: %w", path, err)
	}
	if err := ix.c.validate(); err != nil {
		unmap()
		return nil, fmt.Errorf("open geocoding index %s: %w", path, err)
	}
	if err := json.Unmarshal(ix.c.Meta, &ix.meta); err != nil {
		unmap()
		return nil, fmt.Errorf("open geocoding index %s: metadata: %w", path, err)
	}
	ix.loadLocalLanguages()
	ix.byCC = map[string]int{}
	for i, t := range ix.c.FType {
		if PlaceType(t) != TypeCountry {
			continue
		}
		ix.byCC[unpackLang(ix.c.FCC[i])] = i
		g, err := ix.geometry(i)
		if err != nil {
			unmap()
			return nil, fmt.Errorf("open geocoding index %s: country %d: %w", path, i, err)
		}
		switch g.(type) {
		case orb.Polygon, orb.MultiPolygon:
			ix.countries = append(ix.countries, newCountryShape(i, g))
		}
	}
	return ix, nil
}

// ErrClosed is returned by searches on a closed Index.
var ErrClosed = errors.New("geocoding index closed")

// Close waits for running searches and releases the mapped file; later
// searches return ErrClosed. Results already returned stay valid (they hold
// copies).
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.closed = true
	if ix.unmap == nil {
		return nil
	}
	err := ix.unmap()
	ix.unmap = nil
	return err
}

// acquire read-locks the index for one search; release with ix.mu.RUnlock.
func (ix *Index) acquire() error {
	ix.mu.RLock()
	if ix.closed {
		ix.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

// Attribution returns the attribution HTML of the index's sources.
func (ix *Index) Attribution() string { return ix.meta.Attribution }

// Len returns the number of features.
func (ix *Index) Len() int { return len(ix.c.FType) }

var errCorrupt = errors.New("corrupt index")

func checkCSR(start []uint32, n int, total int) error {
	if len(start) != n+1 || start[0] != 0 || int(start[n]) != total {
		return errCorrupt
	}
	for i := 1; i <= n; i++ {
		if start[i] < start[i-1] {
			return errCorrupt
		}
	}
	return nil
}

func checkBelow[T int32 | uint32](v []T, n int, allowNeg bool) error {
	for _, x := range v {
		if y := int64(x); y >= int64(n) || y < -1 || (!allowNeg && y < 0) {
			return errCorrupt
		}
	}
	return nil
}

// validate checks every cross reference so lookups cannot go out of range.
func (c *columns) validate() error {
	n := len(c.FType)
	for _, l := range []int{len(c.FNum), len(c.FName), len(c.FRef), len(c.FLon), len(c.FLat), len(c.FCountry), len(c.FRegion),
		len(c.FSubregion), len(c.FLocality), len(c.FCC), len(c.FPop), len(c.FImp), len(c.FFlags)} {
		if l != n {
			return fmt.Errorf("%w: feature columns differ in length", errCorrupt)
		}
	}
	if len(c.FBBox) != 4*n || len(c.FGeomOff) != n+1 || len(c.StrOff) == 0 {
		return errCorrupt
	}
	s := len(c.StrOff) - 1
	if c.StrOff[0] != 0 || int(c.StrOff[s]) != len(c.StrBlob) {
		return errCorrupt
	}
	for i := 1; i <= s; i++ {
		if c.StrOff[i] < c.StrOff[i-1] {
			return errCorrupt
		}
	}
	for i := 0; i < n; i++ {
		if c.FType[i] == 0 || c.FType[i] >= uint8(numTypes) {
			return fmt.Errorf("%w: bad type", errCorrupt)
		}
	}
	for _, off := range []struct {
		o []uint64
		b []byte
	}{{c.FGeomOff, c.GeomBlob}, {c.FExtraOff, c.ExtraBlob}} {
		if len(off.o) != n+1 || off.o[0] != 0 || off.o[n] != uint64(len(off.b)) {
			return errCorrupt
		}
		for i := 1; i <= n; i++ {
			if off.o[i] < off.o[i-1] {
				return errCorrupt
			}
		}
	}
	m := len(c.NFeat)
	t := len(c.TokOff) - 1
	errs := []error{
		checkBelow(c.FName, s, false), checkBelow(c.FRef, s, false), checkBelow(c.LangName, s, false),
		checkBelow(c.NStr, s, false), checkBelow(c.FCountry, n, true), checkBelow(c.FRegion, n, true),
		checkBelow(c.FSubregion, n, true), checkBelow(c.FLocality, n, true), checkBelow(c.NFeat, n, false), checkBelow(c.NToks, t, false),
		checkBelow(c.Postings, m, false), checkBelow(c.DelTok, t, false), checkBelow(c.GridItems, n, false),
		checkBelow(c.IDFeat, n, false),
		checkCSR(c.FLangStart, n, len(c.LangCode)), checkCSR(c.NLangStart, m, len(c.NLangList)), checkCSR(c.FNameStart, n, m), checkCSR(c.NTokStart, m, len(c.NToks)),
		checkCSR(c.PostStart, t, len(c.Postings)), checkCSR(c.GridStart, gridW*gridH, len(c.GridItems)),
		checkCSR(c.AreaStart, areaW*areaH, len(c.AreaItems)), checkBelow(c.AreaItems, n, false),
		checkBelow(c.FineFeat, n, false),
	}
	if len(c.LangName) != len(c.LangCode) || len(c.NStr) != m || len(c.NFlags) != m || t < 0 ||
		len(c.DelHash) != len(c.DelTok) || len(c.FineCell) != len(c.FineFeat) || len(c.IDKey) != len(c.IDFeat) {
		return errCorrupt
	}
	if t >= 0 && (c.TokOff[0] != 0 || int(c.TokOff[t]) != len(c.TokBlob)) {
		return errCorrupt
	}
	for i := 1; i <= t; i++ {
		if c.TokOff[i] < c.TokOff[i-1] {
			return errCorrupt
		}
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (ix *Index) str(id uint32) string {
	c := &ix.c
	return unsafeString(c.StrBlob[c.StrOff[id]:c.StrOff[id+1]])
}

func (ix *Index) tok(id uint32) string {
	c := &ix.c
	return unsafeString(c.TokBlob[c.TokOff[id]:c.TokOff[id+1]])
}

func (ix *Index) geometry(i int) (orb.Geometry, error) {
	return decodeGeometry(ix.c.GeomBlob[ix.c.FGeomOff[i]:ix.c.FGeomOff[i+1]])
}

func (ix *Index) center(i int) orb.Point {
	return orb.Point{fromE7(ix.c.FLon[i]), fromE7(ix.c.FLat[i])}
}

// localName returns the feature's name in lang ("" when it has none).
func (ix *Index) localName(i int, lang string) string {
	c := &ix.c
	code := packLang(lang)
	if code == 0 {
		return ""
	}
	lo, hi := int(c.FLangStart[i]), int(c.FLangStart[i+1])
	j := lo + sort.Search(hi-lo, func(k int) bool { return c.LangCode[lo+k] >= code })
	if j < hi && c.LangCode[j] == code {
		return strings.Clone(ix.str(c.LangName[j]))
	}
	return ""
}

// findToken returns the id of token s, or -1.
func (ix *Index) findToken(s string) int {
	t := len(ix.c.TokOff) - 1
	j := sort.Search(t, func(k int) bool { return ix.tok(uint32(k)) >= s })
	if j < t && ix.tok(uint32(j)) == s {
		return j
	}
	return -1
}

// prefixRange returns the token ids [lo, hi) starting with p.
func (ix *Index) prefixRange(p string) (int, int) {
	t := len(ix.c.TokOff) - 1
	lo := sort.Search(t, func(k int) bool { return ix.tok(uint32(k)) >= p })
	hi := lo + sort.Search(t-lo, func(k int) bool { return !strings.HasPrefix(ix.tok(uint32(lo+k)), p) })
	return lo, hi
}

// featureID formats the public id of feature i.
func (ix *Index) featureID(i int) string {
	return PlaceType(ix.c.FType[i]).String() + "." + strconv.FormatUint(ix.c.FNum[i], 10)
}

// lookupID returns the feature with type t and number num, or -1.
func (ix *Index) lookupID(t PlaceType, num uint64) int {
	if num >= 1<<56 {
		return -1
	}
	k := uint64(t)<<56 | num
	j := sort.Search(len(ix.c.IDKey), func(i int) bool { return ix.c.IDKey[i] >= k })
	if j < len(ix.c.IDKey) && ix.c.IDKey[j] == k {
		return int(ix.c.IDFeat[j])
	}
	return -1
}
