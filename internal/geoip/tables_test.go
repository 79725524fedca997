package geoip

import "testing"

func TestShortest(t *testing.T) {
	for in, want := range map[float64]float64{
		float64(float32(51.5143)):    51.5143,
		float64(float32(-0.0912244)): -0.0912244,
		47.37:                        47.37, // a float64 value is kept
		float64(float32(-122.085)):   -122.085,
	} {
		if got := shortest(in); got != want {
			t.Errorf("shortest(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestZoneAndRegion(t *testing.T) {
	tb := &Tables{
		Countries: map[string]*Country{"CH": {Regions: []Region{{"ZH", "Zürich"}, {"BE", "Bern"}, {"BL", "Basel-Landschaft"}, {"BS", "Basel-Stadt"}}}},
		Zones:     []string{"Europe/Zurich", "Pacific/Fiji", "Pacific/Tongatapu"},
		Places:    [][3]float64{{8.5, 47.4, 0}, {179.9, -17, 1}, {-175.2, -21.1, 2}},
	}
	db := &DB{}
	db.setTables(tb)
	// Twice: the second answers come from the kept ones.
	for pass := range 2 {
		for _, c := range []struct{ cc, name, want string }{
			{"CH", "Zurich", "ZH"}, {"CH", "ZÜRICH", "ZH"}, {"CH", "Canton of Bern", "BE"}, {"CH", "Basel", ""}, {"CH", "", ""}, {"FR", "Zurich", ""},
		} {
			if got := db.regions.code(c.cc, c.name); got != c.want {
				t.Errorf("pass %d: region %s %q: %q, want %q", pass, c.cc, c.name, got, c.want)
			}
		}
	}
	for _, c := range []struct {
		lon, lat float64
		want     string
	}{{8.6, 47.3, "Europe/Zurich"}, {-179.9, -17.2, "Pacific/Fiji"}, {-175, -21, "Pacific/Tongatapu"}, {60, 0, ""}} {
		if got := db.zones.zone(c.lon, c.lat); got != c.want {
			t.Errorf("zone at %g,%g: %q, want %q", c.lon, c.lat, got, c.want)
		}
	}
}
