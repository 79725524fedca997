package geocode

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/paulmach/orb"
)

// Search radii of reverse geocoding without limit (best feature per type).
const (
	reverseLocalityKM      = 50.0
	reverseNeighbourhoodKM = 3.0
	reversePlaceKM         = 5.0
	reverseOtherKM         = 1.0
	reverseCoastKM         = 25.0 // country of a point just outside every polygon
)

// localityCandidates is how many nearby localities reverse geocoding weighs.
const localityCandidates = 12

// likeliestLocality picks, among nearby localities, the one the point most
// likely belongs to: the smallest distance relative to a radius growing
// with population (1 km plus sqrt(population)/100 km: 20 km for 3.6
// million people, 4 km for 100 000, 1.3 km for 1 000).
func (ix *Index) likeliestLocality(ns []near) int {
	best, bestV := -1, math.Inf(1)
	for _, n := range ns {
		r := 1 + math.Sqrt(float64(ix.c.FPop[n.feat]))/100
		if v := n.km / r; v < bestV {
			best, bestV = n.feat, v
		}
	}
	return best
}

type near struct {
	feat int
	km   float64
}

// nearest returns up to n features of the grid accepted by keep within
// maxKM of p, nearest first.
func (ix *Index) nearest(p orb.Point, maxKM float64, n int, keep func(int) bool) []near {
	c := &ix.c
	nc := newNearCollector(ix, p, maxKM, n, keep)
	x0, x1, y0, y1 := cellRange(p, maxKM, gridCell, gridW, gridH)
	for y := y0; y <= y1; y++ {
		for xx := x0; xx <= x1; xx++ {
			cell := y*gridW + ((xx%gridW)+gridW)%gridW
			nc.scan(c.GridItems[c.GridStart[cell]:c.GridStart[cell+1]])
		}
	}
	return nc.out
}

// nearestFine is nearest over the fine grid of the dense point types
// (postal codes, addresses, roads, POIs).
func (ix *Index) nearestFine(p orb.Point, maxKM float64, n int, keep func(int) bool) []near {
	c := &ix.c
	nc := newNearCollector(ix, p, maxKM, n, keep)
	x0, x1, y0, y1 := cellRange(p, maxKM, fineCell, fineW, fineH)
	if x1-x0 > 200 || y1-y0 > 200 {
		return nil // radius far too large for the fine grid
	}
	for y := y0; y <= y1; y++ {
		for xx := x0; xx <= x1; xx++ {
			cell := uint32(y*fineW + ((xx%fineW)+fineW)%fineW)
			i, _ := slices.BinarySearch(c.FineCell, cell)
			j := i
			for j < len(c.FineCell) && c.FineCell[j] == cell {
				j++
			}
			nc.scan(c.FineFeat[i:j])
		}
	}
	return nc.out
}

// nearestOf searches the grid that holds type t.
func (ix *Index) nearestOf(t PlaceType, p orb.Point, maxKM float64, n int, keep func(int) bool) []near {
	if isFineType(t) {
		return ix.nearestFine(p, maxKM, n, keep)
	}
	return ix.nearest(p, maxKM, n, keep)
}

// cellRange returns the cells [x0, x1] x [y0, y1] of a grid of cell
// degrees covering the circle of maxKM around p; x may wrap (take it
// modulo w).
func cellRange(p orb.Point, maxKM, cell float64, w, h int) (x0, x1, y0, y1 int) {
	dLat := maxKM / 111.0
	cosLat := math.Max(0.01, math.Cos(math.Min(89.9, math.Abs(p[1])+dLat)*math.Pi/180))
	dLon := math.Min(180, maxKM/(111.32*cosLat))
	y0 = max(0, int(math.Floor((math.Max(-90, p[1]-dLat)+90)/cell)))
	y1 = min(h-1, int(math.Floor((math.Min(90, p[1]+dLat)+90)/cell)))
	x0 = int(math.Floor((p[0] - dLon + 180) / cell))
	x1 = int(math.Floor((p[0] + dLon + 180) / cell))
	if x1-x0 >= w {
		x0, x1 = 0, w-1
	}
	return x0, x1, y0, y1
}

// nearCollector keeps the n nearest features within maxKM.
type nearCollector struct {
	ix     *Index
	p      orb.Point
	maxKM  float64
	n      int
	keep   func(int) bool
	cosLat float64
	out    []near
}

func newNearCollector(ix *Index, p orb.Point, maxKM float64, n int, keep func(int) bool) *nearCollector {
	return &nearCollector{ix: ix, p: p, maxKM: maxKM, n: n, keep: keep,
		cosLat: math.Max(0.01, math.Cos(math.Min(89.9, math.Abs(p[1])+maxKM/111.0)*math.Pi/180))}
}

