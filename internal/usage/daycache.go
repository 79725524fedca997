package usage

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/store"
)

// Closed days: counts of a day can still arrive during the next one (the
// last flush interval of the day is written after midnight; a node whose
// flush failed retries), so a day is taken as final two days after it
// began: on 2026-11-28, 2026-11-26 and older are closed. Their daily sums
// are kept in memory for cacheDays days, which covers every daily period
// (past_90_days reaches 89 days back, last_billing_period at most 62).
// Sums that reach the database later than that (a node unable to flush for
// more than a day) show only after a restart.
const cacheDays = 100

// maxCacheEntries bounds the memory of the cache (an entry is one sum of a
// day, group and key or token: about 70 bytes): 1,000 keys with counts in
// two groups every day fill a fifth of it. Past the bound, queries read
// the database.
const maxCacheEntries = 1 << 20

type cacheKey struct {
	by    store.UsageItem
	group string
	day   string
}

// dayCache holds the daily sums of closed days, by breakdown, group and
// day. The zero dayCache is ready to use.
type dayCache struct {
	mu    sync.Mutex
	days  map[cacheKey][]store.UsageSum // a day without counts holds an empty slice
	items map[string]string             // item ids shared by every day that names them
	swept string                        // the day of the last sweep of old days
	n     int                           // sums held
	limit int                           // maxCacheEntries when zero
}

// daySums hands the daily sums of one group from since to last
// (inclusive) to visit: closed days within cacheDays from the cache
// (reading the missing ones from the database in one query), other days
// from the database.
func (a *Analytics) daySums(ctx context.Context, by store.UsageItem, group string, since, last, today time.Time, visit func(store.UsageSum)) error {
	read := func(from, to time.Time) error {
		if from.After(to) {
			return nil
		}
		s, err := a.DB.UsageSums(ctx, by, from.Format(time.DateOnly), to.Format(time.DateOnly), group)
		for _, u := range s {
			visit(u)
		}
		return err
	}
	lo, hi := today.AddDate(0, 0, -cacheDays), today.AddDate(0, 0, -2)
	from, to := since, last
	if from.Before(lo) {
		if err := read(from, minTime(to, lo.AddDate(0, 0, -1))); err != nil {
			return err
		}
		from = lo
	}
	if to.After(hi) {
		if err := read(maxTime(from, hi.AddDate(0, 0, 1)), to); err != nil {
			return err
		}
		to = hi
	}
	if from.After(to) {
		return nil
	}
	c := &a.cache
	missFrom, missTo := c.missing(by, group, from, to, today)
	if !missFrom.IsZero() {
		s, err := a.DB.UsageSums(ctx, by, missFrom.Format(time.DateOnly), missTo.Format(time.DateOnly), group)
		if err != nil {
			return err
		}
		if !c.put(by, group, missFrom, missTo, s) {
			return read(from, to) // the cache is full
		}
	}
	c.visitDays(by, group, from, to, visit)
	return nil
}

// Warm reads the closed days of the daily classifiers (api_keys and
// service_credentials, every group) into memory, so that the first query
// of a node is as fast as the next ones. The server runs it at start.
func (a *Analytics) Warm(ctx context.Context) error {
	today := midnight(a.now())
	for _, by := range []store.UsageItem{store.ByKey, store.ByToken} {
		for _, g := range Groups {
			err := a.daySums(ctx, by, g, today.AddDate(0, 0, -cacheDays), today.AddDate(0, 0, -2), today, func(store.UsageSum) {})
			if err != nil {
				return fmt.Errorf("warm the usage analytics: %w", err)
			}
		}
	}
	return nil
}

// missing returns the first and last day from from to to that the cache
// lacks (zero when it has them all), and drops days that have grown too
// old.
func (c *dayCache) missing(by store.UsageItem, group string, from, to, today time.Time) (first, last time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.days == nil {
		c.days, c.items = map[cacheKey][]store.UsageSum{}, map[string]string{}
	}
	if t := today.Format(time.DateOnly); c.swept != t {
		oldest := today.AddDate(0, 0, -cacheDays).Format(time.DateOnly)
		for k, v := range c.days {
			if k.day < oldest {
				c.n -= len(v)
				delete(c.days, k)
			}
		}
		c.swept = t
	}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		if _, ok := c.days[cacheKey{by, group, d.Format(time.DateOnly)}]; !ok {
			if first.IsZero() {
				first = d
			}
			last = d
		}
	}
	return first, last
}

// put stores the sums of the days from from to to (every day, with or
// without counts), unless that would pass maxCacheEntries.
func (c *dayCache) put(by store.UsageItem, group string, from, to time.Time, sums []store.UsageSum) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n+len(sums) > cmp.Or(c.limit, maxCacheEntries) {
		return false
	}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		k := cacheKey{by, group, d.Format(time.DateOnly)}
		c.n -= len(c.days[k])
		c.days[k] = []store.UsageSum{}
	}
	c.n += len(sums)
	// The sums come grouped by day (see store.DB.UsageSums): the day's
	// list is looked up once per run of one day.
	var (
		k    cacheKey
		list []store.UsageSum
	)
	for i, s := range sums {
		if id, ok := c.items[s.Item]; ok {
			s.Item = id
		} else {
			c.items[s.Item] = s.Item
		}
		if i == 0 || s.Group != k.group || s.Day != k.day {
			if i > 0 {
				c.days[k] = list
			}
			k = cacheKey{by, s.Group, s.Day}
			list = c.days[k]
		}
		list = append(list, s)
	}
	if len(sums) > 0 {
		c.days[k] = list
	}
	return true
}

// visitDays hands the cached sums of the days from from to to to visit.
func (c *dayCache) visitDays(by store.UsageItem, group string, from, to time.Time, visit func(store.UsageSum)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		for _, s := range c.days[cacheKey{by, group, d.Format(time.DateOnly)}] {
			visit(s)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
