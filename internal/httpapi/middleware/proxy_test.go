package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestTrustProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	var seen http.Header
	h := TrustProxies(trusted)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() }))
	tests := []struct {
		remote string
		kept   bool
	}{
		{"10.1.2.3:5000", true},
		{"127.0.0.1:80", true},
		{"[::1]:80", true},
		{"[::ffff:10.0.0.9]:80", true},
		{"127.0.0.2:80", false},
		{"192.0.2.7:1234", false},
		{"[2001:db8::1]:80", false},
		{"garbage", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("GET", "/tiles/x/tiles.json", nil)
		r.RemoteAddr = tc.remote
		for _, k := range forwardedHeaders {
			r.Header.Set(k, "evil.example")
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		for _, k := range forwardedHeaders {
			if got := seen.Get(k) != ""; got != tc.kept {
				t.Errorf("%s: header %s kept %v, want %v", tc.remote, k, got, tc.kept)
			}
		}
	}
	// No trusted proxies: nothing is kept, even from loopback.
	h = TrustProxies(nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone() }))
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "127.0.0.1:1"
	r.Header.Set("X-Forwarded-Host", "evil.example")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen.Get("X-Forwarded-Host") != "" {
		t.Error("a forwarded header was kept with no trusted proxies")
	}
}

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	cases := []struct {
		remote string
		xff    []string
		want   string
	}{
		{"203.0.113.5:4000", nil, "203.0.113.5"},
		{"203.0.113.5:4000", []string{"198.51.100.1"}, "203.0.113.5"}, // untrusted peer: the header is ignored
		{"10.1.1.1:80", []string{"198.51.100.1"}, "198.51.100.1"},
		{"10.1.1.1:80", []string{"6.6.6.6, 198.51.100.1, 10.2.2.2"}, "198.51.100.1"},  // spoofed entry on the left is skipped
		{"10.1.1.1:80", []string{"6.6.6.6", "198.51.100.1,10.2.2.2"}, "198.51.100.1"}, // several headers
		{"10.1.1.1:80", []string{"10.3.3.3, 10.2.2.2"}, "10.3.3.3"},                   // all trusted: the leftmost
		{"10.1.1.1:80", []string{"junk, 198.51.100.1"}, "198.51.100.1"},
		{"10.1.1.1:80", []string{"198.51.100.1, junk"}, "10.1.1.1"}, // damaged: the peer
		{"[::1]:80", []string{"[2001:db8::7]:1234"}, "2001:db8::7"},
		{"10.1.1.1:80", nil, "10.1.1.1"},
		{"not an address", nil, "invalid IP"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, h := range c.xff {
			r.Header.Add("X-Forwarded-For", h)
		}
		if got := ClientAddr(r, trusted).String(); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}
