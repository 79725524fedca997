package demo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/tiler"
)

// Limits of parsePlaces.
const (
	maxPlaceLine   = 1 << 20
	maxPlaceCount  = 5_000_000
	maxNameBytes   = 400
	geonamesFields = 19
)

// place is one populated place of the GeoNames "cities" dump.
type place struct {
	GeonameID   uint64
	Name        string
	ASCIIName   string
	Lat, Lon    float64
	FeatureCode string
	Country     string
	Admin1      string
	Population  int64
}

// skippedFeatureCodes are populated places that no longer exist or are only
// historical: abandoned, destroyed, historical, historical capital.
var skippedFeatureCodes = map[string]bool{"PPLQ": true, "PPLW": true, "PPLH": true, "PPLCH": true}

// errPlace marks a malformed record.
var errPlace = errors.New("bad geonames record")

// parsePlaces reads the GeoNames tab-separated dump format (19 columns:
// geonameid, name, asciiname, alternatenames, latitude, longitude, feature
// class, feature code, country code, cc2, admin1..admin4 codes, population,
// elevation, dem, timezone, modification date) and calls fn for every
// populated place (feature class P) that is not historical. Malformed
// records are errors; lines are limited to 1 MiB and the count of records
// to five million.
func parsePlaces(ctx context.Context, r io.Reader, fn func(place) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPlaceLine)
	line := 0
	for sc.Scan() {
		line++
		if line > maxPlaceCount {
			return fmt.Errorf("places: more than %d records", maxPlaceCount)
		}
		if line%50_000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		raw := bytes.TrimRight(sc.Bytes(), "\r")
		if len(raw) == 0 {
			continue
		}
		p, keep, err := parsePlace(raw)
		if err != nil {
			return fmt.Errorf("places: line %d: %w", line, err)
		}
		if !keep {
			continue
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("places: line %d: %w", line+1, err)
	}
	return nil
}

func parsePlace(raw []byte) (place, bool, error) {
	if !utf8.Valid(raw) {
		return place{}, false, fmt.Errorf("%w: not UTF-8", errPlace)
	}
	f := strings.Split(string(raw), "\t")
	if len(f) != geonamesFields {
		return place{}, false, fmt.Errorf("%w: %d fields, want %d", errPlace, len(f), geonamesFields)
	}
	id, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil || id == 0 {
		return place{}, false, fmt.Errorf("%w: geonameid %q", errPlace, f[0])
	}
	lat, err1 := strconv.ParseFloat(f[4], 64)
	lon, err2 := strconv.ParseFloat(f[5], 64)
	if err1 != nil || err2 != nil || math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return place{}, false, fmt.Errorf("%w: position %q %q", errPlace, f[4], f[5])
	}
	var pop int64
	if f[14] != "" {
		pop, err = strconv.ParseInt(f[14], 10, 64)
		if err != nil || pop < 0 {
			return place{}, false, fmt.Errorf("%w: population %q", errPlace, f[14])
		}
	}
	name := strings.TrimSpace(f[1])
	if name == "" || len(name) > maxNameBytes {
		return place{}, false, fmt.Errorf("%w: name %q", errPlace, name)
	}
	p := place{
		GeonameID:   id,
		Name:        name,
		ASCIIName:   strings.TrimSpace(f[2]),
		Lat:         lat,
		Lon:         lon,
		FeatureCode: f[7],
		Country:     f[8],
		Admin1:      f[10],
		Population:  pop,
	}
	if len(p.ASCIIName) > maxNameBytes {
		p.ASCIIName = ""
	}
	keep := f[6] == "P" && !skippedFeatureCodes[p.FeatureCode]
	return p, keep, nil
}

// capitalLevel returns the administrative level a place is the capital of:
// 2 for national capitals (PPLC) and seats of government (PPLG), 4 for
// first-order division seats (PPLA), 0 otherwise. GeoNames also marks
// government buildings, castles and villages PPLG, always without a
// population; a PPLG counts only with one (The Hague, Cotonou, La Paz,
// Putrajaya).
func capitalLevel(featureCode string, pop int64) int {
	switch {
	case featureCode == "PPLC", featureCode == "PPLG" && pop > 0:
		return 2
	case featureCode == "PPLA":
		return 4
	}
	return 0
}

