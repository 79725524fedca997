// Package renderqueue runs expensive renders under load: a bounded number at
// once (one per core by default), a bounded number waiting, identical
// concurrent requests rendered once, a deadline on every render, and a
// render cancelled when every request waiting for it has gone away.
//
// Past the bound a request is refused at once with ErrBusy (an HTTP server
// answers 503 with Retry-After) rather than queued without limit. The
// package knows nothing of what is rendered or of HTTP.
package renderqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrBusy is returned when the queue is full.
var ErrBusy = errors.New("the render queue is full")

// ErrTimeout is returned (wrapped) when a render passes its deadline.
var ErrTimeout = errors.New("the render took too long")

// Queue bounds concurrent renders.
type Queue struct {
	slots   chan struct{} // one token per running render
	timeout time.Duration
	limit   int // running plus waiting renders admitted at once

	mu       sync.Mutex
	admitted int
	calls    map[string]*call
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
// depth more waiting, each cut at timeout (0: no deadline of its own).
func New(workers, depth int, timeout time.Duration) *Queue {
	workers = max(1, workers)
	depth = max(0, depth)
	return &Queue{
		slots:   make(chan struct{}, workers),
		timeout: timeout,
		limit:   workers + depth,
		calls:   map[string]*call{},
	}
}

// Stats is a snapshot of the queue.
type Stats struct {
	Running  int // renders holding a worker slot
	Admitted int // renders running or waiting
}

// Stats returns the queue's current load.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{Running: len(q.slots), Admitted: q.admitted}
}

// Do returns the result of fn for key, running fn at most once for all the
// concurrent callers with the same key. fn gets a context that ends at the
// queue's timeout or when every caller waiting for the result has gone; a
// caller whose own ctx ends gets ctx's error at once. When the queue is
// full, Do returns ErrBusy without running anything.
func (q *Queue) Do(ctx context.Context, key string, fn func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	q.mu.Lock()
	c, ok := q.calls[key]
	if !ok || c.abandoned {
		if q.admitted >= q.limit {
			q.mu.Unlock()
			return nil, ErrBusy
		}
		q.admitted++
		rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		if q.timeout > 0 {
			rctx, cancel = withTimeout(rctx, cancel, q.timeout)
		}
		c = &call{done: make(chan struct{}), cancel: cancel}
		q.calls[key] = c
		go q.run(rctx, key, c, fn)
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

// withTimeout adds the render deadline to ctx; the returned cancel
// releases both.
func withTimeout(ctx context.Context, cancel context.CancelFunc, d time.Duration) (context.Context, context.CancelFunc) {
	tctx, tcancel := context.WithTimeoutCause(ctx, d, fmt.Errorf("%w (%v)", ErrTimeout, d))
	return tctx, func() { tcancel(); cancel() }
}

func (q *Queue) run(ctx context.Context, key string, c *call, fn func(context.Context) ([]byte, error)) {
	defer func() {
		if p := recover(); p != nil {
			c.val, c.err = nil, fmt.Errorf("render %s panicked: %v", key, p)
		}
		q.mu.Lock()
		if q.calls[key] == c {
			delete(q.calls, key)
		}
		q.admitted--
		q.mu.Unlock()
		c.cancel()
		close(c.done)
	}()
	select {
	case q.slots <- struct{}{}:
	case <-ctx.Done():
		c.err = cause(ctx)
		return
	}
	defer func() { <-q.slots }()
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
