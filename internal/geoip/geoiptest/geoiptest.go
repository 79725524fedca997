// Package geoiptest writes small geolocation folders for tests: MMDB files
// of the flat DB-IP schema (written by github.com/maxmind/mmdbwriter) and
// their tables.
package geoiptest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/tesseramaps/tessera/internal/geoip"
)

// Record is one network's entry.
type Record struct {
	Network                  string // CIDR
	CountryCode, State, City string
	Postcode, Timezone       string
	Lat, Lon                 float64
}

// Tables are small tables for the records below.
func Tables() *geoip.Tables {
	return &geoip.Tables{
		Attribution: "test tables",
		Continents:  map[string]string{"EU": "Europe", "NA": "North America"},
		Countries: map[string]*geoip.Country{
			"CH": {Name: "Switzerland", Bounds: [4]float64{5.95, 45.82, 10.49, 47.81}, Languages: []string{"de", "fr", "it", "rm"}, ContinentCode: "EU",
				Regions: []geoip.Region{{Code: "ZH", Name: "Zürich"}, {Code: "GE", Name: "Genève"}}},
			"FR": {Name: "France", Bounds: [4]float64{-5.14, 41.33, 9.56, 51.09}, Languages: []string{"fr"}, ContinentCode: "EU", EU: true,
				Regions: []geoip.Region{{Code: "IDF", Name: "Île-de-France"}}},
			"US": {Name: "United States", Bounds: [4]float64{-179.14, 18.91, 179.77, 71.39}, Languages: []string{"en"}, ContinentCode: "NA",
				Regions: []geoip.Region{{Code: "CA", Name: "California"}}},
		},
		Zones:  []string{"Europe/Zurich", "Europe/Paris", "America/Los_Angeles"},
		Places: [][3]float64{{8.54, 47.37, 0}, {6.14, 46.2, 0}, {2.35, 48.85, 1}, {-122.08, 37.42, 2}},
	}
}

// Records are the default test networks: Zurich, Paris, Mountain View, and
// an IPv6 Geneva.
var Records = []Record{
	{Network: "81.6.32.0/20", CountryCode: "CH", State: "Zurich", City: "Zurich", Lat: 47.37, Lon: 8.54},
	{Network: "62.4.0.0/19", CountryCode: "FR", State: "Ile-de-France", City: "Paris", Postcode: "75001", Lat: 48.86, Lon: 2.34},
	{Network: "8.8.8.0/24", CountryCode: "US", State: "California", City: "Mountain View", Lat: 37.422, Lon: -122.085, Timezone: "America/Los_Angeles"},
	{Network: "2a02:1210::/32", CountryCode: "CH", State: "Geneva", City: "Geneva", Lat: 46.2, Lon: 6.14},
}

// Write writes the records (both address families) and the tables into
// dir, the layout geoip.Open reads.
func Write(t testing.TB, dir string, records []Record, tables *geoip.Tables) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		version int
		file    string
	}{{4, geoip.IPv4File}, {6, geoip.IPv6File}} {
		tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "city", IPVersion: v.version, RecordSize: 28})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			_, n, err := net.ParseCIDR(r.Network)
			if err != nil {
				t.Fatal(err)
			}
			if (n.IP.To4() != nil) != (v.version == 4) {
				continue
			}
			err = tree.Insert(n, mmdbtype.Map{
				"country_code": mmdbtype.String(r.CountryCode), "state1": mmdbtype.String(r.State), "state2": mmdbtype.String(""),
				"city": mmdbtype.String(r.City), "postcode": mmdbtype.String(r.Postcode), "timezone": mmdbtype.String(r.Timezone),
				"latitude": mmdbtype.Float64(r.Lat), "longitude": mmdbtype.Float64(r.Lon),
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.Create(filepath.Join(dir, v.file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tree.WriteTo(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := geoip.WriteTables(filepath.Join(dir, geoip.TablesFile), tables); err != nil {
		t.Fatal(err)
	}
}
