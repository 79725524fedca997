package apikey

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Unknown is the origins entry that allows requests of unknown origin
// (neither Origin nor Referer).
const Unknown = "?"

// Host is where a request comes from: a host name or address (lower case,
// IPv6 in brackets) and a port (the scheme's default when the URL gives
// none; "" when the scheme has none).
type Host struct {
	Name string
	Port string
}

// rule is one parsed entry of a key's origins.
type rule struct {
	sub  bool   // "*.name": subdomains of name, not name itself
	name string // host name or address, lower case
	port string // "" for any port
}

func (r rule) String() string {
	s := r.name
	if r.sub {
		s = "*." + s
	}
	if r.port != "" {
		s += ":" + r.port
	}
	return s
}

func (r rule) matches(h Host) bool {
	if r.port != "" && r.port != h.Port {
		return false
	}
	if r.sub {
		return len(h.Name) > len(r.name)+1 && strings.HasSuffix(h.Name, r.name) && h.Name[len(h.Name)-len(r.name)-1] == '.'
	}
	return h.Name == r.name
}

// parseRule reads an origins entry: a host ("example.com", "10.0.0.1",
// "[::1]"), or "*." and a host name for its subdomains, optionally with a
// port (":8080"); a scheme ("https://") and a trailing "/" are allowed and
// dropped (the scheme is not checked).
func parseRule(entry string) (rule, error) {
	s := strings.ToLower(strings.TrimSpace(entry))
	if i := strings.Index(s, "://"); i >= 0 {
		if sch := s[:i]; sch != "http" && sch != "https" {
			return rule{}, fmt.Errorf("origin %q: only http and https origins can be listed", entry)
		}
		s = s[i+3:]
	}
	s = strings.TrimSuffix(s, "/")
	var r rule
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		r.sub, s = true, rest
	}
	name, port, ok := splitHostPort(s)
	if !ok {
		return rule{}, fmt.Errorf("origin %q: not a host, *.host or ? (a host may have a :port)", entry)
	}
	if r.sub && strings.HasPrefix(name, "[") || r.sub && isIPv4(name) {
		return rule{}, fmt.Errorf("origin %q: *. takes a host name, not an address", entry)
	}
	r.name, r.port = name, port
	return r, nil
}

// ParseRequestOrigin finds where a request comes from: the Origin header's
// host when it has one (an opaque "null" counts as none), else the
// Referer's. ok is false when the request's origin is unknown: neither
// header, or one that is not an http(s) URL with a valid host.
func ParseRequestOrigin(origin, referer string) (Host, bool) {
	if origin != "" && origin != "null" {
		return parseURLHost(origin)
	}
	if referer != "" {
		return parseURLHost(referer)
	}
	return Host{}, false
}

// parseURLHost reads the host and port of an absolute URL.
func parseURLHost(u string) (Host, bool) {
	i := strings.Index(u, "://")
	if i <= 0 || i > 16 {
		return Host{}, false
	}
	var defaultPort string
	switch strings.ToLower(u[:i]) {
	case "http":
		defaultPort = "80"
	case "https":
		defaultPort = "443"
	default:
		return Host{}, false
	}
	auth := u[i+3:]
	for j := 0; j < len(auth); j++ {
		if c := auth[j]; c == '/' || c == '?' || c == '#' {
			auth = auth[:j]
			break
		}
	}
	if j := strings.LastIndexByte(auth, '@'); j >= 0 {
		auth = auth[j+1:]
	}
	name, port, ok := splitHostPort(strings.ToLower(auth))
	if !ok {
		return Host{}, false
	}
	if port == "" {
		port = defaultPort
	}
	return Host{Name: name, Port: port}, true
}

// splitHostPort splits "host[:port]" (host lower case) and checks both: a
// host name, an IPv4 address or a bracketed IPv6 address (made canonical),
// and a port 1..65535 (made canonical).
func splitHostPort(s string) (name, port string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		a, err := netip.ParseAddr(s[1:end])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", "", false
		}
		name, s = "["+a.String()+"]", s[end+1:]
		if s != "" && s[0] != ':' {
			return "", "", false
		}
	} else {
		name = s
		if j := strings.LastIndexByte(s, ':'); j >= 0 {
			name, s = s[:j], s[j:]
		} else {
			s = ""
		}
		name = strings.TrimSuffix(name, ".")
		if !isIPv4(name) && !hostName(name) {
			return "", "", false
		}
	}
	if s != "" {
		p, err := strconv.Atoi(s[1:])
		if err != nil || p < 1 || p > 65535 || s[1] == '+' || s[1] == '-' {
			return "", "", false
		}
		port = strconv.Itoa(p)
	}
	return name, port, true
}

func isIPv4(s string) bool {
	// Only digits and dots can be one: host names skip the parse (and its
	// error's allocation), which runs on every keyed request.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// hostName accepts DNS names in ASCII (IDNs in their xn-- form): labels of
// 1..63 letters, digits, '-' and '_', at most 253 bytes. A name of digits
// and dots only must be an IPv4 address instead.
func hostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	label, allDigits := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
			continue
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c == '-', c == '_':
			allDigits = false
		default:
			return false
		}
		label++
		if label > 63 {
			return false
		}
	}
	return label > 0 && !allDigits
}
