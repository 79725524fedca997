package pmtiles

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// benchArchive writes an archive of 60000 tiles (z10-z14, leaf directories)
// and returns a Reader with every directory cached, plus the tile addresses.
func benchArchive(b *testing.B) (*Reader, []testTile) {
	b.Helper()
	tiles := makeTiles(42, 60000, 10, 14, 4)
	path := filepath.Join(b.TempDir(), "bench.pmtiles")
	writeArchive(b, path, tiles, WriterOptions{TileType: TileTypeMVT, TileCompression: CompressionGzip}, 0)
	r, err := OpenLocation(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if r.Header().LeafDirsLength == 0 {
		b.Fatal("benchmark archive has no leaf directories")
	}
	// Warm the directory cache.
	for _, t := range tiles {
		if _, ok, err := r.Tile(context.Background(), t.z, t.x, t.y); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
	b.Cleanup(func() { r.Close() })
	return r, tiles
}

// BenchmarkTileLocal reads random tiles from a local archive whose
// directories are cached: the hot path of the tile server.
func BenchmarkTileLocal(b *testing.B) {
	r, tiles := benchArchive(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		t := tiles[rng.IntN(len(tiles))]
		if _, ok, err := r.Tile(ctx, t.z, t.x, t.y); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkTileLocalParallel is BenchmarkTileLocal from all CPUs at once
// (shared directory cache).
func BenchmarkTileLocalParallel(b *testing.B) {
	r, tiles := benchArchive(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
		for pb.Next() {
			t := tiles[rng.IntN(len(tiles))]
			if _, ok, err := r.Tile(ctx, t.z, t.x, t.y); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
}

// BenchmarkLocate is the directory lookup alone (no tile read).
func BenchmarkLocate(b *testing.B) {
	r, tiles := benchArchive(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		t := tiles[rng.IntN(len(tiles))]
		if _, _, ok, err := r.Locate(ctx, t.z, t.x, t.y); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