func (nc *nearCollector) scan(items []uint32) {
	c := &nc.ix.c
	kmLon := 111.32 * nc.cosLat
	for _, it := range items {
		f := int(it)
		lon, lat := fromE7(c.FLon[f]), fromE7(c.FLat[f])
		dx := (lon - nc.p[0]) * kmLon
		if dx > 180*kmLon {
			dx -= 360 * kmLon
		} else if dx < -180*kmLon {
			dx += 360 * kmLon
		}
		dy := (lat - nc.p[1]) * 111.0
		if dx*dx+dy*dy > 4*nc.maxKM*nc.maxKM { // generous screen before the exact distance
			continue
		}
		d := haversineKM(nc.p, orb.Point{lon, lat})
		if d > nc.maxKM || len(nc.out) == nc.n && d >= nc.out[nc.n-1].km || !nc.keep(f) {
			continue
		}
		i, _ := slices.BinarySearchFunc(nc.out, d, func(a near, d float64) int { return cmp.Compare(a.km, d) })
		nc.out = slices.Insert(nc.out, i, near{f, d})
		if len(nc.out) > nc.n {
			nc.out = nc.out[:nc.n]
		}
	}
}

// areaAt returns the feature of type t whose polygon holds p (the one with
// the smallest bbox when several do), or -1.
func (ix *Index) areaAt(p orb.Point, t PlaceType) int {
	c := &ix.c
	x := max(0, min(areaW-1, int((p[0]+180)/areaCell)))
	y := max(0, min(areaH-1, int((p[1]+90)/areaCell)))
	cell := y*areaW + x
	best, bestArea := -1, math.Inf(1)
	for _, it := range c.AreaItems[c.AreaStart[cell]:c.AreaStart[cell+1]] {
		f := int(it)
		if PlaceType(c.FType[f]) != t {
			continue
		}
		bb := ix.bbox(f)
		if p[0] < bb[0] || p[0] > bb[2] || p[1] < bb[1] || p[1] > bb[3] {
			continue
		}
		area := (bb[2] - bb[0]) * (bb[3] - bb[1])
		if area >= bestArea {
			continue
		}
		if sh := ix.areaShape(f); sh != nil && sh.contains(p) {
			best, bestArea = f, area
		}
	}
	return best
}

// areaShape returns the decoded polygons of feature f (cached), nil when it
// has none.
func (ix *Index) areaShape(f int) *countryShape {
	if v, ok := ix.areaShapes.Load(f); ok {
		return v.(*countryShape)
	}
	g, err := ix.geometry(f)
	if err != nil || g == nil {
		return nil
	}
	sh := newCountryShape(f, g)
	v, _ := ix.areaShapes.LoadOrStore(f, &sh)
	return v.(*countryShape)
}

// countryAt returns the country whose polygon holds p, or -1.
func (ix *Index) countryAt(p orb.Point) int {
	for i := range ix.countries {
		if ix.countries[i].contains(p) {
			return ix.countries[i].feat
		}
	}
	return -1
}

