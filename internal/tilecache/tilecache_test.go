package tilecache

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestGetPut(t *testing.T) {
	c := New(64 << 20)
	k := Key{Gen: 1, Z: 3, X: 2, Y: 1}
	if _, ok := c.Get(k); ok {
		t.Fatal("empty cache hit")
	}
	src := []byte("abc")
	c.Put(k, Tile{Data: src})
	src[0] = 'X' // the cache keeps its own copy
	got, ok := c.Get(k)
	if !ok || string(got.Data) != "abc" || got.ETag != ETag([]byte("abc")) {
		t.Fatalf("Get = %q %q %v", got.Data, got.ETag, ok)
	}
	// Appending to a returned slice must not overwrite the next tile.
	c.Put(Key{Gen: 1, Z: 3, X: 2, Y: 2}, Tile{Data: []byte("def")})
	_ = append(got.Data, 'Z')
	if again, _ := c.Get(Key{Gen: 1, Z: 3, X: 2, Y: 2}); string(again.Data) != "def" {
		t.Errorf("neighbour corrupted: %q", again.Data)
	}
	// Another generation is another key; absent tiles are cached as such.
	if _, ok := c.Get(Key{Gen: 2, Z: 3, X: 2, Y: 1}); ok {
		t.Error("generation ignored")
	}
	c.Put(Key{Gen: 2}, Tile{})
	if got, ok := c.Get(Key{Gen: 2}); !ok || got.Data != nil || got.ETag != "" {
		t.Errorf("absent tile: %+v %v", got, ok)
	}
}

func TestBoundedAndFIFO(t *testing.T) {
	c := New(2 * shards * slabSize) // two slabs a shard
	tile := bytes.Repeat([]byte{7}, 100<<10)
	var keys []Key
	for i := range 2000 {
		k := Key{Gen: 1, Z: 20, X: uint32(i)}
		keys = append(keys, k)
		c.Put(k, Tile{Data: tile})
	}
	st := c.Stats()
	if st.Bytes > 2*shards*slabSize {
		t.Errorf("cache holds %d bytes, budget %d", st.Bytes, 2*shards*slabSize)
	}
	if st.Entries == 0 || st.Entries >= 2000 {
		t.Errorf("entries = %d", st.Entries)
	}
	// The newest tiles survive, the oldest are gone.
	if _, ok := c.Get(keys[len(keys)-1]); !ok {
		t.Error("newest tile evicted")
	}
	if _, ok := c.Get(keys[0]); ok {
		t.Error("oldest tile survived")
	}
	// Surviving tiles are intact.
	for _, k := range keys {
		if got, ok := c.Get(k); ok && !bytes.Equal(got.Data, tile) {
			t.Fatalf("tile %v corrupted", k)
		}
	}
	// Too large: not cached.
	c.Put(Key{Gen: 9}, Tile{Data: make([]byte, slabSize)})
	if _, ok := c.Get(Key{Gen: 9}); ok {
		t.Error("oversized tile cached")
	}
}

// TestSized keeps the large tiles of rendered images, up to the size
// asked, within the budget.
func TestSized(t *testing.T) {
	const maxTile = 600 << 10
	budget := int64(4 * shards * 2 * maxTile)
	c := NewSized(budget, maxTile)
	big := bytes.Repeat([]byte{7}, 500<<10) // over New's 256 KiB
	c.Put(Key{Gen: 1}, Tile{Data: big})
	if got, ok := c.Get(Key{Gen: 1}); !ok || !bytes.Equal(got.Data, big) {
		t.Fatal("a tile under maxTile was not kept")
	}
	c.Put(Key{Gen: 2}, Tile{Data: make([]byte, maxTile+1)})
	if _, ok := c.Get(Key{Gen: 2}); ok {
		t.Error("a tile over maxTile was kept")
	}
	for i := range 400 {
		c.Put(Key{Gen: 3, X: uint32(i)}, Tile{Data: big})
	}
	if st := c.Stats(); st.Bytes > budget {
		t.Errorf("cache holds %d bytes, budget %d", st.Bytes, budget)
	}
	small := New(64 << 20)
	small.Put(Key{Gen: 1}, Tile{Data: big})
	if _, ok := small.Get(Key{Gen: 1}); ok {
		t.Error("New kept a tile over 256 KiB")
	}
}

func TestOff(t *testing.T) {
	c := New(0)
	c.Put(Key{Gen: 1}, Tile{Data: []byte("x")})
	if _, ok := c.Get(Key{Gen: 1}); ok {
		t.Error("disabled cache hit")
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
	c := New(4 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				k := Key{Gen: uint64(g), X: uint32(i % 500)}
				want := fmt.Sprint(g, "/", i%500)
				c.Put(k, Tile{Data: []byte(want)})
				if got, ok := c.Get(k); ok && string(got.Data) != want {
					t.Errorf("got %q, want %q", got.Data, want)
					return
				}
			}
		}()
	}
	wg.Wait()
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
