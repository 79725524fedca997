// Package strtab stores the strings of long-lived indexes in one string and
// refers to them by offset and length, and lists of entries under string
// keys in flat slices, so that the indexes hold no pointers: the garbage
// collector's mark phase, which visits every pointer of the live heap on
// every collection, then skips them whole. A server keeps such indexes for
// its lifetime, and a mark phase that visits hundreds of thousands of small
// strings and slices slows every request that runs while it marks.
package strtab

import (
	"slices"
	"sort"
)

// Ref is a string of a table's text: its offset and length.
type Ref struct{ Off, Len uint32 }

// In is the string in text.
func (r Ref) In(text string) string { return text[r.Off : r.Off+r.Len] }

// Builder gathers a table's text; each distinct string is stored once, so
// equal strings have equal Refs.
type Builder struct {
	buf  []byte
	refs map[string]Ref
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{refs: map[string]Ref{}} }

// Add stores s (once) and returns where it is.
func (b *Builder) Add(s string) Ref {
	if r, ok := b.refs[s]; ok {
		return r
	}
	r := Ref{uint32(len(b.buf)), uint32(len(s))}
	b.buf = append(b.buf, s...)
	b.refs[s] = r
	return r
}

// Text is the text gathered so far (a copy: keep the last one).
func (b *Builder) Text() string { return string(b.buf) }

// Lists maps keys to lists of entries (int32 indexes into whatever the
// index holds) in three flat slices: the keys in order, where each key's
// list ends, and the lists one after the other.
type Lists struct {
	keys  []Ref
	ends  []uint32
	items []int32
}

// NewLists stores m's keys in b and lays out their lists.
func NewLists(b *Builder, m map[string][]int32) Lists {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	ls := Lists{keys: make([]Ref, len(keys)), ends: make([]uint32, len(keys)), items: make([]int32, 0, n)}
	for i, k := range keys {
		ls.keys[i] = b.Add(k)
		ls.items = append(ls.items, m[k]...)
		ls.ends[i] = uint32(len(ls.items))
	}
	return ls
}

// Len is the number of keys.
func (ls *Lists) Len() int { return len(ls.keys) }

// Key is the i-th key in order.
func (ls *Lists) Key(text string, i int) string { return ls.keys[i].In(text) }

// Search is the position of the first key not less than k.
func (ls *Lists) Search(text, k string) int {
	i, _ := slices.BinarySearchFunc(ls.keys, k, func(r Ref, k string) int {
		switch v := r.In(text); {
		case v < k:
			return -1
		case v > k:
			return 1
		}
		return 0
	})
	return i
}

// Get is the list of k (nil when k has none).
func (ls *Lists) Get(text, k string) []int32 {
	if i := ls.Search(text, k); i < len(ls.keys) && ls.keys[i].In(text) == k {
		return ls.At(i)
	}
	return nil
}

// At is the list of the i-th key, capped so that appending to it copies.
func (ls *Lists) At(i int) []int32 {
	start := uint32(0)
	if i > 0 {
		start = ls.ends[i-1]
	}
	return ls.items[start:ls.ends[i]:ls.ends[i]]
}
