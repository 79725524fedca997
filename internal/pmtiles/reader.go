package pmtiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
)

// Limits applied when Options leaves them zero.
const (
	DefaultMaxDirectoryBytes = 64 << 20 // decompressed bytes of one directory
	DefaultMaxMetadataBytes  = 16 << 20 // decompressed bytes of the metadata
	DefaultMaxTileBytes      = 64 << 20 // bytes of one tile
	// maxDirDepth bounds the directory levels (root plus leaves) visited
	// for one lookup; valid archives use at most three.
	maxDirDepth = 4
)

// Options configures a Reader.
type Options struct {
	// Cache holds decoded leaf directories; it may be shared by Readers. Nil
	// means a private cache of DefaultCacheBytes.
	Cache *DirCache
	// Limits; zero means the Default* constant.
	MaxDirectoryBytes int64
	MaxMetadataBytes  int64
	MaxTileBytes      int64
	// Source configures the sources made by OpenLocation.
	Source SourceOptions
	// Logger receives rare events (archive changes); nil means slog.Default().
	Logger *slog.Logger
}

// Reader reads tiles and metadata from a PMTiles v3 archive. It is safe for
// concurrent use. When the source reports that the archive changed
// (ErrChanged), the Reader reloads the header and root directory, drops its
// cached directories and retries the operation once.
type Reader struct {
	src   RangeSource
	cache *DirCache
	id    uint64
	opts  Options
	log   *slog.Logger

	state    atomic.Pointer[archiveState]
	reloadMu sync.Mutex
}

// archiveState is everything known about one version of the archive.
type archiveState struct {
	gen    uint64
	etag   string
	header Header
	root   []Entry

	mdMu sync.Mutex
	md   []byte // decompressed metadata once read
}

var readerIDs atomic.Uint64

// Open reads and validates the header and root directory of the archive in
// src. The Reader owns src from then on: Close closes it.
func Open(ctx context.Context, src RangeSource, opts Options) (*Reader, error) {
	if opts.MaxDirectoryBytes <= 0 {
		opts.MaxDirectoryBytes = DefaultMaxDirectoryBytes
	}
	if opts.MaxMetadataBytes <= 0 {
		opts.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	if opts.MaxTileBytes <= 0 {
		opts.MaxTileBytes = DefaultMaxTileBytes
	}
	r := &Reader{src: src, cache: opts.Cache, id: readerIDs.Add(1), opts: opts, log: opts.Logger}
	if r.cache == nil {
		r.cache = NewDirCache(DefaultCacheBytes)
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	var st *archiveState
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		st, err = r.load(ctx, 1)
		if !errors.Is(err, ErrChanged) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	r.state.Store(st)
	return r, nil
}

// OpenLocation opens a source with OpenSource (a path, file://, http(s):// or
// s3:// URL, configured by opts.Source) and then the archive in it.
func OpenLocation(ctx context.Context, location string, opts Options) (*Reader, error) {
	src, err := OpenSource(ctx, location, opts.Source)
	if err != nil {
		return nil, err
	}
	r, err := Open(ctx, src, opts)
	if err != nil {
		src.Close()
		return nil, err
	}
	return r, nil
}

// load reads the header and root directory.
func (r *Reader) load(ctx context.Context, gen uint64) (*archiveState, error) {
	n := int64(RootDirMaxEnd)
	if size := r.src.Size(); size >= 0 {
		n = min(n, size)
	}
	b, err := r.src.ReadRange(ctx, 0, n)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: read header: %w", err)
	}
	h, err := ParseHeader(b)
	if err != nil {
		return nil, err
	}
	if size := r.src.Size(); size >= 0 {
		if err := h.CheckSize(size); err != nil {
			return nil, err
		}
	}
	if int64(h.RootLength) > r.opts.MaxDirectoryBytes {
		return nil, fmt.Errorf("%w: root directory of %d bytes exceeds the limit of %d", ErrFormat, h.RootLength, r.opts.MaxDirectoryBytes)
	}
	var raw []byte
	if h.RootOffset+h.RootLength <= uint64(len(b)) {
		raw = b[h.RootOffset : h.RootOffset+h.RootLength]
	} else {
		raw, err = r.readExact(ctx, int64(h.RootOffset), int64(h.RootLength), "root directory")
		if err != nil {
			return nil, err
		}
	}
	root, err := r.decodeDir(raw, h.InternalCompression)
	if err != nil {
		return nil, fmt.Errorf("root directory: %w", err)
	}
	return &archiveState{gen: gen, etag: r.src.ETag(), header: h, root: root}, nil
}

func (r *Reader) decodeDir(raw []byte, c Compression) ([]Entry, error) {
	d, err := decompress(raw, c, r.opts.MaxDirectoryBytes)
	if err != nil {
		return nil, err
	}
	return DecodeDirectory(d)
}

// readExact reads exactly length bytes or fails with a truncation error.
func (r *Reader) readExact(ctx context.Context, off, length int64, what string) ([]byte, error) {
	b, err := r.src.ReadRange(ctx, off, length)
	if err != nil {
		return nil, fmt.Errorf("pmtiles: read %s: %w", what, err)
	}
	if int64(len(b)) != length {
		return nil, fmt.Errorf("%w: %s at %d+%d is truncated (got %d bytes)", ErrFormat, what, off, length, len(b))
	}
	return b, nil
}

// reload replaces the state old after the source reported a change.
func (r *Reader) reload(ctx context.Context, old *archiveState) (*archiveState, error) {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	if cur := r.state.Load(); cur != old {
		return cur, nil
	}
	var st *archiveState
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		st, err = r.load(ctx, old.gen+1)
		if !errors.Is(err, ErrChanged) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pmtiles: reload changed archive: %w", err)
	}
	r.state.Store(st)
	r.cache.dropOwner(r.id, st.gen)
	r.log.InfoContext(ctx, "pmtiles archive changed; caches dropped", "old_etag", old.etag, "new_etag", st.etag)
	return st, nil
}

