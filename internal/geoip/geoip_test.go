package geoip_test

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tesseramaps/tessera/internal/geoip"
	"github.com/tesseramaps/tessera/internal/geoip/geoiptest"
)

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	geoiptest.Write(t, dir, geoiptest.Records, geoiptest.Tables())
	db, err := geoip.Open(dir)
	if err != nil || db == nil {
		t.Fatalf("open: %v", err)
	}
	defer db.Close()
	cases := []struct {
		addr string
		want geoip.Location
	}{
		{"81.6.40.1", geoip.Location{Country: "Switzerland", CountryCode: "CH", CountryBounds: [4]float64{5.95, 45.82, 10.49, 47.81},
			CountryLanguages: []string{"de", "fr", "it", "rm"}, Continent: "Europe", ContinentCode: "EU", City: "Zurich",
			Latitude: 47.37, Longitude: 8.54, Region: "Zurich", RegionCode: "ZH", Timezone: "Europe/Zurich"}},
		{"62.4.1.2", geoip.Location{Country: "France", CountryCode: "FR", CountryBounds: [4]float64{-5.14, 41.33, 9.56, 51.09},
			CountryLanguages: []string{"fr"}, Continent: "Europe", ContinentCode: "EU", EU: true, City: "Paris", Postal: "75001",
			Latitude: 48.86, Longitude: 2.34, Region: "Ile-de-France", RegionCode: "IDF", Timezone: "Europe/Paris"}},
		// The record's own time zone wins over the nearest place's.
		{"::ffff:8.8.8.8", geoip.Location{Country: "United States", CountryCode: "US", CountryBounds: [4]float64{-179.14, 18.91, 179.77, 71.39},
			CountryLanguages: []string{"en"}, Continent: "North America", ContinentCode: "NA", City: "Mountain View",
			Latitude: 37.422, Longitude: -122.085, Region: "California", RegionCode: "CA", Timezone: "America/Los_Angeles"}},
		// "Geneva" is no region name of the tables: no code.
		{"2a02:1210:5::1", geoip.Location{Country: "Switzerland", CountryCode: "CH", CountryBounds: [4]float64{5.95, 45.82, 10.49, 47.81},
			CountryLanguages: []string{"de", "fr", "it", "rm"}, Continent: "Europe", ContinentCode: "EU", City: "Geneva",
			Latitude: 46.2, Longitude: 6.14, Region: "Geneva", Timezone: "Europe/Zurich"}},
	}
	for _, c := range cases {
		got, err := db.Locate(netip.MustParseAddr(c.addr))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, %v\nwant %+v", c.addr, got, err, c.want)
		}
	}
	for _, a := range []string{"127.0.0.1", "10.0.0.1", "9.9.9.9", "::1", "2001:db8::1"} {
		if _, err := db.Locate(netip.MustParseAddr(a)); !errors.Is(err, geoip.ErrNotFound) {
			t.Errorf("%s: err %v, want ErrNotFound", a, err)
		}
	}
	if _, err := db.Locate(netip.Addr{}); !errors.Is(err, geoip.ErrNotFound) {
		t.Errorf("zero address: %v", err)
	}
}

func TestOpenMissingAndDamaged(t *testing.T) {
	dir := t.TempDir()
	if db, err := geoip.Open(dir); db != nil || err != nil {
		t.Errorf("empty folder: %v %v, want nil, nil", db, err)
	}
	geoiptest.Write(t, dir, geoiptest.Records, geoiptest.Tables())
	if err := os.WriteFile(filepath.Join(dir, geoip.TablesFile), []byte(`{"zones":[],"places":[[1,2,5]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := geoip.Open(dir); err == nil {
		t.Error("tables naming a zone that does not exist: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, geoip.IPv4File), []byte("not an mmdb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := geoip.Open(dir); err == nil {
		t.Error("damaged database: no error")
	}
}
