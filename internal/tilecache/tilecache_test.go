package tilecache

import (
	"fmt"
	"sync"
	"testing"
)

func TestGetPutEvict(t *testing.T) {
	c := New(16 * 1024) // 1 KiB per shard
	k := Key{Gen: 1, Z: 3, X: 2, Y: 1}
	if _, ok := c.Get(k); ok {
		t.Fatal("empty cache hit")
	}
	c.Put(k, Tile{Data: []byte("abc"), ETag: ETag([]byte("abc"))})
	got, ok := c.Get(k)
	if !ok || string(got.Data) != "abc" || got.ETag != ETag([]byte("abc")) {
		t.Fatalf("Get = %+v %v", got, ok)
	}
	// Another generation is another key.
	if _, ok := c.Get(Key{Gen: 2, Z: 3, X: 2, Y: 1}); ok {
		t.Error("generation ignored")
	}
	// Fill far beyond the budget: the byte count stays bounded.
	for i := range 2000 {
		c.Put(Key{Gen: 1, Z: 10, X: uint32(i), Y: 0}, Tile{Data: make([]byte, 100)})
	}
	st := c.Stats()
	if st.Bytes > 16*1024 {
		t.Errorf("cache holds %d bytes, budget 16384", st.Bytes)
	}
	if st.Entries == 0 || st.Hits < 1 || st.Misses < 2 {
		t.Errorf("stats = %+v", st)
	}
	// Too large for a shard: not cached.
	c.Put(Key{Gen: 9}, Tile{Data: make([]byte, 4096)})
	if _, ok := c.Get(Key{Gen: 9}); ok {
		t.Error("oversized tile cached")
	}
}

func TestLRUOrder(t *testing.T) {
	c := New(shards * (3*(entryOverhead+10) + 5))
	// Keys that land in one shard, so the order is observable.
	var keys []Key
	first := c.shard(Key{Gen: 1})
	for i := 0; len(keys) < 4; i++ {
		k := Key{Gen: 1, X: uint32(i)}
		if c.shard(k) == first {
			keys = append(keys, k)
		}
	}
	for _, k := range keys[:3] {
		c.Put(k, Tile{Data: make([]byte, 10)})
	}
	c.Get(keys[0]) // keys[1] is now the least recent
	c.Put(keys[3], Tile{Data: make([]byte, 10)})
	if _, ok := c.Get(keys[1]); ok {
		t.Error("least recently used entry survived")
	}
	for _, k := range []Key{keys[0], keys[2], keys[3]} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%v evicted", k)
		}
	}
}

func TestETag(t *testing.T) {
	a, b := ETag([]byte("tile one")), ETag([]byte("tile two"))
	if a == b || len(a) != 18 || a[0] != '"' || a[17] != '"' {
		t.Errorf("ETags %s %s", a, b)
	}
	if ETag([]byte("tile one")) != a {
		t.Error("ETag not deterministic")
	}
}

func TestConcurrent(t *testing.T) {
	c := New(1 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := Key{Gen: uint64(g), X: uint32(i % 50)}
				c.Put(k, Tile{Data: []byte(fmt.Sprint(i))})
				c.Get(k)
			}
		}()
	}
	wg.Wait()
	if c.Stats().Entries == 0 {
		t.Error("nothing cached")
	}
}

func BenchmarkGet(b *testing.B) {
	c := New(64 << 20)
	for i := range 10000 {
		c.Put(Key{Gen: 1, Z: 14, X: uint32(i), Y: 7}, Tile{Data: make([]byte, 2000)})
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			c.Get(Key{Gen: 1, Z: 14, X: uint32(i % 10000), Y: 7})
			i++
		}
	})
}