// withRetry runs op on the current state and, if the source reports a change,
// once more on the reloaded state.
func withRetry[T any](ctx context.Context, r *Reader, op func(*archiveState) (T, error)) (T, error) {
	st := r.state.Load()
	v, err := op(st)
	if !errors.Is(err, ErrChanged) {
		return v, err
	}
	st, err = r.reload(ctx, st)
	if err != nil {
		var zero T
		return zero, err
	}
	return op(st)
}

// Header returns the header of the archive (as of the last reload).
func (r *Reader) Header() Header { return r.state.Load().header }

// ETag returns the version of the archive the Reader currently serves.
func (r *Reader) ETag() string { return r.state.Load().etag }

// Source returns the underlying source.
func (r *Reader) Source() RangeSource { return r.src }

// Close drops the cached directories of this Reader and closes the source.
func (r *Reader) Close() error {
	r.cache.dropOwner(r.id, ^uint64(0))
	return r.src.Close()
}

// Metadata returns the decompressed JSON metadata ("{}" when the archive has
// none). The returned slice is a fresh copy.
func (r *Reader) Metadata(ctx context.Context) ([]byte, error) {
	return withRetry(ctx, r, func(st *archiveState) ([]byte, error) {
		st.mdMu.Lock()
		defer st.mdMu.Unlock()
		if st.md == nil {
			h := &st.header
			md := []byte("{}")
			if h.MetadataLength > 0 {
				if int64(h.MetadataLength) > r.opts.MaxMetadataBytes {
					return nil, fmt.Errorf("%w: metadata of %d bytes exceeds the limit of %d", ErrFormat, h.MetadataLength, r.opts.MaxMetadataBytes)
				}
				raw, err := r.readExact(ctx, int64(h.MetadataOffset), int64(h.MetadataLength), "metadata")
				if err != nil {
					return nil, err
				}
				md, err = decompress(raw, h.InternalCompression, r.opts.MaxMetadataBytes)
				if err != nil {
					return nil, fmt.Errorf("metadata: %w", err)
				}
				if !json.Valid(md) {
					return nil, fmt.Errorf("%w: metadata is not valid JSON", ErrFormat)
				}
			}
			st.md = md
		}
		return append([]byte(nil), st.md...), nil
	})
}

// Tile returns the bytes of tile z/x/y exactly as stored (compressed as
// Header().TileCompression says) and whether the archive holds it. A tile
// outside the grid is an error wrapping ErrCoord.
func (r *Reader) Tile(ctx context.Context, z, x, y int) ([]byte, bool, error) {
	id, err := ZXYToID(z, x, y)
	if err != nil {
		return nil, false, err
	}
	return r.TileByID(ctx, id)
}

// TileByID is Tile addressed by tile id.
func (r *Reader) TileByID(ctx context.Context, id uint64) ([]byte, bool, error) {
	return withRetry2(ctx, r, func(st *archiveState) ([]byte, bool, error) {
		off, length, ok, err := r.locate(ctx, st, id)
		if err != nil || !ok {
			return nil, false, err
		}
		b, err := r.readExact(ctx, off, length, "tile")
		if err != nil {
			return nil, false, err
		}
		return b, true, nil
	})
}

