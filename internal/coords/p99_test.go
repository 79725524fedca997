package coords

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// p99 runs b.N calls of f on 8 goroutines and reports the 99th percentile
// of one call's wall time (ms) as "p99-ms", and the process's CPU time per
// call as "cpu-ms/op" (the machine is shared: wall time moves with the
// neighbours' load, CPU time much less).
func p99(b *testing.B, f func(i int) error) {
	const workers = 8
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	b.ResetTimer()
	cpu0 := fixtures.ProcessCPU()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += workers {
				start := time.Now()
				if err := f(i); err != nil {
					once.Do(func() { first = err })
				}
				lat[i] = time.Since(start)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((fixtures.ProcessCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if first != nil {
		b.Fatal(first)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
}
