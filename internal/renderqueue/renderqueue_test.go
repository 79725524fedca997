package renderqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	if _, err := q.Do(context.Background(), "p", func(context.Context) ([]byte, error) { panic("boom") }); err == nil {
		t.Error("a panic gave no error")
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
