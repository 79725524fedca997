// Package cpuslots bounds the goroutines that do render work at once in
// the process, so that a processor stays free for the requests that render
// nothing (cached and vector tiles, documents): on two cores, renders that
// each spread over every core kept a plain tile waiting behind them for a
// hundred milliseconds and more (issue 17).
//
// A render worker holds a slot while it renders (Acquire, Release); the
// work a render fans out (layers drawn side by side, symbols laid out,
// tiles decoded, PNG segments, glyphs and icons) runs on the caller's
// goroutine and on as many more as there are slots free at that moment
// (Spread), never waiting for one. A render outside a worker (a benchmark,
// the command line) holds no slot, so it spreads over every slot there is.
package cpuslots

import (
	"context"
	"runtime"
	"sync"

	"github.com/tesseramaps/tessera/internal/panics"
)

// Slots is a set of processor slots. It is safe for concurrent use.
type Slots struct {
	c chan struct{}
}

// New returns n slots (at least one).
func New(n int) *Slots { return &Slots{c: make(chan struct{}, max(1, n))} }

// Render is the process's slots for render work: one fewer than the
// processors the Go scheduler runs goroutines on, and at least one.
var Render = New(runtime.GOMAXPROCS(0) - 1)

// Size returns the number of slots.
func (s *Slots) Size() int { return cap(s.c) }

// Held returns the number of slots held now.
func (s *Slots) Held() int { return len(s.c) }

// Acquire waits for a slot until ctx ends (then it returns ctx's error).
func (s *Slots) Acquire(ctx context.Context) error {
	select {
	case s.c <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Chan is the channel a send to which takes a slot, for a caller that
// waits for one among other events; Release gives it back.
func (s *Slots) Chan() chan<- struct{} { return s.c }

// TryAcquire takes a slot if one is free.
func (s *Slots) TryAcquire() bool {
	select {
	case s.c <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release gives back a slot taken by Acquire or TryAcquire.
func (s *Slots) Release() { <-s.c }

// Spread runs work on the caller's goroutine and on up to n-1 more
// goroutines, one for each slot free now (held until its work returns),
// and returns when every one has returned. work is typically a loop taking
// tasks from a shared counter until none is left, so that it does them
// all on the caller's goroutine alone when no slot is free. A panic in any
// of them is raised in the caller's goroutine once all have ended. It
// returns the number of goroutines that ran work, the caller's included.
func (s *Slots) Spread(n int, work func()) int {
	var wg sync.WaitGroup
	var carrier panics.Carrier
	ran := 1
	for ; ran < n && s.TryAcquire(); ran++ {
		carrier.Go(&wg, func() {
			defer s.Release()
			work()
		})
	}
	func() { defer carrier.Catch(); work() }()
	wg.Wait()
	carrier.Rethrow()
	return ran
}

// Go runs work on a goroutine of its own when a slot is free now (held
// until work returns); else work runs on the caller's goroutine when wait
// is called, after whatever the caller does meanwhile (so that a caller
// that draws its own part first, and may itself wait on other goroutines,
// overlaps with them as a single pass would). wait, called once, waits for
// the work and raises its panic, if any, in the caller's goroutine.
func (s *Slots) Go(work func()) (wait func()) {
	if !s.TryAcquire() {
		return func() {
			var carrier panics.Carrier
			func() { defer carrier.Catch(); work() }()
			carrier.Rethrow()
		}
	}
	done := make(chan struct{})
	var carrier panics.Carrier
	go func() {
		defer close(done)
		defer s.Release()
		defer carrier.Catch()
		work()
	}()
	return func() {
		<-done
		carrier.Rethrow()
	}
}
