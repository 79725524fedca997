package clustertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/ingest"
	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/tiler"
)

var binDir string // where the tessera binary is built (removed by TestMain)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// The admin token and S3 credentials every node of a test cluster shares.
const (
	adminToken = "cluster-admin-token"
	s3Access   = "clusteraccess"
	s3Secret   = "clustersecret0123456789"
	bucket     = "tessera"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// tesseraBinary builds ./cmd/tessera from this tree once per test binary.
func tesseraBinary(t testing.TB) string {
	t.Helper()
	goBin := fixtures.Tool(t, "go")
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "tessera-cluster-bin-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(binDir, "tessera")
		cmd := exec.Command(goBin, "build", "-o", builtBin, "./cmd/tessera")
		cmd.Dir = fixtures.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/tessera: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// Cluster is a running deployment: the database, S3, the nodes and nginx.
type Cluster struct {
	t      testing.TB
	bin    string
	DSN    string // the state database
	S3     string // versitygw's endpoint
	S3Root string // versitygw's folder: one sub-folder per bucket
	Nodes  []*Node
	LB     string // nginx: http://127.0.0.1:port
	client *http.Client
	nginx  *exec.Cmd
	ngDir  string
}

// Node is one `tessera serve` process.
type Node struct {
	Name string
	Dir  string // its data directory
	Addr string // 127.0.0.1:port, kept across restarts
	env  []string
	bin  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	log    *fixtures.SyncBuffer
	past   []string // what the node wrote in its earlier runs
	exited chan struct{}
}

// URL is the node's base URL.
func (n *Node) URL() string { return "http://" + n.Addr }

// Log is what the node wrote since it was last started.
func (n *Node) Log() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.log.String()
}

// Logs is everything the node wrote, each run under a heading.
func (n *Node) Logs() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b strings.Builder
	for i, l := range append(slices.Clone(n.past), n.log.String()) {
		fmt.Fprintf(&b, "===== %s (%s), run %d =====\n%s", n.Name, n.Addr, i+1, l)
	}
	return b.String()
}

// options tune a test cluster.
type options struct {
	nodes int
	// emptyData leaves a node's data directory empty (index), or -1.
	emptyData int
	env       []string
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startCluster starts PostgreSQL (a new database), versitygw, the nodes
// and nginx, and stops them when the test ends.
func startCluster(t testing.TB, o options) *Cluster {
	t.Helper()
	if o.nodes == 0 {
		o.nodes = 3
	}
	nginxBin := fixtures.Tool(t, "nginx")
	c := &Cluster{t: t, bin: tesseraBinary(t), DSN: pgtest.URL(t),
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64}}}
	c.S3, c.S3Root = fixtures.VersityGW(t, s3Access, s3Secret)
	if err := os.Mkdir(filepath.Join(c.S3Root, bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	seed := t.TempDir()
	writeData(t, seed)
	for i := range o.nodes {
		n := &Node{Name: fmt.Sprintf("node%d", i+1), Dir: filepath.Join(t.TempDir(), "data"), Addr: freeAddr(t), bin: c.bin}
		if i != o.emptyData || o.emptyData < 0 {
			if err := os.CopyFS(n.Dir, os.DirFS(seed)); err != nil {
				t.Fatal(err)
			}
		} else if err := os.MkdirAll(n.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		n.env = append([]string{
			"TESSERA_DATABASE_URL=" + c.DSN,
			"TESSERA_STORAGE_URL=s3://" + bucket + "/cluster?endpoint=" + c.S3 + "&region=us-east-1&path_style=true",
			"AWS_ACCESS_KEY_ID=" + s3Access, "AWS_SECRET_ACCESS_KEY=" + s3Secret,
			"TESSERA_ADMIN_CREDENTIALS=" + adminToken,
			"TESSERA_WATCH=false",
			"TESSERA_TRUSTED_PROXIES=127.0.0.1",
			"TESSERA_REMOTE_ALLOW=127.0.0.1",
			"TESSERA_API_KEYS=required",
			"TESSERA_USAGE_FLUSH_INTERVAL=1s",
			"TESSERA_INGEST_LEASE=2s",
			"TESSERA_TILE_CACHE_MB=16",
			"TESSERA_RENDER_CACHE_MB=16",
		}, o.env...)
		c.Nodes = append(c.Nodes, n)
	}
	// The nodes start at once (one migrates the schema, the others wait
	// on its lock); a node with an empty data directory starts when the
	// others are ready, so that it finds their files in S3.
	for i, n := range c.Nodes {
		if i != o.emptyData {
			n.Start(t)
		}
	}
	for i, n := range c.Nodes {
		if i != o.emptyData {
			n.AwaitReady(t, 60*time.Second)
		}
	}
	if o.emptyData >= 0 {
		c.Nodes[o.emptyData].Start(t)
		c.Nodes[o.emptyData].AwaitReady(t, 60*time.Second)
	}
	c.startNginx(t, nginxBin)
	// A test about to hit go test's -timeout (which panics, and runs no
	// clean-up) keeps the logs first.
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			timer := time.AfterFunc(time.Until(end)-20*time.Second, func() {
				dir, err := c.keepLogs()
				fmt.Fprintf(os.Stderr, "clustertest: %s is about to time out; the logs of its nodes and nginx are in %s (%v)\n", t.Name(), dir, err)
			})
			t.Cleanup(func() { timer.Stop() })
		}
	}
	t.Cleanup(func() {
		for _, n := range c.Nodes {
			n.Kill()
		}
		if t.Failed() {
			for _, n := range c.Nodes {
				t.Logf("log of %s (the end of its last run):\n%s", n.Name, tail(n.Log(), 4000))
			}
			if b, err := os.ReadFile(filepath.Join(c.ngDir, "error.log")); err == nil {
				t.Logf("nginx error.log:\n%s", tail(string(b), 4000))
			}
			dir, err := c.keepLogs()
			if err != nil {
				t.Logf("keep the logs: %v", err)
			}
			t.Logf("the whole logs of the nodes (every run) and nginx (error and access) are kept in %s", dir)
		}
	})
	return c
}

