package middleware

import (
	"net"
	"net/http"
	"net/netip"
)

// forwardedHeaders are the headers a reverse proxy sets to describe the
// client's request; only a trusted proxy may set them.
var forwardedHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Prefix", "X-Forwarded-Port", "X-Real-Ip"}

// TrustProxies removes the forwarding headers (Forwarded, X-Forwarded-*) of
// every request whose immediate peer is not one of the trusted proxies, so
// that only a configured reverse proxy can change the URLs the server
// writes into its documents.
func TrustProxies(trusted []netip.Prefix) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !peerTrusted(r.RemoteAddr, trusted) {
				for _, h := range forwardedHeaders {
					if _, ok := r.Header[h]; ok {
						r.Header.Del(h)
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func peerTrusted(remote string, trusted []netip.Prefix) bool {
	if len(trusted) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
