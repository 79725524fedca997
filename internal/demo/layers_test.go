package demo

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"

	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/tiler"
)

func testInputs(t *testing.T) worldInputs {
	t.Helper()
	b := &builder{opts: Options{PackageDirs: writeTestPackages(t)}, log: discardLogger(), fetched: map[string]string{}}
	in, err := b.loadWorldInputs(context.Background())
	if err != nil {
		t.Fatalf("loadWorldInputs: %v", err)
	}
	return in
}

func layerByName(t *testing.T, layers []tiler.Layer, name string) tiler.Layer {
	t.Helper()
	for _, l := range layers {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no layer %q", name)
	return tiler.Layer{}
}

func TestWorldLayers(t *testing.T) {
	in := testInputs(t)
	if len(in.Places) != 3 {
		t.Fatalf("loaded %d places, want 3 (historical and non-populated skipped)", len(in.Places))
	}
	layers, err := worldLayers(in)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range layers {
		names = append(names, l.Name)
		if l.Description == "" {
			t.Errorf("layer %s has no description", l.Name)
		}
	}
	if got := strings.Join(names, ","); got != "water,land,countries,boundaries,places,country_labels,water_labels" {
		t.Errorf("layers = %s", got)
	}

	t.Run("countries", func(t *testing.T) {
		l := layerByName(t, layers, LayerCountries)
		if len(l.Features) != 3 {
			t.Fatalf("%d countries, want 3", len(l.Features))
		}
		west := l.Features[0]
		want := map[string]any{"name": "Westland", "name_en": "France", "name_de": "Frankreich", "iso_a2": "FR", "iso_a3": "FRA", "iso_n3": "250"}
		for k, v := range want {
			if west.Properties[k] != v {
				t.Errorf("Westland %s = %v, want %v", k, west.Properties[k], v)
			}
		}
		if west.ID != 250 {
			t.Errorf("Westland id = %d, want 250", west.ID)
		}
		if mp, ok := west.Geometry.(orb.MultiPolygon); !ok || len(mp) != 2 {
			t.Errorf("Westland geometry = %T, want a MultiPolygon of 2", west.Geometry)
		}
		no := l.Features[2]
		if no.Properties["name"] != "Noland" || no.Properties["name_en"] != "Noland" || no.Properties["iso_a2"] != nil {
			t.Errorf("Noland properties = %v", no.Properties)
		}
		for _, f := range l.Features {
			for _, p := range polygons(f.Geometry) {
				if p[0].Orientation() != orb.CCW {
					t.Errorf("%v: exterior ring not counter-clockwise", f.Properties["name"])
				}
			}
		}
	})

	t.Run("boundaries", func(t *testing.T) {
		l := layerByName(t, layers, LayerBoundaries)
		if len(l.Features) != 2 {
			t.Fatalf("%d boundaries, want 2: %+v", len(l.Features), l.Features)
		}
		tests := []struct {
			x        float64
			a, b     string
			disputed int
		}{
			{10, "DEU", "FRA", 0},
			{20, "DEU", "Noland", 1},
		}
		for i, tc := range tests {
			f := l.Features[i]
			ls := f.Geometry.(orb.LineString)
			if len(ls) != 2 || ls[0][0] != tc.x || ls[1][0] != tc.x {
				t.Errorf("boundary %d = %v, want the meridian %v", i, ls, tc.x)
			}
			p := f.Properties
			if p["adm0_a"] != tc.a || p["adm0_b"] != tc.b || p["disputed"] != tc.disputed || p["admin_level"] != 2 || p["maritime"] != 0 {
				t.Errorf("boundary %d properties = %v", i, p)
			}
		}
	})

	t.Run("country_labels", func(t *testing.T) {
		l := layerByName(t, layers, LayerCountryLabels)
		countries := layerByName(t, layers, LayerCountries)
		if len(l.Features) != 3 {
			t.Fatalf("%d labels, want 3", len(l.Features))
		}
		for _, f := range l.Features {
			pt := f.Geometry.(orb.Point)
			var country tiler.Feature
			for _, c := range countries.Features {
				if c.Properties["name"] == f.Properties["name"] {
					country = c
				}
			}
			if country.Geometry == nil {
				t.Fatalf("label %v matches no country", f.Properties["name"])
			}
			if !planar.MultiPolygonContains(orb.MultiPolygon(polygons(country.Geometry)), pt) {
				t.Errorf("label of %v at %v is outside the country", f.Properties["name"], pt)
			}
			if pt[1] < 40 {
				t.Errorf("label of %v at %v is not on the main polygon", f.Properties["name"], pt)
			}
			area := f.Properties["area_km2"].(int64)
			if area < 1000 {
				t.Errorf("label of %v has area %d", f.Properties["name"], area)
			}
			if f.MinZoom != countryLabelMinZoom(float64(area)) {
				t.Errorf("label of %v min zoom %d", f.Properties["name"], f.MinZoom)
			}
		}
		// Westland is the cell 0..10°E 40..50°N plus the island 2..4°E
		// 30..32°N; a cell's area on a sphere of radius R is
		// R² Δλ (sin φ2 - sin φ1).
		cell := func(dLon, lat1, lat2 float64) float64 {
			const r = 6378.137 // km, the radius orb/geo uses
			rad := math.Pi / 180
			return r * r * dLon * rad * (math.Sin(lat2*rad) - math.Sin(lat1*rad))
		}
		want := cell(10, 40, 50) + cell(2, 30, 32)
		west := l.Features[0]
		if west.Properties["name"] != "Westland" {
			west = l.Features[1]
		}
		if a := float64(west.Properties["area_km2"].(int64)); math.Abs(a-want) > want*0.005 {
			t.Errorf("Westland area = %v km², want %.0f", a, want)
		}
	})

	t.Run("land and water", func(t *testing.T) {
		land := layerByName(t, layers, LayerLand)
		if len(land.Features) != 2 {
			t.Fatalf("%d land polygons, want 2", len(land.Features))
		}
		water := layerByName(t, layers, LayerWater)
		if len(water.Features) != 2 {
			t.Fatalf("%d water features, want ocean + lake", len(water.Features))
		}
		ocean := water.Features[0].Geometry.(orb.Polygon)
		if water.Features[0].Properties["class"] != "ocean" || len(ocean) != 3 {
			t.Errorf("ocean = class %v with %d rings, want 1 shell + 2 holes", water.Features[0].Properties["class"], len(ocean))
		}
		tests := []struct {
			pt    orb.Point
			water bool
		}{
			{orb.Point{-30, 0}, true},    // open sea
			{orb.Point{12, 45}, false},   // mainland
			{orb.Point{3, 31}, false},    // island
			{orb.Point{5.5, 44.5}, true}, // lake
			{orb.Point{150, -60}, true},  // far ocean
		}
		for _, tc := range tests {
			inWater := false
			for _, f := range water.Features {
				if planar.PolygonContains(f.Geometry.(orb.Polygon), tc.pt) {
					inWater = true
				}
			}
			inLand := false
			for _, f := range land.Features {
				if planar.PolygonContains(f.Geometry.(orb.Polygon), tc.pt) {
					inLand = true
				}
			}
			if inWater != tc.water || inLand == tc.water {
				t.Errorf("%v: water %v land %v, want water %v", tc.pt, inWater, inLand, tc.water)
			}
		}
		lake := water.Features[1]
		if lake.Properties["class"] != "lake" || lake.Geometry.(orb.Polygon)[0].Orientation() != orb.CCW {
			t.Errorf("lake = %+v", lake)
		}
	})

	t.Run("places", func(t *testing.T) {
		l := layerByName(t, layers, LayerPlaces)
		if len(l.Features) != 3 {
			t.Fatalf("%d places, want 3", len(l.Features))
		}
		tests := []struct {
			name           string
			rank, capital  int
			minZoom        int
			class, country string
			pop            int64
			pt             orb.Point
		}{
			{"Westcity", 1, 2, 0, "city", "FR", 2100000, orb.Point{5, 45}},
			{"Eaststadt", 4, 4, 4, "city", "DE", 120000, orb.Point{15, 45.5}},
			{"Klein Dörfchen", 10, 0, 8, "village", "DE", 800, orb.Point{12, 41}},
		}
		for i, tc := range tests {
			f := l.Features[i]
			p := f.Properties
			if p["name"] != tc.name || p["rank"] != tc.rank || p["capital"] != tc.capital || p["class"] != tc.class ||
				p["country"] != tc.country || p["population"] != tc.pop || f.MinZoom != tc.minZoom || f.Geometry != tc.pt {
				t.Errorf("place %d = %v min zoom %d at %v, want %+v", i, p, f.MinZoom, f.Geometry, tc)
			}
		}
		if l.Features[2].Properties["name_ascii"] != "Klein Dorfchen" || l.Features[0].Properties["name_ascii"] != nil {
			t.Errorf("name_ascii: %v / %v", l.Features[2].Properties["name_ascii"], l.Features[0].Properties["name_ascii"])
		}
	})
}

func TestPlaceRank(t *testing.T) {
	tests := []struct {
		pop     int64
		code    string
		rank    int
		minZoom int
	}{
		{18_960_744, "PPLC", 1, 0},
		{12_400_232, "PPLA", 1, 0},
		{2_000_000, "PPLC", 1, 0},
		{20_430, "PPLC", 2, 2},
		{6_000_000, "PPL", 2, 2},
		{1_500_000, "PPLA2", 3, 3},
		{600_000, "PPL", 4, 4},
		{150_000, "PPLA", 4, 4},
		{30_000, "PPLA", 5, 5},
		{300_000, "PPL", 5, 5},
		{150_000, "PPL", 6, 6},
		{60_000, "PPL", 7, 7},
		{25_000, "PPL", 8, 8},
		{6_000, "PPL", 9, 8},
		{600, "PPL", 10, 8},
		{474_292, "PPLG", 2, 2},
		{0, "PPLG", 10, 8},
		{0, "PPLC", 2, 2},
		{332, "PPLA", 10, 8}, // a PPLA hamlet is no regional centre
		{15_000, "PPLA", 9, 8},
	}
	for _, tc := range tests {
		r := placeRank(tc.pop, capitalLevel(tc.code, tc.pop))
		if r != tc.rank || placeMinZoom(r) != tc.minZoom {
			t.Errorf("%s pop %d: rank %d min zoom %d, want %d %d", tc.code, tc.pop, r, placeMinZoom(r), tc.rank, tc.minZoom)
		}
	}
	// A district never ranks above its city, whatever its population.
	leipzig := place{Name: "Leipzig", FeatureCode: "PPLA3", Population: 504_971}
	quarter := place{Name: "Kleinzschocher", FeatureCode: "PPLX", Population: 597_493}
	if lr, qr := rankOf(leipzig, 0), rankOf(quarter, 0); qr <= lr || placeMinZoom(qr) < 8 {
		t.Errorf("Leipzig rank %d, its quarter %d (min zoom %d)", lr, qr, placeMinZoom(qr))
	}
	feats := placeFeatures([]place{quarter, leipzig})
	if feats[0].Properties["name"] != "Leipzig" || feats[1].Properties["class"] != "village" {
		t.Errorf("order and class: %v, %v", feats[0].Properties, feats[1].Properties)
	}
}

func TestParsePlacesErrors(t *testing.T) {
	good := strings.Split(testPlaces[0], "\t")
	with := func(i int, v string) string {
		f := append([]string(nil), good...)
		f[i] = v
		return strings.Join(f, "\t")
	}
	tests := []struct {
		name, line string
	}{
		{"too few fields", "1\tx\tx"},
		{"bad id", with(0, "abc")},
		{"zero id", with(0, "0")},
		{"bad latitude", with(4, "91")},
		{"bad longitude", with(5, "east")},
		{"NaN", with(4, "NaN")},
		{"negative population", with(14, "-5")},
		{"empty name", with(1, " ")},
		{"long name", with(1, strings.Repeat("a", maxNameBytes+1))},
		{"not utf-8", with(1, "\xff\xfe")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := parsePlaces(context.Background(), strings.NewReader(tc.line+"\n"), func(place) error { return nil })
			if err == nil {
				t.Fatal("no error")
			}
		})
	}
	long := strings.Repeat("x", maxPlaceLine+10)
	if err := parsePlaces(context.Background(), strings.NewReader(long), func(place) error { return nil }); err == nil {
		t.Error("over-long line: no error")
	}
}

