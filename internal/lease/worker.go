package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// Defaults of WorkerOptions.
const (
	DefaultLease = time.Minute
	DefaultPoll  = 5 * time.Second
)

// ErrLost is wrapped (with context.Canceled) by the error of Claim.Hold
// when a renewal found the claim gone: the session was cancelled, or
// another node took it over after the lease ended.
var ErrLost = errors.New("the claim was lost (cancelled, or taken over after its lease ended)")

// WorkerOptions tune a Worker.
type WorkerOptions struct {
	// Lease is how long the worker holds a session without renewing it
	// (it renews every quarter of it) before another node may take it
	// over; DefaultLease when zero.
	Lease time.Duration
	// Poll is how often the worker looks for sessions nobody holds
	// (besides when woken): DefaultPoll, or half the lease when that is
	// shorter, when zero. A lease that ended is so noticed within half a
	// lease.
	Poll time.Duration
	// Now is the clock of the lease times (time.Now when nil).
	Now    func() time.Time
	Logger *slog.Logger
	// What names the sessions in logs ("dataset ingest"), Key the
	// attribute of their id ("ingest"; "id" when empty).
	What, Key string
}

// Worker claims the processing sessions of one kind in the state database
// (store.DB.ClaimNext: one statement, FOR UPDATE SKIP LOCKED on
// PostgreSQL, so that of several nodes looking at once each gets another
// session) and runs them one at a time, each under a lease that the run
// renews while it works (Claim.Hold).
type Worker struct {
	db    *store.DB
	kind  string
	owner string
	opts  WorkerOptions
	wake  chan struct{}
}

// NewWorker makes a worker that claims sessions of kind for owner (the
// node: a name no other process uses).
func NewWorker(db *store.DB, kind, owner string, opts WorkerOptions) *Worker {
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Poll <= 0 {
		opts.Poll = min(DefaultPoll, opts.Lease/2)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.What == "" {
		opts.What = kind
	}
	if opts.Key == "" {
		opts.Key = "id"
	}
	return &Worker{db: db, kind: kind, owner: owner, opts: opts, wake: make(chan struct{}, 1)}
}

// Owner is the name the worker's leases are held under.
func (w *Worker) Owner() string { return w.owner }

// Wake makes a running worker look for sessions at once (a new one was
// recorded); it never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run claims sessions and hands each to do, one at a time, until ctx ends;
// it returns once the session being run (if any) is over. do runs with ctx
// and is expected to hold the lease while it works (Claim.Hold) and to
// record how the session ended. When ctx ends, a session do left
// processing under this worker's lease is given back (its lease released)
// so that another node, or the next start, takes it at once.
func (w *Worker) Run(ctx context.Context, do func(ctx context.Context, c *Claim)) {
	t := time.NewTicker(w.opts.Poll)
	defer t.Stop()
	for {
		for ctx.Err() == nil && w.claimOne(ctx, do) {
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
	}
}

// claimOne claims one session and runs it; it tells whether it found one.
func (w *Worker) claimOne(ctx context.Context, do func(ctx context.Context, c *Claim)) bool {
	now := w.opts.Now()
	id, err := w.db.ClaimNext(ctx, w.kind, w.owner, w.leaseTime(now.Add(w.opts.Lease)), w.leaseTime(now))
	if err != nil {
		if ctx.Err() == nil {
			w.opts.Logger.Error("look for "+w.opts.What+"s to run", "err", err)
		}
		return false
	}
	if id == "" {
		return false
	}
	w.opts.Logger.Info(w.opts.What+" claimed", w.opts.Key, id, "worker", w.owner, "lease", w.opts.Lease)
	do(ctx, &Claim{ID: id, w: w})
	if ctx.Err() != nil {
		if err := w.db.ReleaseIngest(context.WithoutCancel(ctx), id, w.owner); err != nil {
			w.opts.Logger.Warn("give back a "+w.opts.What, w.opts.Key, id, "err", err)
		}
	}
	return true
}

func (w *Worker) leaseTime(t time.Time) string { return t.UTC().Format(store.LeaseTime) }

// Claim is one session a Worker claimed.
type Claim struct {
	ID       string
	w        *Worker
	progress atomic.Uint64 // math.Float64bits of the fraction done
}

// Owner is the name the lease is held under (for conditional updates:
// store.IngestCond.LeaseOwner).
func (c *Claim) Owner() string { return c.w.owner }

// Progress records the fraction of the work done, written with the next
// renewal (the stored progress never goes down).
func (c *Claim) Progress(f float64) { c.progress.Store(math.Float64bits(f)) }

// Renew extends the lease by a whole lease from now and raises the stored
// progress to at least progress: the last check that the session is still
// this worker's before making its result visible. The error wraps
// store.ErrStale when it is not.
func (c *Claim) Renew(ctx context.Context, progress float64) error {
	return c.w.db.RenewIngest(ctx, c.ID, c.w.owner, c.w.leaseTime(c.w.opts.Now().Add(c.w.opts.Lease)), progress)
}

// Hold runs work while the lease is renewed every quarter of it, with the
// progress last recorded. When a renewal finds the claim lost, work's
// context is cancelled and Hold returns an error wrapping ErrLost and
// context.Canceled, whatever work returned; otherwise it returns work's
// error.
func (c *Claim) Hold(ctx context.Context, work func(ctx context.Context) error) error {
	wctx, stop := Hold(ctx, c.w.opts.Lease/4, func(ctx context.Context) error {
		return c.Renew(ctx, math.Float64frombits(c.progress.Load()))
	})
	err := work(wctx)
	if stop() {
		return fmt.Errorf("%s %s: %w: %w", c.w.opts.What, c.ID, ErrLost, context.Canceled)
	}
	return err
}
