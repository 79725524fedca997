package osm

import (
	"cmp"
	"context"
	"fmt"
	"github.com/tesseramaps/tessera/internal/geo"
	"log/slog"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

// Attribution is the attribution fragment of OpenStreetMap data.
const Attribution = `<a href="https://www.openstreetmap.org/copyright">© OpenStreetMap contributors</a> (ODbL)`

// Options tune Read and Scan. Zero values mean the defaults.
type Options struct {
	// Logger receives progress and the count of skipped elements (default:
	// slog.Default()).
	Logger *slog.Logger
	// Types restricts the output to these place types (default: all).
	Types []string
	// MaxNodes bounds the node coordinates kept for ways and relations
	// (default 64M, 16 bytes each).
	MaxNodes int
	// MaxWayRefs bounds the node references kept for the ways of interest
	// (default 128M, 8 bytes each).
	MaxWayRefs int
	// MaxRelations bounds the relations kept (default 1M).
	MaxRelations int
	// MaxMembers bounds the way members of one relation (default 1M).
	MaxMembers int
	// MaxFeatures bounds the features returned (default 64M).
	MaxFeatures int
	// MergeDistance is how close (metres) two pieces of a street with the
	// same name must be to merge when they share no node (default 100;
	// negative: only ways sharing a node merge).
	MergeDistance float64
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxNodes, 64<<20)
	def(&o.MaxWayRefs, 128<<20)
	def(&o.MaxRelations, 1<<20)
	def(&o.MaxMembers, 1<<20)
	def(&o.MaxFeatures, 64<<20)
	if o.MergeDistance == 0 {
		o.MergeDistance = 100
	}
	return o
}

// ErrLimit is wrapped by the errors of an exceeded Options limit.
var ErrLimit = fmt.Errorf("osm: limit exceeded")

// Read reads the .osm.pbf file at path and returns its geocoding features
// ordered by type and number.
func Read(ctx context.Context, path string, opts Options) ([]sources.Feature, error) {
	var out []sources.Feature
	err := Scan(ctx, path, opts, func(f sources.Feature) error {
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b sources.Feature) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Num, b.Num))
	})
	return out, nil
}

// Scan reads the .osm.pbf file at path in three passes (relations, ways,
// nodes) and calls fn for every feature: node features as they are read,
// then areas, roads, buildings and postal codes. An error from fn stops the
// scan and is returned.
func Scan(ctx context.Context, path string, opts Options, fn func(sources.Feature) error) error {
	opts = opts.withDefaults()
	r := &reader{opts: opts, log: opts.Logger, emitFn: fn, wayPos: map[int64]int{},
		postcodes: map[[2]string]*pcAgg{}, labels: map[int64][]int{}}
	if len(opts.Types) > 0 {
		r.types = map[string]bool{}
		for _, t := range opts.Types {
			r.types[t] = true
		}
	}
	pass := func(name string, h *handler) error {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("osm: open %s: %w", path, err)
		}
		defer f.Close()
		if err := scan(ctx, f, h); err != nil {
			return fmt.Errorf("osm: read %s (%s): %w", path, name, err)
		}
		return nil
	}
	if r.want("country", "region", "subregion", "county", "joint_municipality", "municipality",
		"municipal_district", "neighbourhood", "postal_code", "locality", "place", "poi") {
		if err := pass("relations", &handler{relation: r.relation}); err != nil {
			return err
		}
	}
	slices.Sort(r.relWays)
	r.relWays = slices.Compact(r.relWays)
	if err := pass("ways", &handler{way: r.way}); err != nil {
		return err
	}
	// The nodes needed: those of the kept ways and the label nodes, sorted.
	r.nodeIDs = make([]int64, len(r.arena), len(r.arena)+len(r.labels))
	copy(r.nodeIDs, r.arena)
	for id := range r.labels {
		r.nodeIDs = append(r.nodeIDs, id)
	}
	slices.Sort(r.nodeIDs)
	r.nodeIDs = slices.Compact(r.nodeIDs)
	if len(r.nodeIDs) < cap(r.nodeIDs)/2 {
		r.nodeIDs = slices.Clone(r.nodeIDs)
	}
	if len(r.nodeIDs) > opts.MaxNodes {
		return fmt.Errorf("osm: %s: %d nodes needed for ways: %w (MaxNodes %d)", path, len(r.nodeIDs), ErrLimit, opts.MaxNodes)
	}
	r.coords = make([]int32, 2*len(r.nodeIDs))
	r.have = make([]bool, len(r.nodeIDs))
	r.log.Info("osm: ways read", "path", path, "relations", len(r.rels), "ways", len(r.ways),
		"node_refs", len(r.arena), "nodes_needed", len(r.nodeIDs))
	if err := pass("nodes", &handler{node: r.node}); err != nil {
		return err
	}
	if err := r.finish(ctx); err != nil {
		return err
	}
	r.log.Info("osm: features read", "path", path, "features", r.count, "by_type", r.byType,
		"invalid_rings", r.badRings, "incomplete_relations", r.incomplete, "missing_nodes", r.missing)
	return nil
}

