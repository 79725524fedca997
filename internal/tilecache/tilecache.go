// Package tilecache keeps recently served tiles in memory, bounded by bytes:
// a sharded least-recently-used cache keyed by tileset generation and tile
// address, holding each tile's bytes and its strong ETag. Absent tiles are
// cached too, so that empty areas cost nothing on the second request.
package tilecache

import (
	"container/list"
	"hash/crc64"
	"sync"
	"sync/atomic"
)

// Key names one tile of one generation of a tileset.
type Key struct {
	Gen     uint64
	Z, X, Y uint32
}

// Tile is a cached tile: its stored bytes (nil when absent) and ETag.
type Tile struct {
	Data []byte
	ETag string
}

// entryOverhead approximates the bookkeeping bytes of one entry.
const entryOverhead = 96

const shards = 16

type shard struct {
	mu    sync.Mutex
	items map[Key]*list.Element
	order *list.List // front = most recent
	bytes int64
	max   int64
}

type item struct {
	key  Key
	tile Tile
	size int64
}

// Cache is safe for concurrent use. The zero value is not usable: call New.
type Cache struct {
	shards [shards]shard
	hits   atomic.Uint64
	misses atomic.Uint64
}

// New makes a cache of at most maxBytes (0 disables caching).
func New(maxBytes int64) *Cache {
	c := &Cache{}
	for i := range c.shards {
		c.shards[i] = shard{items: map[Key]*list.Element{}, order: list.New(), max: maxBytes / shards}
	}
	return c
}

func (c *Cache) shard(k Key) *shard {
	h := k.Gen*0x9E3779B97F4A7C15 ^ uint64(k.Z)<<58 ^ uint64(k.X)*0xBF58476D1CE4E5B9 ^ uint64(k.Y)*0x94D049BB133111EB
	h ^= h >> 31
	return &c.shards[h%shards]
}

// Get returns the cached tile for k.
func (c *Cache) Get(k Key) (Tile, bool) {
	s := c.shard(k)
	s.mu.Lock()
	el, ok := s.items[k]
	if ok {
		s.order.MoveToFront(el)
		t := el.Value.(*item).tile
		s.mu.Unlock()
		c.hits.Add(1)
		return t, true
	}
	s.mu.Unlock()
	c.misses.Add(1)
	return Tile{}, false
}

// Put stores a tile, evicting the least recently used ones as needed.
// Tiles larger than a shard's budget are not cached.
func (c *Cache) Put(k Key, t Tile) {
	s := c.shard(k)
	size := int64(len(t.Data)+len(t.ETag)) + entryOverhead
	if size > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.items[k]; ok {
		it := el.Value.(*item)
		s.bytes += size - it.size
		it.tile, it.size = t, size
		s.order.MoveToFront(el)
	} else {
		s.items[k] = s.order.PushFront(&item{key: k, tile: t, size: size})
		s.bytes += size
	}
	for s.bytes > s.max {
		el := s.order.Back()
		if el == nil {
			break
		}
		it := el.Value.(*item)
		s.order.Remove(el)
		delete(s.items, it.key)
		s.bytes -= it.size
	}
}

// Stats are the cache's counters.
type Stats struct {
	Hits, Misses uint64
	Bytes        int64
	Entries      int
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	st := Stats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Bytes += s.bytes
		st.Entries += len(s.items)
		s.mu.Unlock()
	}
	return st
}

// ETag returns a strong entity tag for tile bytes: a 64-bit hash of the
// content (CRC-64), quoted. Absent tiles get the tag of empty content.
func ETag(data []byte) string {
	const hex = "0123456789abcdef"
	var b [18]byte
	b[0], b[17] = '"', '"'
	v := crc64.Checksum(data, crcTable)
	for i := 16; i >= 1; i-- {
		b[i] = hex[v&0xf]
		v >>= 4
	}
	return string(b[:])
}

// crcTable makes tags that are the same on every node and across restarts.
var crcTable = crc64.MakeTable(crc64.ECMA)
