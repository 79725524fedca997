package pmtiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// rawArchive assembles an archive by hand: header, root directory, leaf
// directories and tile data, all uncompressed.
func rawArchive(root []Entry, leaves []byte, data []byte, edit func(h *Header)) []byte {
	rootB := AppendDirectory(nil, root)
	h := Header{InternalCompression: CompressionNone, TileCompression: CompressionNone, TileType: TileTypePNG, MaxZoom: 10}
	h.RootOffset = HeaderLen
	h.RootLength = uint64(len(rootB))
	h.MetadataOffset = h.RootOffset + h.RootLength
	h.LeafDirsOffset = h.MetadataOffset
	h.LeafDirsLength = uint64(len(leaves))
	h.TileDataOffset = h.LeafDirsOffset + h.LeafDirsLength
	h.TileDataLength = uint64(len(data))
	if edit != nil {
		edit(&h)
	}
	b := h.AppendBinary(nil)
	b = append(b, rootB...)
	b = append(b, leaves...)
	return append(b, data...)
}

func openBytes(t *testing.T, b []byte) (*Reader, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.pmtiles")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return OpenLocation(context.Background(), path, Options{})
}

func TestReaderRejectsBadArchives(t *testing.T) {
	good := rawArchive([]Entry{{TileID: 0, Offset: 0, Length: 4, RunLength: 1}}, nil, []byte("tile"), nil)
	if r, err := openBytes(t, good); err != nil {
		t.Fatalf("good archive: %v", err)
	} else {
		data, ok, err := r.Tile(context.Background(), 0, 0, 0)
		if err != nil || !ok || string(data) != "tile" {
			t.Fatalf("good archive tile: %q %v %v", data, ok, err)
		}
		r.Close()
	}
	setByte := func(i int, v byte) []byte {
		b := append([]byte(nil), good...)
		b[i] = v
		return b
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "header"},
		{"short header", good[:100], "header"},
		{"bad magic", setByte(0, 'X'), "magic"},
		{"version 2", setByte(7, 2), "version"},
		{"ascii version", setByte(7, '3'), "ASCII"},
		{"clustered 7", setByte(96, 7), "clustered"},
		{"brotli internal", setByte(97, byte(CompressionBrotli)), "not supported"},
		{"bad internal", setByte(97, 9), "internal compression"},
		{"bad tile compression", setByte(98, 9), "tile compression"},
		{"zoom 40", setByte(101, 40), "max zoom"},
		{"min above max", setByte(100, 11), "min zoom"},
		{"truncated tile data", good[:len(good)-2], "beyond the archive size"},
		{"root beyond file", rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), func(h *Header) { h.RootOffset = 1 << 20 }), "root directory"},
		{"huge root length", rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), func(h *Header) { h.RootLength = 1 << 62 }), "root directory"},
		{"overflowing section", rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), func(h *Header) { h.TileDataOffset = 1<<63 - 2 }), "overflows"},
		{"empty root", rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), func(h *Header) { h.RootLength = 0 }), "empty root"},
		{"gzip garbage root", rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), func(h *Header) { h.InternalCompression = CompressionGzip }), "gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := openBytes(t, c.b)
			if err == nil {
				r.Close()
				t.Fatalf("opened a bad archive")
			}
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrFormat mentioning %q", err, c.want)
			}
		})
	}
}

func TestReaderBadEntries(t *testing.T) {
	ctx := context.Background()
	// A leaf directory whose only entry points back to itself.
	loop := AppendDirectory(nil, []Entry{{TileID: 0, Offset: 0, Length: 9, RunLength: 0}})
	if len(loop) != 5 {
		t.Fatalf("loop directory is %d bytes", len(loop))
	}
	loop = AppendDirectory(nil, []Entry{{TileID: 0, Offset: 0, Length: uint32(len(loop)), RunLength: 0}})
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"tile beyond data", rawArchive([]Entry{{0, 2, 4, 1}}, nil, []byte("tile"), nil), "beyond the tile data"},
		{"leaf beyond section", rawArchive([]Entry{{0, 0, 50, 0}}, []byte("short"), []byte("tile"), nil), "beyond the leaf section"},
		{"directory loop", rawArchive([]Entry{{0, 0, uint32(len(loop)), 0}}, loop, []byte("tile"), nil), "deeper"},
		{"garbage leaf", rawArchive([]Entry{{0, 0, 5, 0}}, []byte{0xff, 0xff, 0xff, 0xff, 0xff}, []byte("tile"), nil), "leaf directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := openBytes(t, c.b)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer r.Close()
			_, ok, err := r.Tile(ctx, 0, 0, 0)
			if ok || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("tile: found=%v err=%v, want %q", ok, err, c.want)
			}
			if err := r.Walk(ctx, func(Entry) error { return nil }); !errors.Is(err, ErrFormat) {
				t.Fatalf("walk err = %v", err)
			}
		})
	}
}

