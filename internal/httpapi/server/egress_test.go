package server

import (
	"bytes"
	"encoding/json"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/egress"
)

// TestRemoteTilesetsWithoutSSRF: with no allowlist, remote tilesets on
// loopback, private or link-local addresses (also through a name, or a
// redirect) are refused with the rule named; with the address allowed, a
// closed port, an error page and garbage all give one message that holds
// nothing of the remote's answer; credentials never appear in an answer
// or in the log.
func TestRemoteTilesetsWithoutSSRF(t *testing.T) {
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "INTERNAL-SECRET-PAGE", http.StatusInternalServerError)
	}))
	defer secret.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("GARBAGE-BYTES "), 2000))
	}))
	defer garbage.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	_, secretPort, _ := net.SplitHostPort(secret.Listener.Addr().String())

	var log fixtures.SyncBuffer
	e := newLoggedEnv(t, nil, &log)
	refused := []struct{ url, rule string }{
		{secret.URL + "/a.pmtiles", "loopback"},
		{"http://localhost:" + secretPort + "/a.pmtiles", "loopback"},
		{"http://user:hunter2@127.0.0.1:" + secretPort + "/a.pmtiles", "loopback"},
		{"http://10.0.0.1:1/a.pmtiles", "private"},
		{"http://169.254.169.254/latest/meta-data.pmtiles", "link-local"},
		{"http://[::]:1/a.pmtiles", "unspecified"},
	}
	for _, tc := range refused {
		r := e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": tc.url})
		body := string(r.body)
		if r.status != 400 || !strings.Contains(body, tc.rule) || !strings.Contains(body, "remote_allow") {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.url, r.status, body, tc.rule)
		}
		if strings.Contains(body, "INTERNAL-SECRET") || strings.Contains(body, "hunter2") {
			t.Errorf("%s: the answer leaks: %s", tc.url, body)
		}
	}

	// Loopback allowed: what the remote does is never echoed, and every
	// failure reads the same.
	log2 := &fixtures.SyncBuffer{}
	e = newLoggedEnv(t, func(c *config.Config) { c.RemoteAllow = []string{"127.0.0.1"} }, log2)
	redirect := httptest.NewServer(http.RedirectHandler("http://[::1]:"+secretPort+"/a.pmtiles", http.StatusFound))
	defer redirect.Close()
	r := e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": redirect.URL + "/a.pmtiles"})
	if r.status != 400 || !strings.Contains(string(r.body), "loopback") {
		t.Errorf("a redirect to ::1 (not allowed): %d %s", r.status, r.body)
	}
	// A closed port, an error page, garbage, and credentials in the URL:
	// exactly one message, with the URL redacted.
	for _, u := range []string{closed + "/a.pmtiles", secret.URL + "/a.pmtiles", garbage.URL + "/a.pmtiles", "http://admin:hunter2@" + strings.TrimPrefix(secret.URL, "http://") + "/a.pmtiles"} {
		r := e.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": u})
		var got struct{ Message string }
		json.Unmarshal(r.body, &got)
		if want := "could not read a PMTiles archive at " + egress.Redact(u); r.status != 400 || got.Message != want {
			t.Errorf("%s: %d %q, want 400 %q", u, r.status, got.Message, want)
		}
	}
	for _, l := range []string{log.String(), log2.String()} {
		if strings.Contains(l, "hunter2") {
			t.Errorf("the log holds a password:\n%s", l)
		}
	}
	// The admin list shows no remote record (nothing was added) and no
	// credentials.
	list := e.admin("GET", "/tiles", nil)
	if strings.Contains(string(list.body), "hunter2") {
		t.Errorf("the admin list leaks: %s", list.body)
	}
}
