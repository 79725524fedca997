package server

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
)

// servicesServer is a server over the services' data folder
// (TESSERA_SERVICES_DATA, made by `tessera demo --services-only`; skipped
// without it) with its coordinate systems index loaded.
func servicesServer(b *testing.B) *Server {
	dir := os.Getenv("TESSERA_SERVICES_DATA")
	if dir == "" {
		b.Skip("TESSERA_SERVICES_DATA is not set (a folder made by tessera demo --services-only)")
	}
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Watch = false
	cfg.TrustedProxies = []string{"127.0.0.1"}
	cfg.UsageFlushInterval = time.Hour
	srv, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	if srv.coords != nil {
		if _, err := srv.coords.Index(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	return srv
}

// BenchmarkServicesHeap is what a server's long-lived heap costs the
// garbage collector (issue 20: the collector's concurrent mark is the
// services' HTTP p99 tail): full collections of a server over the
// services' data after some geolocation and elevation requests (see
// fixtures.GCCost for the figures).
func BenchmarkServicesHeap(b *testing.B) {
	srv := servicesServer(b)
	h := srv.Handler()
	for _, req := range servicesRequests(256) {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	fixtures.GCCost(b)
	runtime.KeepAlive(srv)
}

// BenchmarkServicesAlloc is the bytes and allocations of one geolocation or
// elevation request in the server's handler, every middleware included
// (net/http's own reading of the request and writing of the answer are
// not: they add about 2 KB).
func BenchmarkServicesAlloc(b *testing.B) {
	srv := servicesServer(b)
	h := srv.Handler()
	reqs := servicesRequests(1024)
	for _, kind := range []string{"geolocation", "elevation_1", "elevation_50"} {
		var rs []*http.Request
		for _, r := range reqs {
			if r.Header.Get("X-Bench") == kind {
				rs = append(rs, r)
			}
		}
		b.Run(kind, func(b *testing.B) {
			w := &statusRecorder{discard: &discard{h: http.Header{}}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				clear(w.h)
				w.code = 200
				h.ServeHTTP(w, rs[i%len(rs)])
				if w.code != 200 && w.code != 404 {
					b.Fatalf("%s: %d", rs[i%len(rs)].URL, w.code)
				}
			}
		})
	}
}

// servicesRequests are n requests of each kind (header X-Bench): geolocation
// through a trusted proxy for random IPv4 addresses, elevation of 1 and of
// 50 random points.
func servicesRequests(n int) []*http.Request {
	rng := rand.New(rand.NewPCG(7, 8))
	point := func() string {
		return fmt.Sprintf("%.4f,%.4f", rng.Float64()*359.8-179.9, rng.Float64()*170-85)
	}
	var out []*http.Request
	add := func(kind, path string) *http.Request {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("X-Bench", kind)
		out = append(out, r)
		return r
	}
	for range n {
		r := add("geolocation", "/geolocation/ip.json")
		r.Header.Set("X-Forwarded-For", fmt.Sprintf("%d.%d.%d.%d", 1+rng.IntN(223), rng.IntN(256), rng.IntN(256), 1+rng.IntN(254)))
		add("elevation_1", "/elevation/"+point()+".json")
		pts := make([]string, 50)
		for i := range pts {
			pts[i] = point()
		}
		add("elevation_50", "/elevation/"+strings.Join(pts, ";")+".json")
	}
	return out
}