// keepLogs writes every node's whole log (all its runs) and nginx's error
// and access logs into a new folder that outlives the test, and returns
// the folder.
func (c *Cluster) keepLogs() (string, error) {
	dir, err := os.MkdirTemp("", "tessera-cluster-logs-")
	if err != nil {
		return "", err
	}
	var errs []error
	for _, n := range c.Nodes {
		errs = append(errs, os.WriteFile(filepath.Join(dir, n.Name+".log"), []byte(n.Logs()), 0o644))
	}
	for _, f := range []string{"error.log", "access.log"} {
		if b, err := os.ReadFile(filepath.Join(c.ngDir, f)); err == nil {
			errs = append(errs, os.WriteFile(filepath.Join(dir, "nginx-"+f), b, 0o644))
		}
	}
	return dir, errors.Join(errs...)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// Start starts the node's process (again).
func (n *Node) Start(t testing.TB) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.log != nil {
		n.past = append(n.past, n.log.String())
	}
	n.log = &fixtures.SyncBuffer{}
	cmd := exec.Command(n.bin, "serve", "--data", n.Dir, "--listen", n.Addr)
	cmd.Env = append(os.Environ(), n.env...)
	cmd.Stdout, cmd.Stderr = n.log, n.log
	// The node dies with the test process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", n.Name, err)
	}
	n.cmd, n.exited = cmd, make(chan struct{})
	exited := n.exited
	go func() { cmd.Wait(); close(exited) }()
}

