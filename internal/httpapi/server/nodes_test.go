package server

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newNode starts a server over its own data directory (holding the same
// tileset file as every other node's) and the shared PostgreSQL database
// dsn, following the other nodes' changes as Serve does.
func newNode(t *testing.T, dsn string, mutate ...func(*config.Config)) *testEnv {
	t.Helper()
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeVector(t, filepath.Join(tiles, "roads.mbtiles"))
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.AdminCredentials = token
	cfg.Watch = false
	cfg.DatabaseURL = dsn
	cfg.APIKeys = config.APIKeysRequired
	cfg.UsageFlushInterval = time.Hour // no flush during the test: the hot path's calls are counted
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.follow(ctx)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { cancel(); hs.Close(); srv.Close() })
	e := &testEnv{t: t, dir: dir, srv: srv, http: hs}
	await(t, 5*time.Second, "the change feed listens", func() bool { return srv.feed.Connected() })
	return e
}

// await polls cond until it holds, failing the test after within.
func await(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// status is the status of a GET on e.
func (e *testEnv) status(path string) int { return e.do("GET", path, nil).status }

// dbCalls reads tessera_db_calls_total from /metrics.
func (e *testEnv) dbCalls() int {
	e.t.Helper()
	m := regexp.MustCompile(`(?m)^tessera_db_calls_total (\d+)`).FindSubmatch(e.do("GET", "/metrics", nil).body)
	if m == nil {
		e.t.Fatal("no tessera_db_calls_total in /metrics")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestNodesShareChanges: three nodes over one PostgreSQL database, each
// with its own data directory. Changes made through one node hold on the
// others within a second, announced through the change feed; a node whose
// listening connection is killed reconnects, reloads and still hears later
// changes; the hot path (a key check and a cached tile) makes no database
// call.
func TestNodesShareChanges(t *testing.T) {
	dsn := pgtest.URL(t)
	a, b, c := newNode(t, dsn), newNode(t, dsn), newNode(t, dsn)
	const within = time.Second
	roadsA, _ := a.srv.Catalog.Get("roads")
	if roadsB, ok := b.srv.Catalog.Get("roads"); !ok || roadsB.ID != roadsA.ID {
		t.Fatalf("the nodes disagree on the tileset's record")
	}

	// A key created through A's account API works on B and C.
	tok := a.serviceToken("nodes")
	r := a.account("POST", "/api_keys", tok, nil)
	if r.status != 200 {
		t.Fatalf("create key: %d %s", r.status, r.body)
	}
	k := decodeJSON[accountKey](t, r.body)
	tile := "/tiles/roads/0/0/0.pbf?key=" + k.Token
	if s := a.status(tile); s != 200 {
		t.Fatalf("key on A: %d", s)
	}
	for _, n := range []*testEnv{b, c} {
		d := await(t, within, "the new key on another node", func() bool { return n.status(tile) == 200 })
		t.Logf("key created on A works on another node after %v", d)
	}

	// The hot path makes no database call: a key check and a cached tile.
	b.status(tile)
	before := b.dbCalls()
	for range 50 {
		if s := b.status(tile); s != 200 {
			t.Fatalf("tile on B: %d", s)
		}
	}
	if after := b.dbCalls(); after != before {
		t.Errorf("50 keyed, cached tile requests made %d database calls, want 0", after-before)
	}

	// A service token revoked through A is refused by B (tokens are
	// checked in the database on every account call).
	if r := b.account("GET", "/api_keys", tok, nil); r.status != 200 {
		t.Fatalf("token on B: %d %s", r.status, r.body)
	}
	list := decodeJSON[struct{ Items []struct{ ID string } }](t, a.admin("GET", "/tokens", nil).body)
	if len(list.Items) != 1 {
		t.Fatalf("tokens: %+v", list)
	}
	if r := a.admin("DELETE", "/tokens/"+list.Items[0].ID, nil); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	await(t, within, "the revoked token refused on B", func() bool { return b.account("GET", "/api_keys", tok, nil).status == 401 })
	tok = a.serviceToken("nodes-2")

	// A tileset unpublished through A is 404 on B and C, and back when
	// published again; a rename carries too.
	if r := a.admin("POST", "/tiles/"+roadsA.ID+"/unpublish", nil); r.status != 200 {
		t.Fatalf("unpublish: %d %s", r.status, r.body)
	}
	for _, n := range []*testEnv{b, c} {
		await(t, within, "the unpublished tileset gone from another node", func() bool { return n.status(tile) == 404 })
	}
	a.admin("POST", "/tiles/"+roadsA.ID+"/publish", nil)
	await(t, within, "the tileset published again on B", func() bool { return b.status(tile) == 200 })
	if r := a.admin("POST", "/tiles/"+roadsA.ID, map[string]any{"name": "streets"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.body)
	}
	await(t, within, "the rename on C", func() bool {
		return c.status("/tiles/streets/0/0/0.pbf?key="+k.Token) == 200 && c.status(tile) == 404
	})

	// The listener's connection killed: B reconnects, reloads everything
	// and hears the changes made after.
	pid := b.srv.feed.BackendPID()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed bool
	if err := admin.QueryRow(`SELECT pg_terminate_backend($1)`, int(pid)).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate the listener %d: %v %v", pid, killed, err)
	}
	await(t, 5*time.Second, "B's change feed back", func() bool { return b.srv.feed.Reconnects() >= 1 && b.srv.feed.Connected() })
	if r := b.do("GET", "/ready", nil); r.status != 200 || !strings.Contains(string(r.body), `"listening"`) {
		t.Errorf("ready after the reconnect: %d %s", r.status, r.body)
	}
	streets := "/tiles/streets/0/0/0.pbf?key=" + k.Token
	if r := a.account("DELETE", "/api_keys/"+k.ID, tok, nil); r.status != 200 {
		t.Fatalf("delete key: %d %s", r.status, r.body)
	}
	for _, n := range []*testEnv{b, c} {
		await(t, within, "the deleted key refused on another node", func() bool { return n.status(streets) == 403 })
	}
}

// withMap gives a node the map "city" (the same style file on every node).
func withMap(c *config.Config) {
	os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "city"), 0o755)
	os.WriteFile(filepath.Join(c.DataDir, MapsDir, "city", "style.json"), []byte(testStyle), 0o644)
}