// Locate returns the absolute byte range of tile z/x/y in the archive, for
// callers that copy tiles straight from the file (sendfile).
func (r *Reader) Locate(ctx context.Context, z, x, y int) (offset, length int64, found bool, err error) {
	id, err := ZXYToID(z, x, y)
	if err != nil {
		return 0, 0, false, err
	}
	type loc struct {
		off, n int64
		ok     bool
	}
	l, err := withRetry(ctx, r, func(st *archiveState) (loc, error) {
		off, n, ok, err := r.locate(ctx, st, id)
		return loc{off, n, ok}, err
	})
	return l.off, l.n, l.ok, err
}

func withRetry2(ctx context.Context, r *Reader, op func(*archiveState) ([]byte, bool, error)) ([]byte, bool, error) {
	type res struct {
		b  []byte
		ok bool
	}
	v, err := withRetry(ctx, r, func(st *archiveState) (res, error) {
		b, ok, err := op(st)
		return res{b, ok}, err
	})
	return v.b, v.ok, err
}

// locate finds the tile data range of tile id in state st.
func (r *Reader) locate(ctx context.Context, st *archiveState, id uint64) (int64, int64, bool, error) {
	h := &st.header
	if id < zoomBase[h.MinZoom] || id >= zoomBase[h.MaxZoom+1] {
		return 0, 0, false, nil
	}
	entries := st.root
	for depth := 0; depth < maxDirDepth; depth++ {
		e, ok := findEntry(entries, id)
		if !ok {
			return 0, 0, false, nil
		}
		if e.RunLength > 0 {
			if e.Offset+uint64(e.Length) > h.TileDataLength {
				return 0, 0, false, fmt.Errorf("%w: tile %d at %d+%d lies beyond the tile data section (%d bytes)", ErrFormat, id, e.Offset, e.Length, h.TileDataLength)
			}
			if int64(e.Length) > r.opts.MaxTileBytes {
				return 0, 0, false, fmt.Errorf("%w: tile %d of %d bytes exceeds the limit of %d", ErrFormat, id, e.Length, r.opts.MaxTileBytes)
			}
			return int64(h.TileDataOffset + e.Offset), int64(e.Length), true, nil
		}
		var err error
		entries, err = r.leaf(ctx, st, e)
		if err != nil {
			return 0, 0, false, err
		}
	}
	return 0, 0, false, fmt.Errorf("%w: directories nested deeper than %d levels (loop?)", ErrFormat, maxDirDepth)
}

// leaf returns the decoded leaf directory a pointer entry refers to.
func (r *Reader) leaf(ctx context.Context, st *archiveState, e Entry) ([]Entry, error) {
	h := &st.header
	if e.Offset+uint64(e.Length) > h.LeafDirsLength {
		return nil, fmt.Errorf("%w: leaf directory at %d+%d lies beyond the leaf section (%d bytes)", ErrFormat, e.Offset, e.Length, h.LeafDirsLength)
	}
	if int64(e.Length) > r.opts.MaxDirectoryBytes {
		return nil, fmt.Errorf("%w: leaf directory of %d bytes exceeds the limit of %d", ErrFormat, e.Length, r.opts.MaxDirectoryBytes)
	}
	off := h.LeafDirsOffset + e.Offset
	return r.cache.get(ctx, dirKey{owner: r.id, gen: st.gen, offset: off}, func() ([]Entry, error) {
		raw, err := r.readExact(ctx, int64(off), int64(e.Length), "leaf directory")
		if err != nil {
			return nil, err
		}
		d, err := r.decodeDir(raw, h.InternalCompression)
		if err != nil {
			return nil, fmt.Errorf("leaf directory at %d: %w", off, err)
		}
		return d, nil
	})
}

// Walk calls fn for every tile entry (never leaf pointers) in tile id
// order, descending into leaf directories. Offsets are relative to the tile
// data section. It fails on directory loops and stops at the first error of
// fn.
func (r *Reader) Walk(ctx context.Context, fn func(Entry) error) error {
	st := r.state.Load()
	seen := make(map[uint64]bool)
	var walk func(entries []Entry, depth int) error
	walk = func(entries []Entry, depth int) error {
		if depth >= maxDirDepth {
			return fmt.Errorf("%w: directories nested deeper than %d levels", ErrFormat, maxDirDepth)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			if e.RunLength > 0 {
				if e.Offset+uint64(e.Length) > st.header.TileDataLength {
					return fmt.Errorf("%w: tile %d lies beyond the tile data section", ErrFormat, e.TileID)
				}
				if err := fn(e); err != nil {
					return err
				}
				continue
			}
			if seen[e.Offset] {
				return fmt.Errorf("%w: leaf directory at %d referenced twice (loop?)", ErrFormat, e.Offset)
			}
			seen[e.Offset] = true
			leaf, err := r.leaf(ctx, st, e)
			if err != nil {
				return err
			}
			if err := walk(leaf, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(st.root, 0)
}
