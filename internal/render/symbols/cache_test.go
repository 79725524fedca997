package symbols

import (
	"fmt"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/sources"
)

func TestLayoutCacheBounded(t *testing.T) {
	type op struct {
		put  bool
		key  int
		size int64
	}
	for _, tc := range []struct {
		name string
		max  int64
		ops  []op
		kept []int // keys held at the end, most recently used first
	}{
		{"fits", 100, []op{{true, 1, 10}, {true, 2, 10}}, []int{2, 1}},
		{"oldest out", 100, []op{{true, 1, 20}, {true, 2, 20}, {true, 3, 20}, {true, 4, 20}, {true, 5, 20}, {true, 6, 20}}, []int{6, 5, 4, 3, 2}},
		{"used stays", 60, []op{{true, 1, 15}, {true, 2, 15}, {true, 3, 15}, {false, 1, 0}, {true, 4, 15}, {true, 5, 15}}, []int{5, 4, 1, 3}},
		{"too big for a quarter", 100, []op{{true, 1, 10}, {true, 2, 26}}, []int{1}},
		{"replaced", 100, []op{{true, 1, 10}, {true, 2, 10}, {true, 1, 20}}, []int{1, 2}},
		{"disabled", 0, []op{{true, 1, 1}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLayoutCache(tc.max)
			tiles := map[int]*sources.VectorTile{}
			key := func(k int) layoutKey {
				if tiles[k] == nil {
					tiles[k] = &sources.VectorTile{}
				}
				return layoutKey{tile: tiles[k]}
			}
			for _, o := range tc.ops {
				if o.put {
					c.put(key(o.key), &tileLayout{size: o.size})
				} else if _, ok := c.get(key(o.key)); !ok {
					t.Fatalf("key %d missing", o.key)
				}
			}
			var kept []int
			sum := int64(0)
			for key, tl := range c.All() {
				for k, tile := range tiles {
					if key.tile == tile {
						kept = append(kept, k)
					}
				}
				sum += tl.size
			}
			if fmt.Sprint(kept) != fmt.Sprint(tc.kept) {
				t.Errorf("kept %v, want %v", kept, tc.kept)
			}
			if sum != c.Bytes() || c.Bytes() > tc.max || c.Len() != len(kept) {
				t.Errorf("bytes %d (sum %d, %d keys), bound %d", c.Bytes(), sum, c.Len(), tc.max)
			}
		})
	}
}
