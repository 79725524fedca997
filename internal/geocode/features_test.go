package geocode

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
)

var (
	featOnce sync.Once
	featIx   *Index
	featErr  error
)

// featureIndex is the synthetic world plus generic features (POIs, a road,
// an address, a postal code) as the OSM import will provide them.
func featureIndex(t *testing.T) *Index {
	t.Helper()
	syntheticIndex(t) // creates synthDir
	featOnce.Do(func() {
		f := writeSyntheticPackages(t, filepath.Join(synthDir, "pkgs2"))
		ds, err := sources.Load(context.Background(), f)
		if err != nil {
			featErr = err
			return
		}
		cafe := orb.Polygon{{{5.004, 5.001}, {5.0045, 5.001}, {5.0045, 5.0015}, {5.004, 5.0015}, {5.004, 5.001}}}
		ds.Features = []sources.Feature{
			{Type: "poi", Num: 501, Ref: "osm:way/501", Name: "Café Central", Geometry: cafe, Categories: []string{"cafe"},
				Tags: map[string]string{"opening_hours": "Mo-Fr 08:00-18:00", "tessera:source": "test"}, Names: map[string]string{"de": "Zentralcafé"}},
			{Type: "poi", Num: 502, Ref: "osm:node/502", Name: "Alpha Books", Lon: 5.002, Lat: 5.0, Categories: []string{"books"}},
			{Type: "road", Num: 601, Ref: "osm:way/601", Name: "Main Street", Geometry: orb.LineString{{4.99, 5.0}, {5.02, 5.0}},
				Tags: map[string]string{"tessera:kind": "street", "highway": "residential"}},
			{Type: "address", Num: 701, Ref: "osm:node/701", Name: "Main Street", Address: "12", Lon: 5.003, Lat: 5.0},
			{Type: "postal_code", Num: 801, Name: "QZ-1000", Lon: 5.0, Lat: 5.0, Country: "QZ"},
			// A duplicate of the GeoNames Betaburg (dropped) and a new village.
			{Type: "locality", Num: 9201, Name: "Betaburg", Lon: 7.01, Lat: 7.01},
			{Type: "locality", Num: 9202, Name: "Epsilonia", Lon: 8.5, Lat: 8.5},
			// Administrative areas with polygons, as the OSM import gives them.
			{Type: "region", Num: 9001, Ref: "osm:relation/9001", Name: "Eastmark", Country: "QZ",
				Geometry: orb.Polygon{{{6, 0}, {10, 0}, {10, 4}, {6, 4}, {6, 0}}}},
			{Type: "municipality", Num: 9101, Ref: "osm:relation/9101", Name: "Southburg",
				Geometry: orb.MultiPolygon{{{{7, 1}, {9, 1}, {9, 3}, {7, 3}, {7, 1}}}}},
		}
		out := filepath.Join(synthDir, "features.tgi")
		if featErr = WriteDataset(context.Background(), ds, out); featErr != nil {
			return
		}
		featIx, featErr = Open(out)
	})
	if featErr != nil {
		t.Fatalf("feature index: %v", featErr)
	}
	return featIx
}

