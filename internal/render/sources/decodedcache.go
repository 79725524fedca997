package sources

import (
	"sync"
	"unsafe"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/lru"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// DefaultDecodedCacheBytes bounds the decoded vector tiles a renderer keeps.
const DefaultDecodedCacheBytes = 32 << 20

// DecodedCache keeps decoded vector tiles (their features in world
// coordinates) between renders, least recently used first out, bounded by
// an estimate of their bytes: neighbouring raster tiles and repeated views
// read the same source tiles. Safe for concurrent use; the features are
// never modified once decoded.
type DecodedCache struct {
	mu sync.Mutex
	lru.Sized[string, *VectorTile]
	held map[*VectorTile]int // the tiles kept, by how many keys
	// OnEvict, when set, is called (without the lock) with each tile the
	// cache lets go of: what is kept beside a tile goes with it.
	OnEvict func(*VectorTile)
}

// NewDecodedCache returns a cache of decoded tiles bounded by max bytes.
func NewDecodedCache(max int64) *DecodedCache {
	return &DecodedCache{Sized: lru.New[string, *VectorTile](max), held: map[*VectorTile]int{}}
}

// Holds reports whether the cache keeps t.
func (c *DecodedCache) Holds(t *VectorTile) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[t] > 0
}

func (c *DecodedCache) get(key string) (*VectorTile, bool) {
	if c == nil || c.Max() <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Sized.Get(key)
}

// Put keeps tile t under key, letting go of the least recently used
// tiles over the bound (and telling OnEvict of each).
func (c *DecodedCache) Put(key string, t *VectorTile) {
	if c == nil || c.Max() <= 0 {
		return
	}
	size := t.Size
	if size <= 0 {
		size = featuresSize(t.feats)
	}
	if size > c.Max()/4 {
		return // one huge tile would push everything else out
	}
	c.mu.Lock()
	if c.Has(key) {
		c.mu.Unlock()
		return
	}
	c.held[t]++
	var gone []*VectorTile
	for _, ent := range c.Sized.Put(key, t, size) {
		if c.held[ent.Value]--; c.held[ent.Value] <= 0 {
			delete(c.held, ent.Value)
			gone = append(gone, ent.Value)
		}
	}
	evict := c.OnEvict
	c.mu.Unlock()
	if evict != nil {
		for _, g := range gone {
			evict(g)
		}
	}
}

// featuresSize estimates the memory of decoded features: their structs,
// their property keys and values, their points and slice headers.
func featuresSize(feats []scene.Feature) int64 {
	return headerSize(feats) + geometrySize(feats)
}

// headerSize estimates the memory of features' structs and properties.
func headerSize(feats []scene.Feature) int64 {
	const (
		featBytes = int64(unsafe.Sizeof(scene.Feature{}))
		mapBytes  = int64(unsafe.Sizeof(expr.MapFeature{})) + 64
		propBytes = int64(unsafe.Sizeof("")) + int64(unsafe.Sizeof(expr.Value{}))
		tileBytes = int64(unsafe.Sizeof(tileFeature{}))
		tagBytes  = int64(unsafe.Sizeof(uint32(0)))
	)
	n := int64(0)
	for _, f := range feats {
		n += featBytes
		switch ft := f.Expr.(type) {
		case *expr.MapFeature:
			n += mapBytes + int64(ft.Props.Len())*propBytes
		case *tileFeature:
			n += tileBytes + int64(len(ft.tags))*tagBytes
		}
	}
	return n
}

// geometrySize estimates the memory of features' points and the slices
// that hold them.
func geometrySize(feats []scene.Feature) int64 {
	const (
		pointBytes = int64(unsafe.Sizeof(orb.Point{}))
		sliceBytes = 24
	)
	n := int64(0)
	rings := func(polys [][][]orb.Point) {
		for _, poly := range polys {
			n += sliceBytes
			for _, r := range poly {
				n += int64(len(r))*pointBytes + sliceBytes
			}
		}
	}
	for _, f := range feats {
		for _, p := range f.Parts {
			n += int64(len(p))*pointBytes + sliceBytes
		}
		rings(f.Polygons)
		rings(f.Unclipped) // shared with wholePolygons
	}
	return n
}
