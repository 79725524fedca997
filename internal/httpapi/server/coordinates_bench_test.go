package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tesseramaps/tessera/internal/coords"
	"github.com/tesseramaps/tessera/internal/fixtures"
)

// BenchmarkCoordinatesHTTP is the p99 of coordinates requests over HTTP on
// loopback at concurrency 8 (keep-alive connections, the whole middleware
// stack): searches (limit 50, transformations) and transforms of 50 points.
func BenchmarkCoordinatesHTTP(b *testing.B) {
	if _, err := coords.FindDatabase(); err != nil {
		b.Skip(err)
	}
	t := &testing.T{}
	e := newEnv(t, nil)
	if t.Failed() {
		b.Fatal("setup failed")
	}
	hs := httptest.NewServer(e.srv.Handler())
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	get := func(path string) error {
		resp, err := client.Get(hs.URL + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %d", path, resp.StatusCode)
		}
		return nil
	}
	searches := coordinateSearches
	transform := transform50Path()
	b.Run("search", func(b *testing.B) {
		for _, q := range searches { // the index is read on first use
			if err := get("/coordinates/search/" + q + ".json?limit=50&transformations=true"); err != nil {
				b.Fatal(err)
			}
		}
		fixtures.Latency(b, 8, func(i int) error {
			return get("/coordinates/search/" + searches[i%len(searches)] + ".json?limit=50&transformations=true")
		})
	})
	b.Run("transform50", func(b *testing.B) {
		if !coords.Available {
			b.Skip("built without PROJ (-tags proj)")
		}
		for range 64 { // every PROJ context makes its transformer
			if err := get(transform); err != nil {
				b.Fatal(err)
			}
		}
		fixtures.Latency(b, 8, func(int) error { return get(transform) })
	})
}
