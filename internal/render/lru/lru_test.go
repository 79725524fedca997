package lru

import (
	"fmt"
	"testing"
)

func TestSizedLRU(t *testing.T) {
	type op struct {
		kind string // put, get, del, max
		key  string
		n    int64 // size, or the bound for max
	}
	for _, tc := range []struct {
		name string
		max  int64
		ops  []op
		gone string // keys let go of, in order
		kept string // keys kept, most recently used first
	}{
		{"fits", 10, []op{{"put", "a", 4}, {"put", "b", 4}}, "[]", "[b a]"},
		{"oldest out", 10, []op{{"put", "a", 4}, {"put", "b", 4}, {"put", "c", 4}}, "[a]", "[c b]"},
		{"used stays", 10, []op{{"put", "a", 4}, {"put", "b", 4}, {"get", "a", 0}, {"put", "c", 4}}, "[b]", "[c a]"},
		{"replaced", 10, []op{{"put", "a", 4}, {"put", "a", 6}}, "[a]", "[a]"},
		{"deleted", 10, []op{{"put", "a", 4}, {"put", "b", 4}, {"del", "a", 0}}, "[a]", "[b]"},
		{"bound lowered", 10, []op{{"put", "a", 4}, {"put", "b", 4}, {"max", "", 5}}, "[a]", "[b]"},
		{"bound zero", 10, []op{{"put", "a", 4}, {"max", "", 0}}, "[a]", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New[string, int64](tc.max)
			var gone []string
			note := func(es []*Entry[string, int64]) {
				for _, e := range es {
					gone = append(gone, e.Key)
				}
			}
			for _, o := range tc.ops {
				switch o.kind {
				case "put":
					note(c.Put(o.key, o.n, o.n))
				case "get":
					if _, ok := c.Get(o.key); !ok {
						t.Fatalf("%s missing", o.key)
					}
				case "del":
					if e, ok := c.Delete(o.key); ok {
						note([]*Entry[string, int64]{e})
					}
				case "max":
					note(c.SetMax(o.n))
				}
			}
			var kept []string
			sum := int64(0)
			for e := c.ll.Front(); e != nil; e = e.Next() {
				ent := e.Value.(*Entry[string, int64])
				kept = append(kept, ent.Key)
				sum += ent.Size
			}
			if fmt.Sprint(gone) != tc.gone || fmt.Sprint(kept) != tc.kept {
				t.Errorf("let go of %v, kept %v; want %s, %s", gone, kept, tc.gone, tc.kept)
			}
			if sum != c.bytes || c.bytes > c.max || len(c.m) != len(kept) {
				t.Errorf("%d bytes counted (%d kept, %d keys), bound %d", c.bytes, sum, len(c.m), c.max)
			}
		})
	}
}
