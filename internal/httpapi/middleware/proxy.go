package middleware

import (
	"net/http"
	"net/netip"
	"strings"
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
	a := parseHostAddr(remote)
	return a.IsValid() && inPrefixes(a, trusted)
}

// ClientAddr returns the address of the client that made r: the
// connection's peer, or, when the peer is a trusted proxy, the first address
// of X-Forwarded-For that is not a trusted proxy, read from the right (the
// entries a client could have written itself are further left). When every
// entry is trusted the leftmost is taken. The zero Addr means the address
// could not be read.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseHostAddr(r.RemoteAddr)
	if !peer.IsValid() || !inPrefixes(peer, trusted) {
		return peer
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHostAddr(strings.TrimSpace(hops[i]))
		if !a.IsValid() {
			break // a damaged list: trust nothing further left
		}
		client = a
		if !inPrefixes(a, trusted) {
			break
		}
	}
	return client
}

// parseHostAddr reads "addr", "addr:port" or "[addr]:port".
func parseHostAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
