package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestUsageCounts(t *testing.T) { pgtest.EachDatabase(t, testUsageCounts) }

func testUsageCounts(t *testing.T, dsn string) {
	ctx := context.Background()
	db := mustOpen(t, dsn)

	if d, err := db.FirstUsageDay(ctx); err != nil || d != "" {
		t.Fatalf("FirstUsageDay of an empty database = %q, %v", d, err)
	}
	if err := db.AddUsage(ctx, nil); err != nil {
		t.Fatal(err)
	}
	counts := []UsageCount{
		{Day: "2026-11-02", Service: "tiles", Group: "request", KeyID: "k1", Value: 5},
		{Day: "2026-11-02", Service: "tiles", Group: "request", KeyID: "k1", Value: 2}, // same key: summed
		{Day: "2026-11-02", Service: "maps", Group: "session", KeyID: "k1", Value: 1},
		{Day: "2026-11-02", Service: "tiles", Group: "request", KeyID: "k2", Value: 10},
		{Day: "2026-11-03", Service: "static", Group: "export", KeyID: "k2", Value: 3},
		{Day: "2026-11-03", Service: "account", Group: "request", TokenID: "t1", Value: 4},
		{Day: "2026-11-01", Service: "tiles", Group: "request", Value: 6}, // no key
	}
	if err := db.AddUsage(ctx, counts); err != nil {
		t.Fatal(err)
	}
	// A second flush (another node) adds to the same rows.
	if err := db.AddUsage(ctx, counts[:1]); err != nil {
		t.Fatal(err)
	}
	if d, err := db.FirstUsageDay(ctx); err != nil || d != "2026-11-01" {
		t.Errorf("FirstUsageDay = %q, %v, want 2026-11-01", d, err)
	}

	tests := []struct {
		name         string
		by           UsageItem
		since, until string
		group        string
		want         []string
	}{
		{"services all", ByService, "2026-11-01", "2026-11-30", "", []string{
			"2026-11-01 request tiles 6", "2026-11-02 request tiles 22", "2026-11-02 session maps 1",
			"2026-11-03 export static 3", "2026-11-03 request account 4"}},
		{"services one group", ByService, "2026-11-01", "2026-11-30", "request", []string{
			"2026-11-01 request tiles 6", "2026-11-02 request tiles 22", "2026-11-03 request account 4"}},
		{"services one day", ByService, "2026-11-02", "2026-11-02", "", []string{
			"2026-11-02 request tiles 22", "2026-11-02 session maps 1"}},
		{"keys", ByKey, "2026-11-01", "2026-11-30", "", []string{
			"2026-11-02 request k1 12", "2026-11-02 request k2 10", "2026-11-02 session k1 1", "2026-11-03 export k2 3"}},
		{"keys one group", ByKey, "2026-11-01", "2026-11-30", "export", []string{"2026-11-03 export k2 3"}},
		{"tokens", ByToken, "2026-11-01", "2026-11-30", "", []string{"2026-11-03 request t1 4"}},
		{"none in range", ByKey, "2026-10-01", "2026-10-31", "", nil},
		{"tokens one group", ByToken, "2026-11-01", "2026-11-30", "request", []string{"2026-11-03 request t1 4"}},
		{"tokens other group", ByToken, "2026-11-01", "2026-11-30", "session", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sumLines(t, db, tc.by, tc.since, tc.until, tc.group); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestUsageConcurrentNodes: flushes of several nodes at once, each adding
// to the same rows, add up exactly.
func TestUsageConcurrentNodes(t *testing.T) { pgtest.EachDatabase(t, testUsageConcurrentNodes) }

func testUsageConcurrentNodes(t *testing.T, dsn string) {
	ctx := context.Background()
	const nodes, flushes = 4, 10
	dbs := make([]*DB, nodes)
	for i := range dbs {
		db, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	var batch []UsageCount
	for k := range 50 {
		for _, day := range []string{"2026-11-01", "2026-11-02"} {
			batch = append(batch, UsageCount{Day: day, Service: "tiles", Group: "request", KeyID: fmt.Sprintf("k%02d", k), Value: 1})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, nodes*flushes)
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range flushes {
				// Each node writes its rows in its own order: AddUsage sorts.
				b := slices.Clone(batch)
				slices.Reverse(b)
				if err := db.AddUsage(ctx, b); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sums, err := dbs[0].UsageSums(ctx, ByKey, "2026-11-01", "2026-11-02", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 100 {
		t.Fatalf("%d sums, want 100", len(sums))
	}
	for _, s := range sums {
		if s.Value != nodes*flushes {
			t.Errorf("%+v: want %d", s, nodes*flushes)
		}
	}
	svc, err := dbs[0].UsageSums(ctx, ByService, "2026-11-01", "2026-11-02", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(svc) != 2 || svc[0].Value != 50*nodes*flushes || svc[1].Value != 50*nodes*flushes {
		t.Errorf("service sums %+v, want 2 days of %d", svc, 50*nodes*flushes)
	}
}

func TestUsageLabels(t *testing.T) { pgtest.EachDatabase(t, testUsageLabels) }

func testUsageLabels(t *testing.T, dsn string) {
	ctx := context.Background()
	db := mustOpen(t, dsn)
	for _, q := range []string{
		`INSERT INTO api_keys (id, token, name, description, created, changed, seq) VALUES ('k1', 'tok1', 'Website', 'the public site', 'c', 'c', 1)`,
		`INSERT INTO api_keys (id, token, name, description, created, changed, seq) VALUES ('k2', 'tok2', 'App', NULL, 'c', 'c', 2)`,
		`INSERT INTO service_tokens (id, name, hash, created) VALUES ('t1', 'CI', 'h1', 'c')`,
	} {
		if _, err := db.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := db.UsageLabels(ctx, ByKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys["k1"].Name != "Website" || keys["k1"].Description == nil || *keys["k1"].Description != "the public site" ||
		keys["k2"].Name != "App" || keys["k2"].Description != nil {
		t.Errorf("key labels %+v", keys)
	}
	toks, err := db.UsageLabels(ctx, ByToken)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 1 || toks["t1"].Name != "CI" || toks["t1"].Description != nil {
		t.Errorf("token labels %+v", toks)
	}
	if _, err := db.UsageLabels(ctx, ByService); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("labels by service: err = %v", err)
	}
}

func TestPlaceholderRows(t *testing.T) {
	if got := placeholderRows(2, 3); got != "(?, ?, ?), (?, ?, ?)" {
		t.Errorf("placeholderRows(2, 3) = %q", got)
	}
	if got := placeholderRows(1, 1); got != "(?)" {
		t.Errorf("placeholderRows(1, 1) = %q", got)
	}
}

// TestUsageItemMonths: the sums by key and by token (read from
// usage_item_months) equal the raw counts of usage_counts summed by day,
// group and item, for counts over several services, groups and months
// written in many flushes, some spanning two days and a month's end; and
// the migration's backfill of usage_item_months from usage_counts gives
// the same sums.
func TestUsageItemMonths(t *testing.T) { pgtest.EachDatabase(t, testUsageItemMonths) }

func testUsageItemMonths(t *testing.T, dsn string) {
	ctx := context.Background()
	db := mustOpen(t, dsn)
	rng := rand.New(rand.NewPCG(1, 2))
	days := []string{"2026-01-31", "2026-02-01", "2026-02-28", "2026-03-01", "2026-03-15", "2026-03-31", "2026-04-01"}
	services := []string{"tiles", "maps", "static", "account"}
	groups := []string{"request", "session", "export"}
	for f := range 40 {
		// A flush holds one day, or two around midnight.
		first := rng.IntN(len(days))
		last := min(first+f%2, len(days)-1)
		var batch []UsageCount
		for range 30 {
			c := UsageCount{Day: days[first+rng.IntN(last-first+1)], Service: services[rng.IntN(len(services))],
				Group: groups[rng.IntN(len(groups))], Value: int64(rng.IntN(1000) + 1)}
			switch rng.IntN(3) {
			case 0:
				c.KeyID = fmt.Sprintf("k%d", rng.IntN(12))
			case 1:
				c.TokenID = fmt.Sprintf("t%d", rng.IntN(3))
			}
			batch = append(batch, c)
		}
		if err := db.AddUsage(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	// raw sums usage_counts by day, group and the item column col.
	raw := func(col, since, until, group string) []string {
		q := `SELECT day, grp, ` + col + `, SUM(value) FROM usage_counts WHERE ` + col + ` <> '' AND day >= ? AND day <= ?`
		args := []any{since, until}
		if group != "" {
			q += ` AND grp = ?`
			args = append(args, group)
		}
		rows, err := db.query(ctx, q+` GROUP BY day, grp, `+col, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var day, grp, item string
			var v int64
			if err := rows.Scan(&day, &grp, &item, &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %s %s %d", day, grp, item, v))
		}
		slices.Sort(out)
		return out
	}
	check := func(stage string) {
		t.Helper()
		for _, r := range []struct{ since, until, group string }{
			{"2026-01-01", "2026-12-31", ""}, {"2026-02-01", "2026-03-15", "request"}, {"2026-01-31", "2026-02-01", "session"},
			{"2026-03-02", "2026-03-30", "export"}, {"2026-03-31", "2026-03-31", ""}, {"2026-05-01", "2026-05-31", ""},
		} {
			for _, by := range []struct {
				by  UsageItem
				col string
			}{{ByKey, "key_id"}, {ByToken, "token_id"}} {
				got := sumLines(t, db, by.by, r.since, r.until, r.group)
				if want := raw(by.col, r.since, r.until, r.group); !slices.Equal(got, want) {
					t.Errorf("%s: %s %s..%s %q:\ngot  %q\nwant %q", stage, by.col, r.since, r.until, r.group, got, want)
				}
			}
		}
	}
	check("flushed")
	if _, err := db.exec(ctx, `DELETE FROM usage_item_months`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.exec(ctx, usageItemMonthsBackfill); err != nil {
		t.Fatal(err)
	}
	check("backfilled")
}

// sumLines returns db.UsageSums as sorted lines "day group item value".
func sumLines(t *testing.T, db *DB, by UsageItem, since, until, group string) []string {
	t.Helper()
	sums, err := db.UsageSums(context.Background(), by, since, until, group)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sums {
		out = append(out, fmt.Sprintf("%s %s %s %d", s.Day, s.Group, s.Item, s.Value))
	}
	slices.Sort(out)
	return out
}
