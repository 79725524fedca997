// Package geoeval measures a geocoder through its HTTP API: it sends the
// queries of an evaluation file (one JSON object a line: q, kind, params,
// expect_name, expect_country, expect_lonlat, tolerance_km), scores the
// answers by the evaluation's rules, and reports accuracy and latency per
// kind of query, and the throughput at a given concurrency.
//
// The rules: forward, typo and lang queries must match with their first
// result; autocomplete queries with one of the first five; reverse queries
// with any result. A feature matches when its country (properties or
// context) is the expected one and its text, matching_text or a text_xx
// equals the expected name ignoring case and accents, or its center lies
// within the tolerance of the expected position.
package geoeval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Query is one line of an evaluation file.
type Query struct {
	ID            string            `json:"id"`
	Q             string            `json:"q"`
	Kind          string            `json:"kind"`
	Params        map[string]string `json:"params"`
	ExpectName    string            `json:"expect_name"`
	ExpectCountry string            `json:"expect_country"`
	ExpectLonLat  []float64         `json:"expect_lonlat"`
	ToleranceKM   float64           `json:"tolerance_km"`
}

// Load reads an evaluation file.
func Load(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open queries: %w", err)
	}
	defer f.Close()
	var qs []Query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return qs, nil
}

// URL is the request of a query against base.
func (q Query) URL(base string) string {
	v := url.Values{}
	for k, val := range q.Params {
		v.Set(k, val)
	}
	u := strings.TrimRight(base, "/") + "/geocoding/" + url.PathEscape(q.Q) + ".json"
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

// topN is how many results count for a kind.
func topN(kind string) int {
	switch kind {
	case "autocomplete":
		return 5
	case "reverse":
		return math.MaxInt
	}
	return 1
}

// feature is the part of a result feature that scoring reads.
type feature struct {
	Text         string     `json:"text"`
	MatchingText string     `json:"matching_text"`
	Center       []float64  `json:"center"`
	Properties   properties `json:"properties"`
	Context      []struct {
		ID          string     `json:"id"`
		Properties  properties `json:"properties"`
		CountryCode string     `json:"country_code"`
	} `json:"context"`
	texts []string // text_xx values
}

type properties struct {
	CountryCode string `json:"country_code"`
}

func (f *feature) UnmarshalJSON(b []byte) error {
	type plain feature
	if err := json.Unmarshal(b, (*plain)(f)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, v := range all {
		if strings.HasPrefix(k, "text_") {
			var s string
			if json.Unmarshal(v, &s) == nil {
				f.texts = append(f.texts, s)
			}
		}
	}
	return nil
}

// match tells whether a result feature satisfies the query.
func (q Query) match(f feature) bool {
	cc := strings.EqualFold(f.Properties.CountryCode, q.ExpectCountry)
	for _, c := range f.Context {
		if strings.HasPrefix(c.ID, "country.") && (strings.EqualFold(c.Properties.CountryCode, q.ExpectCountry) || strings.EqualFold(c.CountryCode, q.ExpectCountry)) {
			cc = true
		}
	}
	if !cc {
		return false
	}
	want := Fold(q.ExpectName)
	for _, n := range append([]string{f.Text, f.MatchingText}, f.texts...) {
		if n != "" && Fold(n) == want {
			return true
		}
	}
	if len(q.ExpectLonLat) == 2 && len(f.Center) == 2 && q.ToleranceKM > 0 {
		return Distance(q.ExpectLonLat[0], q.ExpectLonLat[1], f.Center[0], f.Center[1]) <= q.ToleranceKM
	}
	return false
}

// Score tells whether a response body (SearchResults JSON) answers q.
func (q Query) Score(body []byte) (bool, error) {
	var res struct {
		Features []feature `json:"features"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return false, fmt.Errorf("query %s: not SearchResults JSON: %w", q.ID, err)
	}
	n := min(topN(q.Kind), len(res.Features))
	for _, f := range res.Features[:n] {
		if q.match(f) {
			return true, nil
		}
	}
	return false, nil
}

var folder = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

// Fold compares names ignoring case and accents.
func Fold(s string) string {
	out, _, err := transform.String(folder, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(strings.TrimSpace(out))
}

// Distance is the great-circle distance in kilometres (geo.Distance).
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	return geo.Distance(orb.Point{lon1, lat1}, orb.Point{lon2, lat2}) / 1000
}

// Row is the result of one kind of query.
type Row struct {
	Kind     string
	N        int
	Metric   string
	Score    float64
	P50, P99 time.Duration
	Failed   []string // ids of the queries that did not match
}

// Report is an evaluation's result.
type Report struct {
	Rows []Row
	// QPS is the throughput at Concurrency over the whole query set.
	QPS         float64
	Concurrency int
}

// Options tune a run.
type Options struct {
	// Client sends the requests (default: a client with a 10 s timeout).
	Client *http.Client
	// Concurrency of the throughput run (default 8); ThroughputFor is its
	// length (default 10 s; 0 skips it when negative).
	Concurrency   int
	ThroughputFor time.Duration
}

// Run sends every query once (one at a time, for the latencies), scores
// them, then measures the throughput.
func Run(ctx context.Context, base string, qs []Query, opts Options) (*Report, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Client == nil {
		// One kept-alive connection per worker: the default keeps only two
		// idle connections per host, and new connections would be timed.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = opts.Concurrency + 1
		tr.DisableCompression = true
		opts.Client = &http.Client{Timeout: 10 * time.Second, Transport: tr}
	}
	if opts.ThroughputFor == 0 {
		opts.ThroughputFor = 10 * time.Second
	}
	type result struct {
		ok bool
		d  time.Duration
	}
	byKind := map[string][]result{}
	failed := map[string][]string{}
	for _, q := range qs {
		start := time.Now()
		body, err := get(ctx, opts.Client, q.URL(base))
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("query %s (%s): %w", q.ID, q.Q, err)
		}
		ok, err := q.Score(body)
		if err != nil {
			return nil, err
		}
		byKind[q.Kind] = append(byKind[q.Kind], result{ok, d})
		if !ok {
			failed[q.Kind] = append(failed[q.Kind], q.ID)
		}
	}
	rep := &Report{Concurrency: opts.Concurrency}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	order := []string{"forward", "autocomplete", "typo", "lang", "reverse"}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := slices.Index(order, kinds[i]), slices.Index(order, kinds[j])
		if a < 0 {
			a = len(order)
		}
		if b < 0 {
			b = len(order)
		}
		return a < b || a == b && kinds[i] < kinds[j]
	})
	for _, k := range kinds {
		rs := byKind[k]
		var ds []time.Duration
		hits := 0
		for _, r := range rs {
			ds = append(ds, r.d)
			if r.ok {
				hits++
			}
		}
		slices.Sort(ds)
		metric := "top1"
		switch topN(k) {
		case 5:
			metric = "top5"
		case math.MaxInt:
			metric = "any"
		}
		rep.Rows = append(rep.Rows, Row{Kind: k, N: len(rs), Metric: metric, Score: float64(hits) / float64(len(rs)),
			P50: percentile(ds, 0.50), P99: percentile(ds, 0.99), Failed: failed[k]})
	}
	if opts.ThroughputFor > 0 && len(qs) > 0 {
		qps, err := throughput(ctx, base, qs, opts)
		if err != nil {
			return nil, err
		}
		rep.QPS = qps
	}
	return rep, nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(ds)))) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s: %.200s", u, resp.Status, body)
	}
	return body, nil
}

// throughput sends the queries round-robin from Concurrency workers for
// ThroughputFor and returns the completed requests per second.
func throughput(ctx context.Context, base string, qs []Query, opts Options) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.ThroughputFor)
	defer cancel()
	var mu sync.Mutex
	var done int
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for w := range opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for i := w; ctx.Err() == nil; i += opts.Concurrency {
				_, err := get(ctx, opts.Client, qs[i%len(qs)].URL(base))
				if err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
					}
					break
				}
				n++
			}
			mu.Lock()
			done += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(done) / time.Since(start).Seconds(), nil
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-14s %5s %6s %7s %10s %10s\n", "kind", "n", "metric", "score", "p50", "p99")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-14s %5d %6s %7.3f %10s %10s\n", row.Kind, row.N, row.Metric, row.Score,
			row.P50.Round(time.Microsecond), row.P99.Round(time.Microsecond))
	}
	if r.QPS > 0 {
		fmt.Fprintf(w, "throughput: %.0f queries/s at concurrency %d\n", r.QPS, r.Concurrency)
	}
	for _, row := range r.Rows {
		if len(row.Failed) > 0 {
			fmt.Fprintf(w, "not matched (%s): %s\n", row.Kind, strings.Join(row.Failed, " "))
		}
	}
}
