package coords

import (
	"errors"
	"net/url"
	"testing"
)

// FuzzParseSearch: any query and parameters parse or fail with ErrInvalid,
// and what parses is within the limits.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"swiss", "kind:CRS-PROJCRS code:2056", "EPSG:4326 deprecated:*", "trans:EPSG:1676", "code:", "kind:x", "a:b:c", "Zürich"} {
		f.Add(s, "limit=5&offset=2&exports=true")
	}
	f.Fuzz(func(t *testing.T, query, params string) {
		q, _ := url.ParseQuery(params)
		req, err := ParseSearch(query, q)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: error not ErrInvalid: %v", query, err)
			}
			return
		}
		if req.Limit < 1 || req.Limit > MaxLimit || req.Offset < 0 || req.Offset > MaxOffset || req.Deprecated < -1 || req.Deprecated > 1 {
			t.Fatalf("%q %q: out of limits: %+v", query, params, req)
		}
		if _, ok := parseKind(req.Kind); !ok {
			t.Fatalf("%q: kind %q", query, req.Kind)
		}
	})
}

// FuzzParseTransform: any coordinates and parameters parse or fail with
// ErrInvalid, and what parses has 1..50 finite points and EPSG codes.
func FuzzParseTransform(f *testing.F) {
	for _, s := range []string{"8.5,47.3", "1,2,3;4,5", "1e308,-1e308", ";", ",", "0x1p-2,1"} {
		f.Add(s, "s_srs=4326&t_srs=2056&ops=1676")
	}
	f.Fuzz(func(t *testing.T, coords, params string) {
		q, _ := url.ParseQuery(params)
		req, err := ParseTransform(coords, q)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: error not ErrInvalid: %v", coords, err)
			}
			return
		}
		if len(req.Points) < 1 || len(req.Points) > MaxPoints {
			t.Fatalf("%q: %d points", coords, len(req.Points))
		}
		for _, p := range req.Points {
			if !finite(p.X) || !finite(p.Y) || !finite(p.Z) {
				t.Fatalf("%q: %+v", coords, p)
			}
		}
		for _, r := range append([]Ref{req.Source, req.Target}, req.Ops...) {
			if r.Authority != "EPSG" || !isInteger(string(r.Code)) {
				t.Fatalf("%q %q: ref %v", coords, params, r)
			}
		}
	})
}
