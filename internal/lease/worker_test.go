package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/pgtest"
	"github.com/tesseramaps/tessera/internal/store"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// kind is the kind of the sessions the tests' workers claim.
const kind = store.KindPrerender

// TestWorker runs each scenario on a new SQLite file and a new PostgreSQL
// database.
func TestWorker(t *testing.T) {
	for _, c := range []struct {
		name string
		test func(t *testing.T, db *store.DB)
	}{
		{"two workers run each session once", testClaimOnce},
		{"the lease is renewed while the work runs", testRenew},
		{"a crashed worker's session is taken over when its lease ends", testCrashed},
		{"cancelling the worker stops the work and gives the session back", testCancel},
		{"a session cancelled meanwhile stops its work", testLost},
	} {
		t.Run(c.name, func(t *testing.T) {
			pgtest.EachDatabase(t, func(t *testing.T, dsn string) {
				ctx := context.Background()
				db, err := store.Open(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				c.test(t, db)
			})
		})
	}
}

// newWorker makes a worker of kind with a short poll and a quiet log.
func newWorker(db *store.DB, owner string, lease time.Duration) *Worker {
	return NewWorker(db, kind, owner, WorkerOptions{Lease: lease, Poll: 20 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), What: "test session"})
}

// start runs w until the test ends or the returned cancel is called;
// done is closed when Run has returned.
func start(t *testing.T, w *Worker, do func(ctx context.Context, c *Claim)) (cancel func(), done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		w.Run(ctx, do)
	}()
	t.Cleanup(func() {
		cancel()
		<-ch
	})
	return cancel, ch
}

// create records processing sessions of kind.
func create(t *testing.T, db *store.DB, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := db.CreateIngest(context.Background(), store.Ingest{ID: id, DocumentID: "doc-" + id, Filename: id, Size: 1,
			State: store.IngestProcessing, Kind: kind}); err != nil {
			t.Fatal(err)
		}
	}
}

// complete records the end of a session as its worker does.
func complete(ctx context.Context, db *store.DB, c *Claim) error {
	in, err := db.Ingest(ctx, c.ID)
	if err != nil {
		return err
	}
	in.State, in.Progress, in.LeaseOwner, in.LeaseUntil = store.IngestCompleted, 1, "", ""
	_, err = db.UpdateIngestIf(context.WithoutCancel(ctx), in, store.IngestCond{States: []string{store.IngestProcessing}, LeaseOwner: c.Owner()})
	return err
}

