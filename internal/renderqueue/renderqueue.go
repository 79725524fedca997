// Package renderqueue runs expensive renders under load: a bounded number at
// once (one per core by default), a bounded number waiting, identical
// concurrent requests rendered once, a deadline on every render counted
// from when it starts (not from when it was admitted), and a render
// cancelled when every request waiting for it has gone away.
//
// Past the bound, or when the recent render times say a render would not
// start within the longest wait, a request is refused at once with ErrBusy
// (an HTTP server answers 503 with Retry-After) rather than queued to be
// cut after spending its CPU. A render that still waits for a worker at
// the longest wait is given up with ErrBusy too. A panic in a render
// becomes an error (a *panics.Recovered inside ErrPanic) and is counted.
// The package knows nothing of what is rendered or of HTTP.
package renderqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/panics"
)

// ErrBusy is returned when the queue is full or a render could not start
// in time.
var ErrBusy = errors.New("the render queue is full")

// ErrTimeout is returned (wrapped) when a render passes its deadline.
var ErrTimeout = errors.New("the render took too long")

// ErrPanic is returned (wrapped, with the *panics.Recovered) when a
// render panicked.
var ErrPanic = errors.New("the render panicked")

// Queue bounds concurrent renders.
type Queue struct {
	slots   chan struct{} // one token per running render
	workers int
	timeout time.Duration
	maxWait time.Duration
	limit   int // running plus waiting renders admitted at once

	mu       sync.Mutex
	admitted int
	calls    map[string]*call
	// avg is a moving average of how long renders hold a worker.
	avg time.Duration
	// The counts of Stats.
	refused, timeouts, panicked uint64

	// cpu, when set, is the process's processor slots a render holds
	// while it runs (SetSlots).
	cpu *cpuslots.Slots
}

// call is one render shared by every request for its key.
type call struct {
	done    chan struct{}
	val     []byte
	err     error
	waiters int
	// abandoned is set when every caller left and the render was
	// cancelled: a later caller starts a new render instead of joining.
	abandoned bool
	cancel    context.CancelFunc
}

// New returns a queue running at most workers renders at once with at most
// depth more waiting, each cut at timeout after it starts (0: no deadline
// of its own). A render waits at most half the timeout for a worker (see
// SetMaxWait): a request is answered within 1.5 times the timeout.
func New(workers, depth int, timeout time.Duration) *Queue {
	workers = max(1, workers)
	depth = max(0, depth)
	return &Queue{
		slots:   make(chan struct{}, workers),
		workers: workers,
		timeout: timeout,
		maxWait: timeout / 2,
		limit:   workers + depth,
		calls:   map[string]*call{},
	}
}

// SetMaxWait sets the longest a render waits for a worker (0: no bound
// but the queue's depth). Call it before the queue is used.
func (q *Queue) SetMaxWait(d time.Duration) { q.maxWait = max(0, d) }

// SetSlots makes every render hold one of the processor slots s while it
// runs, waiting for one as it waits for a worker (within the same longest
// wait), so that renders leave processors free for other work however
// many workers there are (see cpuslots). Call it before the queue is used.
func (q *Queue) SetSlots(s *cpuslots.Slots) { q.cpu = s }

// Stats is a snapshot of the queue.
type Stats struct {
	Running  int // renders holding a worker slot
	Admitted int // renders running or waiting
	// Totals since the queue was made: renders refused (ErrBusy, at
	// admission or after waiting too long), cut at their deadline, and
	// ended by a panic.
	Refused, TimedOut, Panicked uint64
	// AvgRender is the moving average of the time renders hold a worker.
	AvgRender time.Duration
}

// Stats returns the queue's current load.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{Running: len(q.slots), Admitted: q.admitted, Refused: q.refused, TimedOut: q.timeouts,
		Panicked: q.panicked, AvgRender: q.avg}
}

