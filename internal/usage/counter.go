package usage

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// Key is what one count is kept under: a day (days since 1970-01-01,
// UTC), a service, a group, and who asked (an API key's id, a service
// token's id, or neither).
type Key struct {
	Day     int32
	Service string
	Group   string
	KeyID   string
	TokenID string
}

// DayOf is the day number of an instant: days since 1970-01-01 in UTC.
func DayOf(t time.Time) int32 { return int32(t.Unix() / 86400) }

// DayString formats a day number as YYYY-MM-DD.
func DayString(d int32) string { return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly) }

// shards is how many independently locked maps a Counter spreads its
// counts over.
const shards = 32

// Counter holds counts in memory. Add is cheap under parallel load: each
// call locks one of several shards picked at random (math/rand/v2's
// generator is per thread and takes no lock), so goroutines counting the
// same key rarely wait for each other. The zero Counter is ready to use.
type Counter struct {
	shards [shards]shard
}

type shard struct {
	mu sync.Mutex
	m  map[Key]int64
	_  [40]byte // keeps shards on separate cache lines
}

// Add adds n to the count of k.
func (c *Counter) Add(k Key, n int64) {
	s := &c.shards[rand.Uint32()%shards]
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[Key]int64)
	}
	s.m[k] += n
	s.mu.Unlock()
}

// Take removes every count and returns them summed by key.
func (c *Counter) Take() map[Key]int64 {
	var out map[Key]int64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		m := s.m
		s.m = nil
		s.mu.Unlock()
		if out == nil {
			out = m
			continue
		}
		for k, v := range m {
			out[k] += v
		}
	}
	return out
}

// Sink is where a Meter flushes its counts: the state database.
type Sink interface {
	AddUsage(ctx context.Context, counts []store.UsageCount) error
}

// Options configure a Meter.
type Options struct {
	// Interval is how often counts are flushed (10 s when zero).
	Interval time.Duration
	Logger   *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Meter counts requests in memory and flushes the counts to the database
// every interval, and on Close. A flush adds its counts to the stored ones
// (see store.DB.AddUsage), so several nodes sharing one database add up
// exactly. A flush that fails puts its counts back, to be written by the
// next one. A graceful stop (Close) loses nothing; a crash loses the counts
// of at most one interval (those not flushed yet).
type Meter struct {
	counter  Counter
	sink     Sink
	interval time.Duration
	log      *slog.Logger
	now      func() time.Time

	flushMu   sync.Mutex // one flush at a time
	startOnce sync.Once
	closeOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
	closeErr  error
}

// NewMeter returns a Meter flushing to sink. Call Start to flush on a
// ticker, and Close to stop it with a last flush.
func NewMeter(sink Sink, opts Options) *Meter {
	if opts.Interval <= 0 {
		opts.Interval = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Meter{sink: sink, interval: opts.Interval, log: opts.Logger, now: opts.Now,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Count counts one request to service in group, made with the API key
// keyID or the service token tokenID (either may be empty), today.
func (m *Meter) Count(service, group, keyID, tokenID string) {
	m.counter.Add(Key{Day: DayOf(m.now()), Service: service, Group: group, KeyID: keyID, TokenID: tokenID}, 1)
}

// Start flushes every interval until Close.
func (m *Meter) Start() {
	m.startOnce.Do(func() {
		go func() {
			defer close(m.done)
			t := time.NewTicker(m.interval)
			defer t.Stop()
			for {
				select {
				case <-m.stop:
					return
				case <-t.C:
					ctx, cancel := context.WithTimeout(context.Background(), max(m.interval, 30*time.Second))
					if err := m.Flush(ctx); err != nil {
						m.log.Warn("usage counts not flushed; kept for the next flush", "err", err)
					}
					cancel()
				}
			}
		}()
	})
}

// Flush writes the counts held in memory. When the write fails they are
// kept for the next flush.
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	taken := m.counter.Take()
	if len(taken) == 0 {
		return nil
	}
	counts := make([]store.UsageCount, 0, len(taken))
	for k, v := range taken {
		counts = append(counts, store.UsageCount{Day: DayString(k.Day), Service: k.Service, Group: k.Group,
			KeyID: k.KeyID, TokenID: k.TokenID, Value: v})
	}
	if err := m.sink.AddUsage(ctx, counts); err != nil {
		for k, v := range taken {
			m.counter.Add(k, v)
		}
		return fmt.Errorf("flush usage counts: %w", err)
	}
	return nil
}

// Close stops the ticker and flushes what is left. It may be called more
// than once; later calls return the first call's result.
func (m *Meter) Close(ctx context.Context) error {
	m.closeOnce.Do(func() {
		close(m.stop)
		m.startOnce.Do(func() { close(m.done) }) // never started: nothing to wait for
		<-m.done
		m.closeErr = m.Flush(ctx)
	})
	return m.closeErr
}
