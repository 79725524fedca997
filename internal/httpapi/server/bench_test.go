package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/store"
)

// BenchmarkTileHandler measures the whole handler stack (middleware,
// routing, catalog, cache, headers) for a cached gzip vector tile.
func BenchmarkTileHandler(b *testing.B) {
	t := &testing.T{}
	e := newEnv(t, nil)
	if t.Failed() {
		b.Fatal("setup failed")
	}
	h := e.srv.Handler()
	var reqs []*http.Request
	for z := 0; z <= 3; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				r := httptest.NewRequest("GET", fmt.Sprintf("/tiles/roads/%d/%d/%d.pbf", z, x, y), nil)
				r.Header.Set("Accept-Encoding", "gzip")
				reqs = append(reqs, r)
			}
		}
	}
	for _, r := range reqs { // warm the cache
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	serveParallel(b, h, reqs)
}

// serveParallel times h serving the requests in turn from every core.
func serveParallel(b *testing.B, h http.Handler, reqs []*http.Request) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, reqs[i%len(reqs)])
			i++
		}
	})
}

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkMapTileHandler is BenchmarkTileHandler for cached raster tiles
// of a map (the render happens once, before the timer).
func BenchmarkMapTileHandler(b *testing.B) {
	t := &testing.T{}
	e := mapEnv(t)
	if t.Failed() {
		b.Fatal("setup failed")
	}
	h := e.srv.Handler()
	var reqs []*http.Request
	for z := 0; z <= 2; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				reqs = append(reqs, httptest.NewRequest("GET", fmt.Sprintf("/maps/city/%d/%d/%d.png", z, x, y), nil))
			}
		}
	}
	for _, r := range reqs { // render and cache
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%s: %d", r.URL, w.Code)
		}
	}
	serveParallel(b, h, reqs)
}

// BenchmarkTileHandlerKeys is BenchmarkTileHandler with api_keys off and
// required, on the same requests: each carries a key restricted to an
// origin and a user agent (among 1000 keys), checked from the in-memory
// snapshot when required.
func BenchmarkTileHandlerKeys(b *testing.B) {
	for _, mode := range []string{config.APIKeysOff, config.APIKeysRequired} {
		b.Run(mode, func(b *testing.B) {
			h, reqs := keyedEnv(b, mode)
			serveParallel(b, h, reqs)
		})
	}
}

// BenchmarkTileHTTPKeys is BenchmarkTileHandlerKeys over HTTP on loopback
// (keep-alive connections), as clients see it.
func BenchmarkTileHTTPKeys(b *testing.B) {
	for _, mode := range []string{config.APIKeysOff, config.APIKeysRequired} {
		b.Run(mode, func(b *testing.B) {
			h, reqs := keyedEnv(b, mode)
			hs := httptest.NewServer(h)
			defer hs.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					r := reqs[i%len(reqs)]
					req, _ := http.NewRequest("GET", hs.URL+r.URL.RequestURI(), nil)
					req.Header = r.Header
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
						b.Errorf("%s: %d", r.URL, resp.StatusCode)
						return
					}
					i++
				}
			})
		})
	}
}

// keyedEnv is a server with api_keys set to mode, 1001 keys, and requests
// for every tile of roads carrying one of them, restricted to an origin and
// a user agent, with a matching Origin and User-Agent; the tiles are
// cached.
func keyedEnv(b *testing.B, mode string) (http.Handler, []*http.Request) {
	t := &testing.T{}
	e := newEnv(t, func(c *config.Config) { c.APIKeys = mode })
	if t.Failed() {
		b.Fatal("setup failed")
	}
	// Other keys in the snapshot, as an account would have (the Create
	// below reloads the snapshot with them).
	ctx := context.Background()
	for i := range 1000 {
		if _, err := e.srv.db.CreateAPIKey(ctx, store.APIKey{ID: fmt.Sprint("other-", i), Token: fmt.Sprint("other-token-", i), Name: "other"}); err != nil {
			b.Fatal(err)
		}
	}
	k, err := e.srv.keys.Create(ctx, apikey.Settings{
		Origins: apikey.Value([]string{"*.example.com", "example.org"}), UserAgent: apikey.Value("Mozilla/")})
	if err != nil {
		b.Fatal(err)
	}
	h := e.srv.Handler()
	var reqs []*http.Request
	for z := 0; z <= 3; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				r := httptest.NewRequest("GET", fmt.Sprintf("/tiles/roads/%d/%d/%d.pbf?key=%s", z, x, y, k.Token), nil)
				r.Header.Set("Accept-Encoding", "gzip")
				r.Header.Set("Origin", "https://maps.example.com")
				r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64)")
				reqs = append(reqs, r)
			}
		}
	}
	for _, r := range reqs { // warm the cache, and check the key is accepted
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK && w.Code != http.StatusNoContent {
			b.Fatalf("%s: %d %s", r.URL, w.Code, w.Body)
		}
	}
	return h, reqs
}
