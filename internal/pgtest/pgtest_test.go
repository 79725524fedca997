package pgtest

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestStartStop starts a cluster, uses it, and stops it: the server and
// every process it started are gone, the goroutine that waited on the
// server has returned, the directory is removed, and stopping again does
// nothing. Run with -race -count=3 it also shows that clusters come and go
// without leaving anything behind.
func TestStartStop(t *testing.T) {
	bin := binDir()
	if bin == "" {
		if fixtures.RequireTools() {
			t.Fatal("PostgreSQL (initdb, postgres) is not installed")
		}
		t.Skip("PostgreSQL (initdb, postgres) is not installed: skipping")
	}
	c, err := Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			c.Stop()
		}
	})
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A connection open while the server stops: a backend process of the
	// server's own.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	if !c.Running() {
		t.Fatal("the server is not running after Start")
	}
	select {
	case <-c.done:
		t.Fatal("the goroutine waiting on the server returned while it runs")
	default:
	}
	c.Stop()
	stopped = true
	conn.Close()
	db.Close()
	select {
	case <-c.done:
	default:
		t.Error("the goroutine waiting on the server is still there after Stop")
	}
	if c.Running() {
		t.Error("a process of the server is still running after Stop")
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("the cluster's directory %s is still there: %v", c.Dir, err)
	}
	c.Stop() // again: nothing happens, nothing blocks
}
