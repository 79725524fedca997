package cpuslots

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSpread: work runs on the caller's goroutine and on one more for each
// slot free, never more than n in all, and the slots are given back.
func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		slots, held, n, want int
	}{
		{slots: 1, held: 1, n: 4, want: 1}, // a worker holds the only slot: inline
		{slots: 1, held: 0, n: 4, want: 2},
		{slots: 3, held: 1, n: 4, want: 3},
		{slots: 3, held: 0, n: 2, want: 2},
		{slots: 3, held: 0, n: 0, want: 1},
	} {
		s := New(tc.slots)
		for range tc.held {
			if !s.TryAcquire() {
				t.Fatal("no slot free")
			}
		}
		// Every goroutine started waits until all have started, so the
		// count is of goroutines running at once.
		var running, most atomic.Int64
		var once sync.Once
		all := make(chan struct{})
		ran := s.Spread(tc.n, func() {
			n := running.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			if n == int64(tc.want) {
				once.Do(func() { close(all) })
			}
			<-all
		})
		if ran != tc.want || most.Load() != int64(tc.want) {
			t.Errorf("%+v: ran on %d goroutines (%d at once), want %d", tc, ran, most.Load(), tc.want)
		}
		if s.Held() != tc.held {
			t.Errorf("%+v: %d slots held after Spread, want %d", tc, s.Held(), tc.held)
		}
	}
}

// TestSpreadPanic: a panic on a spread goroutine is raised in the caller's
// after all have ended, and its slot is given back.
func TestSpreadPanic(t *testing.T) {
	s := New(2)
	var next atomic.Int64
	var done atomic.Int64
	defer func() {
		if recover() == nil {
			t.Error("no panic raised")
		}
		if done.Load() != 9 || s.Held() != 0 {
			t.Errorf("%d of 9 other tasks done, %d slots held", done.Load(), s.Held())
		}
	}()
	s.Spread(3, func() {
		for k := next.Add(1) - 1; k < 10; k = next.Add(1) - 1 {
			if k == 0 {
				panic("task 0")
			}
			done.Add(1)
		}
	})
}

// TestGo: with a slot free the work runs on its own goroutine (the caller
// goes on while it runs); without, on the caller's goroutine when it waits;
// wait raises a panic.
func TestGo(t *testing.T) {
	s := New(1)
	release := make(chan struct{})
	wait := s.Go(func() { <-release })
	if s.Held() != 1 {
		t.Errorf("%d slots held while the work runs, want 1", s.Held())
	}
	close(release)
	wait()
	if s.Held() != 0 {
		t.Errorf("%d slots held after wait", s.Held())
	}
	s.TryAcquire()
	ran := false
	wait = s.Go(func() { ran = true })
	if ran {
		t.Error("with no slot free the work ran before wait was called")
	}
	wait()
	if !ran {
		t.Error("with no slot free the work had not run when wait returned")
	}
	s.Release()
	wait = s.Go(func() { panic("boom") })
	func() {
		defer func() {
			if recover() == nil {
				t.Error("wait raised no panic")
			}
		}()
		wait()
	}()
	if s.Held() != 0 {
		t.Errorf("%d slots held after a panic", s.Held())
	}
}

// TestAcquire: Acquire waits for a slot until its context ends.
func TestAcquire(t *testing.T) {
	s := New(1)
	if err := s.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := s.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire with no slot free: %v, want the deadline", err)
	}
	got := make(chan error)
	go func() { got <- s.Acquire(context.Background()) }()
	s.Release()
	if err := <-got; err != nil || s.Held() != 1 {
		t.Errorf("Acquire after a Release: %v, %d held", err, s.Held())
	}
	if New(0).Size() != 1 {
		t.Error("New(0) has no slot")
	}
}
