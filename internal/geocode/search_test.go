package geocode

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"
)

func ids(res SearchResults) []string {
	var out []string
	for _, f := range res.Features {
		out = append(out, f.ID)
	}
	return out
}

func TestForward(t *testing.T) {
	ix := syntheticIndex(t)
	prox := orb.Point{8, 2}
	tests := []struct {
		name  string
		q     ForwardQuery
		first string // id of the expected first result ("" = no result)
	}{
		{"exact", ForwardQuery{Text: "Betaburg"}, "locality.1005"},
		{"case and accents", ForwardQuery{Text: "SAO TOME vila"}, "locality.1004"},
		{"alternate name", ForwardQuery{Text: "Alpha City"}, "locality.1001"},
		{"localized name", ForwardQuery{Text: "Alphastadt"}, "locality.1001"},
		{"typo", ForwardQuery{Text: "Betabrug"}, "locality.1005"},
		{"typo without fuzzy", ForwardQuery{Text: "Betabrug", NoFuzzy: true}, ""},
		{"autocomplete", ForwardQuery{Text: "Betab"}, "locality.1005"},
		{"autocomplete off", ForwardQuery{Text: "Betab", NoAutocomplete: true, NoFuzzy: true}, ""},
		{"importance breaks ties", ForwardQuery{Text: "Springfield"}, "locality.1002"},
		{"proximity", ForwardQuery{Text: "Springfield", Proximity: &prox}, "locality.1003"},
		{"country filter", ForwardQuery{Text: "Deltaport", Countries: []string{"QZ"}}, ""},
		{"country filter keeps", ForwardQuery{Text: "Deltaport", Countries: []string{"QY"}}, "locality.1008"},
		{"bbox", ForwardQuery{Text: "Springfield", BBox: &[4]float64{6, 0, 10, 4}}, "locality.1003"},
		{"types", ForwardQuery{Text: "Alphaville", Types: []PlaceType{TypeRegion}}, ""},
		{"exclude types", ForwardQuery{Text: "Springfield", Types: []PlaceType{TypeLocality}, ExcludeTypes: true}, ""},
		{"country by name", ForwardQuery{Text: "Squareland"}, "country.999"},
		{"country in another language", ForwardQuery{Text: "Quadratien", Languages: []string{"de"}}, "country.999"},
		{"region", ForwardQuery{Text: "Southshire"}, "region.3"},
		{"name with context", ForwardQuery{Text: "Springfield Southshire"}, "locality.1003"},
		{"neighbourhood", ForwardQuery{Text: "Old Quarter"}, "neighbourhood.1006"},
		{"no match", ForwardQuery{Text: "Zzyzx Qwerty"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Forward(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(res.Features) > 0 {
				got = res.Features[0].ID
			}
			if got != tt.first {
				t.Errorf("first = %q, want %q (all %v)", got, tt.first, ids(res))
			}
			for _, f := range res.Features {
				if f.Relevance <= 0 || f.Relevance > 1 {
					t.Errorf("%s relevance %v out of (0,1]", f.ID, f.Relevance)
				}
			}
		})
	}
}

func TestForwardResultFields(t *testing.T) {
	ix := syntheticIndex(t)
	res, err := ix.Forward(context.Background(), ForwardQuery{Text: "Alpha City", Limit: 1, Languages: []string{"de", "fr"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Features) != 1 || !slices.Equal(res.Query, []string{"alpha", "city"}) {
		t.Fatalf("features %d query %q", len(res.Features), res.Query)
	}
	f := res.Features[0]
	if f.PlaceTypeName[0] != "Ort" || f.PlaceType[0] != "locality" {
		t.Errorf("place type %v %v", f.PlaceType, f.PlaceTypeName)
	}
	if f.Text != "Alphastadt" || f.Language != "de" {
		t.Errorf("text %q language %q, want Alphastadt/de", f.Text, f.Language)
	}
	if f.PlaceName != "Alphastadt, Nordland, Quadratien" {
		t.Errorf("place_name %q", f.PlaceName)
	}
	if f.MatchingText != "Alpha City" || f.MatchingPlaceName != "Alpha City, Nordland, Quadratien" {
		t.Errorf("matching %q / %q", f.MatchingText, f.MatchingPlaceName)
	}
	want := []Localized{
		{Lang: "de", Text: "Alphastadt", Language: "de", PlaceName: "Alphastadt, Nordland, Quadratien"},
		{Lang: "fr", Text: "Alphaville-la-Grande", Language: "fr", PlaceName: "Alphaville-la-Grande, Northshire, Carrélande"},
	}
	if !slices.Equal(f.Localized, want) {
		t.Errorf("localized %+v", f.Localized)
	}
	if f.Center != [2]float64{5, 5} || f.Properties.CountryCode != "qz" || f.Properties.PlaceDesignation != "city" ||
		f.Properties.Ref != "geonames:1001" || f.Properties.Kind != "place" {
		t.Errorf("center %v properties %+v", f.Center, f.Properties)
	}
	// A place's bbox spans a population-based radius (15.1 km for 2 million).
	if bb := f.BBox; bb[0] >= 5 || bb[2] <= 5 || math.Abs((bb[3]-bb[1])*111-2*15.14) > 0.1 {
		t.Errorf("bbox %v", bb)
	}
	var ctxIDs []string
	for _, c := range f.Context {
		ctxIDs = append(ctxIDs, c.ID)
	}
	if !slices.Equal(ctxIDs, []string{"subregion.1", "region.2", "country.999"}) {
		t.Errorf("context %v", ctxIDs)
	}
	// "Alpha City" is an untagged alternate name: it matches the whole
	// query but is not the place's own name.
	if f.Relevance != relevanceAlternate {
		t.Errorf("relevance %v, want %v", f.Relevance, relevanceAlternate)
	}

	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["type"] != "FeatureCollection" || doc["attribution"] == "" {
		t.Errorf("collection %v", doc)
	}
	feat := doc["features"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "type", "text", "language", "text_de", "text_fr", "language_fr", "place_name_fr",
		"properties", "geometry", "bbox", "center", "place_name", "place_type", "place_type_name", "relevance",
		"context", "matching_text", "matching_place_name"} {
		if _, ok := feat[k]; !ok {
			t.Errorf("feature JSON lacks %q: %s", k, b)
		}
	}
	if feat["text_fr"] != "Alphaville-la-Grande" || feat["type"] != "Feature" {
		t.Errorf("text_fr %v type %v", feat["text_fr"], feat["type"])
	}
	geom := feat["geometry"].(map[string]any)
	if geom["type"] != "Point" {
		t.Errorf("geometry %v", geom)
	}
	ctx0 := feat["context"].([]any)[1].(map[string]any) // the region, named in German
	for _, k := range []string{"id", "text", "ref", "country_code", "text_de", "language_de"} {
		if _, ok := ctx0[k]; !ok {
			t.Errorf("context JSON lacks %q: %v", k, ctx0)
		}
	}
}

func TestReverse(t *testing.T) {
	ix := syntheticIndex(t)
	tests := []struct {
		name string
		q    ReverseQuery
		want []string
	}{
		{"per type", ReverseQuery{Lon: 5.0002, Lat: 5.0002},
			[]string{"neighbourhood.1006", "locality.1001", "subregion.1", "region.2", "country.999"}},
		{"types filter", ReverseQuery{Lon: 5.0002, Lat: 5.0002, Types: []PlaceType{TypeCountry, TypeLocality}},
			[]string{"locality.1001", "country.999"}},
		{"nearest of one type", ReverseQuery{Lon: 5.0002, Lat: 5.0002, Limit: 3, Types: []PlaceType{TypeLocality}},
			[]string{"locality.1001", "locality.1007"}},
		{"region by nearest locality", ReverseQuery{Lon: 2.9, Lat: 2.9, Types: []PlaceType{TypeRegion}}, []string{"region.3"}},
		{"big city beats a nearer village", ReverseQuery{Lon: 5.004, Lat: 5.0, Types: []PlaceType{TypeLocality}},
			[]string{"locality.1001"}},
		{"village at its own center", ReverseQuery{Lon: 5.005, Lat: 5.0, Types: []PlaceType{TypeLocality}},
			[]string{"locality.1007"}},
		{"open sea", ReverseQuery{Lon: -100, Lat: -40}, nil},
		{"country without polygon", ReverseQuery{Lon: 20.01, Lat: 20.01, Types: []PlaceType{TypeCountry}}, []string{"country.998"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Reverse(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := ix.Reverse(context.Background(), ReverseQuery{Lon: 1, Lat: 1, Limit: 2}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("limit 2 without one type: err %v", err)
	}
}

func TestByID(t *testing.T) {
	ix := syntheticIndex(t)
	ctx := context.Background()
	res, err := ix.ByID(ctx, "country.999", IDOptions{Languages: []string{"fr"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Features) != 1 {
		t.Fatalf("features %v", ids(res))
	}
	f := res.Features[0]
	poly, ok := f.Geometry.(orb.Polygon)
	if !ok || len(poly) != 1 || len(poly[0]) != 5 {
		t.Fatalf("geometry %#v, want the square polygon", f.Geometry)
	}
	if f.BBox != [4]float64{0, 0, 10, 10} || f.Text != "Carrélande" {
		t.Errorf("bbox %v text %q", f.BBox, f.Text)
	}
	res, err = ix.ByID(ctx, "locality.424242", IDOptions{})
	if err != nil || len(res.Features) != 0 {
		t.Errorf("missing id: %v %v", ids(res), err)
	}
	res, err = ix.ByID(ctx, "region.3", IDOptions{})
	if err != nil || len(res.Features) != 1 || res.Features[0].Text != "Southshire" {
		t.Fatalf("region.3: %+v %v", res.Features, err)
	}
	// The region's extent is that of its places.
	if bb := res.Features[0].BBox; bb != [4]float64{0.5, 2, 8, 9.5} {
		t.Errorf("region bbox %v", bb)
	}
	if _, err := ix.ByID(ctx, "bogus", IDOptions{}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("malformed id: %v", err)
	}
}

func TestSearchBatch(t *testing.T) {
	ix := syntheticIndex(t)
	req, err := ParseRequest("Betaburg;5,5;country.999;Alpha%3BCity.json", url.Values{"limit": {"1"}}, "de")
	if err != nil {
		t.Fatal(err)
	}
	out, err := ix.SearchBatch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 {
		t.Fatalf("%d results", len(out))
	}
	want := []string{"locality.1005", "neighbourhood.1006", "country.999", ""}
	for i, r := range out {
		got := ""
		if len(r.Features) > 0 {
			got = r.Features[0].ID
		}
		if i < 3 && got != want[i] {
			t.Errorf("item %d: %q, want %q", i, got, want[i])
		}
	}
	// "Alpha;City" (escaped semicolon) is one forward query.
	if !slices.Equal(out[3].Query, []string{"alpha", "city"}) || len(out[3].Features) != 1 || out[3].Features[0].ID != "locality.1001" {
		t.Errorf("escaped semicolon query %q %v", out[3].Query, ids(out[3]))
	}
	// Accept-Language applies when language is absent.
	if out[0].Features[0].PlaceName != "Betaburg, Nordland, Quadratien" {
		t.Errorf("place name %q", out[0].Features[0].PlaceName)
	}
}

func TestOpenRejectsCorruptFiles(t *testing.T) {
	ix := syntheticIndex(t)
	_ = ix
	src := filepath.Join(synthDir, "synthetic.tgi")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string][]byte{
		"empty":     {},
		"truncated": data[:len(data)/2],
		"bad magic": append([]byte("NOTANIDX"), data[8:]...),
		"text":      []byte(strings.Repeat("geocode ", 100)),
	}
	for name, b := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if ix, err := Open(p); err == nil {
			ix.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
}

// FuzzOpen flips bytes of a valid index: Open must fail or give an index
// whose searches do not panic.
func FuzzOpen(f *testing.F) {
	syntheticIndex(f)
	data, err := os.ReadFile(filepath.Join(synthDir, "synthetic.tgi"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(100), byte(0xff))
	f.Add(uint32(len(data)-20), byte(1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pos uint32, val byte) {
		b := append([]byte(nil), data...)
		b[int(pos)%len(b)] ^= val
		p := filepath.Join(dir, "idx")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(p)
		if err != nil {
			return
		}
		defer ix.Close()
		ctx := context.Background()
		ix.Forward(ctx, ForwardQuery{Text: "Alphaville Springfield"})
		ix.Forward(ctx, ForwardQuery{Text: "Spr"})
		ix.Reverse(ctx, ReverseQuery{Lon: 5, Lat: 5})
		ix.ByID(ctx, "country.999", IDOptions{})
	})
}

// TestConcurrentSearch runs searches from several goroutines (run with -race).
func TestConcurrentSearch(t *testing.T) {
	ix := syntheticIndex(t)
	ctx := context.Background()
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				res, err := ix.Forward(ctx, ForwardQuery{Text: "Springfi"})
				if err == nil && (len(res.Features) == 0 || res.Features[0].ID != "locality.1002") {
					err = errors.New("unexpected forward result " + strings.Join(ids(res), ","))
				}
				if err == nil {
					_, err = ix.Reverse(ctx, ReverseQuery{Lon: 5, Lat: 5})
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestLanguageFallback(t *testing.T) {
	ix := syntheticIndex(t)
	res, err := ix.Forward(context.Background(), ForwardQuery{Text: "Betaburg", Limit: 1, Languages: []string{"it", "de"}})
	if err != nil || len(res.Features) != 1 {
		t.Fatalf("%v %v", ids(res), err)
	}
	f := res.Features[0]
	// No Italian name: the default name, language is still the query's.
	if f.Text != "Betaburg" || f.Language != "it" {
		t.Errorf("text %q language %q", f.Text, f.Language)
	}
	want := []Localized{
		{Lang: "it", Text: "Betaburg", Language: "", PlaceName: "Betaburg, Northshire, Squareland"},
		{Lang: "de", Text: "Betaburg", Language: "", PlaceName: "Betaburg, Nordland, Quadratien"},
	}
	if !slices.Equal(f.Localized, want) {
		t.Errorf("localized %+v", f.Localized)
	}
	// Without languages: default names, no language member.
	res, _ = ix.Forward(context.Background(), ForwardQuery{Text: "Betaburg", Limit: 1})
	if f := res.Features[0]; f.Language != "" || f.PlaceName != "Betaburg, Northshire, Squareland" || len(f.Localized) != 0 {
		t.Errorf("no language: %+v", f)
	}
}

// FuzzForward searches arbitrary text: no panics, relevance in (0, 1].
func FuzzForward(f *testing.F) {
	for _, s := range []string{"Springfield Southshire", "a", "Betab", "ß", "12 Main", "Ра’с", "x y z", "\xff"} {
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, text string, noFuzzy, noAuto bool) {
		ix := syntheticIndex(t)
		res, err := ix.Forward(context.Background(), ForwardQuery{Text: text, NoFuzzy: noFuzzy, NoAutocomplete: noAuto})
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatal(err)
			}
			return
		}
		if len(res.Features) > DefaultLimit {
			t.Fatalf("%d features", len(res.Features))
		}
		for _, ft := range res.Features {
			if ft.Relevance <= 0 || ft.Relevance > 1 {
				t.Fatalf("relevance %v", ft.Relevance)
			}
		}
	})
}

func TestCloseKeepsResults(t *testing.T) {
	syntheticIndex(t)
	ix, err := Open(filepath.Join(synthDir, "synthetic.tgi"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Forward(context.Background(), ForwardQuery{Text: "Alpha City", Languages: []string{"de", "fr"}})
	if err != nil || len(res.Features) == 0 {
		t.Fatalf("%v %v", ids(res), err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// The results hold copies: encoding them after the unmap must work.
	b, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(b), "Alphastadt") || !strings.Contains(string(b), "geonames:1001") {
		t.Errorf("results after Close: %s %v", b, err)
	}
	if _, err := ix.Forward(context.Background(), ForwardQuery{Text: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("search after Close: %v", err)
	}
	if _, err := ix.Reverse(context.Background(), ReverseQuery{Lon: 1, Lat: 1}); !errors.Is(err, ErrClosed) {
		t.Errorf("reverse after Close: %v", err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestTopMatches(t *testing.T) {
	var ms []nameMatch
	for i := 0; i < 1000; i++ {
		ms = append(ms, nameMatch{feat: i, score: float64((i * 7919) % 1000)})
	}
	byScore := func(a, b nameMatch) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.feat - b.feat
	}
	got := topMatches(slices.Clone(ms), 10, byScore)
	want := slices.Clone(ms)
	slices.SortFunc(want, byScore)
	if !slices.Equal(got, want[:10]) {
		t.Errorf("top 10 %v, want %v", got, want[:10])
	}
	if small := topMatches(slices.Clone(ms[:5]), 10, byScore); len(small) != 5 || small[0].score < small[4].score {
		t.Errorf("fewer than k: %v", small)
	}
}
