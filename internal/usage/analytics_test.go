package usage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

// analyticsNow is the analytics tests' clock: noon on 2026-11-28.
var analyticsNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// seed stores the analytics tests' counts.
func seed(t *testing.T, db *store.DB) Store {
	t.Helper()
	ctx := context.Background()
	var counts []store.UsageCount
	for d := 1; d <= 28; d++ {
		counts = append(counts, store.UsageCount{Day: fmt.Sprintf("2026-11-%02d", d), Service: ServiceTiles, Group: GroupRequest, KeyID: "k1", Value: 10})
	}
	counts = append(counts,
		store.UsageCount{Day: "2026-11-28", Service: ServiceMaps, Group: GroupSession, KeyID: "k1", Value: 2},
		store.UsageCount{Day: "2026-10-15", Service: ServiceStatic, Group: GroupExport, KeyID: "k1", Value: 3},
		store.UsageCount{Day: "2025-12-03", Service: ServiceTiles, Group: GroupRequest, KeyID: "k1", Value: 100},
		store.UsageCount{Day: "2026-11-27", Service: ServiceTiles, Group: GroupRequest, KeyID: "k2", Value: 5},
		store.UsageCount{Day: "2026-11-28", Service: ServiceTiles, Group: GroupRequest, KeyID: "k2", Value: 7},
		store.UsageCount{Day: "2026-11-20", Service: ServiceGeocoding, Group: GroupRequest, KeyID: "kx", Value: 4},
		store.UsageCount{Day: "2026-11-28", Service: ServiceAccount, Group: GroupRequest, TokenID: "t1", Value: 6},
		store.UsageCount{Day: "2026-11-29", Service: ServiceTiles, Group: GroupRequest, KeyID: "k1", Value: 1000}, // tomorrow: never shown
	)
	if err := db.AddUsage(ctx, counts); err != nil {
		t.Fatal(err)
	}
	desc := "the public site"
	if _, err := db.CreateAPIKey(ctx, store.APIKey{ID: "k1", Token: "tok1", Name: "Website", Description: &desc}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateAPIKey(ctx, store.APIKey{ID: "k2", Token: "tok2", Name: "App"}); err != nil {
		t.Fatal(err)
	}
	// kx is a key that was deleted.
	if _, err := db.CreateServiceToken(ctx, store.ServiceToken{ID: "t1", Name: "CI", Hash: "h1"}); err != nil {
		t.Fatal(err)
	}
	return db
}

// summary writes a timeline compactly: per dataset, its group, item,
// total, number of points, first and last point and estimate.
func summary(t Timeline) []string {
	out := []string{t.Since + ".." + t.Until}
	for _, d := range t.Datasets {
		var total int64
		for _, p := range d.Data {
			total += p.Value
		}
		est := "-"
		if d.EstimatedData != nil {
			est = fmt.Sprintf("%s=%d", d.EstimatedData.Date, d.EstimatedData.Value)
		}
		out = append(out, fmt.Sprintf("%s/%s total %d, %d points %s=%d..%s=%d est %s", d.GroupID, d.ItemID, total, len(d.Data),
			d.Data[0].Date, d.Data[0].Value, d.Data[len(d.Data)-1].Date, d.Data[len(d.Data)-1].Value, est))
	}
	for _, l := range t.Legend {
		desc := "null"
		if l.Description != nil {
			desc = *l.Description
		}
		out = append(out, fmt.Sprintf("legend %s: %s (%s)", l.ItemID, l.Label, desc))
	}
	return out
}

func TestTimeline(t *testing.T) { pgtest.EachDatabase(t, testTimeline) }

func testTimeline(t *testing.T, dsn string) {
	db := seed(t, openDB(t, dsn))
	a := &Analytics{DB: db, BillingDay: 1, Now: func() time.Time { return analyticsNow }}
	svcRequest := "legend tiles: Tilesets (Tiles and documents of tilesets.)"
	tests := []struct {
		q    Query
		want []string
	}{
		{Query{Period: CurrentBillingPeriod, Classifier: ClassifierServices}, []string{
			"2026-11-01..2026-11-30",
			"request/tiles total 292, 28 points 2026-11-01=10..2026-11-28=17 est 2026-11-28=34",
			"request/account total 6, 28 points 2026-11-01=0..2026-11-28=6 est 2026-11-28=12",
			"request/geocoding total 4, 28 points 2026-11-01=0..2026-11-28=0 est 2026-11-28=0",
			"session/maps total 2, 28 points 2026-11-01=0..2026-11-28=2 est 2026-11-28=4",
			svcRequest,
			"legend account: Account API (Requests to the account service API (service tokens).)",
			"legend geocoding: Geocoding (Forward, reverse and batch geocoding.)",
			"legend maps: Maps (Map styles, viewers, raster map tiles, TileJSON, WMTS and WMS of maps.)",
		}},
		{Query{Period: CurrentBillingPeriod, Classifier: ClassifierServices, Group: GroupSession}, []string{
			"2026-11-01..2026-11-30",
			"session/maps total 2, 28 points 2026-11-01=0..2026-11-28=2 est 2026-11-28=4",
			"legend maps: Maps (Map styles, viewers, raster map tiles, TileJSON, WMTS and WMS of maps.)",
		}},
		{Query{Period: LastBillingPeriod, Classifier: ClassifierServices}, []string{
			"2026-10-01..2026-10-31",
			"export/static total 3, 31 points 2026-10-01=0..2026-10-31=0 est -",
			"legend static: Static maps (Static map images.)",
		}},
		{Query{Period: Past30Days, Classifier: ClassifierAPIKeys, Group: GroupRequest}, []string{
			"2026-10-30..2026-11-28",
			"request/k1 total 280, 30 points 2026-10-30=0..2026-11-28=10 est 2026-11-28=20",
			"request/k2 total 12, 30 points 2026-10-30=0..2026-11-28=7 est 2026-11-28=14",
			"request/kx total 4, 30 points 2026-10-30=0..2026-11-28=0 est 2026-11-28=0",
			"legend k1: Website (the public site)",
			"legend k2: App (null)",
			"legend kx: kx (deleted)",
		}},
		{Query{Period: Past90Days, Classifier: ClassifierAPIKeys, Group: GroupExport}, []string{
			"2026-08-31..2026-11-28",
			"export/k1 total 3, 90 points 2026-08-31=0..2026-11-28=0 est 2026-11-28=0",
			"legend k1: Website (the public site)",
		}},
		{Query{Period: CurrentBillingPeriod, Classifier: ClassifierCredentials}, []string{
			"2026-11-01..2026-11-30",
			"request/t1 total 6, 28 points 2026-11-01=0..2026-11-28=6 est 2026-11-28=12",
			"legend t1: CI (null)",
		}},
		// Monthly: Nov 2026's 292 after 27.5 of 30 days project to 319.
		{Query{Period: Past12Months, Classifier: ClassifierServices, Group: GroupRequest}, []string{
			"2025-12-01..2026-11-30",
			"request/tiles total 392, 12 points 2025-12-01=100..2026-11-01=292 est 2026-11-01=319",
			"request/account total 6, 12 points 2025-12-01=0..2026-11-01=6 est 2026-11-01=7",
			"request/geocoding total 4, 12 points 2025-12-01=0..2026-11-01=4 est 2026-11-01=4",
			svcRequest,
			"legend account: Account API (Requests to the account service API (service tokens).)",
			"legend geocoding: Geocoding (Forward, reverse and batch geocoding.)",
		}},
		{Query{Period: Past12BillingPeriods, Classifier: ClassifierServices, Group: GroupExport}, []string{
			"2025-12-01..2026-11-30",
			"export/static total 3, 12 points 2025-12-01=0..2026-11-01=0 est 2026-11-01=0",
			"legend static: Static maps (Static map images.)",
		}},
		{Query{Period: All, Classifier: ClassifierServices, Group: GroupRequest}, []string{
			"2025-12-01..2026-11-30",
			"request/tiles total 392, 12 points 2025-12-01=100..2026-11-01=292 est 2026-11-01=319",
			"request/account total 6, 12 points 2025-12-01=0..2026-11-01=6 est 2026-11-01=7",
			"request/geocoding total 4, 12 points 2025-12-01=0..2026-11-01=4 est 2026-11-01=4",
			svcRequest,
			"legend account: Account API (Requests to the account service API (service tokens).)",
			"legend geocoding: Geocoding (Forward, reverse and batch geocoding.)",
		}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/%s", tc.q.Period, tc.q.Classifier, tc.q.Group), func(t *testing.T) {
			tl, err := a.Timeline(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(tl); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}

	// Billing periods from the 15th: the current one began on 2026-11-15.
	a15 := &Analytics{DB: db, BillingDay: 15, Now: a.Now}
	tl, err := a15.Timeline(context.Background(), Query{Period: CurrentBillingPeriod, Classifier: ClassifierAPIKeys, Group: GroupRequest})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(tl); got[0] != "2026-11-15..2026-12-14" || got[1] != "request/k1 total 140, 14 points 2026-11-15=10..2026-11-28=10 est 2026-11-28=20" {
		t.Errorf("billing day 15: %q", got)
	}
}

func TestTimelineErrors(t *testing.T) { pgtest.EachDatabase(t, testTimelineErrors) }

func testTimelineErrors(t *testing.T, dsn string) {
	db := seed(t, openDB(t, dsn))
	now := func() time.Time { return analyticsNow }
	a := &Analytics{DB: db, Now: now}
	tests := []struct {
		a    *Analytics
		q    Query
		code string
		top  bool // also for Top
	}{
		{a, Query{Classifier: ClassifierServices}, CodeInvalidParameter, true},
		{a, Query{Period: "week", Classifier: ClassifierServices}, CodeInvalidParameter, true},
		{a, Query{Period: All}, CodeInvalidParameter, true},
		{a, Query{Period: All, Classifier: "users"}, CodeInvalidParameter, true},
		{a, Query{Period: All, Classifier: ClassifierServices, Group: "tiles"}, CodeInvalidParameter, true},
		{a, Query{Period: Past12Months, Classifier: ClassifierAPIKeys}, CodeInvalidParameter, true},
		{a, Query{Period: All, Classifier: ClassifierCredentials}, CodeInvalidParameter, true},
		{a, Query{Period: Past12BillingPeriods, Classifier: ClassifierAPIKeys}, CodeInvalidParameter, true},
		{&Analytics{DB: db, Now: now, MaxItems: 2}, Query{Period: Past30Days, Classifier: ClassifierAPIKeys}, CodeAccountOverLimit, false},
		{&Analytics{DB: db, Now: now, MaxPoints: 100}, Query{Period: CurrentBillingPeriod, Classifier: ClassifierServices}, CodeResponseTooLarge, false},
	}
	for _, tc := range tests {
		_, err := tc.a.Timeline(context.Background(), tc.q)
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Message == "" {
			t.Errorf("Timeline(%+v): err = %v, want %s", tc.q, err, tc.code)
		}
		_, err = tc.a.Top(context.Background(), tc.q)
		if tc.top && (!errors.As(err, &e) || e.Code != tc.code) {
			t.Errorf("Top(%+v): err = %v, want %s", tc.q, err, tc.code)
		}
		if !tc.top && err != nil {
			t.Errorf("Top(%+v): %v; the limit is the timeline's only", tc.q, err)
		}
	}
	// Within the limits the same queries answer.
	if _, err := (&Analytics{DB: db, Now: now, MaxItems: 3}).Timeline(context.Background(), Query{Period: Past30Days, Classifier: ClassifierAPIKeys}); err != nil {
		t.Errorf("3 keys with MaxItems 3: %v", err)
	}
	if _, err := (&Analytics{DB: db, Now: now, MaxPoints: 112}).Timeline(context.Background(), Query{Period: CurrentBillingPeriod, Classifier: ClassifierServices}); err != nil {
		t.Errorf("112 points with MaxPoints 112: %v", err)
	}
	for _, limit := range []int{-1, MaxTopLimit + 1} {
		var e *Error
		if _, err := a.Top(context.Background(), Query{Period: All, Classifier: ClassifierServices, Limit: limit}); !errors.As(err, &e) || e.Code != CodeInvalidParameter {
			t.Errorf("limit %d: err = %v", limit, err)
		}
	}

	// A new account: nothing before the current billing period.
	fresh := openDB(t, dsnForFresh(t, dsn))
	if err := fresh.AddUsage(context.Background(), []store.UsageCount{{Day: "2026-11-02", Service: ServiceTiles, Group: GroupRequest, KeyID: "k", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Period: LastBillingPeriod, Classifier: ClassifierServices}, {Period: LastBillingPeriod, Classifier: ClassifierAPIKeys}} {
		fa := &Analytics{DB: fresh, Now: now}
		var e *Error
		if _, err := fa.Timeline(context.Background(), q); !errors.As(err, &e) || e.Code != CodePeriodNotFound {
			t.Errorf("Timeline %+v on a new account: err = %v", q, err)
		}
		if _, err := fa.Top(context.Background(), q); !errors.As(err, &e) || e.Code != CodePeriodNotFound {
			t.Errorf("Top %+v on a new account: err = %v", q, err)
		}
	}
}

// dsnForFresh returns a second, empty database of the same kind.
func dsnForFresh(t *testing.T, dsn string) string {
	if store.IsPostgres(dsn) {
		return pgtest.URL(t)
	}
	return t.TempDir() + "/fresh.db"
}

func TestTop(t *testing.T) { pgtest.EachDatabase(t, testTop) }

func testTop(t *testing.T, dsn string) {
	db := seed(t, openDB(t, dsn))
	a := &Analytics{DB: db, Now: func() time.Time { return analyticsNow }}
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Period: CurrentBillingPeriod, Classifier: ClassifierAPIKeys},
			`{"since":"2026-11-01","until":"2026-11-30","datasets":[{"group_id":"request","data":[{"item_id":"k1","value":280},{"item_id":"k2","value":12},{"item_id":"kx","value":4}]},{"group_id":"session","data":[{"item_id":"k1","value":2}]}],"legend":[{"item_id":"k1","label":"Website","description":"the public site"},{"item_id":"k2","label":"App","description":null},{"item_id":"kx","label":"kx","description":"deleted"}]}`},
		{Query{Period: CurrentBillingPeriod, Classifier: ClassifierAPIKeys, Limit: 1},
			`{"since":"2026-11-01","until":"2026-11-30","datasets":[{"group_id":"request","data":[{"item_id":"k1","value":280}]},{"group_id":"session","data":[{"item_id":"k1","value":2}]}],"legend":[{"item_id":"k1","label":"Website","description":"the public site"}]}`},
		{Query{Period: LastBillingPeriod, Classifier: ClassifierServices, Group: GroupSession},
			`{"since":"2026-10-01","until":"2026-10-31","datasets":[{"group_id":"session","data":[]}],"legend":[]}`},
		{Query{Period: All, Classifier: ClassifierServices, Group: GroupExport},
			`{"since":"2025-12-01","until":"2026-11-30","datasets":[{"group_id":"export","data":[{"item_id":"static","value":3}]}],"legend":[{"item_id":"static","label":"Static maps","description":"Static map images."}]}`},
		{Query{Period: Past90Days, Classifier: ClassifierCredentials},
			`{"since":"2026-08-31","until":"2026-11-28","datasets":[{"group_id":"request","data":[{"item_id":"t1","value":6}]}],"legend":[{"item_id":"t1","label":"CI","description":null}]}`},
	}
	for _, tc := range tests {
		top, err := a.Top(context.Background(), tc.q)
		if err != nil {
			t.Errorf("%+v: %v", tc.q, err)
			continue
		}
		b, _ := json.Marshal(top)
		if string(b) != tc.want {
			t.Errorf("%+v:\ngot  %s\nwant %s", tc.q, b, tc.want)
		}
	}
}

func TestCSV(t *testing.T) {
	db := seed(t, openDB(t, t.TempDir()+"/state.db"))
	a := &Analytics{DB: db, Now: func() time.Time { return analyticsNow }}
	tl, err := a.Timeline(context.Background(), Query{Period: Past30Days, Classifier: ClassifierAPIKeys, Group: GroupSession})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTimelineCSV(&buf, tl); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 31 || lines[0] != "group_id,item_id,label,date,value" || lines[1] != "session,k1,Website,2026-10-30,0" || lines[30] != "session,k1,Website,2026-11-28,2" {
		t.Errorf("timeline csv: %d lines: %q ... %q", len(lines), lines[:2], lines[len(lines)-1])
	}
	top, err := a.Top(context.Background(), Query{Period: CurrentBillingPeriod, Classifier: ClassifierAPIKeys, Group: GroupRequest})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := WriteTopCSV(&buf, top); err != nil {
		t.Fatal(err)
	}
	if want := "group_id,item_id,label,value\nrequest,k1,Website,280\nrequest,k2,App,12\nrequest,kx,kx,4\n"; buf.String() != want {
		t.Errorf("top csv:\n%s\nwant\n%s", buf.String(), want)
	}
}

// FuzzQuery: whatever the parameters, a query answers or is refused with
// one of the analytics' errors; it never fails otherwise or panics.
func FuzzQuery(f *testing.F) {
	for _, p := range Periods {
		f.Add(p, ClassifierServices, "", 0)
	}
	f.Add(Past30Days, ClassifierAPIKeys, GroupRequest, 5)
	f.Add(All, ClassifierCredentials, "x", -1)
	f.Add("", "", "", 1000)
	db, err := store.Open(context.Background(), filepath.Join(f.TempDir(), "state.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	if err := db.AddUsage(context.Background(), []store.UsageCount{{Day: "2026-10-02", Service: ServiceTiles, Group: GroupRequest, KeyID: "k", Value: 1}}); err != nil {
		f.Fatal(err)
	}
	a := &Analytics{DB: db, Now: func() time.Time { return analyticsNow }}
	f.Fuzz(func(t *testing.T, period, classifier, group string, limit int) {
		q := Query{Period: period, Classifier: classifier, Group: group, Limit: limit}
		for _, run := range []func() error{
			func() error { _, err := a.Timeline(context.Background(), q); return err },
			func() error { _, err := a.Top(context.Background(), q); return err },
		} {
			err := run()
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.Message == "") {
				t.Fatalf("%+v: %v", q, err)
			}
		}
	})
}

// TestCSVFormulaCells: text cells that a spreadsheet would run as a formula
// (a key named "=HYPERLINK(...)", "+1", "-2", "@SUM", a leading tab or
// carriage return) get a leading apostrophe; others are written as they are.
func TestCSVFormulaCells(t *testing.T) {
	names := map[string]string{
		`=HYPERLINK("http://evil.example","x")`: `"'=HYPERLINK(""http://evil.example"",""x"")"`,
		"+1+2":                                  "'+1+2",
		"-2":                                    "'-2",
		"@SUM(A1)":                              "'@SUM(A1)",
		"\tcmd":                                 "'\tcmd",
		"\r=cmd":                                "\"'\r=cmd\"",
		"Website =":                             "Website =",
		"a-b":                                   "a-b",
		"":                                      "",
	}
	for name, want := range names {
		tl := Timeline{Datasets: []Dataset{{GroupID: GroupRequest, ItemID: "k1", Data: []Point{{Date: "2026-11-28", Value: 3}}}},
			Legend: []LegendItem{{ItemID: "k1", Label: name}}}
		var buf bytes.Buffer
		if err := WriteTimelineCSV(&buf, tl); err != nil {
			t.Fatal(err)
		}
		if got, w := buf.String(), "group_id,item_id,label,date,value\nrequest,k1,"+want+",2026-11-28,3\n"; got != w {
			t.Errorf("timeline, label %q:\ngot  %q\nwant %q", name, got, w)
		}
		top := Top{Datasets: []TopDataset{{GroupID: GroupRequest, Data: []TopItem{{ItemID: "-k1", Value: 3}}}},
			Legend: []LegendItem{{ItemID: "-k1", Label: name}}}
		buf.Reset()
		if err := WriteTopCSV(&buf, top); err != nil {
			t.Fatal(err)
		}
		if got, w := buf.String(), "group_id,item_id,label,value\nrequest,'-k1,"+want+",3\n"; got != w {
			t.Errorf("top, label %q:\ngot  %q\nwant %q", name, got, w)
		}
	}
}
