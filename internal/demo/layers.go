package demo

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/tiler"
	"github.com/tesseramaps/tessera/internal/topojson"
)

// Layer names of the world tileset.
const (
	LayerWater         = "water"
	LayerLand          = "land"
	LayerCountries     = "countries"
	LayerBoundaries    = "boundaries"
	LayerPlaces        = "places"
	LayerCountryLabels = "country_labels"
)

// worldInputs is the decoded source data of the world tileset.
type worldInputs struct {
	// Countries is world-atlas countries-10m.json (object "countries").
	Countries *topojson.Topology
	// Land is world-atlas land-10m.json (object "land").
	Land *topojson.Topology
	// Codes is the ISO 3166-1 table from i18n-iso-countries.
	Codes countryTable
	// Places are the GeoNames populated places.
	Places []place
}

// oceanShell bounds the ocean polygon: the whole world (the tiler clamps
// latitudes to the Web Mercator range). Antarctica, closed through the
// South Pole, shares its southern edge.
var oceanShell = orb.Ring{{-180, -90}, {180, -90}, {180, 90}, {-180, 90}, {-180, -90}}

// worldLayers builds the layers of the world tileset, in drawing order.
func worldLayers(in worldInputs) ([]tiler.Layer, error) {
	land, water, err := landAndWater(in.Land)
	if err != nil {
		return nil, err
	}
	countries, labels, boundaries, err := countryLayers(in.Countries, in.Codes)
	if err != nil {
		return nil, err
	}
	return []tiler.Layer{
		{Name: LayerWater, Description: "Oceans and seas (the world minus Natural Earth land) and lakes inside land; class: ocean or lake", Features: water},
		{Name: LayerLand, Description: "Natural Earth land polygons (1:10m); class: land", Features: land},
		{Name: LayerCountries, Description: "Natural Earth admin-0 countries (1:10m) with ISO 3166-1 codes and names", Features: countries},
		{Name: LayerBoundaries, Description: "Land boundaries between countries (arcs shared by two countries); admin_level 2, disputed, maritime", Features: boundaries},
		{Name: LayerPlaces, Description: "GeoNames populated places with at least 500 inhabitants; name, population, rank (1 = most important), capital (admin level), country", Features: placeFeatures(in.Places)},
		{Name: LayerCountryLabels, Description: "One label point per country, inside its largest polygon", Features: labels},
		{Name: LayerWaterLabels, Description: "Label points of oceans, seas and gulfs; name, class (ocean, sea, gulf), rank (1 = oceans)", Features: waterLabelFeatures()},
	}, nil
}

// landAndWater returns the land polygons (one feature each) and the water
// features: one ocean polygon whose holes are the land polygons' exteriors,
// plus one lake polygon per hole of a land polygon.
func landAndWater(top *topojson.Topology) (land, water []tiler.Feature, err error) {
	feats, err := top.Features("land")
	if err != nil {
		return nil, nil, fmt.Errorf("land: %w", err)
	}
	ocean := orb.Polygon{slices.Clone(oceanShell)}
	var lakes []orb.Polygon
	for _, f := range feats {
		for _, p := range worldPolygons(f.Geometry) {
			land = append(land, tiler.Feature{
				ID:         uint64(len(land) + 1),
				Geometry:   p,
				Properties: map[string]any{"class": "land"},
			})
			hole := slices.Clone(p[0])
			hole.Reverse()
			ocean = append(ocean, hole)
			for _, h := range p[1:] {
				lake := slices.Clone(h)
				lake.Reverse()
				lakes = append(lakes, orb.Polygon{lake})
			}
		}
	}
	if len(land) == 0 {
		return nil, nil, fmt.Errorf("land: no polygons")
	}
	water = append(water, tiler.Feature{ID: 1, Geometry: ocean, Properties: map[string]any{"class": "ocean"}})
	for i, l := range lakes {
		water = append(water, tiler.Feature{ID: uint64(i + 2), Geometry: l, Properties: map[string]any{"class": "lake"}})
	}
	return land, water, nil
}

