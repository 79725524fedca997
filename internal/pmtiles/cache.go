package pmtiles

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// DefaultCacheBytes is the size of the private directory cache of a Reader
// opened without Options.Cache.
const DefaultCacheBytes = 64 << 20

// DirCache is a least-recently-used cache of decoded leaf directories,
// bounded by an approximate byte size. One DirCache may be shared by many
// Readers and used from many goroutines. Concurrent misses on the same
// directory are loaded once.
type DirCache struct {
	maxBytes int64

	mu       sync.Mutex
	bytes    int64
	items    map[dirKey]*dirNode
	head     dirNode // sentinel: head.next is the most recently used
	inflight map[dirKey]*dirCall

	hits, misses atomic.Uint64
}

type dirKey struct {
	owner  uint64 // Reader identity
	gen    uint64 // archive generation (bumped when the remote archive changes)
	offset uint64 // absolute offset of the directory in the archive
}

type dirNode struct {
	key        dirKey
	entries    []Entry
	size       int64
	prev, next *dirNode
}

type dirCall struct {
	done    chan struct{}
	entries []Entry
	err     error
}

// nodeOverhead approximates the bookkeeping bytes of one cached directory.
const nodeOverhead = 128

// NewDirCache returns a cache holding at most maxBytes of decoded directory
// entries (at least one directory is always kept).
func NewDirCache(maxBytes int64) *DirCache {
	c := &DirCache{maxBytes: maxBytes, items: make(map[dirKey]*dirNode), inflight: make(map[dirKey]*dirCall)}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

// CacheStats reports cache usage.
type CacheStats struct {
	Hits, Misses uint64
	Entries      int
	Bytes        int64
}

// Stats returns a snapshot of the cache counters.
func (c *DirCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: len(c.items), Bytes: c.bytes}
}

func (c *DirCache) unlink(n *dirNode) {
	n.prev.next = n.next
	n.next.prev = n.prev
}

func (c *DirCache) pushFront(n *dirNode) {
	n.prev = &c.head
	n.next = c.head.next
	c.head.next.prev = n
	c.head.next = n
}

// get returns the cached directory for k, calling load on a miss. Only one
// load per key runs at a time; other callers wait for its result.
func (c *DirCache) get(ctx context.Context, k dirKey, load func() ([]Entry, error)) ([]Entry, error) {
	for {
		entries, retry, err := c.getOnce(ctx, k, load)
		if !retry {
			return entries, err
		}
	}
}

// getOnce is one attempt of get. It reports retry when it waited for
// another caller's load that failed only because that caller's context ended.
func (c *DirCache) getOnce(ctx context.Context, k dirKey, load func() ([]Entry, error)) ([]Entry, bool, error) {
	c.mu.Lock()
	if n, ok := c.items[k]; ok {
		if c.head.next != n {
			c.unlink(n)
			c.pushFront(n)
		}
		c.mu.Unlock()
		c.hits.Add(1)
		return n.entries, false, nil
	}
	if call, ok := c.inflight[k]; ok {
		c.mu.Unlock()
		select {
		case <-call.done:
			if call.err != nil && ctx.Err() == nil &&
				(errors.Is(call.err, context.Canceled) || errors.Is(call.err, context.DeadlineExceeded)) {
				return nil, true, nil
			}
			return call.entries, false, call.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	call := &dirCall{done: make(chan struct{})}
	c.inflight[k] = call
	c.mu.Unlock()
	c.misses.Add(1)

	call.entries, call.err = load()

	c.mu.Lock()
	delete(c.inflight, k)
	if call.err == nil {
		c.insertLocked(k, call.entries)
	}
	c.mu.Unlock()
	close(call.done)
	return call.entries, false, call.err
}

func (c *DirCache) insertLocked(k dirKey, entries []Entry) {
	if _, ok := c.items[k]; ok {
		return
	}
	n := &dirNode{key: k, entries: entries, size: int64(len(entries))*entrySize + nodeOverhead}
	c.items[k] = n
	c.pushFront(n)
	c.bytes += n.size
	for c.bytes > c.maxBytes && len(c.items) > 1 {
		last := c.head.prev
		c.unlink(last)
		delete(c.items, last.key)
		c.bytes -= last.size
	}
}

// dropOwner removes every directory of one Reader generation older than gen
// (or all of them when gen is ^0).
func (c *DirCache) dropOwner(owner, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, n := range c.items {
		if k.owner == owner && (gen == ^uint64(0) || k.gen < gen) {
			c.unlink(n)
			delete(c.items, k)
			c.bytes -= n.size
		}
	}
}
