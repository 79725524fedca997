package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

// geoEnv is a server whose data directory holds a small geocoding index:
// one square country with two towns.
func geoEnv(t *testing.T) *testEnv {
	ds := &sources.Dataset{
		Countries: []sources.Country{{
			Alpha2: "QZ", Alpha3: "QZZ", Numeric: 999, Name: "Squareland",
			Names:    map[string][]string{"en": {"Squareland"}, "fr": {"Carréland"}},
			Geometry: orb.Polygon{{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}},
		}},
		Places: []sources.Place{
			{GeonameID: 101, Name: "Northtown", ASCIIName: "Northtown", Lat: 8, Lon: 5, FeatureClass: "P", FeatureCode: "PPLC", Country: "QZ", Population: 500000},
			{GeonameID: 102, Name: "Südstadt", ASCIIName: "Sudstadt", Lat: 2, Lon: 5, FeatureClass: "P", FeatureCode: "PPL", Country: "QZ", Population: 20000},
		},
		Attribution: []string{"Test data"},
	}
	return newEnv(t, func(c *config.Config) {
		out := filepath.Join(c.DataDir, GeocodingIndex)
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := geocode.WriteDataset(context.Background(), ds, out); err != nil {
			t.Fatal(err)
		}
	})
}

func TestGeocoding(t *testing.T) {
	e := geoEnv(t)
	type feature struct {
		ID        string     `json:"id"`
		Text      string     `json:"text"`
		PlaceType []string   `json:"place_type"`
		Center    [2]float64 `json:"center"`
		Relevance float64    `json:"relevance"`
		PlaceName string     `json:"place_name"`
	}
	type results struct {
		Type        string    `json:"type"`
		Features    []feature `json:"features"`
		Query       []string  `json:"query"`
		Attribution string    `json:"attribution"`
	}
	fwd := e.do("GET", "/geocoding/northtown.json", nil)
	if fwd.status != 200 {
		t.Fatalf("forward: %d %s", fwd.status, fwd.body)
	}
	res := decodeJSON[results](t, fwd.body)
	if res.Type != "FeatureCollection" || len(res.Features) == 0 || res.Features[0].Text != "Northtown" || !strings.Contains(res.Attribution, "Test data") {
		t.Fatalf("forward results = %+v", res)
	}
	// Accents and case do not matter.
	if r := decodeJSON[results](t, e.do("GET", "/geocoding/SUDSTADT.json", nil).body); len(r.Features) == 0 || r.Features[0].Text != "Südstadt" {
		t.Errorf("accent-insensitive: %+v", r.Features)
	}
	// Reverse: the country by polygon and the town.
	rev := decodeJSON[results](t, e.do("GET", "/geocoding/5.01,7.99.json", nil).body)
	var types []string
	for _, f := range rev.Features {
		types = append(types, f.PlaceType...)
	}
	if !strings.Contains(strings.Join(types, ","), "country") {
		t.Errorf("reverse found %v", types)
	}
	// By id, then a batch of the three kinds in order.
	id := res.Features[0].ID
	if byID := decodeJSON[results](t, e.do("GET", "/geocoding/"+id+".json", nil).body); len(byID.Features) != 1 || byID.Features[0].ID != id {
		t.Errorf("by id: %+v", byID)
	}
	batch := e.do("GET", "/geocoding/northtown;5,2;"+id+".json", nil)
	arr := decodeJSON[[]results](t, batch.body)
	if batch.status != 200 || len(arr) != 3 || arr[0].Features[0].Text != "Northtown" || arr[2].Features[0].ID != id {
		t.Errorf("batch: %d %+v", batch.status, arr)
	}
	// An escaped semicolon is part of one query, not a batch.
	if one := e.do("GET", "/geocoding/northtown%3Bx.json", nil); one.status != 200 || strings.HasPrefix(string(one.body), "[") {
		t.Errorf("escaped ';': %d %.40s", one.status, one.body)
	}
	for _, p := range []string{
		"/geocoding/" + strings.Repeat("a", 300) + ".json",
		"/geocoding/" + strings.Repeat("a;", 51) + "a.json",
		"/geocoding/x.json?limit=11",
		"/geocoding/x.json?limit=0",
		"/geocoding/x.json?types=planet",
		"/geocoding/x.json?types=country,country",
		"/geocoding/x.json?language=xx",
		"/geocoding/x.json?bbox=1,2,3",
		"/geocoding/x.json?proximity=200,1",
		"/geocoding/200,1.json",
		"/geocoding/5,5.json?limit=2&types=country,locality",
	} {
		checkError(t, e.do("GET", p, nil), 400)
	}
	checkError(t, e.do("GET", "/geocoding/x", nil), 404)
}

func TestGeocodingOff(t *testing.T) {
	e := newEnv(t, nil)
	checkError(t, e.do("GET", "/geocoding/paris.json", nil), 404)
}
