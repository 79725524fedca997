package usage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	os.Exit(pgtest.Main(m))
}

func TestCounterParallelExact(t *testing.T) {
	var c Counter
	const workers, per = 8, 5000
	keys := []Key{{Day: 1, Service: "tiles", Group: "request", KeyID: "a"}, {Day: 1, Service: "maps", Group: "session", KeyID: "b"}}
	var wg sync.WaitGroup
	var taken sync.Map
	var takenSum atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	// Take runs meanwhile, as flushes do: nothing may be lost or doubled.
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for k, v := range c.Take() {
				taken.Store(k, true)
				takenSum.Add(v)
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				c.Add(keys[(w+i)%2], 1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-stopped
	var rest int64
	for _, v := range c.Take() {
		rest += v
	}
	if got := takenSum.Load() + rest; got != workers*per {
		t.Errorf("counted %d, want %d", got, workers*per)
	}
	if len(c.Take()) != 0 {
		t.Error("Take left counts behind")
	}
}

// openDB opens a new state database.
func openDB(t *testing.T, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// total sums every stored count.
func total(t *testing.T, db *store.DB) int64 {
	t.Helper()
	sums, err := db.UsageSums(context.Background(), store.ByService, "1970-01-01", "9999-12-31", "")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range sums {
		n += s.Value
	}
	return n
}

// TestGracefulStopLosesNothing: requests counted right up to Close, from
// many goroutines, while the ticker flushes, all reach the database.
func TestGracefulStopLosesNothing(t *testing.T) { pgtest.EachDatabase(t, testGracefulStop) }

func testGracefulStop(t *testing.T, dsn string) {
	db := openDB(t, dsn)
	m := NewMeter(db, Options{Interval: 5 * time.Millisecond})
	m.Start()
	const workers, per = 4, 3000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				m.Count(ServiceTiles, GroupRequest, fmt.Sprintf("k%d", (w+i)%7), "")
			}
		}()
	}
	wg.Wait()
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := total(t, db); got != workers*per {
		t.Errorf("stored %d counts, want %d", got, workers*per)
	}
	if err := m.Close(context.Background()); err != nil { // a second Close is harmless
		t.Fatal(err)
	}
	if got := total(t, db); got != workers*per {
		t.Errorf("after a second Close: stored %d counts, want %d", got, workers*per)
	}
}

// TestCrashLosesAtMostOneInterval: without Close (a crash), the counts of
// every flush that ran are stored and only those counted since are lost.
func TestCrashLosesAtMostOneInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db := openDB(t, path)
	m := NewMeter(db, Options{Interval: time.Hour}) // flushed by hand: each Flush stands for a tick
	for range 100 {
		m.Count(ServiceMaps, GroupSession, "k1", "")
	}
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		m.Count(ServiceMaps, GroupSession, "k1", "")
	}
	// The process dies here: m is dropped without Close.
	db.Close()
	db2 := openDB(t, path)
	if got := total(t, db2); got != 100 {
		t.Errorf("after the crash: stored %d, want the 100 flushed (the 40 of the unflushed interval are lost)", got)
	}
}

// TestTickerFlushes: Start flushes without Close, every interval.
func TestTickerFlushes(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	m := NewMeter(db, Options{Interval: 10 * time.Millisecond})
	m.Start()
	defer m.Close(context.Background())
	for range 25 {
		m.Count(ServiceGeocoding, GroupRequest, "", "")
	}
	deadline := time.Now().Add(10 * time.Second)
	for total(t, db) != 25 {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the ticker had flushed %d of 25", total(t, db))
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not a timing assumption
	}
}

// failingSink fails its first n writes.
type failingSink struct {
	fails int
	db    *store.DB
}

func (f *failingSink) AddUsage(ctx context.Context, counts []store.UsageCount) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("database away")
	}
	return f.db.AddUsage(ctx, counts)
}

// TestFailedFlushKeepsCounts: a flush that fails keeps its counts for the
// next one.
func TestFailedFlushKeepsCounts(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	m := NewMeter(&failingSink{fails: 2, db: db}, Options{})
	for range 10 {
		m.Count(ServiceTiles, GroupRequest, "k", "")
	}
	for range 2 {
		if err := m.Flush(context.Background()); err == nil {
			t.Fatal("a failing flush returned nil")
		}
	}
	m.Count(ServiceTiles, GroupRequest, "k", "")
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := total(t, db); got != 11 {
		t.Errorf("stored %d, want 11", got)
	}
}

// TestCountDay: counts go to the UTC day of the meter's clock.
func TestCountDay(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "state.db"))
	now := time.Date(2026, 11, 27, 23, 59, 0, 0, time.FixedZone("x", -3600))
	m := NewMeter(db, Options{Now: func() time.Time { return now }})
	m.Count(ServiceTiles, GroupRequest, "k", "")
	now = now.Add(2 * time.Minute)
	m.Count(ServiceTiles, GroupRequest, "k", "")
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	sums, err := db.UsageSums(context.Background(), store.ByKey, "2026-11-28", "2026-11-28", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].Value != 2 {
		t.Errorf("2026-11-28 (UTC): %+v, want both counts", sums)
	}
}

const crashChildEnv = "TESSERA_USAGE_CRASH_CHILD"

// crashChild runs in a child process: it counts 1000 requests, lets a flush
// run, counts 500 more, says so on stdout and waits to be killed.
func crashChild(path string) {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	m := NewMeter(db, Options{Interval: time.Hour})
	for range 1000 {
		m.Count(ServiceTiles, GroupRequest, "k", "")
	}
	if err := m.Flush(ctx); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for range 500 {
		m.Count(ServiceTiles, GroupRequest, "k", "")
	}
	fmt.Println("counted")
	select {}
}

// TestKilledProcessLosesOnlyUnflushed kills a counting process (SIGKILL)
// and finds every flushed count and none of the unflushed ones.
func TestKilledProcessLosesOnlyUnflushed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "counted\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	db := openDB(t, path)
	if got := total(t, db); got != 1000 {
		t.Errorf("after SIGKILL: stored %d, want the 1000 flushed", got)
	}
}
