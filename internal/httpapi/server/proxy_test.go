package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/config"
)

// tileJSONTiles returns the first tile URL of a TileJSON fetched with the
// given headers.
func tileJSONTiles(t *testing.T, e *testEnv, headers map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", e.http.URL+"/tiles/roads/tiles.json", nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var doc struct{ Tiles []string }
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Tiles) == 0 {
		t.Fatalf("TileJSON %s: %v", b, err)
	}
	return doc.Tiles[0]
}

func TestForwardedHeadersNeedATrustedProxy(t *testing.T) {
	evil := map[string]string{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https", "X-Forwarded-Prefix": "/maps-api"}

	// Default: no trusted proxy. The test client is on loopback, and still
	// cannot move the URLs, neither for itself nor for later requests.
	e := newEnv(t, nil)
	if got := tileJSONTiles(t, e, evil); !strings.HasPrefix(got, e.http.URL+"/tiles/roads/") {
		t.Errorf("an untrusted peer moved the URLs: %s", got)
	}
	if got := tileJSONTiles(t, e, nil); !strings.HasPrefix(got, e.http.URL+"/tiles/roads/") {
		t.Errorf("a later plain request got %s", got)
	}

	// Loopback configured as a trusted proxy: its headers count.
	e = newEnv(t, func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.0/8", "::1"} })
	if got := tileJSONTiles(t, e, evil); !strings.HasPrefix(got, "https://evil.example/maps-api/tiles/roads/") {
		t.Errorf("a trusted proxy's headers were ignored: %s", got)
	}
	if got := tileJSONTiles(t, e, nil); !strings.HasPrefix(got, e.http.URL+"/tiles/roads/") {
		t.Errorf("the forwarded URLs leaked into a plain request: %s", got)
	}

	// public_url wins over everything.
	e = newEnv(t, func(c *config.Config) {
		c.TrustedProxies = []string{"127.0.0.1"}
		c.PublicURL = "https://tiles.example.org/base"
	})
	if got := tileJSONTiles(t, e, evil); !strings.HasPrefix(got, "https://tiles.example.org/base/tiles/roads/") {
		t.Errorf("public_url lost: %s", got)
	}
}
