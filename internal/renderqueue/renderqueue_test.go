package renderqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/panics"
)

func TestSharedRender(t *testing.T) {
	q := New(2, 4, 0)
	var runs atomic.Int32
	release := make(chan struct{})
	fn := func(ctx context.Context) ([]byte, error) {
		runs.Add(1)
		<-release
		return []byte("tile"), nil
	}
	var wg sync.WaitGroup
	results := make([]string, 5)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := q.Do(context.Background(), "a", fn)
			if err != nil {
				t.Error(err)
			}
			results[i] = string(b)
		}()
	}
	waitFor(t, func() bool { return waiters(q, "a") == 5 })
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("rendered %d times", runs.Load())
	}
	for _, r := range results {
		if r != "tile" {
			t.Errorf("result %q", r)
		}
	}
	if s := q.Stats(); s.Admitted != 0 || s.Running != 0 {
		t.Errorf("left over: %+v", s)
	}
}

func TestBusy(t *testing.T) {
	q := New(1, 1, 0)
	release := make(chan struct{})
	block := func(ctx context.Context) ([]byte, error) { <-release; return nil, nil }
	errs := make(chan error, 2)
	for _, k := range []string{"a", "b"} {
		go func() { _, err := q.Do(context.Background(), k, block); errs <- err }()
	}
	waitFor(t, func() bool { return q.Stats().Admitted == 2 })
	if _, err := q.Do(context.Background(), "c", block); !errors.Is(err, ErrBusy) {
		t.Fatalf("third render: %v, want ErrBusy", err)
	}
	// Joining a render already admitted is not refused.
	joined := make(chan error, 1)
	go func() { _, err := q.Do(context.Background(), "a", block); joined <- err }()
	waitFor(t, func() bool { return waiters(q, "a") == 2 })
	if s := q.Stats(); s.Running != 1 {
		t.Errorf("running %d, want 1 (one worker)", s.Running)
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := <-joined; err != nil {
		t.Error(err)
	}
	if _, err := q.Do(context.Background(), "c", func(context.Context) ([]byte, error) { return nil, nil }); err != nil {
		t.Errorf("after the queue drained: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	q := New(1, 0, 20*time.Millisecond)
	_, err := q.Do(context.Background(), "slow", func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	if s := q.Stats(); s.TimedOut != 1 {
		t.Errorf("%d timeouts counted, want 1", s.TimedOut)
	}
}

// TestDeadlineFromStart: time spent waiting for a worker does not count
// against a render's deadline.
func TestDeadlineFromStart(t *testing.T) {
	const timeout, work = 2 * time.Second, 600 * time.Millisecond
	q := New(1, 1, timeout)
	first := make(chan error, 1)
	go func() {
		_, err := q.Do(context.Background(), "first", func(ctx context.Context) ([]byte, error) {
			for q.Stats().Admitted < 2 { // hold the worker until the second render waits
				time.Sleep(time.Millisecond)
			}
			time.Sleep(work) // the render's work
			return nil, nil
		})
		first <- err
	}()
	waitFor(t, func() bool { return q.Stats().Running == 1 })
	var left time.Duration
	_, err := q.Do(context.Background(), "second", func(ctx context.Context) ([]byte, error) {
		d, ok := ctx.Deadline()
		if !ok {
			return nil, errors.New("no deadline")
		}
		left = time.Until(d)
		return nil, nil
	})
	if err != nil || <-first != nil {
		t.Fatal(err)
	}
	// It waited `work` for the worker; its deadline is still a whole
	// timeout away when it starts.
	if left < timeout-work/2 {
		t.Errorf("the second render started with %v left of %v: its wait counted", left, timeout)
	}
}

// TestRefuseWhatCannotStart: with renders taking 800 ms on one worker and
// a longest wait of 1 s (half the timeout), the second render waiting is
// refused at once, not after waiting.
func TestRefuseWhatCannotStart(t *testing.T) {
	q := New(1, 10, 2*time.Second)
	q.avg = 800 * time.Millisecond
	release := make(chan struct{})
	block := func(ctx context.Context) ([]byte, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}
	errs := make(chan error, 2)
	go func() { _, err := q.Do(context.Background(), "a", block); errs <- err }()
	waitFor(t, func() bool { return q.Stats().Running == 1 })
	go func() { _, err := q.Do(context.Background(), "b", block); errs <- err }()
	waitFor(t, func() bool { return q.Stats().Admitted == 2 })
	start := time.Now()
	if _, err := q.Do(context.Background(), "c", block); !errors.Is(err, ErrBusy) {
		t.Fatalf("third render: %v, want ErrBusy (it would wait 1.6 s)", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("refused after %v, not at once", d)
	}
	if s := q.Stats(); s.Refused != 1 {
		t.Errorf("%d refused, want 1", s.Refused)
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestWaitBound: a render still waiting for a worker at the longest wait
// is given up with ErrBusy, without running.
func TestWaitBound(t *testing.T) {
	q := New(1, 4, 0)
	q.SetMaxWait(30 * time.Millisecond)
	release := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		_, err := q.Do(context.Background(), "a", func(ctx context.Context) ([]byte, error) { <-release; return nil, nil })
		errs <- err
	}()
	waitFor(t, func() bool { return q.Stats().Running == 1 })
	ran := false
	_, err := q.Do(context.Background(), "b", func(ctx context.Context) ([]byte, error) { ran = true; return nil, nil })
	if !errors.Is(err, ErrBusy) || ran {
		t.Errorf("a render waiting past the longest wait: %v (ran %v), want ErrBusy without running", err, ran)
	}
	close(release)
	if err := <-errs; err != nil {
		t.Error(err)
	}
	if s := q.Stats(); s.Refused != 1 || s.Admitted != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestCallersLeaving(t *testing.T) {
	q := New(1, 2, 0)
	started := make(chan struct{})
	cancelled := make(chan struct{})
	fn := func(ctx context.Context) ([]byte, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := q.Do(ctx1, "k", fn); errs <- err }()
	<-started
	go func() { _, err := q.Do(ctx2, "k", fn); errs <- err }()
	waitFor(t, func() bool { return waiters(q, "k") == 2 })
	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("first caller: %v", err)
	}
	select {
	case <-cancelled:
		t.Fatal("the render was cancelled while a caller still waits")
	case <-time.After(20 * time.Millisecond):
	}
	cancel2()
	<-errs
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the render went on after every caller left")
	}
	waitFor(t, func() bool { return q.Stats().Admitted == 0 })
}

func TestNewCallerAfterAbandon(t *testing.T) {
	q := New(2, 2, 0)
	release := make(chan struct{})
	first := func(ctx context.Context) ([]byte, error) {
		<-ctx.Done()
		<-release // still finishing when the next caller comes
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { _, err := q.Do(ctx, "k", first); errs <- err }()
	waitFor(t, func() bool { return waiters(q, "k") == 1 })
	cancel()
	<-errs
	b, err := q.Do(context.Background(), "k", func(context.Context) ([]byte, error) { return []byte("fresh"), nil })
	if err != nil || string(b) != "fresh" {
		t.Errorf("a caller after an abandoned render got %q, %v", b, err)
	}
	close(release)
	waitFor(t, func() bool { return q.Stats().Admitted == 0 })
}

func TestPanicAndErrors(t *testing.T) {
	q := New(1, 0, 0)
	_, err := q.Do(context.Background(), "p", func(context.Context) ([]byte, error) { panic("boom") })
	var p *panics.Recovered
	if !errors.Is(err, ErrPanic) || !errors.As(err, &p) {
		t.Fatalf("a panic gave %v, want ErrPanic with the recovered panic", err)
	}
	if p.Value != "boom" || !strings.Contains(string(p.Stack), "TestPanicAndErrors") {
		t.Errorf("recovered %v with stack\n%s", p.Value, p.Stack)
	}
	if s := q.Stats(); s.Panicked != 1 {
		t.Errorf("%d panics counted, want 1", s.Panicked)
	}
	// A panic in a goroutine of the render, carried to the worker.
	_, err = q.Do(context.Background(), "p2", func(context.Context) ([]byte, error) {
		var c panics.Carrier
		var wg sync.WaitGroup
		c.Go(&wg, func() { panic("boom in a helper") })
		wg.Wait()
		c.Rethrow()
		return nil, nil
	})
	if !errors.As(err, &p) || p.Value != "boom in a helper" {
		t.Errorf("a helper's panic gave %v", err)
	}
	if s := q.Stats(); s.Panicked != 2 {
		t.Errorf("%d panics counted, want 2", s.Panicked)
	}
	want := fmt.Errorf("bad style")
	if _, err := q.Do(context.Background(), "e", func(context.Context) ([]byte, error) { return nil, want }); !errors.Is(err, want) {
		t.Errorf("got %v", err)
	}
	if s := q.Stats(); s.Admitted != 0 || s.Running != 0 {
		t.Errorf("left over: %+v", s)
	}
}

func waiters(q *Queue, key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if c := q.calls[key]; c != nil {
		return c.waiters
	}
	return 0
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}
