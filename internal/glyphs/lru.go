package glyphs

import (
	"container/list"
	"sync"
)

// lru is a byte-bounded least-recently-used cache, safe for concurrent use.
type lru struct {
	mu    sync.Mutex
	max   int64
	used  int64
	order *list.List // front = most recently used
	items map[string]*list.Element
}

type lruEntry struct {
	key   string
	value any
	size  int64
}

// entryOverhead approximates the bookkeeping bytes of one entry.
const entryOverhead = 160

func newLRU(maxBytes int64) *lru {
	return &lru{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry).value, true
}

// add stores value under key, evicting the least recently used entries to
// stay within the budget. A value larger than the whole budget is not kept.
func (c *lru) add(key string, value any, size int64) {
	size += int64(len(key)) + entryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
	if size > c.max {
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry{key: key, value: value, size: size})
	c.used += size
	for c.used > c.max {
		c.remove(c.order.Back())
	}
}

func (c *lru) remove(e *list.Element) {
	en := e.Value.(*lruEntry)
	c.order.Remove(e)
	delete(c.items, en.key)
	c.used -= en.size
}

func (c *lru) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.items)
	c.used = 0
}

// stats returns the number of entries and the bytes they account for.
func (c *lru) stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.used
}
