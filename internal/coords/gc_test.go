package coords

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// BenchmarkIndexGC is what the index costs the garbage collector: a full
// collection with the index live (the mark phase visits every object and
// scans every pointer-holding word of the long-lived heap). It reports the
// heap bytes the collector scans, the live heap and its objects, and the
// collector's CPU per collection (the runtime's estimate, which counts time
// its workers lose to other processes: compare on a quiet machine).
func BenchmarkIndexGC(b *testing.B) {
	ix := testIndex(b)
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/scan/heap:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/objects:objects"}}
	runtime.GC()
	metrics.Read(s)
	cpu0 := s[0].Value.Float64()
	for b.Loop() {
		runtime.GC()
	}
	metrics.Read(s)
	b.ReportMetric((s[0].Value.Float64()-cpu0)*1e3/float64(b.N), "gc-cpu-ms/op")
	b.ReportMetric(float64(s[1].Value.Uint64())/1e6, "scan-MB")
	b.ReportMetric(float64(s[2].Value.Uint64())/1e6, "live-MB")
	b.ReportMetric(float64(s[3].Value.Uint64()), "objects")
	runtime.KeepAlive(ix)
}