// TestNodesShareTilesetsAndMaps: a remote tileset added through one node is
// served by the other within a second and gone from it when deleted; a
// map unpublished through one node is 404 on the other and back when
// published; a local tileset deleted through one node is gone from the
// other's catalog (its own copy of the file stays on its disk).
func TestNodesShareTilesetsAndMaps(t *testing.T) {
	archive := fixtures.Path(t, "fixtures/martin/tests/fixtures/pmtiles/png.pmtiles")
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, archive) }))
	defer remote.Close()
	dsn := pgtest.URL(t)
	loopback := func(c *config.Config) { c.RemoteAllow = []string{"127.0.0.0/8", "::1"}; c.APIKeys = config.APIKeysOff }
	a, b := newNode(t, dsn, loopback, withMap), newNode(t, dsn, loopback, withMap)
	const within = time.Second

	r := a.admin("POST", "/tiles/add", map[string]string{"storage": "http", "url": remote.URL + "/world/png.pmtiles"})
	if r.status != 200 {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	added := decodeJSON[summary](t, r.body)
	await(t, within, "the remote tileset on B", func() bool { return b.status("/tiles/png/0/0/0.png") == 200 })
	if r := a.admin("DELETE", "/tiles/"+added.ID, nil); r.status != 200 {
		t.Fatalf("delete remote: %d %s", r.status, r.body)
	}
	await(t, within, "the deleted remote tileset gone from B", func() bool { return b.status("/tiles/png/0/0/0.png") == 404 })

	if s := b.status("/maps/city/style.json"); s != 200 {
		t.Fatalf("map on B: %d", s)
	}
	if r := a.admin("POST", "/maps/city/unpublish", nil); r.status != 200 {
		t.Fatalf("unpublish map: %d %s", r.status, r.body)
	}
	await(t, within, "the unpublished map gone from B", func() bool { return b.status("/maps/city/style.json") == 404 })
	a.admin("POST", "/maps/city/publish", nil)
	await(t, within, "the map published again on B", func() bool { return b.status("/maps/city/style.json") == 200 })

	roads, _ := a.srv.Catalog.Get("roads")
	if r := a.admin("DELETE", "/tiles/"+roads.ID, nil); r.status != 200 {
		t.Fatalf("delete roads: %d %s", r.status, r.body)
	}
	await(t, within, "the deleted tileset gone from B", func() bool {
		_, ok := b.srv.Catalog.ByID(roads.ID)
		return !ok && b.status("/tiles/roads/0/0/0.pbf") == 404
	})
	if _, err := os.Stat(filepath.Join(b.dir, TilesDir, "roads.mbtiles")); err != nil {
		t.Errorf("B's own copy of the file: %v", err)
	}
}