// Element type codes in feature numbers: Num = OSM id * 4 + code.
const (
	codeNode     = 1
	codeWay      = 2
	codeRelation = 3
)

func featureNum(id int64, code uint64) (uint64, bool) {
	if id <= 0 || id >= 1<<60 {
		return 0, false
	}
	return uint64(id)*4 + code, true
}

// rel is a kept relation.
type rel struct {
	id      int64
	typ     string // place type
	tags    map[string]string
	names   nameInfo
	ways    []int64
	label   int64 // label or admin_centre node (0: none)
	country string
	pop     uint64
	design  string
	cats    []string // POI categories (tags are the feature_tags)
}

// way flags.
const (
	wayMember = 1 << iota
	wayStreet
	wayAddress
	wayPOI
	wayPlace
)

// wayRec is a kept way: its node references are arena[start:end].
type wayRec struct {
	id         int64
	start, end int
	flags      uint8
}

type streetRec struct {
	way   int
	name  string
	kind  string
	names nameInfo
	ref   string
}

type addrRec struct {
	way      int
	number   string
	street   string
	postcode string
	city     string
	country  string
}

type placeRec struct {
	way    int
	typ    string
	design string
	names  nameInfo
	pop    uint64
}

type poiRec struct {
	way   int
	names nameInfo
	cats  []string
	tags  map[string]string
}

// pcAgg aggregates the addresses of one postal code.
type pcAgg struct {
	sumLon, sumLat float64
	n              int
}

type reader struct {
	opts   Options
	log    *slog.Logger
	types  map[string]bool
	emitFn func(sources.Feature) error
	count  int
	byType map[string]int

	rels    []rel
	relWays []int64
	labels  map[int64][]int // label node -> relations

	ways    []wayRec
	wayPos  map[int64]int // relation member way id -> index in ways
	arena   []int64
	streets []streetRec
	addrs   []addrRec
	pois    []poiRec
	places  []placeRec

	nodeIDs []int64 // sorted
	coords  []int32 // lat, lon per nodeIDs entry
	have    []bool

	postcodes map[[2]string]*pcAgg
	pcRels    map[string]bool

	badRings, incomplete, missing int
}

func (r *reader) want(types ...string) bool {
	if r.types == nil {
		return true
	}
	for _, t := range types {
		if r.types[t] {
			return true
		}
	}
	return false
}

func (r *reader) emit(f sources.Feature) error {
	if r.count >= r.opts.MaxFeatures {
		return fmt.Errorf("osm: more than %d features: %w", r.opts.MaxFeatures, ErrLimit)
	}
	r.count++
	if r.byType == nil {
		r.byType = map[string]int{}
	}
	r.byType[f.Type]++
	return r.emitFn(f)
}

