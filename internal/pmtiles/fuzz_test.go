package pmtiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// bytesSource is an in-memory RangeSource for fuzzing (no file system).
type bytesSource struct{ b []byte }

func (s *bytesSource) ReadRange(_ context.Context, off, n int64) ([]byte, error) {
	if err := checkRange(off, n); err != nil {
		return nil, err
	}
	if off >= int64(len(s.b)) {
		return nil, nil
	}
	return s.b[off:min(int64(len(s.b)), off+n)], nil
}
func (s *bytesSource) ETag() string { return "fixed" }
func (s *bytesSource) Size() int64  { return int64(len(s.b)) }
func (s *bytesSource) Close() error { return nil }

func addFixtureSeeds(f *testing.F) {
	for _, fx := range fixtureFacts {
		if dir := fixtures.SharedDir(); dir != "" {
			if b, err := os.ReadFile(filepath.Join(dir, fx.rel)); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Add(rawArchive([]Entry{{0, 0, 4, 1}}, nil, []byte("tile"), nil))
	loop := AppendDirectory(nil, []Entry{{TileID: 0, Offset: 0, Length: 5, RunLength: 0}})
	f.Add(rawArchive([]Entry{{0, 0, uint32(len(loop)), 0}}, loop, []byte("tile"), nil))
}

func FuzzHeader(f *testing.F) {
	addFixtureSeeds(f)
	f.Add(make([]byte, HeaderLen))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		// A valid header re-encodes to the same bytes, except that
		// coordinates are integers of 1e-7 degrees (exact round trip).
		enc := h.AppendBinary(nil)
		h2, err := ParseHeader(enc)
		if err != nil || h2 != h {
			t.Fatalf("re-encoded header differs: %v\n%+v\n%+v", err, h, h2)
		}
		if string(enc) != string(b[:HeaderLen]) {
			t.Fatalf("re-encoding changed the bytes:\n% x\n% x", enc, b[:HeaderLen])
		}
	})
}

func FuzzDirectory(f *testing.F) {
	f.Add(AppendDirectory(nil, []Entry{{1, 0, 10, 1}, {5, 10, 3, 2}, {9, 100, 7, 0}}))
	f.Add([]byte{1, 0, 1, 1, 1})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := DecodeDirectory(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		if len(entries) > len(b) {
			t.Fatalf("%d entries from %d bytes", len(entries), len(b))
		}
		// Decoding the re-encoding gives the same entries.
		again, err := DecodeDirectory(AppendDirectory(nil, entries))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("re-decode: %v", err)
		}
		for i := range entries {
			if again[i] != entries[i] {
				t.Fatalf("entry %d: %+v vs %+v", i, again[i], entries[i])
			}
		}
		// Lookups never panic and agree with a linear scan.
		for _, e := range entries {
			for _, id := range []uint64{e.TileID, e.TileID + 1, e.TileID - 1} {
				got, ok := findEntry(entries, id)
				var want Entry
				wantOK := false
				for _, c := range entries {
					if c.TileID <= id {
						want, wantOK = c, c.RunLength == 0 || id-c.TileID < uint64(c.RunLength)
					}
				}
				if ok != wantOK || (ok && got != want) {
					t.Fatalf("findEntry(%d) = %+v %v, want %+v %v", id, got, ok, want, wantOK)
				}
			}
		}
	})
}

// FuzzOpenTile opens arbitrary bytes as an archive and reads tiles, the
// metadata and the whole directory tree: errors are fine, panics, hangs and
// huge allocations are not.
func FuzzOpenTile(f *testing.F) {
	addFixtureSeeds(f)
	// Uncompressed archives with leaf directories give the fuzzer structure
	// it can mutate.
	for i, internal := range []Compression{CompressionNone, CompressionGzip} {
		path := filepath.Join(f.TempDir(), "seed.pmtiles")
		tiles := []testTile{{0, 0, 0, []byte("root")}, {1, 0, 1, []byte("a")}, {1, 1, 1, []byte("a")}, {1, 1, 0, []byte("b")}}
		tiles = append(tiles, makeTiles(uint64(i), 60, 2, 4, 3)...)
		writeArchive(f, path, tiles, WriterOptions{InternalCompression: internal, Metadata: []byte(`{"a":1}`)}, 40)
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		r, err := Open(ctx, &bytesSource{b}, Options{MaxDirectoryBytes: 1 << 20, MaxMetadataBytes: 1 << 20, MaxTileBytes: 1 << 20, Cache: NewDirCache(1 << 20)})
		if err != nil {
			return
		}
		defer r.Close()
		r.Metadata(ctx)
		h := r.Header()
		for _, c := range [][3]int{{0, 0, 0}, {1, 0, 1}, {1, 1, 0}, {int(h.MaxZoom), 0, 0}, {int(h.MinZoom), 0, 0}} {
			if c[0] < 0 || c[0] > MaxZoom {
				continue
			}
			data, ok, err := r.Tile(ctx, c[0], c[1]%(1<<c[0]), c[2]%(1<<c[0]))
			if ok && (err != nil || len(data) == 0) {
				t.Fatalf("found tile with err %v and %d bytes", err, len(data))
			}
		}
		n := 0
		r.Walk(ctx, func(e Entry) error {
			n++
			if n > 10000 {
				return errors.New("enough")
			}
			return nil
		})
	})
}