// AwaitReady waits until GET /ready answers 200.
func (n *Node) AwaitReady(t testing.TB, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	cl := &http.Client{Timeout: 2 * time.Second}
	for {
		res, err := cl.Get(n.URL() + "/ready")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		n.mu.Lock()
		exited := n.exited
		n.mu.Unlock()
		select {
		case <-exited:
			t.Fatalf("%s exited while starting:\n%s", n.Name, tail(n.Log(), 4000))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready within %v:\n%s", n.Name, within, tail(n.Log(), 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Signal sends sig to the node and waits for the process to end.
func (n *Node) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.mu.Unlock()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %s: %v", n.Name, err)
	}
	select {
	case <-exited:
	case <-time.After(40 * time.Second):
		t.Fatalf("%s did not end within 40 s of %v", n.Name, sig)
	}
}

// Kill ends the node at once, if it runs.
func (n *Node) Kill() {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
}

// nodeLines matches the upstream's server lines of deploy/nginx.conf.
var (
	nodeLines = regexp.MustCompile(`(?m)^(\s*)server 127\.0\.0\.1:\d+ (max_fails=\S+ fail_timeout=\S+);\n`)
	listen    = regexp.MustCompile(`(?m)^(\s*)listen 127\.0\.0\.1:\d+;`)
)

// startNginx runs nginx with deploy/nginx.conf, its upstream made of the
// cluster's nodes and its listen address a free port.
func (c *Cluster) startNginx(t testing.TB, bin string) {
	t.Helper()
	conf, err := os.ReadFile(filepath.Join(fixtures.RepoRoot(), "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	m := nodeLines.FindSubmatch(conf)
	if m == nil || !listen.Match(conf) {
		t.Fatal("deploy/nginx.conf: no upstream server lines or listen line to replace")
	}
	var servers strings.Builder
	for _, n := range c.Nodes {
		fmt.Fprintf(&servers, "%sserver %s %s;\n", m[1], n.Addr, m[2])
	}
	first := true
	conf = nodeLines.ReplaceAllFunc(conf, func([]byte) []byte {
		if first {
			first = false
			return []byte(servers.String())
		}
		return nil
	})
	addr := freeAddr(t)
	conf = listen.ReplaceAll(conf, []byte("${1}listen "+addr+";"))
	c.ngDir = t.TempDir()
	os.WriteFile(filepath.Join(c.ngDir, "tessera.conf"), conf, 0o644)
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the workers write the test's temporary folder
	}
	d := c.ngDir
	main := fmt.Sprintf(`%s
worker_processes 1;
daemon off;
pid %s/nginx.pid;
error_log %s/error.log warn;
events { worker_connections 1024; }
http {
  # Which node answered, how, and how long it took: kept on failure.
  log_format cluster '$time_iso8601 "$request" $status upstream=$upstream_addr upstream_status=$upstream_status request_time=$request_time upstream_time=$upstream_response_time';
  access_log %s/access.log cluster;
  client_body_temp_path %s/body;
  proxy_temp_path %s/proxy;
  fastcgi_temp_path %s/fastcgi;
  uwsgi_temp_path %s/uwsgi;
  scgi_temp_path %s/scgi;
  include %s/tessera.conf;
}
`, user, d, d, d, d, d, d, d, d, d)
	os.WriteFile(filepath.Join(d, "nginx.conf"), []byte(main), 0o644)
	var out fixtures.SyncBuffer
	cmd := exec.Command(bin, "-e", filepath.Join(d, "error.log"), "-p", d, "-c", filepath.Join(d, "nginx.conf"))
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	c.nginx, c.LB = cmd, "http://"+addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r, err := c.client.Get(c.LB + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("nginx exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx not answering on %s: %s", addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// resp is an answer.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request to base (the load balancer or a node).
func (c *Cluster) do(method, url string, body any, headers ...string) resp {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
		headers = append(headers, "Content-Type", "application/json")
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

// admin sends an admin API request to base.
func (c *Cluster) admin(base, method, path string, body any) resp {
	c.t.Helper()
	return c.do(method, base+"/v1/admin"+path, body, "Authorization", "Basic "+adminToken)
}

// account sends an account API request with a service token to base.
func (c *Cluster) account(base, method, path, secret string, body any) resp {
	c.t.Helper()
	return c.do(method, base+"/v1"+path, body, "Authorization", "Token "+secret)
}

// status is the status of a GET.
func (c *Cluster) status(url string, headers ...string) int {
	c.t.Helper()
	return c.do("GET", url, nil, headers...).status
}

// serviceToken makes a service token through base and returns its id and
// secret.
func (c *Cluster) serviceToken(base, name string) (id, secret string) {
	c.t.Helper()
	r := c.admin(base, "POST", "/tokens", map[string]any{"name": name})
	if r.status != 201 {
		c.t.Fatalf("create token: %d %s", r.status, r.body)
	}
	tok := decode[struct{ ID, Token string }](c.t, r.body)
	return tok.ID, tok.Token
}

// apiKey makes an API key through base and returns its id and token.
func (c *Cluster) apiKey(base, secret string) (id, token string) {
	c.t.Helper()
	r := c.account(base, "POST", "/api_keys", secret, nil)
	if r.status != 200 {
		c.t.Fatalf("create key: %d %s", r.status, r.body)
	}
	k := decode[struct{ ID, Token string }](c.t, r.body)
	return k.ID, k.Token
}

// awaitKey waits until every node takes the API key (a key made through
// nginx is on one node at once, on the others within a second).
func (c *Cluster) awaitKey(key string) {
	c.t.Helper()
	for _, n := range c.Nodes {
		await(c.t, within, "the key on "+n.Name, func() bool { return c.status(n.URL()+"/tiles/roads/tiles.json?key="+key) == 200 })
	}
}

// tilesetID is the admin id of the tileset of the given name, as base
// lists it ("" when it lists none).
func (c *Cluster) tilesetID(base, name string) string {
	c.t.Helper()
	list := decode[struct{ Items []struct{ ID, Name string } }](c.t, c.admin(base, "GET", "/tiles?limit=1000", nil).body)
	for _, it := range list.Items {
		if it.Name == name {
			return it.ID
		}
	}
	return ""
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// await polls cond until it holds and returns how long that took; it
// fails the test after within.
func await(t testing.TB, within time.Duration, what string, cond func() bool) time.Duration {
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

// The data every node starts with: a vector tileset, a map drawn from it
// and a geocoding index.
const style = `{
  "version": 8,
  "name": "Roads map",
  "center": [10, 25],
  "zoom": 1.5,
  "sources": {"roads": {"type": "vector", "url": "/tiles/roads/tiles.json"}},
  "layers": [
    {"id": "bg", "type": "background", "paint": {"background-color": "#eee"}},
    {"id": "roads", "type": "line", "source": "roads", "source-layer": "roads", "paint": {"line-color": "#c33", "line-width": 3}}
  ]
}`

func writeData(t testing.TB, dir string) {
	t.Helper()
	tiles := filepath.Join(dir, "tiles")
	os.MkdirAll(tiles, 0o755)
	writeVector(t, filepath.Join(tiles, "roads.mbtiles"))
	os.MkdirAll(filepath.Join(dir, server.MapsDir, "city"), 0o755)
	os.WriteFile(filepath.Join(dir, server.MapsDir, "city", "style.json"), []byte(style), 0o644)
	ds := &sources.Dataset{
		Countries: []sources.Country{{
			Alpha2: "QZ", Alpha3: "QZZ", Numeric: 999, Name: "Squareland",
			Names:    map[string][]string{"en": {"Squareland"}},
			Geometry: orb.Polygon{{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}},
		}},
		Places: []sources.Place{
			{GeonameID: 101, Name: "Northtown", ASCIIName: "Northtown", Lat: 8, Lon: 5, FeatureClass: "P", FeatureCode: "PPLC", Country: "QZ", Population: 500000},
			{GeonameID: 102, Name: "Southtown", ASCIIName: "Southtown", Lat: 2, Lon: 5, FeatureClass: "P", FeatureCode: "PPL", Country: "QZ", Population: 20000},
		},
		Attribution: []string{"Test data"},
	}
	out := filepath.Join(dir, server.GeocodingIndex)
	os.MkdirAll(filepath.Dir(out), 0o755)
	if err := geocode.WriteDataset(context.Background(), ds, out); err != nil {
		t.Fatal(err)
	}
}

func writeVector(t testing.TB, path string) {
	t.Helper()
	layers := []tiler.Layer{{Name: "roads", MinZoom: 0, MaxZoom: 4, Features: []tiler.Feature{
		{ID: 1, Geometry: orb.LineString{{-10, -10}, {10, 10}, {30, 5}}, Properties: map[string]any{"name": "Main street"}},
		{ID: 2, Geometry: orb.LineString{{-120, 40}, {-70, 45}, {0, 50}, {100, 30}}, Properties: map[string]any{"name": "Long road"}},
		{ID: 3, Geometry: orb.Point{2.35, 48.85}, Properties: map[string]any{"name": "Paris"}},
	}}}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = 0, 4
	opts.Logger = slog.New(slog.DiscardHandler)
	if _, err := ingest.BuildMBTiles(context.Background(), layers, opts, path, map[string]string{"name": "Roads", "attribution": "Test data"}); err != nil {
		t.Fatal(err)
	}
}
