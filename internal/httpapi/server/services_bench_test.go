package server

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkServicesLoad is the load run of the services (issue 20):
// concurrency 8 over loopback HTTP against a data folder made by
// `tessera demo --services-only --data DIR` (TESSERA_SERVICES_DATA=DIR;
// skipped without it), reporting p50 and p99 latencies. Geolocation callers
// come through a trusted proxy with X-Forwarded-For addresses spread over
// the address space.
func BenchmarkServicesLoad(b *testing.B) {
	srv := servicesServer(b)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
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
	// The coordinate searches and the 50-point transform of
	// BenchmarkCoordinatesHTTP.
	var searches []string
	for _, q := range coordinateSearches {
		searches = append(searches, "/coordinates/search/"+q+".json?limit=50&transformations=true")
	}
	transform := []string{transform50Path()}
	type load struct {
		name  string
		paths []string
		xff   bool
	}
	loads := []load{
		{"geolocation", []string{"/geolocation/ip.json"}, true},
		{"geolocation_elevation", []string{"/geolocation/ip.json?elevation=true"}, true},
		{"elevation_1", one, false},
		{"elevation_50", fifty, false},
		{"coordinates_search", searches, false},
		{"coordinates_transform50", transform, false},
		{"weather_latest", []string{"/weather/latest.json"}, false},
	}
	// Each service is warmed first (the coordinate index is read in the
	// background at start, every PROJ context makes its transformer) and
	// must answer; a service the data folder or the build lacks is left
	// out of the run with a note.
	skip := map[string]string{}
	for _, l := range loads {
		for i := range max(64, len(l.paths)) {
			req, _ := http.NewRequest("GET", hs.URL+l.paths[i%len(l.paths)], nil)
			if l.xff {
				req.Header.Set("X-Forwarded-For", "8.8.8.8")
			}
			code, err := do(false, req)
			if err != nil {
				b.Fatal(err)
			}
			if code != 200 {
				skip[l.name] = fmt.Sprintf("%s answers %d", req.URL.Path, code)
				break
			}
		}
	}
	for _, inproc := range []bool{false, true} {
		for _, l := range loads {
			mode := "http/"
			if inproc {
				mode = "handler/"
			}
			b.Run(mode+l.name, func(b *testing.B) {
				if why, ok := skip[l.name]; ok {
					b.Skip(why)
				}
				loadRun(b, hs.URL, l.paths, l.xff, addrs, func(req *http.Request) (int, error) { return do(inproc, req) })
			})
		}
	}
}

// coordinateSearches are the searches of the coordinate benchmarks (path
// escaped): plain terms, filters, codes.
var coordinateSearches = []string{"swiss", "wgs%2084", "kind:*%20utm%20zone%2032n", "code:EPSG:2056", "trans:1676", "lambert", "kind:COORDOP%20france"}

// transform50Path is the 50-point transform of the coordinate benchmarks:
// WGS 84 to the Swiss LV95 grid.
func transform50Path() string {
	var pts []string
	for i := range 50 {
		pts = append(pts, fmt.Sprintf("%.2f,%.2f", 6+float64(i)*0.08, 46+float64(i)*0.03))
	}
	return "/coordinates/transform/" + strings.Join(pts, ";") + ".json?s_srs=4326&t_srs=2056"
}

// loadRun sends b.N requests from 8 goroutines, each waiting for its answer
// before the next, and reports p50, p99 and the process's CPU per request.
func loadRun(b *testing.B, base string, paths []string, xff bool, addrs []string, do func(*http.Request) (int, error)) {
	const workers = 8
	lat := make([][]time.Duration, workers)
	var wg sync.WaitGroup
	var failed sync.Once
	b.ResetTimer()
	cpu0 := fixtures.ProcessCPU()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += workers {
				req, _ := http.NewRequest("GET", base+paths[i%len(paths)], nil)
				if xff {
					req.Header.Set("X-Forwarded-For", addrs[i%len(addrs)])
				}
				t0 := time.Now()
				code, err := do(req)
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
	b.ReportMetric(float64((fixtures.ProcessCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// statusRecorder keeps the status of a response it discards.
type statusRecorder struct {
	*discard
	code int
}

func (s *statusRecorder) WriteHeader(code int) { s.code = code }
