package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

// BenchmarkCount is the cost of counting one request (the tile hot path)
// from many goroutines at once, all with the same key: the worst case for
// contention.
func BenchmarkCount(b *testing.B) {
	m := NewMeter(nil, Options{Interval: time.Hour})
	cpu0 := fixtures.ProcessCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Count(ServiceTiles, GroupRequest, "0b6f3c52-6a0e-4c1f-9a51-2d3c9a0e7f11", "")
		}
	})
	b.ReportMetric(float64(fixtures.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCountOneLock is the same with a single mutex over one map, the
// design the shards replace: the baseline for BenchmarkCount.
func BenchmarkCountOneLock(b *testing.B) {
	var mu sync.Mutex
	counts := map[Key]int64{}
	cpu0 := fixtures.ProcessCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k := Key{Day: DayOf(time.Now()), Service: ServiceTiles, Group: GroupRequest, KeyID: "0b6f3c52-6a0e-4c1f-9a51-2d3c9a0e7f11"}
			mu.Lock()
			counts[k]++
			mu.Unlock()
		}
	})
	b.ReportMetric(float64(fixtures.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkClassify is the cost of classifying a tile path.
func BenchmarkClassify(b *testing.B) {
	for b.Loop() {
		Classify("/tiles/osm/14/8584/5737")
	}
}

// benchKeys and benchDays are the size of the analytics benchmarks' data:
// a year of daily counts for 1,000 API keys, each key with map tile
// requests every day and map loads (sessions) every day, 730,000 rows.
const benchKeys, benchDays = 1000, 365

// seedBench fills a database with the benchmarks' counts, ending on the
// day of analyticsNow.
func seedBench(b *testing.B, db *store.DB) {
	b.Helper()
	ctx := context.Background()
	last := midnight(analyticsNow)
	batch := make([]store.UsageCount, 0, 20000)
	flush := func() {
		if err := db.AddUsage(ctx, batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for d := range benchDays {
		day := last.AddDate(0, 0, -d).Format(time.DateOnly)
		for k := range benchKeys {
			key := fmt.Sprintf("key-%04d", k)
			batch = append(batch,
				store.UsageCount{Day: day, Service: ServiceMaps, Group: GroupRequest, KeyID: key, Value: int64((k*7+d)%500 + 1)},
				store.UsageCount{Day: day, Service: ServiceMaps, Group: GroupSession, KeyID: key, Value: int64((k+d)%5 + 1)})
		}
		if len(batch) >= 18000 {
			flush()
		}
	}
	flush()
}

// benchDirEnv names a directory where BenchmarkAnalytics keeps its seeded
// SQLite database between runs (seeding takes a minute or more).
const benchDirEnv = "TESSERA_BENCH_USAGE_DIR"

// BenchmarkAnalytics runs the analytics queries (and the JSON encoding of
// their answers, as the endpoint does) over a year of counts for 1,000
// keys, on SQLite and on PostgreSQL.
func BenchmarkAnalytics(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			dsn := filepath.Join(b.TempDir(), "state.db")
			seeded := false
			if dir := os.Getenv(benchDirEnv); dir != "" && kind == "sqlite" {
				dsn = filepath.Join(dir, "usage-bench.db")
				_, err := os.Stat(dsn)
				seeded = err == nil
			}
			if kind == "postgres" {
				dsn = pgtest.URL(b)
			}
			db, err := store.Open(context.Background(), dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if !seeded {
				start := time.Now()
				seedBench(b, db)
				b.Logf("%s: seeded %d rows in %v", kind, 2*benchKeys*benchDays, time.Since(start).Round(time.Millisecond))
			}
			for _, tc := range []struct {
				name string
				q    Query
				top  bool
			}{
				{"timeline/services/past_12_months", Query{Period: Past12Months, Classifier: ClassifierServices}, false},
				{"timeline/services/all", Query{Period: All, Classifier: ClassifierServices}, false},
				{"timeline/services/past_90_days", Query{Period: Past90Days, Classifier: ClassifierServices}, false},
				{"timeline/api_keys/current_billing_period", Query{Period: CurrentBillingPeriod, Classifier: ClassifierAPIKeys, Group: GroupRequest}, false},
				{"timeline/api_keys/past_30_days", Query{Period: Past30Days, Classifier: ClassifierAPIKeys}, false},
				{"timeline/api_keys/past_90_days", Query{Period: Past90Days, Classifier: ClassifierAPIKeys, Group: GroupRequest}, false},
				{"top/api_keys/past_90_days", Query{Period: Past90Days, Classifier: ClassifierAPIKeys, Limit: 10}, true},
			} {
				// cold: a new Analytics each time (nothing in memory, as
				// after a start); warm: one Analytics whose closed days
				// are in memory.
				for _, warm := range []bool{false, true} {
					name := tc.name + "/cold"
					if warm {
						name = tc.name + "/warm"
					}
					b.Run(name, func(b *testing.B) {
						a := &Analytics{DB: db, Now: func() time.Time { return analyticsNow }}
						if warm {
							runQuery(b, a, tc.q, tc.top)
						}
						cpu0 := fixtures.ProcessCPU()
						for b.Loop() {
							if !warm {
								a = &Analytics{DB: db, Now: a.Now}
							}
							runQuery(b, a, tc.q, tc.top)
						}
						// The machine is shared: the process's CPU time
						// per query says more than the wall time (for
						// PostgreSQL it leaves out the server's).
						fixtures.ReportCPUPerOp(b, cpu0)
					})
				}
			}
		})
	}
}

// runQuery answers q and encodes the answer as JSON, as the endpoint does.
func runQuery(b *testing.B, a *Analytics, q Query, top bool) {
	var v any
	var err error
	if top {
		v, err = a.Top(context.Background(), q)
	} else {
		v, err = a.Timeline(context.Background(), q)
	}
	if err != nil {
		b.Fatal(err)
	}
	if _, err := json.Marshal(v); err != nil {
		b.Fatal(err)
	}
}
