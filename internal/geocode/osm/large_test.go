package osm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// writeGrid writes a synthetic city of g×g nodes 0.001° apart: a street
// along every row ("Row r", highway=residential) and every column ("Column
// c", highway=primary), each split into ways of 10 segments; every 10th node
// an address on its row's street with postcode "P<row/100>"; every 100th
// node a named café. Blocks hold 8000 elements, as osmium writes them.
func writeGrid(t testing.TB, g int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("grid%d.osm.pbf", g))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(testHeader()); err != nil {
		t.Fatal(err)
	}
	id := func(r, c int) int64 { return int64(r*g + c + 1) }
	var blk testBlock
	strIdx := map[string]int64{}
	str := func(s string) int64 {
		if i, ok := strIdx[s]; ok {
			return i
		}
		strIdx[s] = int64(len(blk.strs))
		blk.strs = append(blk.strs, s)
		return strIdx[s]
	}
	reset := func() {
		blk = testBlock{strs: []string{""}}
		clear(strIdx)
		strIdx[""] = 0
	}
	flush := func() {
		if len(blk.dense)+len(blk.ways) == 0 {
			return
		}
		if _, err := f.Write(testBlob("OSMData", blk.encode(), blobZlib)); err != nil {
			t.Fatal(err)
		}
		reset()
	}
	reset()
	for r := 0; r < g; r++ {
		for c := 0; c < g; c++ {
			n := testNode{id: id(r, c), lat: int64(40_000_000 + r*10_000), lon: int64(20_000_000 + c*10_000)}
			k := r*g + c
			if k%10 == 0 {
				n.kv = append(n.kv, str("addr:housenumber"), str(strconv.Itoa(c)), str("addr:street"), str(fmt.Sprintf("Row %d", r)),
					str("addr:postcode"), str(fmt.Sprintf("P%d", r/100)))
			}
			if k%100 == 0 {
				n.kv = append(n.kv, str("amenity"), str("cafe"), str("name"), str(fmt.Sprintf("Cafe %d", k)))
			}
			blk.dense = append(blk.dense, n)
			if len(blk.dense) == 8000 {
				flush()
			}
		}
	}
	flush()
	wayID := int64(1)
	addWay := func(refs []int64, hw, name string) {
		blk.ways = append(blk.ways, testWay{id: wayID, refs: refs, kv: []int64{str("highway"), str(hw), str("name"), str(name)}})
		wayID++
		if len(blk.ways) == 8000 {
			flush()
		}
	}
	for r := 0; r < g; r++ {
		for c0 := 0; c0+1 < g; c0 += 10 {
			var refs []int64
			for c := c0; c <= min(c0+10, g-1); c++ {
				refs = append(refs, id(r, c))
			}
			addWay(refs, "residential", fmt.Sprintf("Row %d", r))
		}
	}
	for c := 0; c < g; c++ {
		for r0 := 0; r0+1 < g; r0 += 10 {
			var refs []int64
			for r := r0; r <= min(r0+10, g-1); r++ {
				refs = append(refs, id(r, c))
			}
			addWay(refs, "primary", fmt.Sprintf("Column %d", c))
		}
	}
	flush()
	return path
}

func TestReadGrid(t *testing.T) {
	const g = 200
	path := writeGrid(t, g)
	fs, err := Read(context.Background(), path, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range fs {
		counts[f.Type]++
	}
	// One road per row and column (the ways of one street share end
	// nodes; neighbouring rows have other names), an address per 10
	// nodes, a café per 100, a postal code per 100 rows.
	want := map[string]int{"road": 2 * g, "address": g * g / 10, "poi": g * g / 100, "postal_code": (g + 99) / 100}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%d %s features, want %d", counts[k], k, v)
		}
	}
	for _, f := range fs {
		if f.Type == "road" && f.Name == "Row 7" {
			// Halfway along the row: column (g-1)/2.
			if !near(f.Lat, 4+7*0.001) || !near(f.Lon, 2+float64(g-1)/2*0.001) {
				t.Errorf("Row 7 center %v,%v", f.Lon, f.Lat)
			}
		}
	}
}

// BenchmarkReadGrid reads a synthetic city of 1M nodes and 200k ways and
// reports the peak heap (sampled) besides time.
func BenchmarkReadGrid(b *testing.B) {
	path := writeGrid(b, 1000)
	runtime.GC()
	for b.Loop() {
		var peak uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
		}()
		fs, err := Read(context.Background(), path, Options{Logger: quietLogger()})
		close(done)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peakMiB")
		b.ReportMetric(float64(len(fs)), "features")
	}
}
