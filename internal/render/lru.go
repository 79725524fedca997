package render

import "container/list"

// sizedLRU is a least-recently-used map bounded by the bytes its values
// are said to take. It has no lock: the caches that hold one (decoded
// tiles, symbol layouts) guard it with theirs, and keep what they index
// beside it up to date from the entries it lets go of.
type sizedLRU[K comparable, V any] struct {
	max   int64
	bytes int64
	ll    *list.List // of *lruEntry[K, V], front: most recently used
	m     map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key  K
	val  V
	size int64
}

func newSizedLRU[K comparable, V any](max int64) sizedLRU[K, V] {
	return sizedLRU[K, V]{max: max, ll: list.New(), m: map[K]*list.Element{}}
}

// get returns the value under k, now the most recently used.
func (c *sizedLRU[K, V]) get(k K) (V, bool) {
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).val, true
}

// put keeps v under k in place of what k held, and returns the entries let
// go of: the one replaced, and the least recently used over the bound.
func (c *sizedLRU[K, V]) put(k K, v V, size int64) []*lruEntry[K, V] {
	var gone []*lruEntry[K, V]
	if e, ok := c.m[k]; ok {
		gone = append(gone, c.remove(e))
	}
	c.m[k] = c.ll.PushFront(&lruEntry[K, V]{key: k, val: v, size: size})
	c.bytes += size
	return append(gone, c.trim()...)
}

// setMax sets the bound and returns the entries let go of to meet it.
func (c *sizedLRU[K, V]) setMax(max int64) []*lruEntry[K, V] {
	c.max = max
	return c.trim()
}

// trim lets go of the least recently used entries over the bound.
func (c *sizedLRU[K, V]) trim() []*lruEntry[K, V] {
	var gone []*lruEntry[K, V]
	for c.bytes > c.max && c.ll.Len() > 0 {
		gone = append(gone, c.remove(c.ll.Back()))
	}
	return gone
}

// delete lets go of the entry under k, if any.
func (c *sizedLRU[K, V]) delete(k K) (*lruEntry[K, V], bool) {
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	return c.remove(e), true
}

func (c *sizedLRU[K, V]) remove(e *list.Element) *lruEntry[K, V] {
	ent := e.Value.(*lruEntry[K, V])
	c.ll.Remove(e)
	delete(c.m, ent.key)
	c.bytes -= ent.size
	return ent
}
