package osm

import (
	"sort"
	"strconv"
	"strings"
)

// Keys of sources.Feature.Tags that carry what sources.Feature has no field
// for yet. They are not OSM tags: the index must take them out of the
// feature_tags it returns (only POIs have feature_tags; their OSM tags never
// use this prefix).
const (
	// TagKind is the spec's kind: admin_area, place, street or road.
	TagKind = "tessera:kind"
	// TagPlaceDesignation is the spec's place_designation.
	TagPlaceDesignation = "tessera:place_designation"
	// TagAdminLevel is the OSM admin_level of administrative areas.
	TagAdminLevel = "tessera:admin_level"
	// TagISO3166_2 is the ISO 3166-2 subdivision code of an area.
	TagISO3166_2 = "tessera:iso3166_2"
	// TagPostcode is the postal code of an address.
	TagPostcode = "tessera:postcode"
	// TagCity is the addr:city of an address.
	TagCity = "tessera:city"
)

// adminTypes maps admin_level to a place type.
var adminTypes = map[string]string{
	"2":  "country",
	"3":  "region",
	"4":  "region",
	"5":  "subregion",
	"6":  "county",
	"7":  "joint_municipality",
	"8":  "municipality",
	"9":  "municipal_district",
	"10": "neighbourhood",
}

// placeTypes maps place=* to a place type and a place_designation.
var placeTypes = map[string][2]string{
	"city":              {"locality", "city"},
	"town":              {"locality", "town"},
	"village":           {"locality", "village"},
	"hamlet":            {"locality", "hamlet"},
	"borough":           {"neighbourhood", "borough"},
	"suburb":            {"neighbourhood", "suburb"},
	"quarter":           {"neighbourhood", "quarter"},
	"neighbourhood":     {"neighbourhood", "neighbourhood"},
	"city_block":        {"neighbourhood", "city_block"},
	"isolated_dwelling": {"place", "isolated_dwelling"},
	"farm":              {"place", "farm"},
	"allotments":        {"place", "allotments"},
	"plot":              {"place", "plot"},
	"locality":          {"place", ""},
}

// roadKinds maps the highway=* values that make a searchable road to the
// spec's kind: "road" for the through roads, "street" for the others.
var roadKinds = map[string]string{
	"motorway": "road", "motorway_link": "road", "trunk": "road", "trunk_link": "road",
	"primary": "road", "primary_link": "road", "secondary": "road", "secondary_link": "road",
	"tertiary": "street", "tertiary_link": "street", "unclassified": "street", "residential": "street",
	"living_street": "street", "service": "street", "pedestrian": "street", "road": "street",
	"track": "street", "busway": "street", "footway": "street", "path": "street", "cycleway": "street",
	"bridleway": "street", "steps": "street",
}

// poiKeys are the keys that make a named element a POI, in category order.
var poiKeys = []string{"amenity", "shop", "tourism", "leisure", "office", "craft", "historic"}

// featureTagKeys are the tags copied into a POI's feature_tags (besides its
// POI keys).
var featureTagKeys = []string{"opening_hours", "cuisine", "website", "phone", "email", "contact:website",
	"contact:phone", "contact:email", "wheelchair", "brand", "operator", "internet_access", "takeaway",
	"outdoor_seating", "diet:vegetarian", "diet:vegan", "stars", "religion", "denomination", "sport"}

// alternateKeys are the tags whose values (separated by ';') become
// alternate names.
var alternateKeys = []string{"alt_name", "official_name", "short_name", "loc_name", "int_name"}

// nameInfo is the names of an element.
type nameInfo struct {
	name  string
	names map[string]string
	alts  []string
}

// namesOf reads name, name:xx (two-letter language codes) and the
// alternate name keys.
func namesOf(tags tagList) nameInfo {
	ni := nameInfo{name: strings.TrimSpace(tags.get("name"))}
	seen := map[string]bool{ni.name: true}
	for _, kv := range tags {
		if lang, ok := strings.CutPrefix(kv.k, "name:"); ok && isLang(lang) {
			if v := strings.TrimSpace(kv.v); v != "" {
				if ni.names == nil {
					ni.names = map[string]string{}
				}
				ni.names[lang] = v
			}
		}
	}
	for _, k := range alternateKeys {
		for _, v := range strings.Split(tags.get(k), ";") {
			if v = strings.TrimSpace(v); v != "" && !seen[v] {
				seen[v] = true
				ni.alts = append(ni.alts, v)
			}
		}
	}
	if ni.name == "" && ni.names != nil {
		// Some features only have localized names: use the English one,
		// else the first by language code.
		if v, ok := ni.names["en"]; ok {
			ni.name = v
		} else {
			langs := make([]string, 0, len(ni.names))
			for l := range ni.names {
				langs = append(langs, l)
			}
			sort.Strings(langs)
			ni.name = ni.names[langs[0]]
		}
	}
	return ni
}

// isLang reports whether s looks like an ISO 639-1 code.
func isLang(s string) bool {
	return len(s) == 2 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z'
}

// countryCode returns an upper-case ISO 3166-1 alpha-2 code, "" when s is
// not one.
func countryCode(s string) string {
	s = strings.TrimSpace(s)
	if len(s) != 2 {
		return ""
	}
	s = strings.ToUpper(s)
	if s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
		return ""
	}
	return s
}

// population parses the population tag (0 when absent or not a number).
func population(tags tagList) uint64 {
	v := strings.ReplaceAll(strings.TrimSpace(tags.get("population")), ",", "")
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// poiInfo returns the categories and feature_tags of a POI, nil when the
// element is no POI. Categories are the values of the POI keys (except
// "yes") followed by the keys themselves.
func poiInfo(tags tagList) ([]string, map[string]string) {
	var cats, keys []string
	ft := map[string]string{}
	for _, k := range poiKeys {
		v := strings.TrimSpace(tags.get(k))
		if v == "" || v == "no" {
			continue
		}
		ft[k] = v
		keys = append(keys, k)
		for _, part := range strings.Split(v, ";") {
			if part = strings.ToLower(strings.TrimSpace(part)); part != "" && part != "yes" && !contains(cats, part) {
				cats = append(cats, part)
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	for _, k := range keys {
		if !contains(cats, k) {
			cats = append(cats, k)
		}
	}
	for _, k := range featureTagKeys {
		if v := strings.TrimSpace(tags.get(k)); v != "" {
			ft[k] = v
		}
	}
	return cats, ft
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// addressOf returns the house number and the street (or addr:place) of an
// address, ok false when the element is no address.
func addressOf(tags tagList) (number, street string, ok bool) {
	number = strings.TrimSpace(tags.get("addr:housenumber"))
	street = strings.TrimSpace(tags.get("addr:street"))
	if street == "" {
		street = strings.TrimSpace(tags.get("addr:place"))
	}
	return number, street, number != "" && street != ""
}

// normPostcode normalizes a postal code (trimmed, inner spaces collapsed,
// upper case); "" when it is not plausible.
func normPostcode(s string) string {
	s = strings.ToUpper(strings.Join(strings.Fields(s), " "))
	if len(s) == 0 || len(s) > 12 || strings.ContainsAny(s, ";,") {
		return ""
	}
	return s
}
