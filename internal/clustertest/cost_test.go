package clustertest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tesseramaps/tessera/internal/pgtest"
)

var (
	dbCallsLine = regexp.MustCompile(`(?m)^tessera_db_calls_total (\d+)`)
	s3CallsLine = regexp.MustCompile(`(?m)^tessera_s3_calls_total\{operation="([^"]+)"\} (\d+)`)
)

// calls reads a node's database and S3 call counters from /metrics.
func (c *Cluster) calls(n *Node) (db, s3 int64) {
	c.t.Helper()
	body := c.do("GET", n.URL()+"/metrics", nil).body
	m := dbCallsLine.FindSubmatch(body)
	if m == nil {
		c.t.Fatalf("no tessera_db_calls_total in the metrics of %s", n.Name)
	}
	db, _ = strconv.ParseInt(string(m[1]), 10, 64)
	for _, m := range s3CallsLine.FindAllSubmatch(body, -1) {
		v, _ := strconv.ParseInt(string(m[2]), 10, 64)
		s3 += v
	}
	return db, s3
}

// s3Ops lists a node's S3 calls by operation.
func (c *Cluster) s3Ops(n *Node) string {
	c.t.Helper()
	var ops []string
	for _, m := range s3CallsLine.FindAllSubmatch(c.do("GET", n.URL()+"/metrics", nil).body, -1) {
		ops = append(ops, string(m[1])+" "+string(m[2]))
	}
	return strings.Join(ops, ", ")
}

// rssKiB is the resident memory of a node's process.
func (n *Node) rssKiB(t testing.TB) int64 {
	t.Helper()
	n.mu.Lock()
	pid := n.cmd.Process.Pid
	n.mu.Unlock()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	m := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	v, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return v
}

