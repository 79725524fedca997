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