// relation handles a relation of pass 1.
func (r *reader) relation(id int64, members []member, tags tagList) error {
	t := tags.get("type")
	if t != "boundary" && t != "multipolygon" {
		return nil
	}
	var typ string
	admin := false
	switch tags.get("boundary") {
	case "administrative":
		typ = adminTypes[tags.get("admin_level")]
		admin = typ != ""
	case "postal_code":
		typ = "postal_code"
	}
	var cats []string
	var ft map[string]string
	if typ == "" && t == "multipolygon" {
		if pt, ok := placeTypes[tags.get("place")]; ok {
			typ = pt[0]
		} else if cats, ft = poiInfo(tags); cats != nil {
			typ = "poi"
		}
	}
	if typ == "" || !r.want(typ) {
		return nil
	}
	rl := rel{id: id, typ: typ, tags: map[string]string{}, pop: population(tags), design: placeTypes[tags.get("place")][1],
		cats: cats}
	if typ == "poi" {
		rl.tags = ft
	}
	if typ == "postal_code" {
		code := normPostcode(tags.get("postal_code"))
		if code == "" {
			code = normPostcode(tags.get("ref"))
		}
		if code == "" {
			return nil
		}
		rl.names.name = code
		if n := tags.get("name"); n != "" && n != code {
			rl.names.alts = []string{n}
		}
	} else {
		rl.names = namesOf(tags)
		if rl.names.name == "" {
			return nil
		}
	}
	if !admin && typ != "postal_code" && typ != "poi" {
		rl.tags[TagKind] = "place"
	}
	if admin {
		rl.tags[TagKind] = "admin_area"
		rl.tags[TagAdminLevel] = tags.get("admin_level")
		iso1 := tags.get("ISO3166-1:alpha2")
		if iso1 == "" {
			iso1 = tags.get("ISO3166-1")
		}
		iso2 := tags.get("ISO3166-2")
		if typ == "country" {
			rl.country = countryCode(iso1)
		} else if len(iso2) > 3 && iso2[2] == '-' {
			rl.country = countryCode(iso2[:2])
			rl.tags[TagISO3166_2] = iso2
		}
	}
	if len(r.rels) >= r.opts.MaxRelations {
		return fmt.Errorf("more than %d boundary relations: %w", r.opts.MaxRelations, ErrLimit)
	}
	for _, m := range members {
		switch {
		case m.typ == 1 && m.role != "subarea":
			if len(rl.ways) >= r.opts.MaxMembers {
				return fmt.Errorf("relation %d has more than %d ways: %w", id, r.opts.MaxMembers, ErrLimit)
			}
			rl.ways = append(rl.ways, m.id)
		case m.typ == 0 && m.role == "label":
			rl.label = m.id
		case m.typ == 0 && m.role == "admin_centre" && rl.label == 0:
			rl.label = m.id
		}
	}
	if len(rl.ways) == 0 {
		return nil
	}
	if len(r.relWays)+len(rl.ways) > r.opts.MaxWayRefs {
		return fmt.Errorf("relations have more than %d ways: %w", r.opts.MaxWayRefs, ErrLimit)
	}
	r.relWays = append(r.relWays, rl.ways...)
	if rl.label != 0 {
		r.labels[rl.label] = append(r.labels[rl.label], len(r.rels))
	}
	r.rels = append(r.rels, rl)
	return nil
}

// way handles a way of pass 2.
func (r *reader) way(id int64, refs []int64, tags tagList) error {
	_, member := slices.BinarySearch(r.relWays, id)
	var flags uint8
	if member {
		flags |= wayMember
	}
	var st streetRec
	var ad addrRec
	var po poiRec
	if len(tags) > 0 {
		if kind := roadKinds[tags.get("highway")]; kind != "" && r.want("road") {
			st.names = namesOf(tags)
			st.ref = strings.TrimSpace(tags.get("ref"))
			if st.names.name == "" && kind == "road" {
				// Unnamed motorways and main roads are found by their ref.
				st.names.name, st.ref = st.ref, ""
			}
			if st.names.name != "" {
				flags |= wayStreet
				st.name, st.kind = st.names.name, kind
			}
		}
		var pl placeRec
		if pt, ok := placeTypes[tags.get("place")]; ok && len(refs) >= 4 && refs[0] == refs[len(refs)-1] && r.want(pt[0]) {
			if pl.names = namesOf(tags); pl.names.name != "" {
				flags |= wayPlace
				pl.typ, pl.design, pl.pop = pt[0], pt[1], population(tags)
				r.places = append(r.places, pl)
			}
		}
		if num, street, ok := addressOf(tags); ok && r.want("address", "postal_code") {
			flags |= wayAddress
			ad = addrRec{number: num, street: street, postcode: normPostcode(tags.get("addr:postcode")),
				city: tags.get("addr:city"), country: countryCode(tags.get("addr:country"))}
		}
		if r.want("poi") {
			if cats, ft := poiInfo(tags); cats != nil {
				if po.names = namesOf(tags); po.names.name != "" {
					flags |= wayPOI
					po.cats, po.tags = cats, ft
				}
			}
		}
	}
	if flags == 0 || len(refs) < 2 {
		return nil
	}
	if len(r.arena)+len(refs) > r.opts.MaxWayRefs {
		return fmt.Errorf("ways of interest have more than %d node references: %w", r.opts.MaxWayRefs, ErrLimit)
	}
	w := wayRec{id: id, start: len(r.arena), flags: flags}
	r.arena = append(r.arena, refs...)
	w.end = len(r.arena)
	wi := len(r.ways)
	if member {
		r.wayPos[id] = wi
	}
	if flags&wayStreet != 0 {
		st.way = wi
		r.streets = append(r.streets, st)
	}
	if flags&wayAddress != 0 {
		ad.way = wi
		r.addrs = append(r.addrs, ad)
	}
	if flags&wayPOI != 0 {
		po.way = wi
		r.pois = append(r.pois, po)
	}
	if flags&wayPlace != 0 {
		r.places[len(r.places)-1].way = wi
	}
	r.ways = append(r.ways, w)
	return nil
}