// Do returns the result of fn for key, running fn at most once for all the
// concurrent callers with the same key. fn gets a context that ends at the
// queue's timeout after fn starts or when every caller waiting for the
// result has gone; a caller whose own ctx ends gets ctx's error at once.
// When the queue is full or fn would not start in time, Do returns ErrBusy
// without running anything.
func (q *Queue) Do(ctx context.Context, key string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	return q.DoWithin(ctx, key, q.timeout, fn)
}

// DoWithin is Do with the render's deadline at timeout after it starts
// instead of the queue's (0: none), for a caller that spent part of the
// render's budget already (fetching what it draws). A caller joining a
// render already admitted gets that render's deadline.
func (q *Queue) DoWithin(ctx context.Context, key string, timeout time.Duration, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	q.mu.Lock()
	c, ok := q.calls[key]
	if !ok || c.abandoned {
		if q.admitted >= q.limit || q.wouldWait() > q.maxWait && q.maxWait > 0 {
			q.refused++
			q.mu.Unlock()
			return nil, ErrBusy
		}
		q.admitted++
		rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		c = &call{done: make(chan struct{}), cancel: cancel}
		q.calls[key] = c
		go q.run(rctx, key, c, timeout, fn)
	}
	c.waiters++
	q.mu.Unlock()

	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
		q.mu.Lock()
		c.waiters--
		if c.waiters == 0 {
			c.abandoned = true
			c.cancel() // nobody wants it any more
		}
		q.mu.Unlock()
		return nil, ctx.Err()
	}
}

// wouldWait estimates how long a render admitted now waits for a worker:
// the renders ahead of it, shared among the workers, at the average
// render time. Called with q.mu held.
func (q *Queue) wouldWait() time.Duration {
	running := len(q.slots)
	waiting := q.admitted - running
	if running+waiting < q.workers {
		return 0
	}
	return time.Duration(float64(q.avg) * float64(waiting+1) / float64(q.workers))
}

// observe adds a render's time to the moving average (a weight of 1/8).
func (q *Queue) observe(d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.avg == 0 {
		q.avg = d
		return
	}
	q.avg += (d - q.avg) / 8
}

func (q *Queue) run(ctx context.Context, key string, c *call, timeout time.Duration, fn func(context.Context) ([]byte, error)) {
	defer func() {
		if p := panics.Of(recover()); p != nil {
			c.val, c.err = nil, fmt.Errorf("%w: render %s: %w", ErrPanic, key, p)
		}
		q.mu.Lock()
		if q.calls[key] == c {
			delete(q.calls, key)
		}
		q.admitted--
		switch {
		case errors.Is(c.err, ErrPanic):
			q.panicked++
		case errors.Is(c.err, ErrTimeout):
			q.timeouts++
		case errors.Is(c.err, ErrBusy):
			q.refused++
		}
		q.mu.Unlock()
		c.cancel()
		close(c.done)
	}()
	var waitOver <-chan time.Time
	if q.maxWait > 0 {
		t := time.NewTimer(q.maxWait)
		defer t.Stop()
		waitOver = t.C
	}
	select {
	case q.slots <- struct{}{}:
	case <-ctx.Done():
		c.err = cause(ctx)
		return
	case <-waitOver:
		c.err = fmt.Errorf("%w: no worker was free within %v", ErrBusy, q.maxWait)
		return
	}
	if q.cpu != nil {
		select {
		case q.cpu.Chan() <- struct{}{}:
		case <-ctx.Done():
			<-q.slots
			c.err = cause(ctx)
			return
		case <-waitOver:
			<-q.slots
			c.err = fmt.Errorf("%w: no processor slot was free within %v", ErrBusy, q.maxWait)
			return
		}
		defer q.cpu.Release() // after the worker's slot (deferred below) is given back
	}
	start := time.Now()
	defer func() {
		q.observe(time.Since(start))
		<-q.slots
	}()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w (%v)", ErrTimeout, timeout))
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		c.err = cause(ctx)
		return
	}
	c.val, c.err = fn(ctx)
	if c.err != nil && ctx.Err() != nil {
		c.err = fmt.Errorf("%w: %w", cause(ctx), c.err)
	}
}

func cause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}