// countryLayers builds the countries polygons, their label points and the
// boundaries between them.
func countryLayers(top *topojson.Topology, codes countryTable) (countries, labels, boundaries []tiler.Feature, err error) {
	feats, err := top.Features("countries")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("countries: %w", err)
	}
	type info struct {
		iso *country
		id  uint64
	}
	infos := make([]info, len(feats))
	// countryOf and labelOf map a topology geometry to its features.
	countryOf := make([]int, len(feats))
	labelOf := make([]int, len(feats))
	for i, f := range feats {
		countryOf[i], labelOf[i] = -1, -1
		c := codes.lookup(f.ID)
		id := uint64(1000 + i) // entities without an ISO code
		if c != nil {
			n, _ := strconv.ParseUint(c.Numeric, 10, 64)
			id = n
		}
		infos[i] = info{c, id}
		ps := worldPolygons(f.Geometry)
		if len(ps) == 0 {
			continue
		}
		var geom orb.Geometry = orb.MultiPolygon(ps)
		if len(ps) == 1 {
			geom = ps[0]
		}
		props := countryProps(f, c)
		countryOf[i] = len(countries)
		countries = append(countries, tiler.Feature{ID: id, Geometry: geom, Properties: props})

		big, ok := largestPolygon(ps)
		if !ok {
			continue
		}
		area := areaKM2(orb.MultiPolygon(ps))
		lprops := countryProps(f, c)
		lprops["area_km2"] = int64(math.Round(area))
		lprops["rank"] = countryRank(area)
		labelOf[i] = len(labels)
		labels = append(labels, tiler.Feature{
			ID:         id,
			Geometry:   labelPoint(big),
			Properties: lprops,
			MinZoom:    countryLabelMinZoom(area),
		})
	}

	lines, err := top.MeshLines("countries")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("boundaries: %w", err)
	}
	neighbours := make([][]int, len(feats))
	for _, l := range lines {
		if l.A != l.B && l.A >= 0 && l.B >= 0 && l.A < len(feats) && l.B < len(feats) {
			neighbours[l.A] = append(neighbours[l.A], l.B)
			neighbours[l.B] = append(neighbours[l.B], l.A)
		}
	}
	for i, c := range mapColors(neighbours) {
		if countryOf[i] >= 0 {
			countries[countryOf[i]].Properties["mapcolor"] = c
		}
		if labelOf[i] >= 0 {
			labels[labelOf[i]].Properties["mapcolor"] = c
		}
	}
	slices.SortStableFunc(labels, func(a, b tiler.Feature) int {
		return a.Properties["rank"].(int) - b.Properties["rank"].(int)
	})
	// Group the shared arcs by the pair of countries and join each pair's
	// arcs into continuous lines, so that dashed styles run on unbroken.
	type pair struct{ a, b int }
	var order []pair
	arcsOf := map[pair][]orb.LineString{}
	firstArc := map[pair]int{}
	for _, l := range lines {
		if l.A == l.B {
			continue // a coastline, not a boundary
		}
		k := pair{l.A, l.B}
		if _, ok := arcsOf[k]; !ok {
			order = append(order, k)
			firstArc[k] = l.Arc
		}
		arcsOf[k] = append(arcsOf[k], l.Line)
	}
	for _, k := range order {
		a, b := infos[k.a], infos[k.b]
		disputed := 0
		if a.iso == nil || b.iso == nil {
			disputed = 1
		}
		ka, kb := boundarySide(feats[k.a], a.iso), boundarySide(feats[k.b], b.iso)
		if kb < ka {
			ka, kb = kb, ka
		}
		var parts []orb.LineString
		for _, l := range stitchLines(arcsOf[k]) {
			parts = append(parts, splitLineAntimeridian(l)...)
		}
		if len(parts) == 0 {
			continue
		}
		var geom orb.Geometry = parts[0]
		if len(parts) > 1 {
			geom = orb.MultiLineString(parts)
		}
		boundaries = append(boundaries, tiler.Feature{
			ID:       uint64(firstArc[k] + 1),
			Geometry: geom,
			Properties: map[string]any{
				"admin_level": 2,
				"disputed":    disputed,
				"maritime":    0,
				"adm0_a":      ka,
				"adm0_b":      kb,
			},
		})
	}
	return countries, labels, boundaries, nil
}

// MapColors is the number of colours mapColors spreads countries over; a
// country whose neighbours already use them all gets MapColors+1 or more.
const MapColors = 6

