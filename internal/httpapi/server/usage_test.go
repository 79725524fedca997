package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/store"
	"github.com/tesseramaps/tessera/internal/usage"
)

type analyticsErr struct{ Message, Code string }

// usageSums reads the stored counts of today by item.
func (e *testEnv) usageSums(by store.UsageItem) map[string]int64 {
	e.t.Helper()
	today := time.Now().UTC().Format(time.DateOnly)
	sums, err := e.srv.db.UsageSums(context.Background(), by, today, today, "")
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]int64{}
	for _, s := range sums {
		out[s.Group+"/"+s.Item] += s.Value
	}
	return out
}

func (e *testEnv) flushUsage() {
	e.t.Helper()
	if err := e.srv.meter.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// TestUsageCounting: answered public requests are counted by service and
// group, refusals and unclassified paths are not; account requests are
// counted by service token.
func TestUsageCounting(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour })
	tile := e.do("GET", "/tiles/roads/0/0/0", nil)
	if tile.status != 200 || tile.header.Get("ETag") == "" {
		t.Fatalf("tile: %d, ETag %q", tile.status, tile.header.Get("ETag"))
	}
	for _, c := range []struct {
		path    string
		headers []string
		status  int
	}{
		{"/tiles/roads/0/0/0", nil, 200},
		{"/tiles/roads/0/0/0", []string{"If-None-Match", tile.header.Get("ETag")}, 304}, // counted
		{"/tiles/roads/tiles.json", nil, 200},
		{"/tiles/nope/0/0/0", nil, 404},      // not counted
		{"/tiles/roads/0/0/0.png", nil, 400}, // not counted (a bad address)
		{"/health", nil, 200},                // not classified
		{"/fonts/Nope/0-255.pbf", nil, 404},  // not counted
	} {
		if r := e.do("GET", c.path, nil, c.headers...); r.status != c.status {
			t.Fatalf("%s: %d, want %d", c.path, r.status, c.status)
		}
	}
	secret := e.serviceToken("ci")
	q := "/analytics/api_usage/top?period=past_30_days&classifier=services"
	if r := e.account("GET", q, secret, nil); r.status != 200 {
		t.Fatalf("top: %d %s", r.status, r.body)
	}
	if r := e.account("GET", q+"&group=nope", secret, nil); r.status != 400 { // not counted
		t.Fatalf("top with a bad group: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/v1"+q, nil, "Authorization", "Token wrong"); r.status != 401 { // not counted
		t.Fatalf("bad token: %d", r.status)
	}
	e.flushUsage()
	if got, want := e.usageSums(store.ByService), map[string]int64{"request/tiles": 4, "request/account": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts by service %v, want %v", got, want)
	}

	// The analytics show them, with the token's name.
	r := e.account("GET", "/analytics/api_usage/timeline?period=current_billing_period&classifier=service_credentials", secret, nil)
	if r.status != 200 {
		t.Fatalf("timeline: %d %s", r.status, r.body)
	}
	tl := decodeJSON[usage.Timeline](t, r.body)
	if len(tl.Datasets) != 1 || tl.Datasets[0].GroupID != "request" || len(tl.Legend) != 1 || tl.Legend[0].Label != "ci" {
		t.Fatalf("timeline: %s", r.body)
	}
	d := tl.Datasets[0]
	if last := d.Data[len(d.Data)-1]; last.Date != time.Now().UTC().Format(time.DateOnly) || last.Value != 1 || d.EstimatedData == nil {
		t.Errorf("today's point %+v, estimate %v", last, d.EstimatedData)
	}
}