// TestNodeReadiness: /health stays alive while /ready says whether the
// state database answers; a node that lost its database keeps serving
// what it loaded and says it is degraded.
func TestNodeReadiness(t *testing.T) {
	dsn := pgtest.URL(t)
	n := newNode(t, dsn)
	tok := n.serviceToken("ready")
	k := decodeJSON[accountKey](t, n.account("POST", "/api_keys", tok, nil).body)
	tile := "/tiles/roads/0/0/0.pbf?key=" + k.Token
	if s := n.status(tile); s != 200 {
		t.Fatalf("tile: %d", s)
	}
	r := n.do("GET", "/ready", nil)
	rd := decodeJSON[Readiness](t, r.body)
	if r.status != 200 || rd != (Readiness{Status: "ready", Database: "ok", ChangeFeed: "listening", Storage: "none", Loaded: true}) {
		t.Fatalf("ready: %d %s", r.status, r.body)
	}
	// The database dropped (its connections with it): PostgreSQL is gone
	// for this node.
	u, _ := url.Parse(dsn)
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
	await(t, 5*time.Second, "the change feed down", func() bool { return !n.srv.feed.Connected() })
	r = n.do("GET", "/ready", nil)
	rd = decodeJSON[Readiness](t, r.body)
	if r.status != 503 || rd.Status != "degraded" || rd.Database == "ok" || rd.ChangeFeed != "down" || !rd.Loaded {
		t.Errorf("ready without the database: %d %s", r.status, r.body)
	}
	if s := n.status("/health"); s != 200 {
		t.Errorf("health without the database: %d", s)
	}
	// What was loaded is still served: the key and the tile.
	if s := n.status(tile); s != 200 {
		t.Errorf("tile without the database: %d", s)
	}
}

// TestReadySQLite: one node on SQLite is ready without a change feed.
func TestReadySQLite(t *testing.T) {
	e := newEnv(t, nil)
	r := e.do("GET", "/ready", nil)
	if rd := decodeJSON[Readiness](t, r.body); r.status != 200 || rd.ChangeFeed != "none" || rd.Database != "ok" {
		t.Errorf("ready: %d %s", r.status, r.body)
	}
}

// TestNodeDatabaseCallsPerThousandTiles is the cost model's database side:
// 1,000 keyed tile requests over every tile of a local tileset (the first
// pass cold, then warm) make no database call; the usage counts they add
// are written by one flush whose statements do not grow with the number
// of requests.
func TestNodeDatabaseCallsPerThousandTiles(t *testing.T) {
	n := newNode(t, pgtest.URL(t))
	tok := n.serviceToken("cost")
	k := decodeJSON[accountKey](t, n.account("POST", "/api_keys", tok, nil).body)
	var tiles []string
	for z := 0; z <= 3; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				tiles = append(tiles, fmt.Sprintf("/tiles/roads/%d/%d/%d.pbf?key=%s", z, x, y, k.Token))
			}
		}
	}
	ctx := context.Background()
	if err := n.srv.meter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	flush := func(requests int) uint64 {
		before := n.srv.db.Calls()
		for i := range requests {
			if s := n.status(tiles[i%len(tiles)]); s != 200 && s != 204 {
				t.Fatalf("%s: %d", tiles[i%len(tiles)], s)
			}
		}
		if d := n.srv.db.Calls() - before; d != 0 {
			t.Errorf("%d tile requests made %d database calls, want 0", requests, d)
		}
		before = n.srv.db.Calls()
		if err := n.srv.meter.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		return n.srv.db.Calls() - before
	}
	big := flush(1000)
	small := flush(10)
	t.Logf("1,000 tile requests (%d tiles, cold then warm): 0 database calls; their usage flush: %d statements (10 requests: %d)", len(tiles), big, small)
	if big == 0 || big != small {
		t.Errorf("a flush of 1,000 requests' counts took %d statements, of 10 requests' %d: want the same, more than 0", big, small)
	}
}

// BenchmarkKeyChangeReachesNode: a key created through node A, until node
// B's snapshot holds it (the commit, NOTIFY, and B's reload of every key);
// ns/op is the time a change takes to reach another node.
func BenchmarkKeyChangeReachesNode(b *testing.B) {
	dsn := pgtest.URL(b)
	var nodes [2]*Server
	for i := range nodes {
		cfg := config.Default()
		cfg.DataDir, cfg.AdminCredentials, cfg.Watch, cfg.DatabaseURL = b.TempDir(), token, false, dsn
		srv, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		srv.follow(ctx)
		b.Cleanup(func() { cancel(); srv.Close() })
		for !srv.feed.Connected() {
			time.Sleep(time.Millisecond)
		}
		nodes[i] = srv
	}
	a, n := nodes[0], nodes[1]
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		want := n.keys.Snapshot().Len() + 1
		if _, err := a.keys.Create(ctx, apikey.Settings{}); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for n.keys.Snapshot().Len() < want {
			if time.Now().After(deadline) {
				b.Fatalf("key %d not on node B within 5 s", i)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}
