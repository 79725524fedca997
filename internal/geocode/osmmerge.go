package geocode

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
)

// featureExtra holds the rarely used members of a feature.
type featureExtra struct {
	Address    string            `json:"address,omitempty"`
	Categories []string          `json:"categories,omitempty"`
	Tags       map[string]string `json:"feature_tags,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	// Postcodes of a place (national data).
	Postcodes []string `json:"postcodes,omitempty"`
	// Sources says where a place's name and position come from.
	Sources map[string]string `json:"sources,omitempty"`
	// Covers lists the places (feature indices) a postal code serves.
	Covers []int32 `json:"covers,omitempty"`
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
	var byRef map[string]int
	refIndex := func(ref string) (int, bool) {
		if byRef == nil {
			byRef = make(map[string]int, len(existing))
			for i, f := range existing {
				if f.typ == TypeLocality || f.typ == TypeNeighbourhood || f.typ == TypePlace {
					byRef[f.ref] = i
				}
			}
		}
		i, ok := byRef[ref]
		return i, ok
	}
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
		for _, ref := range sf.Covers {
			if i, ok := refIndex(ref); ok {
				f.covers = append(f.covers, i)
			}
		}
		if typ == TypePostalCode && len(sf.Covers) == 0 {
			// A code without the list of places it serves (a US ZIP)
			// serves the localities about its center.
			f.covers = lf.within(orb.Point{f.lon, f.lat}, f.country, postcodeCoverKM)
		}
		if typ > TypeRegion {
			l := -1
			if sf.Locality != "" {
				if i, ok := refIndex(sf.Locality); ok {
					l = i
				}
			}
			if l < 0 {
				l = nearestLocality(orb.Point{f.lon, f.lat}, f.country)
			}
			if l >= 0 {
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
	found := false
	lf.around(p, func(i int, l *bfeat) {
		found = found || haversineKM(p, orb.Point{l.lon, l.lat}) <= km && textnorm.Fold(l.name) == fold
	})
	return found
}

// around calls fn with the localities filed in p's grid cell and the eight
// around it.
func (lf *localityFinder) around(p orb.Point, fn func(i int, l *bfeat)) {
	cell := gridCellOf(p[0], p[1])
	cx, cy := cell%gridW, cell/gridW
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			x, y := (cx+dx+gridW)%gridW, cy+dy
			if y < 0 || y >= gridH {
				continue
			}
			for _, i := range lf.grid[y*gridW+x] {
				fn(i, lf.feats[i])
			}
		}
	}
}

// postcodeCoverKM is how near a locality must lie to the center of a postal
// code that does not list its places to count as served by it.
const postcodeCoverKM = 4.0

// within returns the localities of country (any when country < 0) within
// km of p (km at most a grid cell).
func (lf *localityFinder) within(p orb.Point, country int, km float64) []int {
	var out []int
	lf.around(p, func(i int, l *bfeat) {
		if (country < 0 || l.country == country) && haversineKM(p, orb.Point{l.lon, l.lat}) <= km {
			out = append(out, i)
		}
	})
	return out
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
	lf.around(p, func(i int, l *bfeat) {
		if country >= 0 && l.country != country {
			return
		}
		d := haversineKM(p, orb.Point{l.lon, l.lat})
		if d > reverseLocalityKM {
			return
		}
		// As likeliestLocality: distance relative to a radius growing
		// with population.
		if v := d / (1 + math.Sqrt(float64(l.pop))/100); v < bestD {
			best, bestD = i, v
		}
	})
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
