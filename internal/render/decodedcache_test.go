package render

import (
	"fmt"
	"testing"

	"github.com/paulmach/orb"
)

func TestDecodedCacheBounded(t *testing.T) {
	feats := []sourceFeature{{kind: "LineString", parts: [][]orb.Point{make([]orb.Point, 100)}}}
	size := featuresSize(feats)
	tile := &decodedTile{feats: feats}
	c := newDecodedCache(10 * size)
	for i := range 20 {
		c.put(fmt.Sprint(i), tile)
		if _, ok := c.get("0"); !ok && i < 15 {
			// "0" is used after every put: it stays while others go.
			t.Fatalf("the most recently used tile was evicted at put %d", i)
		}
	}
	if c.bytes > c.max {
		t.Errorf("cache holds %d bytes, bound %d", c.bytes, c.max)
	}
	if _, ok := c.get("1"); ok {
		t.Error("an old, unused tile was kept past the bound")
	}
	if _, ok := c.get("19"); !ok {
		t.Error("the newest tile is missing")
	}
	var off *decodedCache
	off.put("x", tile)
	if _, ok := off.get("x"); ok {
		t.Error("a nil cache returned a tile")
	}
}