func TestLabelPoint(t *testing.T) {
	// A C-shaped polygon whose centroid lies in its notch.
	c := orb.Polygon{{{0, 0}, {10, 0}, {10, 2}, {2, 2}, {2, 8}, {10, 8}, {10, 10}, {0, 10}, {0, 0}}}
	c = orientPolygon(c)
	centroid, _ := planar.CentroidArea(c)
	if planar.PolygonContains(c, centroid) {
		t.Fatalf("test polygon's centroid %v is inside; the test needs one outside", centroid)
	}
	pt := labelPoint(c)
	if !planar.PolygonContains(c, pt) {
		t.Errorf("label point %v outside the polygon", pt)
	}
	// A square with a hole in the middle: the label must avoid the hole.
	sq := orientPolygon(orb.Polygon{
		{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}},
		{{3, 3}, {3, 7}, {7, 7}, {7, 3}, {3, 3}},
	})
	pt = labelPoint(sq)
	if !planar.PolygonContains(sq, pt) {
		t.Errorf("label point %v not inside the square outside its hole", pt)
	}
	// A plain square: the label is near its centre.
	pt = labelPoint(orb.Polygon{{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}})
	if math.Abs(pt[0]-2) > 0.2 || math.Abs(pt[1]-2) > 0.2 {
		t.Errorf("label point of a square = %v, want near [2 2]", pt)
	}
}

func TestStitchLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []orb.LineString
		want  []orb.LineString
	}{
		{"single", []orb.LineString{{{0, 0}, {1, 0}}}, []orb.LineString{{{0, 0}, {1, 0}}}},
		{"in order", []orb.LineString{{{0, 0}, {1, 0}}, {{1, 0}, {2, 0}}}, []orb.LineString{{{0, 0}, {1, 0}, {2, 0}}}},
		{"reversed tail", []orb.LineString{{{0, 0}, {1, 0}}, {{2, 0}, {1, 0}}}, []orb.LineString{{{0, 0}, {1, 0}, {2, 0}}}},
		{"before head", []orb.LineString{{{1, 0}, {2, 0}}, {{0, 0}, {1, 0}}}, []orb.LineString{{{0, 0}, {1, 0}, {2, 0}}}},
		{"reversed head", []orb.LineString{{{1, 0}, {2, 0}}, {{1, 0}, {0, 0}}}, []orb.LineString{{{0, 0}, {1, 0}, {2, 0}}}},
		{"chain of three out of order", []orb.LineString{{{1, 0}, {2, 0}}, {{3, 0}, {2, 0}}, {{0, 0}, {1, 0}}},
			[]orb.LineString{{{0, 0}, {1, 0}, {2, 0}, {3, 0}}}},
		{"disjoint", []orb.LineString{{{0, 0}, {1, 0}}, {{5, 5}, {6, 5}}}, []orb.LineString{{{0, 0}, {1, 0}}, {{5, 5}, {6, 5}}}},
	}
	for _, tc := range tests {
		got := stitchLines(tc.lines)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if !orb.Equal(got[i], tc.want[i]) {
				t.Errorf("%s: line %d = %v, want %v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// TestCapitalBesideBigCity: a national capital 2 km from a much bigger city
// (New Delhi and Delhi) survives the tiler's point thinning at every zoom
// the capital is shown at, since capitals come first.
func TestCapitalBesideBigCity(t *testing.T) {
	places := []place{
		{GeonameID: 1273294, Name: "Delhi", Lat: 28.65195, Lon: 77.23149, FeatureCode: "PPLA", Country: "IN", Population: 10_927_986},
		{GeonameID: 1261481, Name: "New Delhi", Lat: 28.63576, Lon: 77.22445, FeatureCode: "PPLC", Country: "IN", Population: 317_797},
	}
	feats := placeFeatures(places)
	if feats[0].Properties["name"] != "New Delhi" {
		t.Errorf("first place = %v, want the capital", feats[0].Properties["name"])
	}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom, opts.Gzip, opts.Logger = 0, 8, false, discardLogger()
	sink := tiler.NewMemorySink()
	if _, err := tiler.Build(context.Background(), []tiler.Layer{{Name: LayerPlaces, Features: feats}}, opts, sink); err != nil {
		t.Fatal(err)
	}
	for z := 2; z <= 8; z++ {
		x, y := tileOf(77.23, 28.64, z)
		data, ok := sink.Get(z, x, y)
		if !ok {
			t.Fatalf("no tile %d/%d/%d", z, x, y)
		}
		tile, err := mvt.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if findByName(layerProps(t, tile, LayerPlaces), "New Delhi") == nil {
			t.Errorf("z%d: New Delhi thinned out", z)
		}
	}
}
