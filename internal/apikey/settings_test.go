package apikey

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSettingsApply(t *testing.T) {
	desc := "old"
	for _, tc := range []struct {
		name string
		body string
		// the key's fields after: name, description ("<nil>" for none),
		// user agent, origins
		wantName, wantDesc, wantUA string
		wantOrigins                []string
		err                        bool
	}{
		{"empty", `{}`, "prev", "old", "<nil>", []string{"a.com"}, false},
		{"name", `{"name": "  Web  "}`, "Web", "old", "<nil>", []string{"a.com"}, false},
		{"name empty is generated", `{"name": ""}`, "key-01234567", "old", "<nil>", []string{"a.com"}, false},
		{"description null clears", `{"description": null}`, "prev", "<nil>", "<nil>", []string{"a.com"}, false},
		{"description set", `{"description": "multi\nline"}`, "prev", "multi\nline", "<nil>", []string{"a.com"}, false},
		{"user agent", `{"user_agent": "MyApp/"}`, "prev", "old", "MyApp/", []string{"a.com"}, false},
		{"origins normalised", `{"origins": ["HTTPS://Example.com/", "*.example.org", "?", "example.com", " ? "]}`, "prev", "old", "<nil>", []string{"example.com", "*.example.org", "?"}, false},
		{"origins null empties", `{"origins": null}`, "prev", "old", "<nil>", []string{}, false},
		{"origins empty", `{"origins": []}`, "prev", "old", "<nil>", []string{}, false},
		{"bad origin", `{"origins": ["a b"]}`, "", "", "", nil, true},
		{"bad wildcard", `{"origins": ["ex*.com"]}`, "", "", "", nil, true},
		{"name too long", `{"name": "` + strings.Repeat("n", MaxNameBytes+1) + `"}`, "", "", "", nil, true},
		{"name control", `{"name": "a\u0007b"}`, "", "", "", nil, true},
		{"ua too long", `{"user_agent": "` + strings.Repeat("u", MaxUserAgentBytes+1) + `"}`, "", "", "", nil, true},
		{"ua newline", `{"user_agent": "a\nb"}`, "", "", "", nil, true},
		{"description too long", `{"description": "` + strings.Repeat("d", MaxDescriptionBytes+1) + `"}`, "", "", "", nil, true},
		{"too many origins", `{"origins": [` + strings.Repeat(`"a.com",`, MaxOrigins) + `"b.com"]}`, "", "", "", nil, true},
	} {
		var s Settings
		if err := json.Unmarshal([]byte(tc.body), &s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		k := &Key{ID: "0123456789", Name: "prev", Description: &desc, Origins: []string{"a.com"}}
		if tc.name == "name empty is generated" {
			k.Name = "" // as Change does for a cleared name
		}
		err := s.apply(k)
		if tc.err {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: err %v, want ErrInvalid", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		str := func(p *string) string {
			if p == nil {
				return "<nil>"
			}
			return *p
		}
		if k.Name != tc.wantName || str(k.Description) != tc.wantDesc || str(k.UserAgent) != tc.wantUA || !slices.Equal(k.Origins, tc.wantOrigins) {
			t.Errorf("%s: %q %q %q %q", tc.name, k.Name, str(k.Description), str(k.UserAgent), k.Origins)
		}
	}
}

func TestSettingsJSONTypes(t *testing.T) {
	for _, body := range []string{`{"name": 3}`, `{"origins": "a.com"}`, `{"origins": [1]}`, `{"user_agent": []}`, `{"description": {}}`} {
		var s Settings
		if err := json.Unmarshal([]byte(body), &s); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

func TestGeneratedNameAndToken(t *testing.T) {
	if got := GeneratedName("5f0c6a1e-0000-4000-8000-000000000000"); got != "key-5f0c6a1e" {
		t.Errorf("GeneratedName = %q", got)
	}
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) != 32 || a == b || strings.ContainsAny(a, "+/=") {
		t.Errorf("tokens %q %q", a, b)
	}
}

func TestSnapshotCheck(t *testing.T) {
	k1 := &Key{ID: "1", Token: "token-one", Origins: []string{}}
	k2 := &Key{ID: "2", Token: "token-two", Origins: []string{"example.com"}}
	s := NewSnapshot([]*Key{k1, k2})
	if s.Len() != 2 {
		t.Errorf("Len %d", s.Len())
	}
	for _, tc := range []struct {
		token, origin string
		want          *Key
		err           error
	}{
		{"token-one", "", k1, nil},
		{"token-two", "https://example.com", k2, nil},
		{"token-two", "https://example.org", k2, ErrOrigin},
		{"", "", nil, ErrMissing},
		{"token-on", "", nil, ErrUnknown},
		{"token-one ", "", nil, ErrUnknown},
		{"TOKEN-ONE", "", nil, ErrUnknown},
		{strings.Repeat("x", MaxTokenBytes+1), "", nil, ErrUnknown},
		// The last allowed origin is remembered: others are still checked.
		{"token-two", "https://example.com", k2, nil},
		{"token-two", "https://example.com.evil.org", k2, ErrOrigin},
		{"token-two", "", k2, ErrOrigin},
		{"token-two", "https://example.com", k2, nil},
		{"token-two", "null", k2, ErrOrigin},
	} {
		got, err := s.Check(tc.token, tc.origin, "", "")
		if got != tc.want || !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
			t.Errorf("Check(%.20q, %q) = %v %v, want %v %v", tc.token, tc.origin, got, err, tc.want, tc.err)
		}
	}
}