func TestGenericFeatures(t *testing.T) {
	ix := featureIndex(t)
	ctx := context.Background()
	near := orb.Point{5.0, 5.0}

	res, err := ix.Forward(ctx, ForwardQuery{Text: "cafe central", Limit: 1})
	if err != nil || len(res.Features) != 1 {
		t.Fatalf("forward: %v %v", ids(res), err)
	}
	f := res.Features[0]
	if f.ID != "poi.501" || f.PlaceName != "Café Central, Alphaville, Northshire, Squareland" ||
		!slices.Equal(f.Properties.Categories, []string{"cafe"}) || f.Properties.FeatureTags["opening_hours"] == "" ||
		f.Properties.CountryCode != "qz" {
		t.Errorf("poi: %+v", f)
	}
	if _, ok := f.Geometry.(orb.Point); !ok {
		t.Errorf("forward geometry %T, want a point", f.Geometry)
	}
	if _, hint := f.Properties.FeatureTags["tessera:source"]; hint {
		t.Errorf("index hints shown in feature_tags: %v", f.Properties.FeatureTags)
	}
	// A source's kind hint sets the kind; feature_tags stay on POIs only.
	road, err := ix.ByID(ctx, "road.601", IDOptions{})
	if err != nil || len(road.Features) != 1 || road.Features[0].Properties.Kind != "street" || len(road.Features[0].Properties.FeatureTags) != 0 {
		t.Errorf("road: %+v %v", road.Features, err)
	}
	b, err := json.Marshal(f)
	if err != nil || !strings.Contains(string(b), `"categories":["cafe"]`) || !strings.Contains(string(b), `"feature_tags":{"opening_hours"`) {
		t.Errorf("json %s %v", b, err)
	}

	// A bare category finds POIs of that category; excluding poi drops them.
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "cafe", Proximity: &near})
	if len(res.Features) == 0 || res.Features[0].ID != "poi.501" {
		t.Errorf("category search: %v", ids(res))
	}
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "cafe", Types: []PlaceType{TypePOI}, ExcludeTypes: true, NoFuzzy: true})
	if len(res.Features) != 0 {
		t.Errorf("poi excluded: %v", ids(res))
	}
	// A name with its locality.
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "Alpha Books Alphaville", Limit: 1})
	if len(res.Features) == 0 || res.Features[0].ID != "poi.502" {
		t.Errorf("poi with locality: %v", ids(res))
	}

	// An address by number and street.
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "12 Main Street", Limit: 1})
	if len(res.Features) == 0 || res.Features[0].ID != "address.701" || res.Features[0].Relevance != 1 {
		t.Errorf("address search: %+v", res.Features)
	}

	// Reverse: nearest POIs within 1 km, and one feature per type.
	res, _ = ix.Reverse(ctx, ReverseQuery{Lon: 5.003, Lat: 5.0, Limit: 5, Types: []PlaceType{TypePOI}})
	if got := ids(res); !slices.Equal(got, []string{"poi.502", "poi.501"}) {
		t.Errorf("reverse pois: %v", got)
	}
	res, _ = ix.Reverse(ctx, ReverseQuery{Lon: 5.003, Lat: 5.0})
	got := ids(res)
	for _, want := range []string{"poi.502", "address.701", "road.601", "postal_code.801", "locality.1001", "country.999"} { // the big city, not the nearer village
		if !slices.Contains(got, want) {
			t.Errorf("reverse per type %v lacks %s", got, want)
		}
	}

	// By id: full geometry, address number.
	res, _ = ix.ByID(ctx, "poi.501", IDOptions{Languages: []string{"de"}})
	if len(res.Features) != 1 || res.Features[0].Text != "Zentralcafé" {
		t.Fatalf("poi by id: %+v", res.Features)
	}
	if _, ok := res.Features[0].Geometry.(orb.Polygon); !ok {
		t.Errorf("poi geometry %T, want its polygon", res.Features[0].Geometry)
	}
	res, _ = ix.ByID(ctx, "address.701", IDOptions{})
	if len(res.Features) != 1 || res.Features[0].Address != "12" || res.Features[0].PlaceName != "12 Main Street, Alphaville, Northshire, Squareland" {
		t.Errorf("address: %+v", res.Features)
	}
	res, _ = ix.ByID(ctx, "road.601", IDOptions{})
	if len(res.Features) != 1 || res.Features[0].Properties.Kind != "street" {
		t.Fatalf("road: %+v", res.Features)
	}
	if _, ok := res.Features[0].Geometry.(orb.LineString); !ok {
		t.Errorf("road geometry %T", res.Features[0].Geometry)
	}
}

func TestAreaFeatures(t *testing.T) {
	ix := featureIndex(t)
	ctx := context.Background()
	tests := []struct {
		name string
		q    ReverseQuery
		want []string
	}{
		{"polygons first", ReverseQuery{Lon: 8, Lat: 2, Types: []PlaceType{TypeRegion, TypeMunicipality}},
			[]string{"municipality.9101", "region.9001"}},
		{"outside the polygons", ReverseQuery{Lon: 2.9, Lat: 2.9, Types: []PlaceType{TypeRegion, TypeMunicipality}},
			[]string{"region.3"}},
		{"nearest with limit", ReverseQuery{Lon: 8, Lat: 2, Limit: 3, Types: []PlaceType{TypeMunicipality}},
			[]string{"municipality.9101"}},
		{"containing region with limit", ReverseQuery{Lon: 8, Lat: 2, Limit: 2, Types: []PlaceType{TypeRegion}},
			[]string{"region.9001"}},
	}
	for _, tt := range tests {
		res, err := ix.Reverse(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	res, _ := ix.ByID(ctx, "region.9001", IDOptions{})
	if len(res.Features) != 1 {
		t.Fatalf("region.9001: %v", ids(res))
	}
	f := res.Features[0]
	if _, ok := f.Geometry.(orb.Polygon); !ok || f.PlaceName != "Eastmark, Squareland" || len(f.Context) != 1 ||
		f.Properties.Kind != "admin_area" {
		t.Errorf("region: %+v", f)
	}
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "Betaburg Epsilonia", NoFuzzy: true})
	if got := ids(res); !slices.Equal(got, []string{"locality.1005", "locality.9202"}) {
		t.Errorf("duplicate localities: %v", got)
	}
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "Southburg", Limit: 1})
	if len(res.Features) != 1 || res.Features[0].ID != "municipality.9101" || res.Features[0].Properties.CountryCode != "qz" {
		t.Errorf("forward municipality: %+v", res.Features)
	}
}