func session(t *testing.T, db *store.DB, id string) store.Ingest {
	t.Helper()
	in, err := db.Ingest(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// await polls cond until it holds; it fails the test after 30 s.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func leaseEnd(t *testing.T, in store.Ingest) time.Time {
	t.Helper()
	at, err := time.Parse(store.LeaseTime, in.LeaseUntil)
	if err != nil {
		t.Fatalf("session %s: lease end %q: %v", in.ID, in.LeaseUntil, err)
	}
	return at
}

// testClaimOnce: two workers over the same sessions run each exactly
// once, and at the same time (the first two sessions wait for each other,
// so each worker must have claimed one).
func testClaimOnce(t *testing.T, db *store.DB) {
	ids := []string{"s1", "s2", "s3", "s4", "s5", "s6"}
	create(t, db, ids...)
	var (
		mu      sync.Mutex
		ran     = map[string][]string{} // session -> workers that ran it
		started atomic.Int32
		both    = make(chan struct{})
		errs    = make(chan error, len(ids)*2)
	)
	do := func(ctx context.Context, c *Claim) {
		mu.Lock()
		ran[c.ID] = append(ran[c.ID], c.Owner())
		mu.Unlock()
		err := c.Hold(ctx, func(ctx context.Context) error {
			if n := started.Add(1); n == 2 {
				close(both)
			} else if n < 2 {
				select {
				case <-both:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
		if err == nil {
			err = complete(ctx, db, c)
		}
		if err != nil {
			errs <- fmt.Errorf("%s on %s: %w", c.ID, c.Owner(), err)
		}
	}
	start(t, newWorker(db, "worker-a", 10*time.Second), do)
	start(t, newWorker(db, "worker-b", 10*time.Second), do)
	await(t, "every session completed", func() bool {
		for _, id := range ids {
			if session(t, db, id).State != store.IngestCompleted {
				return false
			}
		}
		return true
	})
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	by := map[string]int{}
	for _, id := range ids {
		if len(ran[id]) != 1 {
			t.Errorf("%s ran %d times (%v), want once", id, len(ran[id]), ran[id])
			continue
		}
		by[ran[id][0]]++
	}
	if by["worker-a"] == 0 || by["worker-b"] == 0 {
		t.Errorf("runs by worker %v: both should have run one", by)
	}
}

// testRenew: a run longer than two leases keeps its session (another
// worker never gets it), its lease end moves on, and the progress it
// records reaches the database.
func testRenew(t *testing.T, db *store.DB) {
	const lease = time.Second
	create(t, db, "long")
	result, claimed := make(chan error, 1), make(chan struct{})
	start(t, newWorker(db, "holder", lease), func(ctx context.Context, c *Claim) {
		first := leaseEnd(t, session(t, db, c.ID))
		close(claimed)
		err := c.Hold(ctx, func(ctx context.Context) error {
			c.Progress(0.5)
			// Work past the first lease's end by a whole lease, the
			// renewals visible in the database meanwhile.
			renewed := 0
			last := first
			for time.Now().Before(first.Add(lease)) || renewed < 3 {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				in, err := db.Ingest(ctx, c.ID)
				if err != nil {
					return err
				}
				if at := leaseEnd(t, in); at.After(last) {
					renewed++
					last = at
				}
				if in.LeaseOwner != "holder" {
					return fmt.Errorf("the lease is %q's", in.LeaseOwner)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if in, _ := db.Ingest(ctx, c.ID); in.Progress != 0.5 {
				return fmt.Errorf("stored progress %v, want 0.5", in.Progress)
			}
			return nil
		})
		if err == nil {
			err = complete(ctx, db, c)
		}
		result <- err
	})
	select {
	case <-claimed:
	case <-time.After(30 * time.Second):
		t.Fatal("the session was not claimed")
	}
	var otherRan atomic.Bool
	start(t, newWorker(db, "other", lease), func(ctx context.Context, c *Claim) {
		otherRan.Store(true)
	})
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	if otherRan.Load() {
		t.Error("another worker claimed the session while its lease was renewed")
	}
}

// testCrashed: a session claimed by a worker that died (its lease never
// renewed) is taken over once its lease has ended, not before.
func testCrashed(t *testing.T, db *store.DB) {
	const lease = time.Second
	create(t, db, "orphan")
	now := time.Now()
	id, err := db.ClaimNext(context.Background(), kind, "crashed", now.Add(lease).UTC().Format(store.LeaseTime), now.UTC().Format(store.LeaseTime))
	if err != nil || id != "orphan" {
		t.Fatalf("the crashed worker's claim: %q %v", id, err)
	}
	end := leaseEnd(t, session(t, db, id))
	type run struct {
		at    time.Time
		owner string
	}
	runs := make(chan run, 2)
	start(t, newWorker(db, "survivor", lease), func(ctx context.Context, c *Claim) {
		runs <- run{time.Now(), session(t, db, c.ID).LeaseOwner}
		if err := c.Hold(ctx, func(context.Context) error { return complete(ctx, db, c) }); err != nil {
			t.Errorf("complete: %v", err)
		}
	})
	select {
	case r := <-runs:
		if r.at.Before(end) {
			t.Errorf("taken over at %v, before the crashed worker's lease ended at %v", r.at, end)
		}
		if r.owner != "survivor" {
			t.Errorf("lease owner while running %q, want survivor", r.owner)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the session was not taken over")
	}
	await(t, "the session completed", func() bool { return session(t, db, id).State == store.IngestCompleted })
	if len(runs) != 0 {
		t.Error("the session ran twice")
	}
}

// testCancel: cancelling Run cancels the work running, Run returns, and
// the session is given back at once: another worker claims it long
// before the lease would have ended.
func testCancel(t *testing.T, db *store.DB) {
	create(t, db, "busy")
	running := make(chan struct{})
	result := make(chan error, 1)
	cancel, done := start(t, newWorker(db, "leaving", time.Hour), func(ctx context.Context, c *Claim) {
		result <- c.Hold(ctx, func(ctx context.Context) error {
			close(running)
			<-ctx.Done()
			return ctx.Err()
		})
	})
	select {
	case <-running:
	case <-time.After(30 * time.Second):
		t.Fatal("the session was not claimed")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if err := <-result; !errors.Is(err, context.Canceled) || errors.Is(err, ErrLost) {
		t.Errorf("the work ended with %v, want context.Canceled (not ErrLost)", err)
	}
	if in := session(t, db, "busy"); in.State != store.IngestProcessing || in.LeaseOwner != "" || in.LeaseUntil != "" {
		t.Errorf("after cancel: state %s, lease %q until %q; want processing, released", in.State, in.LeaseOwner, in.LeaseUntil)
	}
	taken := make(chan string, 1)
	start(t, newWorker(db, "next", time.Hour), func(ctx context.Context, c *Claim) {
		taken <- c.ID
		complete(ctx, db, c)
	})
	select {
	case id := <-taken:
		if id != "busy" {
			t.Errorf("claimed %q", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the session given back was not claimed by another worker")
	}
}

// testLost: when the session is cancelled by someone else while it runs,
// the next renewal stops the work with ErrLost, and the worker goes on
// with the next session.
func testLost(t *testing.T, db *store.DB) {
	create(t, db, "doomed")
	running := make(chan struct{}, 2)
	results := make(chan error, 2)
	w := newWorker(db, "worker", 400*time.Millisecond)
	start(t, w, func(ctx context.Context, c *Claim) {
		err := c.Hold(ctx, func(ctx context.Context) error {
			running <- struct{}{}
			if c.ID == "next" {
				return nil
			}
			<-ctx.Done()
			return ctx.Err()
		})
		if err == nil {
			err = complete(ctx, db, c)
		}
		results <- err
	})
	<-running
	in := session(t, db, "doomed")
	in.State, in.LeaseOwner, in.LeaseUntil = store.IngestCanceled, "", ""
	if _, err := db.UpdateIngest(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-results:
		if !errors.Is(err, ErrLost) || !errors.Is(err, context.Canceled) {
			t.Errorf("the work ended with %v, want ErrLost and context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the work was not stopped when its session was cancelled")
	}
	create(t, db, "next")
	w.Wake()
	select {
	case err := <-results:
		if err != nil {
			t.Errorf("the next session: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not go on with the next session")
	}
	if in := session(t, db, "doomed"); in.State != store.IngestCanceled {
		t.Errorf("the cancelled session is %s", in.State)
	}
}
