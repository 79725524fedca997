package egress

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr, rule string
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.0.9", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"fd00::1", "private (unique local)"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified (\"this network\")"},
		{"::", "unspecified"},
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"64:ff9b::7f00:1", "loopback (embedded in an IPv6 address)"},
		{"2002:a00:1::", "private (embedded in an IPv6 address)"},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"2001:4860:4860::8888", ""},
		{"64:ff9b::808:808", ""},
	}
	for _, tc := range tests {
		if got := Classify(netip.MustParseAddr(tc.addr)); got != tc.rule {
			t.Errorf("Classify(%s) = %q, want %q", tc.addr, got, tc.rule)
		}
	}
}

func TestPolicyAllow(t *testing.T) {
	p := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.5/32"), netip.MustParsePrefix("::1/128")}}
	for _, a := range []string{"127.0.0.1", "10.0.0.5", "::1", "::ffff:127.0.0.2", "8.8.8.8"} {
		if err := p.Check(netip.MustParseAddr(a)); err != nil {
			t.Errorf("%s refused: %v", a, err)
		}
	}
	for _, a := range []string{"10.0.0.6", "192.168.0.1", "169.254.169.254"} {
		err := p.Check(netip.MustParseAddr(a))
		if f, ok := Forbidden(err); !ok || f.Rule == "" || !strings.Contains(err.Error(), "remote_allow") {
			t.Errorf("%s: %v", a, err)
		}
	}
}

func TestClient(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secret internal answer")
	}))
	defer target.Close()
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	ctx := context.Background()
	get := func(c *http.Client, u string) (string, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}

	strict := Policy{}.Client(5 * time.Second)
	for _, u := range []string{target.URL, "http://localhost:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		_, err := get(strict, u)
		f, ok := Forbidden(err)
		if !ok || f.Rule != "loopback" {
			t.Errorf("GET %s with no allowlist: %v, want a loopback refusal", u, err)
		}
	}

	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	allowed := Policy{Allow: loopback}.Client(5 * time.Second)
	if body, err := get(allowed, target.URL); err != nil || body != "secret internal answer" {
		t.Errorf("allowlisted: %q, %v", body, err)
	}

	// A redirect from an allowed server to a refused address is refused.
	only := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}.Client(5 * time.Second)
	redirector := httptest.NewServer(http.RedirectHandler("http://[::1]:"+port+"/", http.StatusFound))
	defer redirector.Close()
	if _, err := get(only, redirector.URL); err == nil {
		t.Error("a redirect to ::1 was followed")
	} else if f, ok := Forbidden(err); !ok || f.Rule != "loopback" {
		t.Errorf("redirect: %v", err)
	}
	// A redirect to another scheme is refused.
	ftp := httptest.NewServer(http.RedirectHandler("ftp://example.com/x", http.StatusFound))
	defer ftp.Close()
	if _, err := get(allowed, ftp.URL); err == nil || !strings.Contains(err.Error(), "ftp") {
		t.Errorf("redirect to ftp: %v", err)
	}
}

func TestCheckHost(t *testing.T) {
	p := Policy{}
	if f, ok := Forbidden(p.CheckHost(context.Background(), "localhost")); !ok || f.Rule != "loopback" {
		t.Error("localhost was not refused")
	}
	if f, ok := Forbidden(p.CheckHost(context.Background(), "[fe80::1]")); !ok || f.Rule != "link-local" {
		t.Error("fe80::1 was not refused")
	}
	if err := p.CheckHost(context.Background(), "93.184.216.34"); err != nil {
		t.Errorf("a public address: %v", err)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://user:pass@example.com/a.pmtiles", "http://xxxxx@example.com/a.pmtiles"},
		{"https://example.com/a.pmtiles?X-Amz-Signature=abc&X-Amz-Credential=k&part=1", "https://example.com/a.pmtiles?X-Amz-Credential=xxxxx&X-Amz-Signature=xxxxx&part=1"},
		{"s3://bucket/key.pmtiles?endpoint=http://127.0.0.1:9000&region=us-east-1", "s3://bucket/key.pmtiles?endpoint=http://127.0.0.1:9000&region=us-east-1"},
		{"https://example.com/t.pmtiles?key=abc", "https://example.com/t.pmtiles?key=xxxxx"},
		{"http://%zz", "(unparsable URL)"},
	}
	for _, tc := range tests {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(Redact(tc.in), "pass") || strings.Contains(Redact(tc.in), "abc") {
			t.Errorf("Redact(%q) leaks a secret", tc.in)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("http://user:pass@example.com/a?key=s3cret")
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s)
		if strings.Contains(s, "@") && strings.Contains(out, ":s3cret@") {
			t.Fatalf("credentials kept: %q", out)
		}
	})
}