func TestWriteDatasetRejectsBadFeatures(t *testing.T) {
	syntheticIndex(t)
	for name, f := range map[string]sources.Feature{
		"unknown type": {Type: "shop", Num: 1, Name: "x"},
		"no name":      {Type: "poi", Num: 1},
		"bad center":   {Type: "poi", Num: 1, Name: "x", Lon: 200, Lat: 0},
	} {
		ds := &sources.Dataset{Features: []sources.Feature{f}}
		if err := WriteDataset(context.Background(), ds, filepath.Join(t.TempDir(), "x.tgi")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestBuildExtraFeatures(t *testing.T) {
	syntheticIndex(t)
	f := writeSyntheticPackages(t, filepath.Join(t.TempDir(), "pkgs"))
	out := filepath.Join(t.TempDir(), "extra.tgi")
	err := Build(context.Background(), BuildOptions{Out: out, Fetcher: f, ExtraAttribution: "© Extra",
		Extra: func(context.Context) ([]sources.Feature, error) {
			return []sources.Feature{{Type: "poi", Num: 1, Name: "Zeta Tower", Lon: 5.01, Lat: 5.01}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, _ := ix.Forward(context.Background(), ForwardQuery{Text: "Zeta Tower"})
	if len(res.Features) == 0 || res.Features[0].ID != "poi.1" || !strings.HasSuffix(res.Attribution, ", © Extra") {
		t.Errorf("extra feature: %v %q", ids(res), res.Attribution)
	}
	failing := BuildOptions{Out: out, Fetcher: f, Extra: func(context.Context) ([]sources.Feature, error) {
		return nil, errors.New("boom")
	}}
	if err := Build(context.Background(), failing); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failing extra: %v", err)
	}
}

// BenchmarkReverseDenseAddresses reverse-geocodes among 200 000 addresses
// packed in a city-sized box (the fine grid keeps this fast).
func BenchmarkReverseDenseAddresses(b *testing.B) {
	syntheticIndex(b)
	f := writeSyntheticPackages(b, filepath.Join(b.TempDir(), "pkgs"))
	ds, err := sources.Load(context.Background(), f)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 200_000; i++ {
		x, y := float64(i%447)/447*0.2, float64(i/447)/447*0.2
		ds.Features = append(ds.Features, sources.Feature{Type: "address", Num: uint64(i + 1), Name: "Long Street",
			Address: strconv.Itoa(i%300 + 1), Lon: 4.9 + x, Lat: 4.9 + y, Country: "QZ"})
	}
	out := filepath.Join(b.TempDir(), "dense.tgi")
	if err := WriteDataset(context.Background(), ds, out); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(out)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := ix.Reverse(ctx, ReverseQuery{Lon: 5.0001, Lat: 5.0001})
		if err != nil || len(res.Features) == 0 {
			b.Fatal(err)
		}
		if _, err := ix.Reverse(ctx, ReverseQuery{Lon: 5.0001, Lat: 5.0001, Limit: 5, Types: []PlaceType{TypeAddress}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLocalBeyondCap: with proximity or bbox, a modest local feature is
// found even when thousands of more important namesakes fill the cap.
func TestLocalBeyondCap(t *testing.T) {
	syntheticIndex(t)
	f := writeSyntheticPackages(t, filepath.Join(t.TempDir(), "pkgs"))
	ds, err := sources.Load(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	n := capExact + 500
	for i := 0; i < n; i++ {
		ds.Features = append(ds.Features, sources.Feature{Type: "poi", Num: uint64(i + 1), Name: "Kiosk",
			Lon: 20 + float64(i%100)/100, Lat: 20 + float64(i/100)/100, Population: 1000, Country: "QY"})
	}
	ds.Features = append(ds.Features, sources.Feature{Type: "poi", Num: 999999, Name: "Kiosk", Lon: 5.01, Lat: 5.01})
	out := filepath.Join(t.TempDir(), "kiosks.tgi")
	if err := WriteDataset(context.Background(), ds, out); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	near := orb.Point{5, 5}
	res, _ := ix.Forward(ctx, ForwardQuery{Text: "Kiosk", Proximity: &near, Limit: 1})
	if got := ids(res); !slices.Equal(got, []string{"poi.999999"}) {
		t.Errorf("proximity: %v", got)
	}
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "Kiosk", BBox: &[4]float64{4, 4, 6, 6}})
	if got := ids(res); !slices.Equal(got, []string{"poi.999999"}) {
		t.Errorf("bbox: %v", got)
	}
	res, _ = ix.Forward(ctx, ForwardQuery{Text: "Kiosk", Limit: 1})
	if got := ids(res); len(got) != 1 || got[0] == "poi.999999" {
		t.Errorf("without a place the important namesakes come first: %v", got)
	}
}
