package lease

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

func TestHold(t *testing.T) {
	for _, c := range []struct {
		name    string
		renew   func(n int64) error
		lost    bool
		atLeast int64
	}{
		{"renewed", func(int64) error { return nil }, false, 3},
		{"a passing error is tried again", func(n int64) error {
			if n == 1 {
				return errors.New("database away")
			}
			return nil
		}, false, 3},
		{"lost", func(n int64) error {
			if n == 2 {
				return fmt.Errorf("ingest x: %w", store.ErrStale)
			}
			return nil
		}, true, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			work, stop := Hold(context.Background(), time.Millisecond, func(ctx context.Context) error {
				return c.renew(calls.Add(1))
			})
			if c.lost {
				select {
				case <-work.Done():
				case <-time.After(10 * time.Second):
					t.Fatal("the work was not stopped when the claim was lost")
				}
			} else {
				for calls.Load() < c.atLeast {
					time.Sleep(time.Millisecond)
				}
				if work.Err() != nil {
					t.Fatalf("the work was stopped: %v", work.Err())
				}
			}
			if lost := stop(); lost != c.lost {
				t.Errorf("lost = %v, want %v", lost, c.lost)
			}
			n := calls.Load()
			time.Sleep(5 * time.Millisecond)
			if calls.Load() != n {
				t.Error("renewals went on after stop")
			}
			if work.Err() == nil {
				t.Error("the work's context outlives stop")
			}
		})
	}
}