func TestDecodeDirectoryErrors(t *testing.T) {
	valid := AppendDirectory(nil, []Entry{{1, 0, 10, 1}, {5, 10, 3, 2}, {9, 100, 7, 1}})
	got, err := DecodeDirectory(valid)
	if err != nil || len(got) != 3 || got[1] != (Entry{5, 10, 3, 2}) || got[2] != (Entry{9, 100, 7, 1}) {
		t.Fatalf("decode valid: %v %v", got, err)
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "count"},
		{"no entries", []byte{0}, "no entries"},
		{"huge count", []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 1, 1, 1, 1}, "claims"},
		{"truncated", valid[:len(valid)-1], "entries"},
		{"truncated offset varint", []byte{1, 0, 1, 1, 0x80}, "offset"},
		{"trailing", append(append([]byte(nil), valid...), 0), "trailing"},
		{"repeated id", []byte{2, 3, 0, 1, 1, 1, 1, 1, 0}, "increasing"},
		{"zero length", []byte{1, 0, 1, 0, 1}, "zero length"},
		{"relative first offset", []byte{1, 0, 1, 1, 0}, "relative"},
		{"run length too big", []byte{1, 0, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 1}, "run length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := DecodeDirectory(c.b); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{Version: 3, RootOffset: 127, RootLength: 10, MetadataOffset: 137, MetadataLength: 5,
		LeafDirsOffset: 142, LeafDirsLength: 7, TileDataOffset: 149, TileDataLength: 1000,
		AddressedTilesCount: 9, TileEntriesCount: 8, TileContentsCount: 7, Clustered: true,
		InternalCompression: CompressionGzip, TileCompression: CompressionBrotli, TileType: TileTypeAVIF,
		MinZoom: 2, MaxZoom: 14, MinLon: -12.5, MinLat: -45.25, MaxLon: 170.1234567, MaxLat: 80,
		CenterZoom: 5, CenterLon: 1.5, CenterLat: -2.5}
	b := h.AppendBinary(nil)
	if len(b) != HeaderLen {
		t.Fatalf("encoded header is %d bytes", len(b))
	}
	got, err := ParseHeader(b)
	if err != nil || got != h {
		t.Fatalf("round trip: %+v %v\nwant %+v", got, err, h)
	}
}

func TestCacheConcurrentAndBounded(t *testing.T) {
	ctx := context.Background()
	tiles := makeTiles(7, 4000, 9, 12, 0)
	path := filepath.Join(t.TempDir(), "c.pmtiles")
	writeArchive(t, path, tiles, WriterOptions{TileType: TileTypePNG}, 200)
	cache := NewDirCache(4 << 10) // only a few leaves fit
	src, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, src, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().LeafDirsLength == 0 {
		t.Fatal("archive has no leaves")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(tiles); i += 3 {
				tl := tiles[i]
				data, ok, err := r.Tile(ctx, tl.z, tl.x, tl.y)
				if err != nil || !ok || string(data) != string(tl.data) {
					errs <- errors.New("concurrent lookup failed")
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := cache.Stats()
	if st.Bytes > 4<<10 && st.Entries > 1 {
		t.Fatalf("cache holds %d bytes in %d directories, limit %d", st.Bytes, st.Entries, 4<<10)
	}
	if st.Hits == 0 || st.Misses == 0 {
		t.Fatalf("cache stats %+v", st)
	}
	r.Close()
	if st := cache.Stats(); st.Entries != 0 {
		t.Fatalf("Close left %d cached directories", st.Entries)
	}
}
