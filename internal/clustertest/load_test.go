package clustertest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// loadResult is what the clients of one phase saw.
type loadResult struct {
	mu      sync.Mutex
	served  map[string]int64 // 2xx and 304 answers by kind
	bad     []string         // any other answer or a failed request
	etags   map[string]string
	revalid atomic.Int64 // 304 answers
}

func (l *loadResult) total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, v := range l.served {
		n += v
	}
	return n
}

// load sends tile, raster and geocoding requests with key through base
// from workers goroutines, each at most one request per pace, until ctx
// ends. Tiles are asked again with the ETag seen before now and then, for
// 304 answers.
func load(ctx context.Context, base, key string, workers int, pace time.Duration) *loadResult {
	res := &loadResult{served: map[string]int64{}, etags: map[string]string{}}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers, DisableCompression: true}}
	places := []string{"northtown", "southtown", "squareland", "north", "south"}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			tick := time.NewTicker(pace)
			defer tick.Stop()
			for i := 0; ctx.Err() == nil; i++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				var kind, path string
				switch i % 3 {
				case 0:
					z := rng.IntN(5)
					kind, path = "tile", fmt.Sprintf("/tiles/roads/%d/%d/%d.pbf", z, rng.IntN(1<<z), rng.IntN(1<<z))
				case 1:
					z := rng.IntN(3)
					kind, path = "raster", fmt.Sprintf("/maps/city/256/%d/%d/%d.png", z, rng.IntN(1<<z), rng.IntN(1<<z))
				default:
					kind, path = "geocoding", "/geocoding/"+places[rng.IntN(len(places))]+".json"
				}
				req, _ := http.NewRequest("GET", base+path+"?key="+key, nil)
				res.mu.Lock()
				if etag := res.etags[path]; etag != "" && rng.IntN(2) == 0 {
					req.Header.Set("If-None-Match", etag)
				}
				res.mu.Unlock()
				r, err := client.Do(req)
				if err != nil {
					if ctx.Err() != nil {
						return // the phase ended during the request: not sent to count
					}
					res.mu.Lock()
					res.bad = append(res.bad, fmt.Sprintf("%s: %v", path, err))
					res.mu.Unlock()
					continue
				}
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				res.mu.Lock()
				switch {
				case r.StatusCode >= 200 && r.StatusCode < 300 || r.StatusCode == http.StatusNotModified:
					res.served[kind]++
					if r.StatusCode == http.StatusNotModified {
						res.revalid.Add(1)
					}
					if etag := r.Header.Get("ETag"); etag != "" {
						res.etags[path] = etag
					}
				default:
					res.bad = append(res.bad, fmt.Sprintf("%s: %d", path, r.StatusCode))
				}
				res.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res
}

// phase runs load for d while disrupt runs (started at once); it returns
// what the clients saw.
func (c *Cluster) phase(t *testing.T, d time.Duration, key string, disrupt func()) *loadResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan *loadResult)
	// Six clients at 100 requests a second each at most: the machine
	// that runs the tests is shared.
	go func() { done <- load(ctx, c.LB, key, 6, 10*time.Millisecond) }()
	disrupt()
	return <-done
}

// usageOf sums what the nodes counted in the database for a key.
func (c *Cluster) usageOf(t *testing.T, keyID string) int64 {
	t.Helper()
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT COALESCE(SUM(value), 0) FROM usage_counts WHERE key_id = $1`, keyID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLoadWhileNodesStop: 60 s of tile, raster and geocoding requests
// through nginx, in two phases of 30 s. In the first a node is killed with
// SIGKILL and started again; in the second a node is stopped with SIGTERM
// and started again. No client ever sees an answer other than 2xx or 304.
// The usage counts of the second phase's key add up exactly to the
// answers the clients got (a graceful stop flushes what the node counted);
// those of the first phase's key may miss what the killed node had
// counted since its last flush (one usage_flush_interval, 1 s here), by
// design, and never exceed what was served.
func TestLoadWhileNodesStop(t *testing.T) {
	c := startCluster(t, options{emptyData: -1})
	_, secret := c.serviceToken(c.LB, "load")
	killKey, killToken := c.apiKey(c.LB, secret)
	termKey, termToken := c.apiKey(c.LB, secret)
	// Every node knows both keys; the answers of these checks are counted
	// too, under each key.
	var checkedTerm, checkedKill int64
	for _, n := range c.Nodes {
		await(t, within, "keys on "+n.Name, func() bool {
			if c.status(n.URL()+"/tiles/roads/0/0/0.pbf?key="+termToken) != 200 {
				return false
			}
			checkedTerm++
			if c.status(n.URL()+"/tiles/roads/0/0/0.pbf?key="+killToken) != 200 {
				return false
			}
			checkedKill++
			return true
		})
	}
	const half = 30 * time.Second
	bounce := func(n *Node, sig syscall.Signal) func() {
		return func() {
			time.Sleep(8 * time.Second) // load on three nodes first
			n.Signal(t, sig)
			t.Logf("%s stopped with %v", n.Name, sig)
			time.Sleep(6 * time.Second) // load on two nodes
			n.Start(t)
			n.AwaitReady(t, 30*time.Second)
			t.Logf("%s started again", n.Name)
		}
	}
	killed := c.phase(t, half, killToken, bounce(c.Nodes[1], syscall.SIGKILL))
	termed := c.phase(t, half, termToken, bounce(c.Nodes[2], syscall.SIGTERM))
	// Every node stops gracefully: its counts are flushed.
	for _, n := range c.Nodes {
		n.Signal(t, syscall.SIGTERM)
	}

	for name, r := range map[string]*loadResult{"SIGKILL phase": killed, "SIGTERM phase": termed} {
		t.Logf("%s: %v answers served (%d of them 304), %d not", name, r.served, r.revalid.Load(), len(r.bad))
		if len(r.bad) > 0 {
			t.Errorf("%s: %d answers other than 2xx/304 reached the clients, first: %v", name, len(r.bad), r.bad[:min(5, len(r.bad))])
		}
		for _, kind := range []string{"tile", "raster", "geocoding"} {
			if r.served[kind] == 0 {
				t.Errorf("%s: no %s answers", name, kind)
			}
		}
	}
	if got, want := c.usageOf(t, termKey), termed.total()+checkedTerm; got != want {
		t.Errorf("SIGTERM phase: the nodes counted %d requests, the clients got %d answers", got, want)
	} else {
		t.Logf("SIGTERM phase: %d requests counted, as many as served", got)
	}
	// The checks' answers count here too: left out, a kill just after a
	// flush (fewer lost than the checks) read as more counted than served.
	got, want := c.usageOf(t, killKey), killed.total()+checkedKill
	t.Logf("SIGKILL phase: %d requests counted of %d served (%d lost with the killed node's unflushed counts)", got, want, want-got)
	if got > want || got == 0 {
		t.Errorf("SIGKILL phase: %d counted for %d served", got, want)
	}
}