// TestUsageServeStopFlushes: a server stopped gracefully (Serve's context
// ends) has written every count, with no flush on the ticker meanwhile.
func TestUsageServeStopFlushes(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.UsageFlushInterval = time.Hour })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, ln) }()
	const n = 40
	for i := range n {
		res, err := http.Get(fmt.Sprintf("http://%s/tiles/roads/%d/0/0", ln.Addr(), i%2))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("tile: %d", res.StatusCode)
		}
	}
	if got := e.usageSums(store.ByService)["request/tiles"]; got != 0 {
		t.Fatalf("%d counts stored before the stop: the ticker should not have run", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.usageSums(store.ByService)["request/tiles"]; got != n {
		t.Errorf("after the stop: %d counts stored, want %d", got, n)
	}
}

// TestAnalyticsEndpoints asks every period, classifier, group and format.
func TestAnalyticsEndpoints(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.serviceToken("ci")
	if r := e.do("GET", "/tiles/roads/0/0/0", nil); r.status != 200 {
		t.Fatal(r.status)
	}
	e.account("GET", "/analytics/api_usage/top?period=all&classifier=services", secret, nil)
	e.flushUsage()
	for _, endpoint := range []string{"timeline", "top"} {
		for _, period := range usage.Periods {
			for _, classifier := range usage.Classifiers {
				for _, group := range append([]string{""}, usage.Groups...) {
					for _, format := range []string{"", "json", "csv"} {
						q := fmt.Sprintf("/analytics/api_usage/%s?period=%s&classifier=%s&group=%s&format=%s", endpoint, period, classifier, group, format)
						if endpoint == "top" {
							q += "&limit=5"
						}
						r := e.account("GET", q, secret, nil)
						var wantCode string
						switch {
						case format == "csv" && group == "":
							wantCode = usage.CodeInvalidParameter
						case classifier != usage.ClassifierServices && !usage.Daily(period):
							wantCode = usage.CodeInvalidParameter
						case period == usage.LastBillingPeriod: // everything was counted today
							wantCode = usage.CodePeriodNotFound
						}
						if wantCode != "" {
							body := decodeJSON[analyticsErr](t, r.body)
							if r.status != 400 || body.Code != wantCode || body.Message == "" {
								t.Errorf("%s: %d %s, want 400 %s", q, r.status, r.body, wantCode)
							}
							continue
						}
						if r.status != 200 {
							t.Errorf("%s: %d %s", q, r.status, r.body)
							continue
						}
						if format == "csv" {
							checkCSV(t, q, r, endpoint)
							continue
						}
						if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
							t.Errorf("%s: content type %q", q, ct)
						}
						var body struct {
							Since, Until string
							Datasets     []json.RawMessage
							Legend       []json.RawMessage
						}
						if err := json.Unmarshal(r.body, &body); err != nil || body.Since == "" || body.Until < body.Since || body.Datasets == nil || body.Legend == nil {
							t.Errorf("%s: %s", q, r.body)
						}
						// The tile request is in every period with the
						// request group, by service.
						if classifier == usage.ClassifierServices && (group == "" || group == "request") &&
							!strings.Contains(string(r.body), `"item_id":"tiles"`) {
							t.Errorf("%s: the tile request is missing: %s", q, r.body)
						}
					}
				}
			}
		}
	}
	for _, q := range []string{
		"timeline?classifier=services",
		"timeline?period=all",
		"timeline?period=all&classifier=services&format=xml",
		"top?period=all&classifier=services&limit=0",
		"top?period=all&classifier=services&limit=101",
		"top?period=all&classifier=services&limit=ten",
	} {
		r := e.account("GET", "/analytics/api_usage/"+q, secret, nil)
		if body := decodeJSON[analyticsErr](t, r.body); r.status != 400 || body.Code != usage.CodeInvalidParameter || body.Message == "" {
			t.Errorf("%s: %d %s", q, r.status, r.body)
		}
	}
}

func checkCSV(t *testing.T, q string, r resp, endpoint string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("%s: content type %q", q, ct)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v %q", q, err, r.body)
	}
	want := "group_id,item_id,label,value"
	if endpoint == "timeline" {
		want = "group_id,item_id,label,date,value"
	}
	if got := strings.Join(rows[0], ","); got != want {
		t.Errorf("%s: header %q, want %q", q, got, want)
	}
}

