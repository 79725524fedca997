package geocode

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseRequestKinds(t *testing.T) {
	tests := []struct {
		path string
		kind Kind
	}{
		{"Basel.json", KindForward},
		{"Basel", KindForward},
		{"/San%20Diego.json", KindForward},
		{"8.5,47.3.json", KindReverse},
		{"-122.4194,%2037.7749.json", KindReverse},
		{"8,47", KindReverse},
		{"country.756.json", KindID},
		{"locality.2661604", KindID},
		{"1.5.json", KindForward},          // "1" is not a place type
		{"Mr.123.json", KindForward},       // neither is "Mr"
		{"locality.abc.json", KindForward}, // no digits
		{"Basel;8,47;country.756.json", KindBatch},
		{"Basel%3BBern.json", KindForward}, // escaped semicolon is text
	}
	for _, tt := range tests {
		r, err := ParseRequest(tt.path, nil, "")
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if r.Kind != tt.kind {
			t.Errorf("%s: kind %v, want %v", tt.path, r.Kind, tt.kind)
		}
	}
}

func TestParseRequestParameters(t *testing.T) {
	r, err := ParseRequest("Basel.json", url.Values{
		"bbox": {"5,45,11,48"}, "proximity": {"7.5,47.5"}, "language": {"de,FR"}, "country": {"ch,de"},
		"limit": {"3"}, "types": {"locality,region"}, "excludeTypes": {"false"}, "fuzzyMatch": {"false"},
		"autocomplete": {"false"}, "worldview": {"ch"}, "key": {"ignored"},
	}, "en")
	if err != nil {
		t.Fatal(err)
	}
	q := r.Forward
	if q.Text != "Basel" || *q.BBox != [4]float64{5, 45, 11, 48} || q.Proximity[0] != 7.5 || q.Proximity[1] != 47.5 ||
		!slices.Equal(q.Languages, []string{"de", "fr"}) || !slices.Equal(q.Countries, []string{"CH", "DE"}) ||
		q.Limit != 3 || !slices.Equal(q.Types, []PlaceType{TypeLocality, TypeRegion}) || q.ExcludeTypes ||
		!q.NoFuzzy || !q.NoAutocomplete || q.Worldview != "ch" {
		t.Errorf("parsed %+v", q)
	}
	// Defaults.
	r, err = ParseRequest("Basel.json", url.Values{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if q := r.Forward; q.Limit != 0 || q.NoFuzzy || q.NoAutocomplete || q.Languages != nil || q.BBox != nil {
		t.Errorf("defaults %+v", q)
	}
	// proximity=ip is accepted and flagged.
	r, err = ParseRequest("Basel.json", url.Values{"proximity": {"ip"}}, "")
	if err != nil || !r.Forward.ProximityIP || r.Forward.Proximity != nil {
		t.Errorf("proximity=ip: %+v %v", r.Forward, err)
	}
	// Accept-Language is used when language is absent, ignored when given (even empty).
	r, _ = ParseRequest("Basel.json", url.Values{}, "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")
	if !slices.Equal(r.Forward.Languages, []string{"fr", "en", "de"}) {
		t.Errorf("accept-language: %v", r.Forward.Languages)
	}
	r, _ = ParseRequest("Basel.json", url.Values{"language": {""}}, "fr")
	if r.Forward.Languages == nil || len(r.Forward.Languages) != 0 {
		t.Errorf("empty language: %#v", r.Forward.Languages)
	}
	// Reverse.
	r, err = ParseRequest("8.5,47.3.json", url.Values{"limit": {"5"}, "types": {"poi"}, "language": {"it"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if rq := r.Reverse; rq.Lon != 8.5 || rq.Lat != 47.3 || rq.Limit != 5 || !slices.Equal(rq.Types, []PlaceType{TypePOI}) ||
		!slices.Equal(rq.Languages, []string{"it"}) {
		t.Errorf("reverse %+v", rq)
	}
	// Batch items keep their kinds and share the parameters.
	r, err = ParseRequest("a;b;1,2", url.Values{"limit": {"2"}, "types": {"locality"}}, "")
	if err != nil || len(r.Batch) != 3 || r.Batch[2].Kind != KindReverse || r.Batch[0].Forward.Text != "a" {
		t.Errorf("batch %+v %v", r, err)
	}
}

func TestParseRequestErrors(t *testing.T) {
	long := strings.Repeat("a", MaxQueryRunes+1)
	words := strings.TrimSpace(strings.Repeat("ab ", MaxQueryTokens+1))
	batch := strings.TrimSuffix(strings.Repeat("a;", MaxBatch+1), ";")
	langs := "aa,ab,ae,af,ak,am,an,ar,as,av,ay,az,ba,be,bg,bh,bi,bm,bn,bo,br"
	tests := []struct {
		name, path string
		params     url.Values
	}{
		{"query too long", long, nil},
		{"too many words", url.PathEscape(words), nil},
		{"too many batch items", batch, nil},
		{"empty batch item", "a;;b", nil},
		{"empty query", "%20.json", nil},
		{"bad escape", "a%zz", nil},
		{"invalid utf8", "%ff%fe", nil},
		{"longitude out of range", "181,10", nil},
		{"latitude out of range", "10,-91", nil},
		{"limit zero", "Basel", url.Values{"limit": {"0"}}},
		{"limit eleven", "Basel", url.Values{"limit": {"11"}}},
		{"limit not a number", "Basel", url.Values{"limit": {"five"}}},
		{"limit repeated", "Basel", url.Values{"limit": {"1", "2"}}},
		{"unknown type", "Basel", url.Values{"types": {"city"}}},
		{"duplicated type", "Basel", url.Values{"types": {"poi,poi"}}},
		{"empty type item", "Basel", url.Values{"types": {"poi,"}}},
		{"unknown language", "Basel", url.Values{"language": {"xx"}}},
		{"regional language tag", "Basel", url.Values{"language": {"en-US"}}},
		{"duplicated language", "Basel", url.Values{"language": {"de,de"}}},
		{"more than 20 languages", "Basel", url.Values{"language": {langs}}},
		{"bbox three numbers", "Basel", url.Values{"bbox": {"1,2,3"}}},
		{"bbox not numbers", "Basel", url.Values{"bbox": {"a,b,c,d"}}},
		{"bbox out of range", "Basel", url.Values{"bbox": {"-200,0,10,10"}}},
		{"bbox south above north", "Basel", url.Values{"bbox": {"0,10,10,0"}}},
		{"bbox NaN", "Basel", url.Values{"bbox": {"NaN,0,1,1"}}},
		{"proximity one number", "Basel", url.Values{"proximity": {"7"}}},
		{"proximity out of range", "Basel", url.Values{"proximity": {"7,95"}}},
		{"country not alpha-2", "Basel", url.Values{"country": {"che"}}},
		{"duplicated country", "Basel", url.Values{"country": {"ch,CH"}}},
		{"bad boolean", "Basel", url.Values{"fuzzyMatch": {"yes"}}},
		{"bad excludeTypes", "Basel", url.Values{"excludeTypes": {"maybe"}}},
		{"unknown worldview", "Basel", url.Values{"worldview": {"fr"}}},
		{"reverse limit without type", "8,47", url.Values{"limit": {"2"}}},
		{"reverse limit with two types", "8,47", url.Values{"limit": {"2"}, "types": {"poi,address"}}},
		{"reverse limit with excluded type", "8,47", url.Values{"limit": {"2"}, "types": {"poi"}, "excludeTypes": {"true"}}},
	}
	for _, tt := range tests {
		_, err := ParseRequest(tt.path, tt.params, "")
		if !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err %v, want ErrInvalidRequest", tt.name, err)
		}
	}
	// The limits themselves are accepted.
	ok := []struct {
		path   string
		params url.Values
	}{
		{strings.Repeat("a", MaxQueryRunes), nil},
		{strings.TrimSuffix(strings.Repeat("a;", MaxBatch), ";"), nil},
		{"Basel", url.Values{"limit": {"10"}, "language": {"aa,ab,ae,af,ak,am,an,ar,as,av,ay,az,ba,be,bg,bh,bi,bm,bn,bo"}}},
		{"180,-90", nil},
		{"8,47", url.Values{"limit": {"2"}, "types": {"poi"}}},
		{"8,47", url.Values{"limit": {"1"}, "types": {"poi,address"}}},
		{"Basel", url.Values{"language": {"ru"}}},
	}
	for _, tt := range ok {
		if _, err := ParseRequest(tt.path, tt.params, ""); err != nil {
			t.Errorf("%.40s %v: %v", tt.path, tt.params, err)
		}
	}
}

func TestParseAcceptLanguage(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"de", []string{"de"}},
		{"en-GB,en;q=0.9,fr;q=0.8", []string{"en", "fr"}},
		{"fr;q=0.2, it", []string{"it", "fr"}},
		{"xx, *, de;q=abc, es;q=0", nil},
		{"ZH-Hant-TW", []string{"zh"}},
	}
	for _, tt := range tests {
		if got := ParseAcceptLanguage(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("ParseAcceptLanguage(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"Basel.json", "8.5,47.3", "country.756", "a;b;1,2", "%3B;%zz", "locality.99999999999999999999",
		"-.5,+.5", "\xff", " , "} {
		f.Add(s, "limit=3&types=poi&language=de,fr", "fr;q=0.5")
	}
	f.Add("x", "bbox=1,2,3,4&proximity=ip&country=ch", "")
	f.Fuzz(func(t *testing.T, path, rawQuery, acceptLanguage string) {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		r, err := ParseRequest(path, q, acceptLanguage)
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("error %v does not wrap ErrInvalidRequest", err)
			}
			return
		}
		check := func(r Request) {
			switch r.Kind {
			case KindForward:
				if r.Forward == nil || utf8.RuneCountInString(r.Forward.Text) > MaxQueryRunes || r.Forward.Limit > MaxLimit {
					t.Fatalf("bad forward %+v", r.Forward)
				}
				if len(r.Forward.Languages) > MaxLanguages {
					t.Fatalf("languages %v", r.Forward.Languages)
				}
			case KindReverse:
				if q := r.Reverse; q == nil || q.Lon < -180 || q.Lon > 180 || q.Lat < -90 || q.Lat > 90 ||
					(q.Limit > 1 && len(q.Types) != 1) {
					t.Fatalf("bad reverse %+v", r.Reverse)
				}
			case KindID:
				if !idRe.MatchString(r.ID) {
					t.Fatalf("bad id %q", r.ID)
				}
			default:
				t.Fatalf("kind %v inside a request", r.Kind)
			}
		}
		if r.Kind == KindBatch {
			if len(r.Batch) > MaxBatch || len(r.Batch) == 0 {
				t.Fatalf("batch of %d", len(r.Batch))
			}
			for _, it := range r.Batch {
				check(it)
			}
			return
		}
		check(r)
	})
}
