package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestUsageCounts(t *testing.T) { pgtest.EachDatabase(t, testUsageCounts) }

func testUsageCounts(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

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
			sums, err := db.UsageSums(ctx, tc.by, tc.since, tc.until, tc.group)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sums {
				got = append(got, fmt.Sprintf("%s %s %s %d", s.Day, s.Group, s.Item, s.Value))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
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
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
