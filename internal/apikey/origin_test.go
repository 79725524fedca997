package apikey

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRequestOrigin(t *testing.T) {
	for _, tc := range []struct {
		origin, referer string
		want            Host
		ok              bool
	}{
		{"https://example.com", "", Host{"example.com", "443"}, true},
		{"http://example.com", "", Host{"example.com", "80"}, true},
		{"http://Example.COM:8080", "", Host{"example.com", "8080"}, true},
		{"https://a.b.example.com", "https://other.org/x", Host{"a.b.example.com", "443"}, true}, // Origin wins
		{"", "https://example.com/maps/a/?key=k#frag", Host{"example.com", "443"}, true},
		{"", "https://user:pw@example.com:444/x", Host{"example.com", "444"}, true},
		{"null", "http://127.0.0.1:3000/page", Host{"127.0.0.1", "3000"}, true},
		{"http://[::1]:8080", "", Host{"[::1]", "8080"}, true},
		{"http://[0:0::1]", "", Host{"[::1]", "80"}, true},
		{"https://example.com.", "", Host{"example.com", "443"}, true},
		{"https://example.com:0443", "", Host{"example.com", "443"}, true},
		{"", "", Host{}, false},
		{"null", "", Host{}, false},
		{"file://", "", Host{}, false},
		{"chrome-extension://abc", "", Host{}, false},
		{"https://", "", Host{}, false},
		{"https://exa mple.com", "", Host{}, false},
		{"https://example.com:99999", "", Host{}, false},
		{"https://example.com:", "", Host{}, false},
		{"https://example.com:+80", "", Host{}, false},
		{"https://[::1", "", Host{}, false},
		{"https://[fe80::1%25eth0]", "", Host{}, false},
		{"https://ex..com", "", Host{}, false},
		{"https://1.2.3.4.5", "", Host{}, false},
		{"example.com", "", Host{}, false},
		{"garbage", "https://example.com", Host{}, false}, // a bad Origin is not replaced by the Referer
		{"https://" + strings.Repeat("a", 64) + ".com", "", Host{}, false},
	} {
		got, ok := ParseRequestOrigin(tc.origin, tc.referer)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRequestOrigin(%q, %q) = %+v %v, want %+v %v", tc.origin, tc.referer, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{" Example.COM ", "example.com"},
		{"https://example.com/", "example.com"},
		{"http://example.com:8080", "example.com:8080"},
		{"*.example.com", "*.example.com"},
		{"*.Example.com:443", "*.example.com:443"},
		{"localhost", "localhost"},
		{"127.0.0.1:3000", "127.0.0.1:3000"},
		{"[::1]", "[::1]"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
	} {
		r, err := parseRule(tc.in)
		if err != nil || r.String() != tc.want {
			t.Errorf("parseRule(%q) = %q, %v; want %q", tc.in, r, err, tc.want)
		}
	}
	for _, in := range []string{"", "*", "*.", "*.*.example.com", "a.*.example.com", "ftp://example.com", "example.com/path",
		"exa mple.com", "bücher.example", "*.127.0.0.1", "*.[::1]", "example.com:0", "example.com:70000", "[::1", "http://", "?x"} {
		if r, err := parseRule(in); err == nil {
			t.Errorf("parseRule(%q) = %q, want an error", in, r)
		}
	}
}

// TestRestrictionMatrix checks each origin rule and the user-agent rule,
// allowed and refused.
func TestRestrictionMatrix(t *testing.T) {
	ua := func(s string) *string { return &s }
	for _, tc := range []struct {
		name      string
		origins   []string
		userAgent *string
		origin    string
		referer   string
		reqUA     string
		want      error
	}{
		// No restrictions.
		{"open, no headers", nil, nil, "", "", "", nil},
		{"open, any origin", nil, nil, "https://evil.example", "", "curl/8", nil},
		// A plain host allows only that host.
		{"host allows itself", []string{"example.com"}, nil, "https://example.com", "", "", nil},
		{"host by referer", []string{"example.com"}, nil, "", "https://example.com/page", "", nil},
		{"host, any port", []string{"example.com"}, nil, "http://example.com:8080", "", "", nil},
		{"host refuses subdomain", []string{"example.com"}, nil, "https://www.example.com", "", "", ErrOrigin},
		{"host refuses other", []string{"example.com"}, nil, "https://example.org", "", "", ErrOrigin},
		{"host refuses suffix trick", []string{"example.com"}, nil, "https://badexample.com", "", "", ErrOrigin},
		{"host refuses prefix trick", []string{"example.com"}, nil, "https://example.com.evil.org", "", "", ErrOrigin},
		// A host with a port allows that port only.
		{"port matches", []string{"localhost:3000"}, nil, "http://localhost:3000", "", "", nil},
		{"port differs", []string{"localhost:3000"}, nil, "http://localhost:3001", "", "", ErrOrigin},
		{"default port", []string{"example.com:443"}, nil, "https://example.com", "", "", nil},
		// *.host allows its subdomains and not the host itself.
		{"wildcard subdomain", []string{"*.example.com"}, nil, "https://maps.example.com", "", "", nil},
		{"wildcard deep subdomain", []string{"*.example.com"}, nil, "https://a.b.example.com", "", "", nil},
		{"wildcard refuses host", []string{"*.example.com"}, nil, "https://example.com", "", "", ErrOrigin},
		{"wildcard refuses suffix trick", []string{"*.example.com"}, nil, "https://badexample.com", "", "", ErrOrigin},
		{"wildcard refuses other", []string{"*.example.com"}, nil, "https://maps.example.org", "", "", ErrOrigin},
		{"wildcard and host", []string{"*.example.com", "example.com"}, nil, "https://example.com", "", "", nil},
		// Unknown origins (neither header) are refused unless ? is listed.
		{"unknown refused", []string{"example.com"}, nil, "", "", "", ErrOrigin},
		{"unknown allowed by ?", []string{"example.com", "?"}, nil, "", "", "", nil},
		{"? alone allows unknown", []string{"?"}, nil, "", "", "", nil},
		{"? alone refuses a known origin", []string{"?"}, nil, "https://example.com", "", "", ErrOrigin},
		{"? does not allow other hosts", []string{"example.com", "?"}, nil, "https://example.org", "", "", ErrOrigin},
		{"opaque origin is unknown", []string{"example.com"}, nil, "null", "", "", ErrOrigin},
		{"opaque origin, referer", []string{"example.com"}, nil, "null", "https://example.com/", "", nil},
		{"bad origin is unknown", []string{"example.com", "?"}, nil, "not a url", "", "", nil},
		// Origin is taken before Referer.
		{"origin before referer", []string{"example.com"}, nil, "https://example.org", "https://example.com/", "", ErrOrigin},
		{"origin before referer, allowed", []string{"example.com"}, nil, "https://example.com", "https://example.org/", "", nil},
		// User agent: a case-sensitive substring; empty means any.
		{"ua substring", nil, ua("MyApp/"), "", "", "Mozilla/5.0 MyApp/2.1", nil},
		{"ua exact", nil, ua("MyApp/2.1"), "", "", "MyApp/2.1", nil},
		{"ua case differs", nil, ua("MyApp/"), "", "", "myapp/2.1", ErrUserAgent},
		{"ua missing", nil, ua("MyApp/"), "", "", "", ErrUserAgent},
		{"ua no wildcard", nil, ua("My*/"), "", "", "MyApp/", ErrUserAgent},
		{"ua empty means any", nil, ua(""), "", "", "anything", nil},
		// Both restrictions apply.
		{"both pass", []string{"example.com"}, ua("Chrome"), "https://example.com", "", "Chrome/120", nil},
		{"origin passes, ua fails", []string{"example.com"}, ua("Chrome"), "https://example.com", "", "Firefox/120", ErrUserAgent},
		{"ua passes, origin fails", []string{"example.com"}, ua("Chrome"), "https://example.org", "", "Chrome/120", ErrOrigin},
	} {
		k := &Key{ID: "id", Token: "tok", UserAgent: tc.userAgent}
		if err := (Settings{Origins: Value(tc.origins)}).apply(k); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		snap := NewSnapshot([]*Key{k})
		got, err := snap.Check("tok", tc.origin, tc.referer, tc.reqUA)
		if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.want)
		}
		if got != k {
			t.Errorf("%s: key %+v", tc.name, got)
		}
	}
}

func FuzzParseRequestOrigin(f *testing.F) {
	for _, s := range []string{"https://example.com", "http://[::1]:80/x", "null", "https://u@h:1?x#y", "http://1.2.3.4", "https://[", "http://a:"} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, origin, referer string) {
		h, ok := ParseRequestOrigin(origin, referer)
		if !ok {
			if h != (Host{}) {
				t.Fatalf("not ok but %+v", h)
			}
			return
		}
		// A parsed host is canonical: as a rule it parses to itself and
		// matches the host it came from.
		entry := h.Name
		if h.Port != "" {
			entry += ":" + h.Port
		}
		r, err := parseRule(entry)
		if err != nil || r.String() != entry {
			t.Fatalf("%q %q -> %+v -> rule %q %v", origin, referer, h, r, err)
		}
		if !r.matches(h) {
			t.Fatalf("rule %q does not match %+v", entry, h)
		}
		if strings.ContainsAny(h.Name, "/?#@ ") || h.Name != strings.ToLower(h.Name) {
			t.Fatalf("host name %q", h.Name)
		}
	})
}
