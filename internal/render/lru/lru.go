// Package lru holds a least-recently-used map bounded by the bytes of
// its values, for the renderer's caches of decoded tiles and symbol
// layouts.
package lru

import (
	"container/list"
	"iter"
)

// Sized is a least-recently-used map bounded by the bytes its values
// are said to take. It has no lock: the caches that hold one (decoded
// tiles, symbol layouts) guard it with theirs, and keep what they index
// beside it up to date from the entries it lets go of.
type Sized[K comparable, V any] struct {
	max   int64
	bytes int64
	ll    *list.List // of *Entry[K, V], front: most recently used
	m     map[K]*list.Element
}

// Max returns the bound, in bytes.
func (c *Sized[K, V]) Max() int64 { return c.max }

// Has reports whether k is held, without making it the most recently used.
func (c *Sized[K, V]) Has(k K) bool {
	_, ok := c.m[k]
	return ok
}

// Len returns the number of entries.
func (c *Sized[K, V]) Len() int { return len(c.m) }

// Bytes returns the bytes the entries are said to take.
func (c *Sized[K, V]) Bytes() int64 { return c.bytes }

// All yields the entries, the most recently used first, without making
// them used.
func (c *Sized[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for e := c.ll.Front(); e != nil; e = e.Next() {
			ent := e.Value.(*Entry[K, V])
			if !yield(ent.Key, ent.Value) {
				return
			}
		}
	}
}

// Entry is one entry of a Sized map: its key, its value and the bytes
// the value is said to take.
type Entry[K comparable, V any] struct {
	Key   K
	Value V
	Size  int64
}

// New returns an empty map bounded by max bytes.
func New[K comparable, V any](max int64) Sized[K, V] {
	return Sized[K, V]{max: max, ll: list.New(), m: map[K]*list.Element{}}
}

// Get returns the value under k, now the most recently used.
func (c *Sized[K, V]) Get(k K) (V, bool) {
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*Entry[K, V]).Value, true
}

// Put keeps v under k in place of what k held, and returns the entries let
// go of: the one replaced, and the least recently used over the bound.
func (c *Sized[K, V]) Put(k K, v V, size int64) []*Entry[K, V] {
	var gone []*Entry[K, V]
	if e, ok := c.m[k]; ok {
		gone = append(gone, c.remove(e))
	}
	c.m[k] = c.ll.PushFront(&Entry[K, V]{Key: k, Value: v, Size: size})
	c.bytes += size
	return append(gone, c.trim()...)
}

// SetMax sets the bound and returns the entries let go of to meet it.
func (c *Sized[K, V]) SetMax(max int64) []*Entry[K, V] {
	c.max = max
	return c.trim()
}

// trim lets go of the least recently used entries over the bound.
func (c *Sized[K, V]) trim() []*Entry[K, V] {
	var gone []*Entry[K, V]
	for c.bytes > c.max && c.ll.Len() > 0 {
		gone = append(gone, c.remove(c.ll.Back()))
	}
	return gone
}

// Delete lets go of the entry under k, if any.
func (c *Sized[K, V]) Delete(k K) (*Entry[K, V], bool) {
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	return c.remove(e), true
}

func (c *Sized[K, V]) remove(e *list.Element) *Entry[K, V] {
	ent := e.Value.(*Entry[K, V])
	c.ll.Remove(e)
	delete(c.m, ent.Key)
	c.bytes -= ent.Size
	return ent
}
