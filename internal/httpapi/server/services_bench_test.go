package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
)

// BenchmarkServicesLoad is the load run of the services (issue 20):
// concurrency 8 over loopback HTTP against a data folder made by
// `tessera demo --services-only --data DIR` (TESSERA_SERVICES_DATA=DIR;
// skipped without it), reporting p50 and p99 latencies. Geolocation callers
// come through a trusted proxy with X-Forwarded-For addresses spread over
// the address space.
func BenchmarkServicesLoad(b *testing.B) {
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
	hs := httptest.NewServer(srv.Handler())
	defer func() { hs.Close(); srv.Close() }()
	rng := rand.New(rand.NewPCG(5, 6))
	var addrs []string
	for len(addrs) < 4096 {
		a := fmt.Sprintf("%d.%d.%d.%d", 1+rng.IntN(223), rng.IntN(256), rng.IntN(256), 1+rng.IntN(254))
		addrs = append(addrs, a)
	}
	point := func() string {
		return fmt.Sprintf("%.4f,%.4f", rng.Float64()*359.8-179.9, rng.Float64()*170-85)
	}
	var one, fifty []string
	for range 1024 {
		one = append(one, "/elevation/"+point()+".json")
		var pts []string
		for range 50 {
			pts = append(pts, point())
		}
		fifty = append(fifty, "/elevation/"+strings.Join(pts, ";")+".json")
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	h := srv.Handler()
	// do sends one request over loopback HTTP, or, in-process, straight to
	// the handler (the server's own latency, without the client's and the
	// network stack's).
	do := func(inproc bool, req *http.Request) (int, error) {
		if inproc {
			req.RemoteAddr = "127.0.0.1:40000"
			w := &discard{h: http.Header{}}
			rec := &statusRecorder{discard: w, code: 200}
			h.ServeHTTP(rec, req)
			return rec.code, nil
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	for _, c := range []struct {
		name   string
		paths  []string
		xff    bool
		inproc bool
	}{
		{"http/geolocation", []string{"/geolocation/ip.json"}, true, false},
		{"http/geolocation_elevation", []string{"/geolocation/ip.json?elevation=true"}, true, false},
		{"http/elevation_1", one, false, false},
		{"http/elevation_50", fifty, false, false},
		{"handler/geolocation", []string{"/geolocation/ip.json"}, true, true},
		{"handler/geolocation_elevation", []string{"/geolocation/ip.json?elevation=true"}, true, true},
		{"handler/elevation_1", one, false, true},
		{"handler/elevation_50", fifty, false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			const workers = 8
			lat := make([][]time.Duration, workers)
			var wg sync.WaitGroup
			var failed sync.Once
			b.ResetTimer()
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < b.N; i += workers {
						req, _ := http.NewRequest("GET", hs.URL+c.paths[i%len(c.paths)], nil)
						if c.xff {
							req.Header.Set("X-Forwarded-For", addrs[i%len(addrs)])
						}
						t0 := time.Now()
						code, err := do(c.inproc, req)
						if err != nil {
							failed.Do(func() { b.Error(err) })
							return
						}
						lat[w] = append(lat[w], time.Since(t0))
						// 404: an address DB-IP does not know.
						if code != 200 && code != 404 {
							failed.Do(func() { b.Errorf("%s: %d", req.URL.Path, code) })
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) > 0 {
				b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
			}
		})
	}
}

// statusRecorder keeps the status of a response it discards.
type statusRecorder struct {
	*discard
	code int
}

func (s *statusRecorder) WriteHeader(code int) { s.code = code }