// mapColors colours a graph (neighbours[i] lists the nodes next to i) so that
// neighbours differ: colours 1..MapColors, nodes taken from the most connected
// down (Welsh and Powell's order), each given the least used colour that none
// of its neighbours has, so that islands and countries with few neighbours
// spread over the whole palette. It is deterministic.
func mapColors(neighbours [][]int) []int {
	order := make([]int, len(neighbours))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(neighbours[b]) - len(neighbours[a]) })
	colors := make([]int, len(neighbours))
	used := make([]int, MapColors+1)
	for _, n := range order {
		taken := map[int]bool{}
		for _, m := range neighbours[n] {
			taken[colors[m]] = true
		}
		best := 0
		for c := 1; c <= MapColors; c++ {
			if !taken[c] && (best == 0 || used[c] < used[best]) {
				best = c
			}
		}
		if best == 0 {
			best = MapColors + 1
			for taken[best] {
				best++
			}
		} else {
			used[best]++
		}
		colors[n] = best
	}
	return colors
}

// countryProps returns the attributes of a country: Natural Earth's name,
// the ISO codes and the names from i18n-iso-countries.
func countryProps(f topojson.Feature, c *country) map[string]any {
	name, _ := f.Properties["name"].(string)
	props := map[string]any{"name": name}
	if c == nil {
		props["name_en"] = name
		return props
	}
	if name == "" {
		props["name"] = c.Names["en"]
	}
	props["iso_a2"] = c.Alpha2
	props["iso_a3"] = c.Alpha3
	props["iso_n3"] = c.Numeric
	for lang, n := range c.Names {
		props["name_"+lang] = n
	}
	if _, ok := props["name_en"]; !ok {
		props["name_en"] = props["name"]
	}
	return props
}

// boundarySide names one side of a boundary: its ISO alpha-3 code, or the
// Natural Earth name of entities without one.
func boundarySide(f topojson.Feature, c *country) string {
	if c != nil {
		return c.Alpha3
	}
	name, _ := f.Properties["name"].(string)
	return name
}

// countryRank is an importance class from a country's area (1 = largest).
func countryRank(areaKM2 float64) int {
	switch {
	case areaKM2 >= 1_000_000:
		return 1
	case areaKM2 >= 200_000:
		return 2
	case areaKM2 >= 30_000:
		return 3
	case areaKM2 >= 3_000:
		return 4
	}
	return 5
}

// countryLabelMinZoom is the lowest zoom a country label appears at: the
// biggest countries from z0, the smallest from z5.
func countryLabelMinZoom(areaKM2 float64) int {
	return []int{0, 0, 2, 3, 4, 5}[countryRank(areaKM2)]
}

// worldPolygons returns the polygons of a geometry ready for tiling: cut at
// the antimeridian, exterior rings counter-clockwise and holes clockwise,
// degenerate rings left out.
func worldPolygons(g orb.Geometry) []orb.Polygon {
	var out []orb.Polygon
	for _, p := range polygons(g) {
		if len(p) == 0 || len(p[0]) < 4 {
			continue
		}
		for _, part := range splitAntimeridian(p) {
			out = append(out, orientPolygon(part))
		}
	}
	return out
}

// stitchLines joins lines that share end points into longer lines (reversing
// them as needed). Lines that meet no other line are returned as they are.
func stitchLines(lines []orb.LineString) []orb.LineString {
	used := make([]bool, len(lines))
	var out []orb.LineString
	for i := range lines {
		if used[i] || len(lines[i]) == 0 {
			continue
		}
		used[i] = true
		chain := slices.Clone(lines[i])
		for grew := true; grew; {
			grew = false
			for j, l := range lines {
				if used[j] || len(l) == 0 {
					continue
				}
				first, last := chain[0], chain[len(chain)-1]
				switch {
				case last == l[0]:
					chain = append(chain, l[1:]...)
				case last == l[len(l)-1]:
					r := slices.Clone(l)
					r.Reverse()
					chain = append(chain, r[1:]...)
				case first == l[len(l)-1]:
					chain = append(slices.Clone(l[:len(l)-1]), chain...)
				case first == l[0]:
					r := slices.Clone(l)
					r.Reverse()
					chain = append(r[:len(r)-1], chain...)
				default:
					continue
				}
				used[j] = true
				grew = true
			}
		}
		out = append(out, chain)
	}
	return out
}
