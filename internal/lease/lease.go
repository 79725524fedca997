// Package lease claims pieces of work for a node (Worker: an ingest, a
// pre-render job, each a row of the state database with a lease owner and
// end), keeps the claim alive while the work runs (Hold, Claim.Hold), stops
// the work as soon as a renewal finds the claim lost, and gives the claim
// back when the node stops.
package lease

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// Hold calls renew every interval while the work runs and returns the
// context the work runs in and the function to call when it is over. When
// a renewal fails with store.ErrStale (the work was cancelled, or taken
// over by another node after the lease ended) the work's context is
// cancelled and stop reports the claim lost; other renewal errors (the
// database away for a moment) are tried again at the next interval.
func Hold(ctx context.Context, interval time.Duration, renew func(context.Context) error) (work context.Context, stop func() (lost bool)) {
	work, cancel := context.WithCancel(ctx)
	done, finished := make(chan struct{}), make(chan struct{})
	var gone atomic.Bool
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-work.Done():
				return
			case <-t.C:
			}
			if err := renew(work); errors.Is(err, store.ErrStale) {
				gone.Store(true)
				cancel()
				return
			}
		}
	}()
	return work, func() bool {
		close(done)
		<-finished
		cancel()
		return gone.Load()
	}
}
