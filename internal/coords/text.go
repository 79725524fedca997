package coords

import (
	"slices"
	"sort"
)

// The index is pointer-free so that the garbage collector does not scan it:
// a server keeps it for its lifetime, and every collection's mark phase
// would otherwise visit its hundreds of thousands of strings and slices
// (about 220,000 objects, 17 MB to scan), slowing every request that runs
// while it marks. Strings live in one text and are referred to by offset
// and length (str); lists of entries live in shared []int32 slices and are
// referred to by span or through a lists table.

// str is a string of the index's text: its offset and length.
type str struct{ off, n uint32 }

// of is the string in text.
func (s str) of(text string) string { return text[s.off : s.off+s.n] }

// span is a run of a shared slice: its offset and length.
type span struct{ off, n uint32 }

// textBuilder gathers the index's text while it loads; each distinct string
// is stored once, so equal strings have equal strs.
type textBuilder struct {
	buf  []byte
	strs map[string]str
}

func newTextBuilder() *textBuilder { return &textBuilder{strs: map[string]str{}} }

// add stores s (once) and returns where it is.
func (t *textBuilder) add(s string) str {
	if v, ok := t.strs[s]; ok {
		return v
	}
	v := str{uint32(len(t.buf)), uint32(len(s))}
	t.buf = append(t.buf, s...)
	t.strs[s] = v
	return v
}

// text is the text gathered so far.
func (t *textBuilder) text() string { return string(t.buf) }

// lists maps keys to lists of entries in three pointer-free slices: the
// keys in order, where each key's entries end, and the entries.
type lists struct {
	keys  []str
	ends  []uint32
	items []int32
}

// newLists stores m's keys in t and lays out their lists.
func newLists(t *textBuilder, m map[string][]int32) lists {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += len(v)
	}
	sort.Strings(keys)
	ls := lists{keys: make([]str, len(keys)), ends: make([]uint32, len(keys)), items: make([]int32, 0, n)}
	for i, k := range keys {
		ls.keys[i] = t.add(k)
		ls.items = append(ls.items, m[k]...)
		ls.ends[i] = uint32(len(ls.items))
	}
	return ls
}

// search is the position of the first key not less than k.
func (ls *lists) search(text, k string) int {
	i, _ := slices.BinarySearchFunc(ls.keys, k, func(s str, k string) int {
		switch v := s.of(text); {
		case v < k:
			return -1
		case v > k:
			return 1
		}
		return 0
	})
	return i
}

// get is the list of k (nil when k has none).
func (ls *lists) get(text, k string) []int32 {
	if i := ls.search(text, k); i < len(ls.keys) && ls.keys[i].of(text) == k {
		return ls.at(i)
	}
	return nil
}

// at is the list of the i-th key, capped so that appending to it copies.
func (ls *lists) at(i int) []int32 {
	start := uint32(0)
	if i > 0 {
		start = ls.ends[i-1]
	}
	return ls.items[start:ls.ends[i]:ls.ends[i]]
}