// Reverse finds features at a point.
func (ix *Index) Reverse(ctx context.Context, q ReverseQuery) (SearchResults, error) {
	if err := q.validate(); err != nil {
		return SearchResults{}, err
	}
	if err := ix.acquire(); err != nil {
		return SearchResults{}, err
	}
	defer ix.mu.RUnlock()
	res := SearchResults{Type: "FeatureCollection", Attribution: ix.meta.Attribution,
		Query: []string{strconv.FormatFloat(q.Lon, 'f', -1, 64), strconv.FormatFloat(q.Lat, 'f', -1, 64)}}
	p := orb.Point{q.Lon, q.Lat}
	types := newTypeSet(q.Types, q.ExcludeTypes)
	c := &ix.c
	ofType := func(t PlaceType) func(int) bool {
		return func(f int) bool { return PlaceType(c.FType[f]) == t }
	}
	var feats []int
	if q.Limit > 1 {
		t := q.Types[0]
		switch t {
		case TypeCountry, TypeRegion, TypeSubregion:
			feats = ix.containing(p, t)
		default:
			// A polygon holding the point is at distance 0: first.
			inside := ix.areaAt(p, t)
			if inside >= 0 {
				feats = append(feats, inside)
			}
			for _, n := range ix.nearestOf(t, p, ReverseNearestKM, q.Limit, ofType(t)) {
				if n.feat != inside && len(feats) < q.Limit {
					feats = append(feats, n.feat)
				}
			}
		}
	} else {
		country := ix.countryAt(p)
		if country < 0 {
			if n := ix.nearest(p, reverseCoastKM, 1, ofType(TypeLocality)); len(n) > 0 && c.FCountry[n[0].feat] >= 0 {
				country = int(c.FCountry[n[0].feat])
			}
		}
		sameCountry := func(t PlaceType) func(int) bool {
			return func(f int) bool {
				return PlaceType(c.FType[f]) == t && (country < 0 || int(c.FCountry[f]) == country)
			}
		}
		// The nearest locality, and the nearest one of the point's country
		// (which gives the region and subregion, so the context agrees).
		locality, inCountry := -1, -1
		if n := ix.nearest(p, reverseLocalityKM, localityCandidates, ofType(TypeLocality)); len(n) > 0 {
			locality = ix.likeliestLocality(n)
			inCountry = locality
			if country >= 0 && int(c.FCountry[locality]) != country {
				inCountry = -1
				if n := ix.nearest(p, reverseLocalityKM, localityCandidates, sameCountry(TypeLocality)); len(n) > 0 {
					inCountry = ix.likeliestLocality(n)
				}
			}
		}
		for t := TypePOI; t > TypeInvalid; t-- {
			if !types[t] {
				continue
			}
			f := -1
			if t != TypeCountry {
				f = ix.areaAt(p, t) // a polygon holding the point comes first
			}
			switch {
			case f >= 0:
			case t == TypeCountry:
				f = country
			case t == TypeRegion || t == TypeSubregion:
				if inCountry >= 0 {
					if t == TypeRegion {
						f = int(c.FRegion[inCountry])
					} else {
						f = int(c.FSubregion[inCountry])
					}
				}
			case t == TypeLocality:
				f = locality
			default:
				radius := reverseOtherKM
				switch t {
				case TypeNeighbourhood:
					radius = reverseNeighbourhoodKM
				case TypePlace:
					radius = reversePlaceKM
				}
				if n := ix.nearestOf(t, p, radius, 1, sameCountry(t)); len(n) > 0 {
					f = n[0].feat
				}
			}
			if f >= 0 {
				feats = append(feats, f)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return SearchResults{}, err
	}
	for _, f := range feats {
		ft := ix.feature(f, q.Languages, false)
		ft.Relevance = 1
		res.Features = append(res.Features, ft)
	}
	return res, nil
}

// containing returns the area feature of type t at p (country by polygon,
// region and subregion through the nearest locality).
func (ix *Index) containing(p orb.Point, t PlaceType) []int {
	c := &ix.c
	if t != TypeCountry {
		if f := ix.areaAt(p, t); f >= 0 {
			return []int{f}
		}
	}
	country := ix.countryAt(p)
	if t == TypeCountry {
		if country < 0 {
			return nil
		}
		return []int{country}
	}
	n := ix.nearest(p, reverseLocalityKM, 1, func(f int) bool {
		return PlaceType(c.FType[f]) == TypeLocality && (country < 0 || int(c.FCountry[f]) == country)
	})
	if len(n) == 0 {
		return nil
	}
	f := c.FRegion[n[0].feat]
	if t == TypeSubregion {
		f = c.FSubregion[n[0].feat]
	}
	if f < 0 {
		return nil
	}
	return []int{int(f)}
}

// ByID returns the feature with the given id ("<type>.<number>") with its
// full geometry; no features when it does not exist.
func (ix *Index) ByID(ctx context.Context, id string, opts IDOptions) (SearchResults, error) {
	if err := checkCommon(nil, opts.Languages, opts.Worldview); err != nil {
		return SearchResults{}, err
	}
	if err := ix.acquire(); err != nil {
		return SearchResults{}, err
	}
	defer ix.mu.RUnlock()
	res := SearchResults{Type: "FeatureCollection", Attribution: ix.meta.Attribution, Query: []string{id}}
	m := idRe.FindStringSubmatch(id)
	if m == nil {
		return SearchResults{}, invalid("malformed id %q", id)
	}
	t, ok := ParsePlaceType(m[1])
	if !ok {
		return SearchResults{}, invalid("unknown place type in id %q", id)
	}
	num, err := strconv.ParseUint(m[2], 10, 64)
	if err != nil {
		return SearchResults{}, invalid("id number out of range in %q", id)
	}
	if f := ix.lookupID(t, num); f >= 0 {
		ft := ix.feature(f, opts.Languages, true)
		ft.Relevance = 1
		res.Features = append(res.Features, ft)
	}
	return res, ctx.Err()
}

// Search runs a forward, reverse or id request.
func (ix *Index) Search(ctx context.Context, r Request) (SearchResults, error) {
	switch r.Kind {
	case KindForward:
		if r.Forward == nil {
			return SearchResults{}, invalid("forward request without query")
		}
		return ix.Forward(ctx, *r.Forward)
	case KindReverse:
		if r.Reverse == nil {
			return SearchResults{}, invalid("reverse request without query")
		}
		return ix.Reverse(ctx, *r.Reverse)
	case KindID:
		return ix.ByID(ctx, r.ID, r.IDOpts)
	case KindBatch:
		return SearchResults{}, invalid("batch request: use SearchBatch")
	}
	return SearchResults{}, invalid("unknown request kind %d", r.Kind)
}

// SearchBatch runs every query of a batch request (or the single query of
// another request) and returns the results in query order.
func (ix *Index) SearchBatch(ctx context.Context, r Request) ([]SearchResults, error) {
	items := r.Batch
	if r.Kind != KindBatch {
		items = []Request{r}
	}
	if len(items) > MaxBatch {
		return nil, invalid("a batch holds at most %d queries", MaxBatch)
	}
	out := make([]SearchResults, 0, len(items))
	for i, it := range items {
		res, err := ix.Search(ctx, it)
		if err != nil {
			return nil, fmt.Errorf("batch query %d: %w", i+1, err)
		}
		out = append(out, res)
	}
	return out, nil
}
