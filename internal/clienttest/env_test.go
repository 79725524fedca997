package clienttest

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
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
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

// Fixture files (relative to the shared folder) and the tileset names the
// server gives them (the file name without extension).
const (
	fixtureVector    = "fixtures/mbtileserver/testdata/world_cities.mbtiles"
	fixtureRaster    = "fixtures/mbtileserver/testdata/geography-class-png.mbtiles"
	fixturePMTiles   = "fixtures/martin/tests/fixtures/pmtiles/png.pmtiles"
	nameVector       = "world_cities"
	nameRaster       = "geography-class-png"
	namePMTiles      = "png"
	maxResponseBytes = 16 << 20
)

// access is one line of the server's access log.
type access struct {
	Method string
	Path   string
	Status int
	Bytes  int64
}

func (a access) String() string {
	return fmt.Sprintf("%s %s -> %d (%d bytes)", a.Method, a.Path, a.Status, a.Bytes)
}

// logRecorder is a slog.Handler that keeps the server's access log lines
// and every other log line as text.
type logRecorder struct {
	mu     sync.Mutex
	access []access
	other  []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Message == "request" {
		var a access
		r.Attrs(func(at slog.Attr) bool {
			switch at.Key {
			case "method":
				a.Method = at.Value.String()
			case "path":
				a.Path = at.Value.String()
			case "status":
				a.Status = int(at.Value.Int64())
			case "bytes":
				a.Bytes = at.Value.Int64()
			}
			return true
		})
		l.access = append(l.access, a)
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	r.Attrs(func(at slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", at.Key, at.Value)
		return true
	})
	l.other = append(l.other, b.String())
	return nil
}

// adminCredentials are the admin API's credentials of the test servers.
const adminCredentials = "client-test-admin"

// env is a running Tessera server over a temporary data directory.
type env struct {
	t   *testing.T
	URL string
	log *logRecorder
}

// startServer copies the shared fixtures (paths relative to the shared
// folder) into a fresh data directory's tiles/ and serves it on a loopback
// port until the test ends. The test is skipped when a fixture is absent.
func startServer(t *testing.T, fixtureFiles ...string) *env {
	t.Helper()
	dir := t.TempDir()
	tiles := filepath.Join(dir, server.TilesDir)
	if err := os.MkdirAll(tiles, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range fixtureFiles {
		src := fixtures.Path(t, rel)
		if err := copyFile(src, filepath.Join(tiles, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	return serveDataDir(t, dir)
}

// serveDataDir serves an existing data directory on a loopback port until
// the test ends .
func serveDataDir(t *testing.T, dir string) *env {
	t.Helper()
	return serveDataDirWith(t, dir, nil)
}

// serveDataDirWith is serveDataDir with the configuration changed by
// mutate (nil: unchanged).
func serveDataDirWith(t *testing.T, dir string, mutate func(*config.Config)) *env {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.AdminCredentials = adminCredentials
	cfg.Watch = false
	cfg.AccessLog = true
	if raceDetector {
		// These tests check what real clients draw, not how the server
		// sheds load: under the race detector on a busy machine renders
		// are many times slower, and the queue would refuse (503) renders
		// it estimates could not start within half the render timeout.
		cfg.RenderTimeout = 5 * time.Minute
		cfg.RenderQueue = 256
	}
	if mutate != nil {
		mutate(&cfg)
	}
	rec := &logRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, slog.New(rec))
	if err != nil {
		cancel()
		t.Fatalf("start server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		srv.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	e := &env{t: t, URL: "http://" + ln.Addr().String(), log: rec}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
		srv.Close()
		if t.Failed() {
			e.dumpLog()
		}
	})
	return e
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open fixture: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

// accessLog returns a copy of the access log so far.
func (e *env) accessLog() []access {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	return append([]access(nil), e.log.access...)
}

// mark is the position in the access log; since returns the lines after it.
// mark returns the position in the access log after the requests made so
// far: the server logs a request after answering it, so the log is first
// left to settle.
func (e *env) mark() int { return settled(e) }

// settled waits until the server's access log has stopped growing (no new
// line for 100 ms, at most 3 s) and returns its length. The server logs a
// request after answering it, so a client may be done before its last
// request is logged: marks and counts taken after settled see every
// request made before it.
func settled(e *env) int {
	n := len(e.accessLog())
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		m := len(e.accessLog())
		if m == n {
			return n
		}
		n = m
	}
	return n
}

func (e *env) since(mark int) []access { return e.accessLog()[mark:] }

func (e *env) dumpLog() {
	e.t.Helper()
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	for _, a := range e.log.access {
		e.t.Logf("access: %s", a)
	}
	for _, s := range e.log.other {
		e.t.Logf("log: %s", s)
	}
}

// matching returns the access lines whose path matches re.
func matching(lines []access, re *regexp.Regexp) []access {
	var out []access
	for _, a := range lines {
		if re.MatchString(a.Path) {
			out = append(out, a)
		}
	}
	return out
}

// get fetches path from the server with Go's HTTP client (which asks for
// gzip and decompresses transparently, as ordinary clients do).
func (e *env) get(ctx context.Context, path string) (int, http.Header, []byte) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		e.t.Fatalf("GET %s: read body: %v", path, err)
	}
	return res.StatusCode, res.Header, b
}

// tile fetches /tiles/name/z/x/y.ext and fails the test unless it is a 200.
func (e *env) tile(ctx context.Context, name string, z, x, y int, ext string) []byte {
	e.t.Helper()
	p := fmt.Sprintf("/tiles/%s/%d/%d/%d.%s", name, z, x, y, ext)
	status, _, b := e.get(ctx, p)
	if status != http.StatusOK || len(b) == 0 {
		e.t.Fatalf("GET %s: status %d, %d bytes", p, status, len(b))
	}
	return b
}

// storedTile reads tile z/x/y (XYZ scheme) of an MBTiles fixture with SQLite,
// independently of Tessera's readers; nil when the file has no such tile.
func storedTile(ctx context.Context, t *testing.T, path string, z, x, y int) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	var data []byte
	err = db.QueryRowContext(ctx, "SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
		z, x, (1<<z)-1-y).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		t.Fatalf("tile %d/%d/%d of %s: %v", z, x, y, path, err)
	}
	return data
}

// run executes a client program with a deadline and returns its stdout and
// stderr; loopback requests never go through a proxy.
func run(ctx context.Context, t *testing.T, env []string, name string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	return runFor(ctx, t, 60*time.Second, env, name, args...)
}

// runFor is run with another deadline: for clients that wait on map
// renders, which are slow under the race detector on a busy machine.
func runFor(ctx context.Context, t *testing.T, timeout time.Duration, env []string, name string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// tileURLRe matches the paths of tile requests.
var tileURLRe = regexp.MustCompile(`^/tiles/[^/]+/\d+/\d+/\d+(\.[a-z]+)?$`)

// runQuiet runs a short probe of a program and returns its combined output.
func runQuiet(t *testing.T, name string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// gunzip decodes gzip data (bounded), leaving other data as it is.
func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxResponseBytes+1))
	if err != nil || len(out) > maxResponseBytes {
		t.Fatalf("gunzip: %v (%d bytes)", err, len(out))
	}
	return out
}
