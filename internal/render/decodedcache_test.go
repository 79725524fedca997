package render

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

func TestDecodedCacheBounded(t *testing.T) {
	feats := []scene.Feature{{Kind: "LineString", Parts: [][]orb.Point{make([]orb.Point, 100)}}}
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
	if c.Bytes() > c.Max() {
		t.Errorf("cache holds %d bytes, bound %d", c.Bytes(), c.Max())
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

// TestArenaChunks: an arena's allocations start small and double up to
// arenaChunk elements, and it counts the bytes it allocated (a decoded
// Tile's size for the cache's bound).
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

// TestLayerShape: the stats a render scales from a tile's kept shape are
// those of measuring its features at the render's scale: polygons' boxes
// Count up to the image's area.
func TestLayerShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var feats []scene.Feature
	for range 200 {
		n := 2 + rng.IntN(6)
		pts := make([]orb.Point, n)
		for i := range pts {
			pts[i] = orb.Point{rng.Float64() * 0.001, rng.Float64() * 0.001}
		}
		if rng.IntN(2) == 0 {
			feats = append(feats, scene.Feature{Parts: [][]orb.Point{pts}})
		} else {
			feats = append(feats, scene.Feature{Polygons: [][][]orb.Point{{pts}}})
		}
	}
	sh := shapeOf(scene.Runs{feats[:120], feats[120:]})
	for _, tc := range []struct {
		scale  float64
		pixels int
	}{{512 * 1024, 512 * 512}, {512 * 4096, 512 * 512}, {512 * 65536, 256 * 256}, {1, 100}} {
		var want featureStats
		for _, f := range feats {
			want.features++
			rings := f.Parts
			if f.Polygons != nil {
				rings = f.Polygons[0]
			}
			for _, ring := range rings {
				want.vertices += float64(len(ring))
				x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
				for i, p := range ring {
					x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
					if i > 0 {
						want.length += math.Hypot(p[0]-ring[i-1][0], p[1]-ring[i-1][1]) * tc.scale
					}
				}
				if f.Polygons != nil {
					want.area += math.Min((x1-x0)*(y1-y0)*tc.scale*tc.scale, float64(tc.pixels))
				}
			}
		}
		var got featureStats
		got.add(sh, tc.scale, tc.pixels)
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
		if got.features != want.features || got.vertices != want.vertices || !near(got.length, want.length) || !near(got.area, want.area) {
			t.Errorf("scale %v, %d pixels: %+v, want %+v", tc.scale, tc.pixels, got, want)
		}
	}
}
