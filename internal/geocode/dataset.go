package geocode

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

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
	locality  int   // parent locality index + 1 (0: none)
	covers    []int // places a postal code serves (indices)
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
		f := &bfeat{typ: typ, num: uint64(p.GeonameID), name: p.Name, ref: sources.PlaceRef(p),
			names: map[string][]string{}, lon: p.Lon, lat: p.Lat, cc: p.Country, country: ci, region: -1, subregion: -1,
			pop: p.Population, capital: capital, kind: kindPlace}
		// GeoNames gives points; the bbox is a box of a radius that grows
		// with population, like the one reverse geocoding uses.
		f.bbox, f.hasBBox = pointBox(p.Lon, p.Lat, placeRadiusKM(typ, p.Population)), true
		f.alts = append(f.alts, p.ASCIIName)
		f.asciiAlt = p.ASCIIName != ""
		f.alts = append(f.alts, p.Alternates...)
		if len(p.Postcodes) > 0 || p.PositionSource != "" {
			f.extra = &featureExtra{Postcodes: p.Postcodes, Sources: placeSources(p)}
		}
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
		f.covers = remapAll(remap, f.covers)
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
		f.covers = remapAll(pos, f.covers)
		if f.typ == TypePostalCode && f.locality > 0 && !slices.Contains(f.covers, f.locality-1) {
			f.covers = append(f.covers, f.locality-1)
		}
		if len(f.covers) > 0 {
			if f.extra == nil {
				f.extra = &featureExtra{}
			}
			for _, c := range f.covers {
				f.extra.Covers = append(f.extra.Covers, int32(c))
			}
		}
	}
	local := map[string]string{}
	for _, c := range ds.Countries {
		if len(c.Languages) > 0 {
			local[c.Alpha2] = c.Languages[0]
		}
	}
	cols, err := assemble(ctx, sorted, ds.Attribution, local)
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

// remapAll remaps indices, dropping those that no longer exist.
func remapAll(m []int, is []int) []int {
	out := is[:0]
	for _, i := range is {
		if j := remapIdx(m, i); j >= 0 {
			out = append(out, j)
		}
	}
	return out
}

// placeSources records where a place's data comes from, when it is more
// than GeoNames: the national record and the source of its position.
func placeSources(p *sources.Place) map[string]string {
	m := map[string]string{}
	if p.DataSource != "" {
		m["name"] = p.DataSource
	}
	if p.PositionSource != "" {
		m["position"] = p.PositionSource
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func remapIdx(m []int, i int) int {
	if i < 0 || i >= len(m) {
		return -1
	}
	return m[i]
}