// addRemoteArchive puts the roads tileset as PMTiles in S3 and records it
// through base as the tileset "remote"; it returns its name.
func (c *Cluster) addRemoteArchive(t testing.TB, base string) string {
	t.Helper()
	archive := filepath.Join(t.TempDir(), "remote.pmtiles")
	if out, err := exec.Command(c.bin, "convert", filepath.Join(c.Nodes[0].Dir, "tiles", "roads.mbtiles"), archive).CombinedOutput(); err != nil {
		t.Fatalf("tessera convert: %v: %s", err, out)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(c.S3Root, bucket, "shared"), 0o755)
	if err := os.WriteFile(filepath.Join(c.S3Root, bucket, "shared", "remote.pmtiles"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.admin(base, "POST", "/tiles/add", map[string]any{"storage": "s3",
		"url": "s3://" + bucket + "/shared/remote.pmtiles?endpoint=" + c.S3 + "&region=us-east-1&path_style=true"})
	if r.status != 200 {
		t.Fatalf("add remote: %d %s", r.status, r.body)
	}
	return decode[struct{ Name string }](t, r.body).Name
}

// TestCostPerThousandTiles measures the cost model of docs/scaling.md on
// one node of a running cluster: the database and S3 calls of 1,000 keyed
// tile requests, cold (just started) and warm (the same requests again),
// of a local archive and of a PMTiles archive in S3; the resident memory
// of each node after that; and the database connections the nodes hold.
// The hot path must make no database call, and warm requests no S3 call:
// the only database calls in the window are the two workers' looks for
// work (the dataset ingests' and the pre-render jobs': one statement each
// per poll, 5 s with the lease of 10 s set here), which the test allows
// for by the time the requests took.
func TestCostPerThousandTiles(t *testing.T) {
	// No usage flush during the measurement (it is 3 statements per
	// interval, whatever the traffic).
	c := startCluster(t, options{emptyData: -1, env: []string{"TESSERA_USAGE_FLUSH_INTERVAL=1h", "TESSERA_INGEST_LEASE=10s"}})
	const poll = 5 * time.Second
	_, secret := c.serviceToken(c.LB, "cost")
	_, key := c.apiKey(c.LB, secret)
	remote := c.addRemoteArchive(t, c.LB)
	n := c.Nodes[1]
	// The node starts again with an empty data directory: nothing of the
	// archives is cached, everything comes from S3.
	n.Signal(t, syscall.SIGTERM)
	if err := os.RemoveAll(n.Dir); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(n.Dir, 0o755)
	n.Start(t)
	n.AwaitReady(t, 30*time.Second)
	// Its start-up work (the change feed's first reload, the usage
	// analytics' warm-up, the expiry of old uploads, the copy of the
	// shared files) is over when its calls stop moving.
	lastDB, lastS3 := c.calls(n)
	await(t, 20*time.Second, "the node's start-up calls end", func() bool {
		time.Sleep(500 * time.Millisecond)
		db, s3 := c.calls(n)
		settled := db == lastDB && s3 == lastS3
		lastDB, lastS3 = db, s3
		return settled
	})
	var report strings.Builder
	fmt.Fprintf(&report, "start with an empty data directory: %d database calls, %d S3 calls (%s)\n", lastDB, lastS3, c.s3Ops(n))

	paths := func(name string) []string {
		rng := rand.New(rand.NewPCG(1, 2))
		out := make([]string, 1000)
		for i := range out {
			z := rng.IntN(5)
			out[i] = fmt.Sprintf("%s/tiles/%s/%d/%d/%d.pbf?key=%s", n.URL(), name, z, rng.IntN(1<<z), rng.IntN(1<<z), key)
		}
		return out
	}
	for _, name := range []string{"roads", remote} {
		for _, pass := range []string{"cold", "warm"} {
			db0, s30 := c.calls(n)
			start := time.Now()
			ok := 0
			for _, p := range paths(name) {
				if s := c.status(p); s == 200 || s == 204 {
					ok++
				}
			}
			db1, s31 := c.calls(n)
			polls := 2 * (int64(time.Since(start)/poll) + 1) // two workers
			if ok != 1000 {
				t.Fatalf("%s %s: %d of 1000 tile requests answered 200/204", name, pass, ok)
			}
			fmt.Fprintf(&report, "%s, %s: %d database calls (the workers' polls in %v: at most %d), %d S3 calls per 1,000 tile requests\n",
				name, pass, db1-db0, time.Since(start).Round(time.Millisecond), polls, s31-s30)
			if db1-db0 > polls {
				t.Errorf("%s %s: %d database calls, more than the workers' %d polls: the hot path called the database", name, pass, db1-db0, polls)
			}
			if pass == "warm" && s31 != s30 {
				t.Errorf("%s warm: %d S3 calls, want 0 (the tiles are cached)", name, s31-s30)
			}
			if name == "roads" && s31 != s30 {
				t.Errorf("a local archive made %d S3 calls", s31-s30)
			}
		}
	}
	for _, node := range c.Nodes {
		fmt.Fprintf(&report, "%s: resident memory %.1f MiB\n", node.Name, float64(node.rssKiB(t))/1024)
	}
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var conns, listeners int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE pid <> pg_backend_pid()), count(*) FILTER (WHERE query LIKE 'LISTEN%' OR query LIKE 'listen%') FROM pg_stat_activity WHERE datname = current_database()`).Scan(&conns, &listeners); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&report, "database connections held by %d nodes: %d (%d of them listening)\n", len(c.Nodes), conns, listeners)
	t.Log("\n" + report.String())
}

var receivedLine = regexp.MustCompile(`(?m)^tessera_changes_received_total (\d+)`)

// received reads how many other nodes' changes a node applied.
func (c *Cluster) received(n *Node) int64 {
	c.t.Helper()
	m := receivedLine.FindSubmatch(c.do("GET", n.URL()+"/metrics", nil).body)
	if m == nil {
		c.t.Fatalf("no tessera_changes_received_total in the metrics of %s", n.Name)
	}
	v, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return v
}

// BenchmarkChangeFanout: b.N key changes made through node 1 by eight
// clients at once (each changing its own key), until nodes 2 and 3 have
// applied them all (each hears the
// NOTIFY and reads the changed key: one query). It reports the changes a
// second the three nodes sustain and the database calls each change costs
// a node that applies it.
//
//	go test ./internal/clustertest -run '^$' -bench ChangeFanout -benchtime 500x
func BenchmarkChangeFanout(b *testing.B) {
	c := startCluster(b, options{emptyData: -1, env: []string{"TESSERA_USAGE_FLUSH_INTERVAL=1h", "TESSERA_INGEST_LEASE=1h"}})
	a, others := c.Nodes[0], c.Nodes[1:]
	_, secret := c.serviceToken(a.URL(), "fanout")
	const clients = 8
	keys := make([]string, clients)
	for i := range keys {
		keys[i], _ = c.apiKey(a.URL(), secret)
	}
	before := make([]int64, len(others))
	dbBefore := make([]int64, len(others))
	for i, n := range others {
		before[i] = c.received(n)
		dbBefore[i], _ = c.calls(n)
	}
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				// Not c.account: it may end the benchmark, which only
				// its own goroutine may do.
				body := strings.NewReader(`{"description": "` + strconv.FormatInt(i, 10) + `"}`)
				req, _ := http.NewRequest("POST", a.URL()+"/v1/api_keys/"+keys[w]+"/change_settings", body)
				req.Header.Set("Authorization", "Token "+secret)
				req.Header.Set("Content-Type", "application/json")
				res, err := c.client.Do(req)
				if err != nil {
					b.Errorf("change: %v", err)
					return
				}
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Errorf("change: %d", res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, n := range others {
		await(b, time.Minute, "every change on "+n.Name, func() bool { return c.received(n)-before[i] >= int64(b.N) })
	}
	b.StopTimer()
	var calls int64
	for i, n := range others {
		db, _ := c.calls(n)
		calls += db - dbBefore[i]
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "changes/s")
	b.ReportMetric(float64(calls)/float64(b.N*len(others)), "db-calls/change/node")
}

// BenchmarkNotifyRate: what PostgreSQL's NOTIFY alone sustains, the
// change feed's first limit: eight connections send b.N notifications of
// the change feed's size ("apikey <node> <id>", each its own transaction)
// while L listening connections (one per node) each receive all of them.
// It reports notifications a second and, for L nodes, deliveries a second.
//
//	go test ./internal/clustertest -run '^$' -bench NotifyRate -benchtime 20000x
func BenchmarkNotifyRate(b *testing.B) {
	dsn := pgtest.URL(b)
	for _, listeners := range []int{1, 3, 10} {
		b.Run(fmt.Sprintf("listeners=%d", listeners), func(b *testing.B) {
			ctx := context.Background()
			var wg sync.WaitGroup
			ready := make(chan error, listeners)
			for range listeners {
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close(ctx)
				if _, err := conn.Exec(ctx, "LISTEN bench"); err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					ready <- nil
					wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
					defer cancel()
					for range b.N {
						if _, err := conn.WaitForNotification(wctx); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			for range listeners {
				<-ready
			}
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(8)
			payload := "apikey " + strings.Repeat("n", 32) + " " + strings.Repeat("k", 36)
			var next atomic.Int64
			b.ResetTimer()
			var senders sync.WaitGroup
			for range 8 {
				senders.Add(1)
				go func() {
					defer senders.Done()
					for next.Add(1) <= int64(b.N) {
						if _, err := db.ExecContext(ctx, "SELECT pg_notify('bench', $1)", payload); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			senders.Wait()
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notifies/s")
			b.ReportMetric(float64(b.N*listeners)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}
