package geoeval

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScore(t *testing.T) {
	paris := Query{ID: "p", Kind: "forward", ExpectName: "Paris", ExpectCountry: "FR", ExpectLonLat: []float64{2.35, 48.85}, ToleranceKM: 25}
	tests := []struct {
		name string
		q    Query
		body string
		want bool
	}{
		{"name and country", paris, `{"features":[{"text":"Paris","properties":{"country_code":"fr"}}]}`, true},
		{"accents and case", Query{Kind: "forward", ExpectName: "Zürich", ExpectCountry: "CH"}, `{"features":[{"text":"ZURICH","properties":{"country_code":"CH"}}]}`, true},
		{"country from context", paris, `{"features":[{"text":"Paris","properties":{},"context":[{"id":"country.250","properties":{"country_code":"FR"}}]}]}`, true},
		{"text_xx", paris, `{"features":[{"text":"Parigi","text_fr":"Paris","properties":{"country_code":"FR"}}]}`, true},
		{"near enough", paris, `{"features":[{"text":"Paris 1er","center":[2.34,48.86],"properties":{"country_code":"FR"}}]}`, true},
		{"too far", paris, `{"features":[{"text":"Paris, Texas","center":[-95.55,33.66],"properties":{"country_code":"US"}}]}`, false},
		{"wrong country", paris, `{"features":[{"text":"Paris","properties":{"country_code":"US"}}]}`, false},
		{"second result, top1", paris, `{"features":[{"text":"Lyon","properties":{"country_code":"FR"}},{"text":"Paris","properties":{"country_code":"FR"}}]}`, false},
		{"second result, autocomplete", Query{Kind: "autocomplete", ExpectName: "Paris", ExpectCountry: "FR"}, `{"features":[{"text":"Lyon","properties":{"country_code":"FR"}},{"text":"Paris","properties":{"country_code":"FR"}}]}`, true},
		{"no features", paris, `{"features":[]}`, false},
	}
	for _, tt := range tests {
		got, err := tt.q.Score([]byte(tt.body))
		if err != nil || got != tt.want {
			t.Errorf("%s: Score = %v, %v", tt.name, got, err)
		}
	}
	if _, err := paris.Score([]byte("<html>")); err == nil {
		t.Error("non-JSON answer: want an error")
	}
}

func TestDistance(t *testing.T) {
	// Paris to London, about 344 km.
	if d := Distance(2.3522, 48.8566, -0.1276, 51.5072); d < 340 || d > 348 {
		t.Errorf("Paris-London = %.1f km", d)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "q.jsonl")
	os.WriteFile(file, []byte(`{"id":"a","q":"Paris","kind":"forward","params":{"language":"fr"},"expect_name":"Paris","expect_country":"FR"}
{"id":"b","q":"2.35,48.85","kind":"reverse","expect_name":"Paris","expect_country":"FR"}
{"id":"c","q":"Lyon; x","kind":"forward","expect_name":"Lyon","expect_country":"FR"}
`), 0o644)
	qs, err := Load(file)
	if err != nil || len(qs) != 3 {
		t.Fatalf("Load: %d, %v", len(qs), err)
	}
	// The throughput phase calls the handler from several connections at
	// once: the record of requests is shared, so it is guarded.
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.RequestURI())
		mu.Unlock()
		if strings.Contains(r.URL.EscapedPath(), "Lyon") {
			w.Write([]byte(`{"features":[{"text":"Lyons","properties":{"country_code":"FR"}}]}`))
			return
		}
		w.Write([]byte(`{"features":[{"text":"Paris","properties":{"country_code":"FR"}}]}`))
	}))
	defer srv.Close()
	rep, err := Run(context.Background(), srv.URL, qs, Options{ThroughputFor: 200 * time.Millisecond, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Close waits for handlers still running after the throughput phase gave
	// up on them, so the record is complete and no longer written.
	srv.Close()
	if len(paths) < 3 {
		t.Fatalf("requests = %v, want at least the 3 queries", paths)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Kind != "forward" || rep.Rows[0].Score != 0.5 || rep.Rows[1].Score != 1 || rep.QPS <= 0 {
		t.Errorf("report = %+v", rep)
	}
	if paths[0] != "/geocoding/Paris.json?language=fr" || paths[2] != "/geocoding/Lyon%3B%20x.json" {
		t.Errorf("requests = %v", paths[:3])
	}
	var out bytes.Buffer
	rep.Print(&out)
	if !strings.Contains(out.String(), "not matched (forward): c") {
		t.Errorf("report text:\n%s", out.String())
	}
}
