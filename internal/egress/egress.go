// Package egress makes the server's outbound requests to addresses that an
// administrator or a client names (remote tilesets, marker icons) safe from
// server-side request forgery: a connection may only go to a public
// address, unless the address is in a configured allowlist.
//
// The check is made on the address actually dialled, after DNS, for every
// connection: a name that resolves to a private address, a redirect to
// one, or DNS that changes its answer between two requests are all caught.
// Errors never carry what the remote answered, and URLs are shown with
// their credentials and signatures removed.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ForbiddenError is the refusal of an address by a rule.
type ForbiddenError struct {
	Addr netip.Addr
	Rule string // "loopback", "private", "link-local", ...
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("the address %s is %s, which outbound requests may not reach (allow it with remote_allow)", e.Addr, e.Rule)
}

// special lists the address ranges that are not public, with the name of
// the rule each falls under. IPv4-mapped IPv6 addresses are checked as the
// IPv4 address they carry; NAT64 and 6to4 addresses by the IPv4 address
// they embed.
var special = []struct {
	prefix netip.Prefix
	rule   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (\"this network\")"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved (IETF protocol assignments)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved (benchmarking)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("fc00::/7"), "private (unique local)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("100::/64"), "reserved (discard)"},
}

// Classify returns the rule that makes addr non-public, or "" for a public
// address.
func Classify(addr netip.Addr) string {
	addr = addr.Unmap()
	if !addr.IsValid() {
		return "invalid"
	}
	if addr.Is6() {
		b := addr.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(addr): // NAT64
			return embedded(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("2002::/16").Contains(addr): // 6to4
			return embedded(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, s := range special {
		if s.prefix.Contains(addr) {
			return s.rule
		}
	}
	return ""
}

func embedded(v4 netip.Addr) string {
	if r := Classify(v4); r != "" {
		return r + " (embedded in an IPv6 address)"
	}
	return ""
}

// Policy decides which addresses outbound requests may reach.
type Policy struct {
	// Allow lists ranges reachable even though they are not public (for
	// example an S3 server on the local network).
	Allow []netip.Prefix
}

// Check returns a *ForbiddenError when addr may not be reached.
func (p Policy) Check(addr netip.Addr) error {
	addr = addr.Unmap()
	for _, a := range p.Allow {
		if a.Contains(addr) {
			return nil
		}
	}
	if rule := Classify(addr); rule != "" {
		return &ForbiddenError{Addr: addr, Rule: rule}
	}
	return nil
}

// MaxRedirects bounds the redirects a Client follows.
const MaxRedirects = 5

// Client returns an HTTP client whose every connection is checked by the
// policy, that ignores proxy settings (a proxy would be dialled instead
// of the address to check), follows at most MaxRedirects redirects and
// only to http and https URLs, and gives up after timeout.
func (p Policy) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("egress: unexpected dial address %q", address)
			}
			return p.Check(ap.Addr())
		},
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return fmt.Errorf("egress: more than %d redirects", MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("egress: a redirect to a %q URL", req.URL.Scheme)
			}
			return nil
		},
	}
}

// Forbidden returns the refusal inside err, if any.
func Forbidden(err error) (*ForbiddenError, bool) {
	var f *ForbiddenError
	ok := errors.As(err, &f)
	return f, ok
}

// CheckHost resolves host (a name or an address) and checks every address
// it has, for callers that dial by other means than Client. A host that
// does not resolve is an error.
func (p Policy) CheckHost(ctx context.Context, host string) error {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return p.Check(a)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("egress: resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if err := p.Check(a); err != nil {
			return err
		}
	}
	return nil
}

// secretParams are query parameters that carry credentials or signatures.
var secretParams = []string{"x-amz-signature", "x-amz-credential", "x-amz-security-token", "signature", "sig", "key", "token", "access_token", "api_key", "apikey", "password", "secret"}

// Redact returns rawURL with its user information and the values of query
// parameters that carry secrets replaced by "xxxxx", for answers and logs.
// A string that is not a URL is returned as "(unparsable URL)".
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			for _, s := range secretParams {
				if strings.EqualFold(k, s) {
					q.Set(k, "xxxxx")
					changed = true
				}
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}