// TestAnalyticsLimits: the timeline's account_over_limit and
// response_too_large through the API.
func TestAnalyticsLimits(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.serviceToken("ci")
	today := time.Now().UTC().Format(time.DateOnly)
	var counts []store.UsageCount
	for k := range usage.DefaultMaxItems {
		for _, g := range []string{usage.GroupRequest, usage.GroupSession} {
			counts = append(counts, store.UsageCount{Day: today, Service: usage.ServiceTiles, Group: g, KeyID: fmt.Sprintf("k%04d", k), Value: 1})
		}
	}
	if err := e.srv.db.AddUsage(context.Background(), counts); err != nil {
		t.Fatal(err)
	}
	// 1000 keys: within the limit for a group; 2000 datasets of 90 days
	// are too large.
	if r := e.account("GET", "/analytics/api_usage/timeline?period=past_90_days&classifier=api_keys&group=request", secret, nil); r.status != 200 {
		t.Errorf("1000 keys, one group: %d %.200s", r.status, r.body)
	}
	r := e.account("GET", "/analytics/api_usage/timeline?period=past_90_days&classifier=api_keys", secret, nil)
	if body := decodeJSON[analyticsErr](t, r.body); r.status != 400 || body.Code != usage.CodeResponseTooLarge {
		t.Errorf("180,000 points: %d %.300s", r.status, r.body)
	}
	if err := e.srv.db.AddUsage(context.Background(), []store.UsageCount{{Day: today, Service: usage.ServiceTiles, Group: usage.GroupRequest, KeyID: "one-more", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	r = e.account("GET", "/analytics/api_usage/timeline?period=past_30_days&classifier=api_keys&group=request", secret, nil)
	if body := decodeJSON[analyticsErr](t, r.body); r.status != 400 || body.Code != usage.CodeAccountOverLimit {
		t.Errorf("1001 keys: %d %.300s", r.status, r.body)
	}
	// The top list has no such limit.
	if r := e.account("GET", "/analytics/api_usage/top?period=past_30_days&classifier=api_keys&limit=3", secret, nil); r.status != 200 {
		t.Errorf("top of 1001 keys: %d %.200s", r.status, r.body)
	}
}

// TestUsageByKey: with keys required, public requests are counted under
// the checked key, refused ones (403) not at all, and the api_keys
// analytics name the key.
func TestUsageByKey(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.APIKeys = "required"; c.UsageFlushInterval = time.Hour })
	secret := e.serviceToken("ci")
	r := e.account("POST", "/api_keys", secret, map[string]any{"name": "Website"})
	if r.status != 200 && r.status != 201 {
		t.Fatalf("create key: %d %s", r.status, r.body)
	}
	key := decodeJSON[struct{ ID, Token string }](t, r.body)
	for range 3 {
		if r := e.do("GET", "/tiles/roads/0/0/0?key="+key.Token, nil); r.status != 200 {
			t.Fatalf("keyed tile: %d %s", r.status, r.body)
		}
	}
	for _, q := range []string{"", "?key=wrong"} {
		if r := e.do("GET", "/tiles/roads/0/0/0"+q, nil); r.status != 403 {
			t.Fatalf("tile%s: %d, want 403", q, r.status)
		}
	}
	e.flushUsage()
	if got := e.usageSums(store.ByKey); fmt.Sprint(got) != fmt.Sprint(map[string]int64{"request/" + key.ID: 3}) {
		t.Errorf("counts by key %v, want 3 for %s", got, key.ID)
	}
	r = e.account("GET", "/analytics/api_usage/top?period=current_billing_period&classifier=api_keys", secret, nil)
	top := decodeJSON[usage.Top](t, r.body)
	if r.status != 200 || len(top.Datasets) != 1 || len(top.Datasets[0].Data) != 1 || top.Datasets[0].Data[0] != (usage.TopItem{ItemID: key.ID, Value: 3}) ||
		len(top.Legend) != 1 || top.Legend[0].Label != "Website" {
		t.Errorf("top keys: %d %s", r.status, r.body)
	}
}
