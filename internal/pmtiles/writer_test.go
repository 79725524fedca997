package pmtiles

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type testTile struct {
	z, x, y int
	data    []byte
}

// makeTiles returns n distinct tile addresses between zoom minZ and maxZ with
// contents of random length; about dupEvery-th tile reuses an earlier content.
func makeTiles(seed uint64, n, minZ, maxZ, dupEvery int) []testTile {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	seen := map[[3]int]bool{}
	var tiles []testTile
	for len(tiles) < n {
		z := minZ + rng.IntN(maxZ-minZ+1)
		k := [3]int{z, rng.IntN(1 << z), rng.IntN(1 << z)}
		if seen[k] {
			continue
		}
		seen[k] = true
		var data []byte
		if dupEvery > 0 && len(tiles) > 0 && rng.IntN(dupEvery) == 0 {
			data = tiles[rng.IntN(len(tiles))].data
		} else {
			data = make([]byte, 4+rng.IntN(300))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			binary.LittleEndian.PutUint32(data, uint32(len(tiles))) // distinct
		}
		tiles = append(tiles, testTile{k[0], k[1], k[2], data})
	}
	return tiles
}

func writeArchive(t testing.TB, path string, tiles []testTile, opts WriterOptions, rootLimit int) {
	t.Helper()
	w, err := NewWriter(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.rootLimit = rootLimit
	for _, tl := range tiles {
		if err := w.PutTile(tl.z, tl.x, tl.y, tl.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name       string
		n          int
		minZ, maxZ int
		internal   Compression
		rootLimit  int
		wantLeaves bool
	}{
		{"small root only gzip", 300, 0, 6, CompressionGzip, 0, false},
		{"root only none", 1000, 3, 9, CompressionNone, 0, false},
		{"forced leaves gzip", 3000, 0, 10, CompressionGzip, 300, true},
		{"natural leaves none", 5000, 8, 14, CompressionNone, 0, true},
		{"natural leaves gzip", 20000, 10, 16, CompressionGzip, 0, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tiles := makeTiles(uint64(i), c.n, c.minZ, c.maxZ, 10)
			// A run: 40 consecutive tile ids sharing one content.
			base, _ := ZXYToID(c.maxZ, 0, 0)
			run := []byte("same content for a run of consecutive tile ids")
			for k := uint64(0); k < 40; k++ {
				z, x, y, _ := IDToZXY(base + 1000 + k)
				dup := false
				for _, tl := range tiles {
					if tl.z == z && tl.x == x && tl.y == y {
						dup = true
					}
				}
				if !dup {
					tiles = append(tiles, testTile{z, x, y, run})
				}
			}
			md := []byte(`{"name":"round trip","vector_layers":[{"id":"a"}]}`)
			path := filepath.Join(t.TempDir(), "out.pmtiles")
			writeArchive(t, path, tiles, WriterOptions{TileType: TileTypeMVT, TileCompression: CompressionGzip, InternalCompression: c.internal, Metadata: md}, c.rootLimit)

			r, err := OpenLocation(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			h := r.Header()
			contents := map[string]bool{}
			minZ, maxZ := 99, -1
			for _, tl := range tiles {
				contents[string(tl.data)] = true
				minZ, maxZ = min(minZ, tl.z), max(maxZ, tl.z)
			}
			if !h.Clustered || h.TileType != TileTypeMVT || h.TileCompression != CompressionGzip || h.InternalCompression != c.internal {
				t.Fatalf("header %+v", h)
			}
			if h.AddressedTilesCount != uint64(len(tiles)) || h.TileContentsCount != uint64(len(contents)) {
				t.Fatalf("counts: addressed %d contents %d, want %d %d", h.AddressedTilesCount, h.TileContentsCount, len(tiles), len(contents))
			}
			if h.TileEntriesCount >= h.AddressedTilesCount {
				t.Errorf("the run of 40 tiles was not collapsed: %d entries for %d tiles", h.TileEntriesCount, h.AddressedTilesCount)
			}
			if int(h.MinZoom) != minZ || int(h.MaxZoom) != maxZ {
				t.Errorf("zooms %d-%d, want %d-%d", h.MinZoom, h.MaxZoom, minZ, maxZ)
			}
			if (h.LeafDirsLength > 0) != c.wantLeaves {
				t.Errorf("leaf directories length %d, want leaves=%v", h.LeafDirsLength, c.wantLeaves)
			}
			if h.RootOffset+h.RootLength > RootDirMaxEnd {
				t.Errorf("root directory ends at %d, beyond 16 KiB", h.RootOffset+h.RootLength)
			}
			st, _ := os.Stat(path)
			if uint64(st.Size()) != h.TileDataOffset+h.TileDataLength {
				t.Errorf("file size %d, header says %d", st.Size(), h.TileDataOffset+h.TileDataLength)
			}
			gotMD, err := r.Metadata(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal(md, &a)
			json.Unmarshal(gotMD, &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("metadata %s, want %s", gotMD, md)
			}
			for _, tl := range tiles {
				data, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y)
				if err != nil || !ok || string(data) != string(tl.data) {
					t.Fatalf("tile %d/%d/%d: found=%v err=%v equal=%v", tl.z, tl.x, tl.y, ok, err, string(data) == string(tl.data))
				}
			}
			// Absent tiles: neighbours of stored tiles that were not written.
			have := map[[3]int]bool{}
			for _, tl := range tiles {
				have[[3]int{tl.z, tl.x, tl.y}] = true
			}
			absent := 0
			for _, tl := range tiles[:200] {
				k := [3]int{tl.z, tl.x ^ 1, tl.y}
				if have[k] || tl.z == 0 {
					continue
				}
				absent++
				if _, ok, err := r.Tile(ctx, k[0], k[1], k[2]); ok || err != nil {
					t.Fatalf("absent tile %v: found=%v err=%v", k, ok, err)
				}
			}
			if absent == 0 {
				t.Fatal("no absent tile checked")
			}
			// Clustered: walking in id order, every new content starts where
			// the previous new content ended.
			var end uint64
			seen := map[uint64]bool{}
			var walked uint64
			err = r.Walk(ctx, func(e Entry) error {
				walked += uint64(e.RunLength)
				if seen[e.Offset] {
					return nil
				}
				if e.Offset != end {
					return fmt.Errorf("entry %d at offset %d, want %d", e.TileID, e.Offset, end)
				}
				seen[e.Offset] = true
				end += uint64(e.Length)
				return nil
			})
			if err != nil || walked != uint64(len(tiles)) || end != h.TileDataLength {
				t.Fatalf("walk: %v, %d tiles, data end %d (header %d)", err, walked, end, h.TileDataLength)
			}
		})
	}
}

func TestWriterBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.pmtiles")
	writeArchive(t, path, []testTile{{0, 0, 0, []byte("world")}}, WriterOptions{TileType: TileTypePNG}, 0)
	r, err := OpenLocation(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	// Web Mercator covers longitudes +-180 and latitudes +-85.0511287798.
	if math.Abs(h.MinLon+180) > 1e-6 || math.Abs(h.MaxLon-180) > 1e-6 ||
		math.Abs(h.MinLat+85.0511288) > 1e-6 || math.Abs(h.MaxLat-85.0511288) > 1e-6 {
		t.Errorf("bounds %v %v %v %v", h.MinLon, h.MinLat, h.MaxLon, h.MaxLat)
	}
	if h.CenterLon != 0 || h.CenterLat != 0 || h.CenterZoom != 0 {
		t.Errorf("center %v %v z%d", h.CenterLon, h.CenterLat, h.CenterZoom)
	}

	// Explicit bounds and center are kept (to 1e-7 degrees).
	writeArchive(t, path, []testTile{{5, 16, 10, []byte("x")}}, WriterOptions{Bounds: [4]float64{5.9, 45.8, 10.5, 47.8}, CenterLon: 8.5, CenterLat: 47.3, CenterZoom: 7}, 0)
	r2, err := OpenLocation(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	h = r2.Header()
	if h.MinLon != 5.9 || h.MinLat != 45.8 || h.MaxLon != 10.5 || h.MaxLat != 47.8 || h.CenterLon != 8.5 || h.CenterLat != 47.3 || h.CenterZoom != 7 {
		t.Errorf("header geo %+v", h)
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.pmtiles")
	cases := []struct {
		name string
		run  func(w *Writer) error
		want string
	}{
		{"no tiles", func(w *Writer) error { return w.Finish(context.Background()) }, "no tiles"},
		{"duplicate", func(w *Writer) error {
			w.PutTile(3, 1, 1, []byte("a"))
			w.PutTile(3, 1, 1, []byte("b"))
			return w.Finish(context.Background())
		}, "added twice"},
		{"empty tile", func(w *Writer) error { return w.PutTile(0, 0, 0, nil) }, "empty"},
		{"bad coord", func(w *Writer) error { return w.PutTile(2, 4, 0, []byte("a")) }, "outside the grid"},
		{"after finish", func(w *Writer) error {
			w.Abort()
			return w.PutTile(0, 0, 0, []byte("a"))
		}, "finished"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := NewWriter(path, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			err = c.run(w)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			w.Abort()
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("output exists after failure: %v", err)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != 0 {
				t.Fatalf("leftover files: %v", left)
			}
		})
	}
	if _, err := NewWriter(path, WriterOptions{InternalCompression: CompressionZstd}); err == nil {
		t.Fatal("zstd internal compression accepted")
	}
}
