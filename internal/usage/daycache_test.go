package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// TestDayCache: timelines served with closed days from memory equal those
// read from the database alone; open days (today, yesterday) are always
// read; days that close are read once more; old days are dropped.
func TestDayCache(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	now := analyticsNow // 2026-11-28 12:00
	var counts []store.UsageCount
	for d := range 120 {
		day := midnight(now).AddDate(0, 0, -d).Format(time.DateOnly)
		counts = append(counts,
			store.UsageCount{Day: day, Service: ServiceTiles, Group: GroupRequest, KeyID: "k1", Value: int64(d + 1)},
			store.UsageCount{Day: day, Service: ServiceMaps, Group: GroupSession, KeyID: "k2", Value: 2})
	}
	if err := db.AddUsage(ctx, counts); err != nil {
		t.Fatal(err)
	}
	cached := &Analytics{DB: db, Now: func() time.Time { return now }}
	fresh := func() *Analytics { return &Analytics{DB: db, Now: func() time.Time { return now }} }
	queries := []Query{
		{Period: Past90Days, Classifier: ClassifierAPIKeys},
		{Period: Past30Days, Classifier: ClassifierAPIKeys, Group: GroupSession},
		{Period: LastBillingPeriod, Classifier: ClassifierAPIKeys},
		{Period: CurrentBillingPeriod, Classifier: ClassifierServices},
		{Period: Past12Months, Classifier: ClassifierServices}, // reaches past the cached days
	}
	same := func(step string) {
		t.Helper()
		for _, q := range queries {
			got, err := cached.Timeline(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh().Timeline(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("%s, %+v:\ncached %s\nfresh  %s", step, q, g, w)
			}
			top, err := cached.Top(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			topFresh, err := fresh().Top(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			g, _ = json.Marshal(top)
			w, _ = json.Marshal(topFresh)
			if string(g) != string(w) {
				t.Errorf("%s, top %+v:\ncached %s\nfresh  %s", step, q, g, w)
			}
		}
	}
	same("first")
	same("second") // from the cache
	if len(cached.cache.days) == 0 {
		t.Fatal("nothing cached")
	}

	// Counts of today and yesterday (open days) show at once.
	add := func(day string, v int64) {
		t.Helper()
		if err := db.AddUsage(ctx, []store.UsageCount{{Day: day, Service: ServiceTiles, Group: GroupRequest, KeyID: "k1", Value: v}}); err != nil {
			t.Fatal(err)
		}
	}
	add("2026-11-28", 1000)
	add("2026-11-27", 1000)
	same("open days changed")

	// A closed day is served from memory: a late count shows only in a
	// new Analytics (a restart).
	add("2026-11-20", 7)
	tl, err := cached.Timeline(ctx, Query{Period: Past30Days, Classifier: ClassifierAPIKeys, Group: GroupRequest})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tl.Datasets[0].Data {
		if p.Date == "2026-11-20" && p.Value != 9 { // 8 days back: d+1 = 9
			t.Errorf("closed day 2026-11-20: %d, want the cached 9", p.Value)
		}
	}

	// Three days later 2026-11-27 and 28 have closed: read once more
	// (the 1000s are there), and the days past the window are dropped.
	now = now.AddDate(0, 0, 3)
	cached.cache.mu.Lock()
	for k := range cached.cache.days { // forget the stale day for the comparison
		if k.day == "2026-11-20" {
			delete(cached.cache.days, k)
		}
	}
	cached.cache.mu.Unlock()
	same("three days later")
	oldest := midnight(now).AddDate(0, 0, -cacheDays).Format(time.DateOnly)
	for k := range cached.cache.days {
		if k.day < oldest {
			t.Errorf("day %s kept, older than %s", k.day, oldest)
		}
		if k.day > midnight(now).AddDate(0, 0, -2).Format(time.DateOnly) {
			t.Errorf("open day %s cached", k.day)
		}
	}
}

// TestDayCacheWarmAndFull: Warm fills the cache with the closed days of
// keys and tokens; a cache that is full is bypassed, with the same answers.
func TestDayCacheWarmAndFull(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	var counts []store.UsageCount
	for d := range 20 {
		day := midnight(analyticsNow).AddDate(0, 0, -d).Format(time.DateOnly)
		for k := range 5 {
			counts = append(counts, store.UsageCount{Day: day, Service: ServiceTiles, Group: GroupRequest, KeyID: fmt.Sprintf("k%d", k), Value: int64(k + d)})
		}
		counts = append(counts, store.UsageCount{Day: day, Service: ServiceAccount, Group: GroupRequest, TokenID: "t", Value: 1})
	}
	if err := db.AddUsage(ctx, counts); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return analyticsNow }
	warm := &Analytics{DB: db, Now: now}
	if err := warm.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	// 18 closed days with counts: 5 keys and 1 token each.
	if warm.cache.n != 18*6 {
		t.Errorf("warmed %d sums, want %d", warm.cache.n, 18*6)
	}
	full := &Analytics{DB: db, Now: now}
	full.cache.limit = 10
	for _, q := range []Query{{Period: Past30Days, Classifier: ClassifierAPIKeys}, {Period: Past30Days, Classifier: ClassifierCredentials}} {
		var answers []string
		for _, a := range []*Analytics{warm, full, {DB: db, Now: now}} {
			tl, err := a.Timeline(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(tl)
			answers = append(answers, string(b))
		}
		if answers[0] != answers[2] || answers[1] != answers[2] {
			t.Errorf("%+v: warm, full and fresh differ:\n%s\n%s\n%s", q, answers[0], answers[1], answers[2])
		}
	}
	if full.cache.n > 10 {
		t.Errorf("a cache limited to 10 holds %d", full.cache.n)
	}
}
