package pmtiles

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDirCacheLRU(t *testing.T) {
	ctx := context.Background()
	dir := make([]Entry, 10) // 10*24 + overhead bytes each
	size := int64(len(dir))*entrySize + nodeOverhead
	c := NewDirCache(2 * size)
	loads := map[uint64]int{}
	get := func(off uint64) {
		if _, err := c.get(ctx, dirKey{owner: 1, offset: off}, func() ([]Entry, error) {
			loads[off]++
			return dir, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	get(1)
	get(2)
	get(1) // 1 is now the most recently used
	get(3) // evicts 2
	get(1)
	get(3)
	if loads[1] != 1 || loads[3] != 1 {
		t.Fatalf("loads %v: 1 and 3 should have stayed cached", loads)
	}
	get(2)
	if loads[2] != 2 {
		t.Fatalf("loads %v: 2 should have been evicted", loads)
	}
	if st := c.Stats(); st.Entries != 2 || st.Bytes != 2*size {
		t.Fatalf("stats %+v", st)
	}
	// Errors are not cached.
	boom := errors.New("boom")
	if _, err := c.get(ctx, dirKey{owner: 1, offset: 9}, func() ([]Entry, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	get(9)
	if loads[9] != 1 {
		t.Fatalf("failed load was cached: %v", loads)
	}
	// dropOwner removes only older generations of that owner.
	c.get(ctx, dirKey{owner: 2, gen: 5, offset: 1}, func() ([]Entry, error) { return dir, nil })
	c.dropOwner(2, 5)
	if st := c.Stats(); st.Entries != 2 {
		t.Fatalf("dropOwner(2, 5) removed the current generation: %+v", st)
	}
	c.dropOwner(2, 6)
	c.dropOwner(1, ^uint64(0))
	if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("after dropOwner: %+v", st)
	}
}

func TestDirCacheSingleFlight(t *testing.T) {
	c := NewDirCache(1 << 20)
	var loads atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.get(context.Background(), dirKey{offset: 7}, func() ([]Entry, error) {
				loads.Add(1)
				<-release
				return []Entry{{TileID: 7, Length: 1, RunLength: 1}}, nil
			})
			if err != nil || len(e) != 1 || e[0].TileID != 7 {
				t.Errorf("get: %v %v", e, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("%d loads for 16 concurrent misses", n)
	}

	// A waiter whose own context is alive retries when the loader's
	// context was cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := c.get(ctx, dirKey{offset: 8}, func() ([]Entry, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		done <- err
	}()
	<-started
	res := make(chan error)
	go func() {
		_, err := c.get(context.Background(), dirKey{offset: 8}, func() ([]Entry, error) {
			return []Entry{{TileID: 8, Length: 1, RunLength: 1}}, nil
		})
		res <- err
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("loader err = %v", err)
	}
	if err := <-res; err != nil {
		t.Fatalf("waiter with a live context got %v", err)
	}
}
