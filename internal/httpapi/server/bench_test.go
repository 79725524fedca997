package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
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
