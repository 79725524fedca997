package geocode

import (
	"net/url"
	"testing"
)

func TestLocated(t *testing.T) {
	cases := []struct {
		path, query string
		cc          string
		needs       bool
		proximity   bool
		views       []string
	}{
		{"paris.json", "proximity=ip", "FR", true, true, []string{""}},
		{"paris.json", "proximity=2,48", "FR", false, false, []string{""}},
		{"paris.json", "worldview=auto", "US", true, false, []string{"us"}},
		{"paris.json", "worldview=auto", "FR", true, false, []string{"default"}},
		{"paris.json", "worldview=jp", "US", false, false, []string{"jp"}},
		{"2.35,48.85.json", "worldview=auto", "CH", true, false, []string{"ch"}},
		{"paris;berlin.json", "worldview=auto&proximity=ip", "KR", true, true, []string{"kr", "kr"}},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		req, err := ParseRequest(c.path, q, "")
		if err != nil {
			t.Fatalf("%s?%s: %v", c.path, c.query, err)
		}
		if req.NeedsLocation() != c.needs {
			t.Errorf("%s?%s: NeedsLocation %v", c.path, c.query, !c.needs)
		}
		req.Located(2.5, 48.5, c.cc)
		if req.NeedsLocation() {
			t.Errorf("%s?%s: still needs a location after Located", c.path, c.query)
		}
		reqs := []Request{req}
		if req.Kind == KindBatch {
			reqs = req.Batch
		}
		for i, r := range reqs {
			if w := worldviewOf(&r); w == nil || *w != c.views[i] {
				t.Errorf("%s?%s query %d: worldview %v, want %q", c.path, c.query, i, w, c.views[i])
			}
			if r.Forward != nil && (r.Forward.Proximity != nil) != c.proximity && c.query != "proximity=2,48" {
				t.Errorf("%s?%s query %d: proximity %v", c.path, c.query, i, r.Forward.Proximity)
			}
			if c.proximity && (r.Forward.Proximity == nil || *r.Forward.Proximity != [2]float64{2.5, 48.5}) {
				t.Errorf("%s?%s query %d: proximity %v, want the caller's place", c.path, c.query, i, r.Forward.Proximity)
			}
		}
	}
	for cc, want := range map[string]string{"us": "us", "AE": "ae", "DE": "default", "": "default", "XX": "default"} {
		if got := WorldviewFor(cc); got != want {
			t.Errorf("WorldviewFor(%q) = %q, want %q", cc, got, want)
		}
	}
}