// node handles a node of pass 3: tagged nodes become features, the
// coordinates of nodes of kept ways are stored.
func (r *reader) node(id int64, lat, lon int32, tags tagList) error {
	if i, ok := slices.BinarySearch(r.nodeIDs, id); ok {
		r.coords[2*i], r.coords[2*i+1], r.have[i] = lat, lon, true
	}
	if len(tags) == 0 {
		return nil
	}
	if rs, ok := r.labels[id]; ok {
		if d := placeTypes[tags.get("place")][1]; d != "" {
			for _, ri := range rs {
				if r.rels[ri].design == "" {
					r.rels[ri].design = d
				}
			}
		}
	}
	num, ok := featureNum(id, codeNode)
	if !ok {
		return nil
	}
	ref := "osm:node/" + strconv.FormatInt(id, 10)
	lo, la := degrees(lon), degrees(lat)
	if pt, ok := placeTypes[tags.get("place")]; ok && r.want(pt[0]) {
		if ni := namesOf(tags); ni.name != "" {
			f := sources.Feature{Type: pt[0], Num: num, Ref: ref, Name: ni.name, Names: ni.names,
				Alternates: ni.alts, Lon: lo, Lat: la, Population: population(tags),
				Tags: map[string]string{TagKind: "place"}}
			if pt[1] != "" {
				f.Tags[TagPlaceDesignation] = pt[1]
			}
			if err := r.emit(f); err != nil {
				return err
			}
		}
	}
	if number, street, ok := addressOf(tags); ok {
		a := addrRec{number: number, street: street, postcode: normPostcode(tags.get("addr:postcode")),
			city: tags.get("addr:city"), country: countryCode(tags.get("addr:country"))}
		if err := r.address(a, num, ref, lo, la); err != nil {
			return err
		}
	}
	if r.want("poi") {
		if cats, ft := poiInfo(tags); cats != nil {
			if ni := namesOf(tags); ni.name != "" {
				f := sources.Feature{Type: "poi", Num: num, Ref: ref, Name: ni.name, Names: ni.names,
					Alternates: ni.alts, Lon: lo, Lat: la, Categories: cats, Tags: ft}
				if err := r.emit(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// address emits an address feature and counts it for its postal code.
func (r *reader) address(a addrRec, num uint64, ref string, lon, lat float64) error {
	if a.postcode != "" {
		k := [2]string{a.country, a.postcode}
		agg := r.postcodes[k]
		if agg == nil {
			agg = &pcAgg{}
			r.postcodes[k] = agg
		}
		agg.sumLon += lon
		agg.sumLat += lat
		agg.n++
	}
	if !r.want("address") {
		return nil
	}
	f := sources.Feature{Type: "address", Num: num, Ref: ref, Name: a.street, Address: a.number,
		Country: a.country, Lon: lon, Lat: lat}
	if a.postcode != "" || a.city != "" {
		f.Tags = map[string]string{}
		if a.postcode != "" {
			f.Tags[TagPostcode] = a.postcode
		}
		if a.city != "" {
			f.Tags[TagCity] = a.city
		}
	}
	return r.emit(f)
}

// point returns the coordinates of node id.
func (r *reader) point(id int64) (orb.Point, bool) {
	i, ok := slices.BinarySearch(r.nodeIDs, id)
	if !ok || !r.have[i] {
		return orb.Point{}, false
	}
	return orb.Point{degrees(r.coords[2*i+1]), degrees(r.coords[2*i])}, true
}

// wayPoints returns the coordinates of a kept way, skipping missing nodes.
func (r *reader) wayPoints(w wayRec) []orb.Point {
	pts := make([]orb.Point, 0, w.end-w.start)
	for _, id := range r.arena[w.start:w.end] {
		if p, ok := r.point(id); ok {
			pts = append(pts, p)
		} else {
			r.missing++
		}
	}
	return pts
}

// finish builds the features of relations and ways once every coordinate
// is known.
func (r *reader) finish(ctx context.Context) error {
	r.pcRels = map[string]bool{}
	for i := range r.rels {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.area(&r.rels[i]); err != nil {
			return err
		}
	}
	if err := r.roads(ctx); err != nil {
		return err
	}
	for _, a := range r.addrs {
		w := r.ways[a.way]
		c, ok := r.wayCenter(w)
		if !ok {
			continue
		}
		num, ok := featureNum(w.id, codeWay)
		if !ok {
			continue
		}
		if err := r.address(a, num, "osm:way/"+strconv.FormatInt(w.id, 10), c[0], c[1]); err != nil {
			return err
		}
	}
	for _, p := range r.places {
		if err := r.placeArea(p); err != nil {
			return err
		}
	}
	for _, p := range r.pois {
		w := r.ways[p.way]
		c, ok := r.wayCenter(w)
		if !ok {
			continue
		}
		num, ok := featureNum(w.id, codeWay)
		if !ok {
			continue
		}
		f := sources.Feature{Type: "poi", Num: num, Ref: "osm:way/" + strconv.FormatInt(w.id, 10),
			Name: p.names.name, Names: p.names.names, Alternates: p.names.alts, Lon: c[0], Lat: c[1],
			Categories: p.cats, Tags: p.tags}
		if err := r.emit(f); err != nil {
			return err
		}
	}
	return r.postalCodes()
}

// placeArea emits a place mapped as a closed way.
func (r *reader) placeArea(p placeRec) error {
	w := r.ways[p.way]
	pts := r.wayPoints(w)
	if len(pts) != w.end-w.start {
		return nil // nodes missing
	}
	mp, bad := buildPolygons([]orb.Ring{orb.Ring(pts)})
	r.badRings += bad
	num, ok := featureNum(w.id, codeWay)
	if len(mp) == 0 || !ok {
		return nil
	}
	c := areaCenter(mp)
	f := sources.Feature{Type: p.typ, Num: num, Ref: "osm:way/" + strconv.FormatInt(w.id, 10), Name: p.names.name,
		Names: p.names.names, Alternates: p.names.alts, Lon: c[0], Lat: c[1], Geometry: mp[0], Population: p.pop,
		Tags: map[string]string{TagKind: "place"}}
	if p.design != "" {
		f.Tags[TagPlaceDesignation] = p.design
	}
	return r.emit(f)
}

// wayCenter is the centroid of a closed way, the middle of an open one.
func (r *reader) wayCenter(w wayRec) (orb.Point, bool) {
	pts := r.wayPoints(w)
	if len(pts) == 0 {
		return orb.Point{}, false
	}
	refs := r.arena[w.start:w.end]
	if len(pts) == len(refs) && len(pts) >= 4 && refs[0] == refs[len(refs)-1] {
		ring := orb.Ring(pts)
		c := ringCentroid(ring)
		if !geo.PointInRing(c, ring) {
			if p, ok := interiorPoint([]orb.Ring{ring}); ok {
				c = p
			}
		}
		return c, true
	}
	return alongMiddle(orb.LineString(pts)), true
}

// area builds the feature of a boundary relation.
func (r *reader) area(rl *rel) error {
	var segs [][]int64
	for _, id := range rl.ways {
		wi, ok := r.wayPos[id]
		if !ok {
			r.incomplete++
			r.log.Debug("osm: relation lacks a member way", "relation", rl.id, "way", id)
			continue
		}
		w := r.ways[wi]
		segs = append(segs, r.arena[w.start:w.end])
	}
	ringIDs, open := assembleRings(segs)
	r.badRings += open
	var rings []orb.Ring
	for _, ids := range ringIDs {
		ring := make(orb.Ring, 0, len(ids))
		for _, id := range ids {
			p, ok := r.point(id)
			if !ok {
				ring = nil
				r.missing++
				break
			}
			ring = append(ring, p)
		}
		if ring == nil {
			r.badRings++
			continue
		}
		rings = append(rings, ring)
	}
	mp, bad := buildPolygons(rings)
	r.badRings += bad
	if len(mp) == 0 {
		r.log.Debug("osm: relation without a valid polygon", "relation", rl.id, "name", rl.names.name)
		return nil
	}
	if open > 0 {
		r.log.Debug("osm: relation with unclosed rings", "relation", rl.id, "name", rl.names.name, "open", open)
	}
	num, ok := featureNum(rl.id, codeRelation)
	if !ok {
		return nil
	}
	// The center: the label (or admin_centre) node when it lies inside,
	// else the centroid of the largest polygon when inside, else a point
	// inside it.
	var center orb.Point
	found := false
	if rl.label != 0 {
		if p, ok := r.point(rl.label); ok && mp.Bound().Contains(p) && inMulti(p, mp) {
			center, found = p, true
		}
	}
	if !found {
		center = areaCenter(mp)
	}
	var geom orb.Geometry = mp
	if len(mp) == 1 {
		geom = mp[0]
	}
	if rl.typ == "poi" {
		geom = nil // POIs are points
	}
	f := sources.Feature{Type: rl.typ, Num: num, Ref: "osm:relation/" + strconv.FormatInt(rl.id, 10),
		Name: rl.names.name, Names: rl.names.names, Alternates: rl.names.alts, Country: rl.country,
		Lon: center[0], Lat: center[1], Geometry: geom, Population: rl.pop, Categories: rl.cats}
	if (len(rl.tags) > 0 || rl.design != "") && rl.typ != "poi" {
		f.Tags = map[string]string{}
		for k, v := range rl.tags {
			f.Tags[k] = v
		}
		if rl.design != "" {
			f.Tags[TagPlaceDesignation] = rl.design
		}
	} else if rl.typ == "poi" {
		f.Tags = rl.tags
	}
	if rl.typ == "postal_code" {
		r.pcRels[rl.names.name] = true
	}
	return r.emit(f)
}

// areaCenter is the centroid of the largest polygon of mp when it lies
// inside it, else a point inside it.
func areaCenter(mp orb.MultiPolygon) orb.Point {
	largest := mp[0]
	for _, poly := range mp[1:] {
		if math.Abs(geo.SignedArea(poly[0])) > math.Abs(geo.SignedArea(largest[0])) {
			largest = poly
		}
	}
	center := ringCentroid(largest[0])
	if !geo.PointInPolygon(center, largest) {
		if p, ok := interiorPoint(largest); ok {
			center = p
		}
	}
	return center
}

func inMulti(p orb.Point, mp orb.MultiPolygon) bool {
	for _, poly := range mp {
		if geo.PointInPolygon(p, poly) {
			return true
		}
	}
	return false
}

// postalCodes emits one feature per postal code of the addresses that no
// postal_code boundary already gave, centered on the mean of its addresses.
func (r *reader) postalCodes() error {
	if !r.want("postal_code") {
		return nil
	}
	keys := make([][2]string, 0, len(r.postcodes))
	for k := range r.postcodes {
		if !r.pcRels[k[1]] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][1] < keys[j][1] || keys[i][1] == keys[j][1] && keys[i][0] < keys[j][0]
	})
	for i, k := range keys {
		agg := r.postcodes[k]
		n := float64(agg.n)
		f := sources.Feature{Type: "postal_code", Num: uint64(i + 1), Ref: "osm:addr:postcode=" + k[1],
			Name: k[1], Country: k[0], Lon: agg.sumLon / n, Lat: agg.sumLat / n}
		if err := r.emit(f); err != nil {
			return err
		}
	}
	return nil
}

// roads merges the ways of each street and emits them.
func (r *reader) roads(ctx context.Context) error {
	byName := map[string][]int{}
	var names []string
	for i, s := range r.streets {
		if byName[s.name] == nil {
			names = append(names, s.name)
		}
		byName[s.name] = append(byName[s.name], i)
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, group := range r.mergeStreets(byName[name]) {
			if err := r.road(group); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeStreets groups the ways of one street name: ways sharing a node,
// and pieces whose bounds come within MergeDistance of each other.
func (r *reader) mergeStreets(idx []int) [][]int {
	parent := make([]int, len(idx))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if a, b = find(a), find(b); a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	owner := map[int64]int{}
	for k, si := range idx {
		w := r.ways[r.streets[si].way]
		for _, n := range r.arena[w.start:w.end] {
			if o, ok := owner[n]; ok {
				union(o, k)
			} else {
				owner[n] = k
			}
		}
	}
	if r.opts.MergeDistance > 0 && len(idx) > 1 {
		// Bounds of the pieces so far, grown by the distance; pieces whose
		// grown bounds overlap merge (a sweep along longitude).
		type piece struct {
			root int
			b    orb.Bound
		}
		bounds := map[int]orb.Bound{}
		for k, si := range idx {
			pts := r.wayPoints(r.ways[r.streets[si].way])
			if len(pts) == 0 {
				continue
			}
			b := orb.MultiPoint(pts).Bound()
			root := find(k)
			if ob, ok := bounds[root]; ok {
				b = b.Union(ob)
			}
			bounds[root] = b
		}
		pieces := make([]piece, 0, len(bounds))
		for root, b := range bounds {
			dLat := r.opts.MergeDistance / 111_320
			cos := math.Max(math.Cos(b.Center()[1]*math.Pi/180), 0.01)
			dLon := dLat / cos
			b.Min[0] -= dLon / 2
			b.Max[0] += dLon / 2
			b.Min[1] -= dLat / 2
			b.Max[1] += dLat / 2
			pieces = append(pieces, piece{root, b})
		}
		sort.Slice(pieces, func(i, j int) bool {
			return pieces[i].b.Min[0] < pieces[j].b.Min[0] || pieces[i].b.Min[0] == pieces[j].b.Min[0] && pieces[i].root < pieces[j].root
		})
		for i := range pieces {
			for j := i + 1; j < len(pieces) && pieces[j].b.Min[0] <= pieces[i].b.Max[0]; j++ {
				if pieces[j].b.Min[1] <= pieces[i].b.Max[1] && pieces[i].b.Min[1] <= pieces[j].b.Max[1] {
					union(pieces[i].root, pieces[j].root)
				}
			}
		}
	}
	groups := map[int][]int{}
	var roots []int
	for k, si := range idx {
		root := find(k)
		if groups[root] == nil {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], si)
	}
	slices.Sort(roots)
	out := make([][]int, 0, len(roots))
	for _, root := range roots {
		out = append(out, groups[root])
	}
	return out
}

// road emits one street made of the street records in group.
func (r *reader) road(group []int) error {
	var segs [][]int64
	minID := int64(math.MaxInt64)
	kind := "street"
	var names map[string]string
	var alts []string
	first := r.streets[group[0]]
	for _, si := range group {
		s := r.streets[si]
		w := r.ways[s.way]
		segs = append(segs, r.arena[w.start:w.end])
		minID = min(minID, w.id)
		if s.kind == "road" {
			kind = "road"
		}
		for l, n := range s.names.names {
			if names == nil {
				names = map[string]string{}
			}
			if _, ok := names[l]; !ok {
				names[l] = n
			}
		}
		for _, a := range append(append([]string(nil), s.names.alts...), s.ref) {
			if a != "" && a != first.name && !contains(alts, a) {
				alts = append(alts, a)
			}
		}
	}
	var mls orb.MultiLineString
	for _, chain := range joinChains(segs) {
		var ls orb.LineString
		for _, id := range chain {
			p, ok := r.point(id)
			if !ok {
				r.missing++
				if len(ls) >= 2 {
					mls = append(mls, ls)
				}
				ls = nil
				continue
			}
			ls = append(ls, p)
		}
		if len(ls) >= 2 {
			mls = append(mls, ls)
		}
	}
	if len(mls) == 0 {
		return nil
	}
	num, ok := featureNum(minID, codeWay)
	if !ok {
		return nil
	}
	longest := mls[0]
	for _, ls := range mls[1:] {
		if lineLen(ls) > lineLen(longest) {
			longest = ls
		}
	}
	c := alongMiddle(longest)
	f := sources.Feature{Type: "road", Num: num, Ref: "osm:way/" + strconv.FormatInt(minID, 10),
		Name: first.name, Names: names, Alternates: alts, Lon: c[0], Lat: c[1], Geometry: mls,
		Tags: map[string]string{TagKind: kind}}
	return r.emit(f)
}
