package account

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/cursor"
)

func TestPage(t *testing.T) {
	c := cursor.Encode(cursor.Position{Seq: 4, ID: "abc"})
	for _, tc := range []struct {
		query string
		pos   cursor.Position
		limit int
		bad   bool
	}{
		{"", cursor.Position{}, DefaultLimit, false},
		{"limit=10", cursor.Position{}, 10, false},
		{"limit=100&cursor=" + c, cursor.Position{Seq: 4, ID: "abc"}, 100, false},
		{"limit=9", cursor.Position{}, 0, true},
		{"limit=101", cursor.Position{}, 0, true},
		{"limit=1e1", cursor.Position{}, 0, true},
		{"limit=-10", cursor.Position{}, 0, true},
		{"cursor=not-a-cursor!", cursor.Position{}, 0, true},
		{"cursor=" + strings.Repeat("A", 300), cursor.Position{}, 0, true},
	} {
		pos, _, limit, err := Page(httptest.NewRequest("GET", "/v1/api_keys?"+tc.query, nil))
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.query)
			} else if len(err.Error()) > 200 {
				t.Errorf("%q: message of %d bytes echoes too much", tc.query, len(err.Error()))
			}
			continue
		}
		if err != nil || pos != tc.pos || limit != tc.limit {
			t.Errorf("%q: %+v %d %v, want %+v %d", tc.query, pos, limit, err, tc.pos, tc.limit)
		}
	}
}

func TestMetadataChangeCheck(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name string
		m    metadataChange
		ok   bool
	}{
		{"all", metadataChange{Attribution: s("© x"), Description: s("d"), Title: s("T")}, true},
		{"empty strings", metadataChange{Attribution: s(""), Description: s(""), Title: s("")}, true},
		{"no attribution", metadataChange{Description: s("d"), Title: s("T")}, false},
		{"no description", metadataChange{Attribution: s("a"), Title: s("T")}, false},
		{"no title", metadataChange{Attribution: s("a"), Description: s("d")}, false},
		{"title two lines", metadataChange{Attribution: s("a"), Description: s("d"), Title: s("a\nb")}, false},
		{"title too long", metadataChange{Attribution: s("a"), Description: s("d"), Title: s(strings.Repeat("t", MaxTitleBytes+1))}, false},
		{"description too long", metadataChange{Attribution: s("a"), Description: s(strings.Repeat("d", MaxDescriptionBytes+1)), Title: s("T")}, false},
		{"attribution too long", metadataChange{Attribution: s(strings.Repeat("a", MaxAttributionBytes+1)), Description: s("d"), Title: s("T")}, false},
		{"invalid UTF-8", metadataChange{Attribution: s("\xff"), Description: s("d"), Title: s("T")}, false},
		{"multi-line description", metadataChange{Attribution: s("a"), Description: s("line 1\nline 2"), Title: s("T")}, true},
	} {
		if err := tc.m.check(); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