// placeRank returns the importance class of a place: 1 for megacities and
// big national capitals, growing as places get smaller (up to 10).
func placeRank(pop int64, capital int) int {
	switch {
	case pop >= 10_000_000, capital == 2 && pop >= 1_000_000:
		return 1
	case capital == 2, pop >= 5_000_000:
		return 2
	case pop >= 1_000_000:
		return 3
	case pop >= 500_000, capital == 4 && pop >= 100_000:
		return 4
	case pop >= 200_000, capital == 4 && pop >= 20_000:
		// A first-order seat counts as a regional centre only with the
		// people of one (GeoNames has PPLA hamlets: West Ilsley, 332).
		return 5
	case pop >= 100_000:
		return 6
	case pop >= 50_000:
		return 7
	case pop >= 20_000:
		return 8
	case pop >= 5_000:
		return 9
	}
	return 10
}

// districtRank is the highest rank a section of a populated place (PPLX)
// gets: a district never shows before its city, whatever population
// GeoNames gives it (Kleinzschocher, a quarter of Leipzig, is listed with
// more people than Leipzig).
const districtRank = 9

// rankOf is a place's rank (see placeRank) with districts kept back.
func rankOf(p place, capital int) int {
	r := placeRank(p.Population, capital)
	if p.FeatureCode == "PPLX" {
		r = max(r, districtRank)
	}
	return r
}

// placeMinZoom is the lowest zoom a place of the rank appears at: ranks 1
// and 2 (megacities and capitals) from z0 and z2, every place by z8.
func placeMinZoom(rank int) int {
	switch {
	case rank <= 1:
		return 0
	case rank >= 8:
		return 8
	}
	return rank
}

// placeClass is a coarse kind for styling: city, town or village.
func placeClass(pop int64, capital int, featureCode string) string {
	switch {
	case featureCode == "PPLX":
		return "village" // a district is styled small, whatever its population
	case pop >= 100_000 || capital == 2:
		return "city"
	case pop >= 10_000:
		return "town"
	}
	return "village"
}

// placeFeatures turns places into tiler features ordered by importance:
// national capitals first, then by rank and population. Renderers that place
// labels in feature order favour the important ones, and the tiler's point
// thinning (one point per pixel below the highest zoom, the first one in
// input order) keeps a capital over a bigger city next to it (New Delhi
// beside Delhi).
func placeFeatures(places []place) []tiler.Feature {
	type ranked struct {
		p    place
		rank int
		cap  int
	}
	rs := make([]ranked, len(places))
	for i, p := range places {
		c := capitalLevel(p.FeatureCode, p.Population)
		rs[i] = ranked{p, rankOf(p, c), c}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if ca, cb := a.cap == 2, b.cap == 2; ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.p.Population != b.p.Population {
			if a.p.Population > b.p.Population {
				return -1
			}
			return 1
		}
		return 0
	})
	out := make([]tiler.Feature, 0, len(rs))
	for _, r := range rs {
		props := map[string]any{
			"name":         r.p.Name,
			"population":   r.p.Population,
			"rank":         r.rank,
			"capital":      r.cap,
			"class":        placeClass(r.p.Population, r.cap, r.p.FeatureCode),
			"feature_code": r.p.FeatureCode,
			"geonameid":    r.p.GeonameID,
		}
		if r.p.Country != "" {
			props["country"] = r.p.Country
		}
		if r.p.ASCIIName != "" && r.p.ASCIIName != r.p.Name {
			props["name_ascii"] = r.p.ASCIIName
		}
		out = append(out, tiler.Feature{
			ID:         r.p.GeonameID,
			Geometry:   orb.Point{r.p.Lon, r.p.Lat},
			Properties: props,
			MinZoom:    placeMinZoom(r.rank),
		})
	}
	return out
}
