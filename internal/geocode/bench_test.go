package geocode

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

func benchForward(b *testing.B, q ForwardQuery) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Forward(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForwardExact(b *testing.B) {
	benchForward(b, ForwardQuery{Text: "Fort Lauderdale", NoAutocomplete: true})
}
func BenchmarkForwardAutocomplete(b *testing.B) { benchForward(b, ForwardQuery{Text: "San Di"}) }
func BenchmarkForwardTypo(b *testing.B)         { benchForward(b, ForwardQuery{Text: "Heloinki"}) }
func BenchmarkForwardShortPrefix(b *testing.B)  { benchForward(b, ForwardQuery{Text: "s"}) }
func BenchmarkForwardContext(b *testing.B)      { benchForward(b, ForwardQuery{Text: "Paris France"}) }

func BenchmarkReverse(b *testing.B) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Reverse(ctx, ReverseQuery{Lon: 8.54, Lat: 47.37}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkByID(b *testing.B) {
	ix := openRealIndex(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ix.ByID(ctx, "locality.2661604", IDOptions{Languages: []string{"de", "fr"}}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForwardManyWords(b *testing.B) {
	benchForward(b, ForwardQuery{Text: "San Juan del Río", NoAutocomplete: true})
}

// BenchmarkEvalConcurrency8 answers the shared evaluation's queries from 8
// goroutines (one op is one pass over all of them) and reports the p99 of
// a query's latency and the CPU time per query, which a loaded machine
// disturbs less than wall-clock time.
func BenchmarkEvalConcurrency8(b *testing.B) {
	qs := loadEvalQueries(b)
	ix := openRealIndex(b)
	reqs := make([]Request, 0, len(qs))
	for _, q := range qs {
		vals := url.Values{}
		for k, v := range q.Params {
			vals.Set(k, v)
		}
		r, err := ParseRequest(url.PathEscape(q.Q)+".json", vals, "")
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	const conc = 8
	lat := make([][]time.Duration, conc)
	b.ResetTimer()
	cpu := fixtures.ProcessCPU()
	for n := 0; n < b.N; n++ {
		var wg sync.WaitGroup
		for g := 0; g < conc; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := g; i < len(reqs); i += conc {
					start := time.Now()
					if _, err := ix.Search(context.Background(), reqs[i]); err != nil {
						b.Error(err)
						return
					}
					lat[g] = append(lat[g], time.Since(start))
				}
			}(g)
		}
		wg.Wait()
	}
	b.StopTimer()
	if d := fixtures.ProcessCPU() - cpu; d > 0 {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N*len(reqs)), "cpu-µs/query")
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	b.ReportMetric(float64(percentile(all, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(percentile(all, 0.5).Microseconds())/1000, "p50-ms")
}
