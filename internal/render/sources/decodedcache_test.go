package sources

import (
	"fmt"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

func TestDecodedCacheBounded(t *testing.T) {
	feats := []scene.Feature{{Kind: "LineString", Parts: [][]orb.Point{make([]orb.Point, 100)}}}
	size := featuresSize(feats)
	tile := &VectorTile{feats: feats}
	c := NewDecodedCache(10 * size)
	for i := range 20 {
		c.Put(fmt.Sprint(i), tile)
		if _, ok := c.get("0"); !ok && i < 15 {
			// "0" is used after every put: it stays while others go.
			t.Fatalf("the most recently used tile was evicted at put %d", i)
		}
	}
	if c.Bytes() > c.Max() {
		t.Errorf("cache holds %d bytes, bound %d", c.Bytes(), c.Max())
	}
	if _, ok := c.get("1"); ok {
		t.Error("an old, unused tile was kept past the bound")
	}
	if _, ok := c.get("19"); !ok {
		t.Error("the newest tile is missing")
	}
	var off *DecodedCache
	off.Put("x", tile)
	if _, ok := off.get("x"); ok {
		t.Error("a nil cache returned a tile")
	}
}

// TestArenaChunks: an arena's allocations start small and double up to
// arenaChunk elements, and it counts the bytes it allocated (a decoded
// tile's size for the cache's bound).
func TestArenaChunks(t *testing.T) {
	var a arena[orb.Point]
	tests := []struct {
		take       int
		wantChunk  int
		wantAllocs int64 // elements allocated so far
	}{
		{10, 64, 64},
		{50, 64, 64},     // fits in the first chunk
		{10, 128, 192},   // 4 left: a new, doubled chunk
		{500, 256, 692},  // more than a chunk: its own size
		{100, 512, 1204}, // the free part of the 500 was empty
		{3000, 1024, 4204},
		{10, 2048, 6252},
		{10, 2048, 6252},
	}
	for i, tc := range tests {
		s := a.take(tc.take)
		if len(s) != tc.take || cap(s) != tc.take {
			t.Fatalf("take %d: len %d cap %d", i, len(s), cap(s))
		}
		if a.chunk != tc.wantChunk || a.bytes != tc.wantAllocs*16 {
			t.Fatalf("take %d (%d): chunk %d, bytes %d; want %d, %d", i, tc.take, a.chunk, a.bytes, tc.wantChunk, tc.wantAllocs*16)
		}
	}
}
