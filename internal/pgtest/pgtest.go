// Package pgtest gives tests a real PostgreSQL: a throw-away cluster made
// with Debian's initdb in a temporary directory and started as a child of
// the test process (listening on a Unix socket only), or the server named
// by TESSERA_TEST_DATABASE_URL. Each call to URL creates a new empty
// database, so tests never see each other's rows.
//
// A package whose tests use it runs them through Main, which stops the
// cluster at the end (the server, the processes it started and the
// goroutine waiting on it; URL fails a test run without it):
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// EnvURL names a running PostgreSQL server to use instead of starting one:
// a URL whose user may create databases.
const EnvURL = "TESSERA_TEST_DATABASE_URL"

var (
	once    sync.Once
	cluster *Cluster
	baseURL string
	onceErr error
	// inMain is set while Main runs the tests: the cluster a test starts
	// is then stopped when they end.
	inMain atomic.Bool
)

// Cluster is a PostgreSQL server started for tests.
type Cluster struct {
	Dir    string // holds the data directory and the socket
	Socket string // the socket directory
	cmd    *exec.Cmd
	log    *fixtures.SyncBuffer
	exited chan struct{} // closed when the server process has ended
	// done is closed when the goroutine that started the server has
	// returned (after the server's end).
	done chan struct{}
	stop sync.Once
}

// Main runs the tests of a package and stops the cluster they started
// (the server, every process it started, the goroutine that waited on it,
// its directory).
func Main(m *testing.M) int {
	inMain.Store(true)
	defer inMain.Store(false)
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	return code
}

// URL returns the URL of a new, empty database on the test server, starting
// the server on first use. The test is skipped when PostgreSQL is not
// installed (failed when TESSERA_REQUIRE_TOOLS=1). The database is dropped
// when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	name := "t_" + randomHex(8)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	})
	return withDatabase(base, name)
}

// serverURL is the URL of the maintenance database of the test server.
func serverURL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	bin := binDir()
	if bin == "" {
		if fixtures.RequireTools() {
			t.Fatal("PostgreSQL (initdb, postgres) is not installed: install Debian's postgresql package (make setup-test does)")
		}
		t.Skip("PostgreSQL (initdb, postgres) is not installed: skipping")
	}
	if !inMain.Load() {
		// Nothing would stop the server when the tests end.
		t.Fatal("pgtest: the package's tests must run through pgtest.Main: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }")
	}
	once.Do(func() {
		cluster, onceErr = Start(bin)
		if onceErr == nil {
			baseURL = cluster.URL("postgres")
		}
	})
	if onceErr != nil {
		t.Fatalf("pgtest: %v", onceErr)
	}
	return baseURL
}

// binDir finds the folder of initdb and postgres: on PATH, or Debian's
// /usr/lib/postgresql/<version>/bin (the newest).
func binDir() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d
			}
		}
	}
	return ""
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start makes a new cluster in a temporary directory and starts it. As root
// (PostgreSQL refuses to run as root) the cluster belongs to the postgres
// user. The server is a child process that dies with the test process;
// Stop ends it, and the goroutine Start leaves waiting on it, sooner.
func Start(bin string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "tessera-pg-")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c := &Cluster{Dir: dir, Socket: dir, log: &fixtures.SyncBuffer{}, exited: make(chan struct{}), done: make(chan struct{})}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgres as root needs the postgres user (Debian's postgresql package makes it): %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("start postgres: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// The server is started from a goroutine locked to its thread: the
	// parent-death signal follows the thread that started the child, so
	// the thread must live as long as the server does. The goroutine waits
	// on the server, then unlocks its thread and returns: the thread goes
	// back to the runtime rather than ending (a goroutine that returns
	// while locked takes its thread down with it, which in a test binary
	// with cgo once crashed the process as the tests ended).
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = c.log, c.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	// The server's own children hold its output pipe too: Wait stops
	// copying from it this long after the server has ended.
	cmd.WaitDelay = 5 * time.Second
	c.cmd = cmd
	started := make(chan error, 1)
	go func() {
		defer close(c.done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			cmd.Wait()
		}
		close(c.exited)
	}()
	if err := <-started; err != nil {
		<-c.done
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		c.Stop()
		return nil, err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			log := c.logText()
			c.Stop()
			return nil, fmt.Errorf("postgres did not start: %v: %s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *Cluster) logText() string { return c.log.String() }

// URL is the address of a database of the cluster, through its socket.
func (c *Cluster) URL(database string) string {
	return "postgres://postgres@/" + database + "?host=" + url.QueryEscape(c.Socket) + "&sslmode=disable"
}

// Stop shuts the server down at once, waits until it and the goroutine
// waiting on it have ended, and removes its directory. Calling it again
// does nothing.
func (c *Cluster) Stop() {
	c.stop.Do(func() {
		if c.cmd.Process == nil {
			os.RemoveAll(c.Dir)
			return
		}
		pid := c.cmd.Process.Pid
		c.cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			// The server and every process it started (its own group).
			syscall.Kill(-pid, syscall.SIGKILL)
		}
		<-c.done
		os.RemoveAll(c.Dir)
	})
}

// Running tells whether a process of the server's group (the server or
// one it started) is still alive.
func (c *Cluster) Running() bool {
	return syscall.Kill(-c.cmd.Process.Pid, 0) == nil
}

// withDatabase replaces the database of a server URL.
func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// EachDatabase runs test once on a new SQLite file and once on a new
// PostgreSQL database, as subtests named "sqlite" and "postgres": the same
// suite for both implementations of the state store. The address passed is
// what store.Open takes.
func EachDatabase(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		test(t, filepath.Join(t.TempDir(), "state.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, URL(t))
	})
}
