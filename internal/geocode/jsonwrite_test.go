package geocode

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/paulmach/orb"
)

func TestAppendStringAndFloatAsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "Paris", `quote " back \ slash`, "<a href='x'>&</a>", "tab\tnl\ncr\r\x01\x1f\x7f",
		"Zürich, Bû, 東京", "line\u2028para\u2029", "bad \xff\xfe utf8", "\u00e9\u0301"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("string %q: %s, want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, -0.5, 1, 48.8566, -122.41942, 1e-7, 1.5e-9, 1e21, 1e20, 123456789.123456789, math.SmallestNonzeroFloat64, -1e300} {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("float %g: %s, want %s", f, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"a<b>&c", "\u2028", "\xff", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	})
}

// TestSearchResultsJSON writes a full result and reads it back with
// encoding/json: compact, valid, every member where the spec puts it.
func TestSearchResultsJSON(t *testing.T) {
	r := SearchResults{
		Features: []Feature{{
			ID: "locality.1", Text: "Wien", Language: "de",
			Localized:  []Localized{{Lang: "en", Text: "Vienna", Language: "en", PlaceName: "Vienna, Austria"}},
			Properties: Properties{Ref: "geonames:2761369", CountryCode: "at", Kind: "city", FeatureTags: map[string]string{"b": "2", "a": "<1>"}},
			BBox:       [4]float64{16.18, 48.11, 16.58, 48.32}, Center: [2]float64{16.37, 48.21},
			PlaceName: "Wien, Österreich", MatchingText: "Vienna", PlaceType: []string{"locality"}, Relevance: 0.95,
			Context: []Context{{ID: "country.1", Text: "Österreich", Properties: Properties{Ref: "x", CountryCode: "at"}}},
		}, {ID: "poi.2", Text: "A & B", Geometry: orb.LineString{{1, 2}, {3, 4}}}},
		Query: []string{"wien"}, Attribution: "GeoNames",
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil || !bytes.Equal(compact.Bytes(), b) {
		t.Fatalf("not compact JSON (%v): %s", err, b)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	feats := doc["features"].([]any)
	f0 := feats[0].(map[string]any)
	for k, want := range map[string]any{"type": "Feature", "id": "locality.1", "text": "Wien", "language": "de", "text_en": "Vienna",
		"place_name_en": "Vienna, Austria", "place_name": "Wien, Österreich", "matching_text": "Vienna", "relevance": 0.95} {
		if f0[k] != want {
			t.Errorf("feature member %s = %v, want %v", k, f0[k], want)
		}
	}
	props := f0["properties"].(map[string]any)
	if props["kind"] != "city" || props["feature_tags"].(map[string]any)["a"] != "<1>" || props["place_designation"] != nil {
		t.Errorf("properties %v", props)
	}
	if c := f0["context"].([]any)[0].(map[string]any); c["text"] != "Österreich" || c["country_code"] != "at" {
		t.Errorf("context %v", c)
	}
	f1 := feats[1].(map[string]any)
	if f1["place_type"] == nil || f1["geometry"].(map[string]any)["type"] != "LineString" || f1["context"] != nil {
		t.Errorf("second feature %v", f1)
	}
	if doc["type"] != "FeatureCollection" || doc["attribution"] != "GeoNames" {
		t.Errorf("collection %v", doc)
	}
	if b, _ := json.Marshal(SearchResults{}); string(b) != `{"type":"FeatureCollection","features":[],"query":[],"attribution":""}` {
		t.Errorf("empty results: %s", b)
	}
}
