// Package tilecache keeps recently served tiles in memory, bounded by bytes.
//
// Tile bytes live in large append-only slabs, and the index maps a tile
// key to a position in a slab with values that hold no pointers, so the
// garbage collector has almost nothing to scan however many tiles are
// cached. Eviction is first in, first out by slab: when the budget is
// spent, the oldest slab is dropped as a whole (tiles still being written
// to a client keep their slab alive until they are done). Each tile's
// strong ETag (a CRC-64 of its bytes) is kept beside it. Absent tiles are
// cached too, so that empty areas cost nothing on the second request.
package tilecache

import (
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

const (
	shards = 16
	// slabSize is the default size of one slab; tiles larger than a
	// quarter of it are not cached.
	slabSize = 1 << 20
	// entryBytes approximates the index cost of one tile.
	entryBytes = 48
)

// loc is where a tile lives: slab sequence number, offset and length, and
// its ETag's CRC. It holds no pointers.
type loc struct {
	seq    uint64
	off    uint32
	n      uint32 // 0 = absent tile
	crc    uint64
	absent bool
}

type shard struct {
	mu    sync.Mutex
	index map[Key]loc
	slabs [][]byte // live slabs, oldest first
	first uint64   // sequence number of slabs[0]
	max   int      // slabs kept
	// keys per slab, to drop them from the index with their slab.
	keys [][]Key
}

// Cache is safe for concurrent use. The zero value is not usable: call New.
type Cache struct {
	shards [shards]shard
	hits   atomic.Uint64
	misses atomic.Uint64
	off    bool
	// slab is the size of a slab, maxTile the largest tile kept.
	slab, maxTile int
}

// New makes a cache of at most about maxBytes (0 disables caching) for
// tiles of up to 256 KiB.
func New(maxBytes int64) *Cache { return NewSized(maxBytes, slabSize/4) }

// NewSized makes a cache of at most about maxBytes (0 disables caching)
// for tiles of up to maxTile bytes (rendered images are larger than
// vector tiles). Memory is held in slabs of twice maxTile, or of 1 MiB
// when that is larger, at least two per shard.
func NewSized(maxBytes int64, maxTile int) *Cache {
	slab := max(slabSize, 2*maxTile)
	c := &Cache{off: maxBytes <= 0, slab: slab, maxTile: maxTile}
	perShard := int(maxBytes / shards / int64(slab))
	if perShard < 2 {
		perShard = 2 // the current slab and one older
	}
	for i := range c.shards {
		c.shards[i] = shard{index: map[Key]loc{}, max: perShard}
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
	if c.off {
		c.misses.Add(1)
		return Tile{}, false
	}
	s := c.shard(k)
	s.mu.Lock()
	l, ok := s.index[k]
	var data []byte
	if ok && !l.absent {
		slab := s.slabs[l.seq-s.first]
		data = slab[l.off : l.off+l.n : l.off+l.n]
	}
	s.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return Tile{}, false
	}
	c.hits.Add(1)
	if l.absent {
		return Tile{}, true
	}
	return Tile{Data: data, ETag: formatETag(l.crc)}, true
}

// Put stores a tile (Data nil for an absent one). Its ETag is computed
// here; the ETag field of t is ignored. The bytes are copied.
func (c *Cache) Put(k Key, t Tile) {
	if c.off || len(t.Data) > c.maxTile {
		return
	}
	l := loc{absent: t.Data == nil, n: uint32(len(t.Data))}
	if !l.absent {
		l.crc = crc64.Checksum(t.Data, crcTable)
	}
	s := c.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index[k]; ok {
		return // a concurrent miss stored it already
	}
	cur := len(s.slabs) - 1
	if cur < 0 || len(s.slabs[cur])+len(t.Data) > c.slab || len(s.keys[cur])*entryBytes > c.slab/2 {
		s.slabs = append(s.slabs, make([]byte, 0, c.slab))
		s.keys = append(s.keys, nil)
		cur++
		if len(s.slabs) > s.max {
			for _, old := range s.keys[0] {
				delete(s.index, old)
			}
			s.slabs[0], s.keys[0] = nil, nil
			s.slabs, s.keys = s.slabs[1:], s.keys[1:]
			s.first++
			cur--
		}
	}
	l.seq = s.first + uint64(cur)
	l.off = uint32(len(s.slabs[cur]))
	s.slabs[cur] = append(s.slabs[cur], t.Data...)
	s.keys[cur] = append(s.keys[cur], k)
	s.index[k] = l
}

// Stats are the cache's counters.
type Stats struct {
	Hits, Misses uint64
	// Bytes is the memory held by the slabs.
	Bytes   int64
	Entries int
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	st := Stats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Bytes += int64(len(s.slabs)) * int64(c.slab)
		st.Entries += len(s.index)
		s.mu.Unlock()
	}
	return st
}

// crcTable makes tags that are the same on every node and across restarts.
var crcTable = crc64.MakeTable(crc64.ECMA)

// ETag returns a strong entity tag for tile bytes: a 64-bit hash of the
// content (CRC-64), quoted.
func ETag(data []byte) string { return formatETag(crc64.Checksum(data, crcTable)) }

func formatETag(v uint64) string {
	const hex = "0123456789abcdef"
	var b [18]byte
	b[0], b[17] = '"', '"'
	for i := 16; i >= 1; i-- {
		b[i] = hex[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
