package pmtiles

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/tesseramaps/tessera/internal/geo"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// WriterOptions configures a Writer.
type WriterOptions struct {
	// TileType of the tiles; TileTypeUnknown means detected from the first
	// tile with SniffTileType.
	TileType TileType
	// TileCompression of the tiles as given to PutTile (they are stored as
	// given); CompressionUnknown means detected from the first tile with
	// SniffCompression.
	TileCompression Compression
	// InternalCompression of directories and metadata: none or gzip
	// (CompressionUnknown means gzip).
	InternalCompression Compression
	// Metadata is the JSON object stored in the archive (nil means "{}").
	Metadata []byte
	// Bounds (MinLon, MinLat, MaxLon, MaxLat) and center; when Bounds is
	// all zero it is computed from the tiles, and the center is then the
	// middle of the bounds at the minimum zoom.
	Bounds               [4]float64
	CenterLon, CenterLat float64
	CenterZoom           int
	// TempDir receives the spool of tile contents; "" means the directory
	// of the output file.
	TempDir string
}

// Writer builds a clustered PMTiles v3 archive from tiles added in any
// order. Identical tile contents are stored once; runs of consecutive tile
// ids with the same content become one entry; leaf directories are used when
// the root directory would not fit in the first 16 KiB. The archive is
// written to a temporary file renamed over the destination by Finish.
type Writer struct {
	path      string
	opts      WriterOptions
	spool     *os.File
	sw        *bufio.Writer
	spoolSize int64

	contents []spoolRef
	byHash   map[[32]byte]uint32
	tiles    []tileRef
	finished bool

	rootLimit int // tests only: a smaller root directory budget
}

type spoolRef struct {
	off    int64
	length uint32
}

type tileRef struct {
	id      uint64
	content uint32
}

// NewWriter starts an archive to be written at path.
func NewWriter(path string, opts WriterOptions) (*Writer, error) {
	if opts.InternalCompression == CompressionUnknown {
		opts.InternalCompression = CompressionGzip
	}
	if opts.InternalCompression != CompressionNone && opts.InternalCompression != CompressionGzip {
		return nil, fmt.Errorf("pmtiles: writer supports internal compression none or gzip, not %s", opts.InternalCompression)
	}
	if opts.TileCompression > CompressionZstd {
		return nil, fmt.Errorf("pmtiles: invalid tile compression %d", opts.TileCompression)
	}
	if opts.Metadata == nil {
		opts.Metadata = []byte("{}")
	}
	dir := opts.TempDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	spool, err := os.CreateTemp(dir, ".pmtiles-spool-*")
	if err != nil {
		return nil, fmt.Errorf("pmtiles: create spool: %w", err)
	}
	// The spool is anonymous from now on.
	os.Remove(spool.Name())
	return &Writer{path: path, opts: opts, spool: spool, sw: bufio.NewWriterSize(spool, 1<<20), byHash: make(map[[32]byte]uint32)}, nil
}

// PutTile adds tile z/x/y. The data is stored as given (already compressed
// as WriterOptions.TileCompression says).
func (w *Writer) PutTile(z, x, y int, data []byte) error {
	id, err := ZXYToID(z, x, y)
	if err != nil {
		return err
	}
	return w.PutTileID(id, data)
}

// PutTileID adds a tile by tile id.
func (w *Writer) PutTileID(id uint64, data []byte) error {
	if w.finished {
		return errors.New("pmtiles: writer already finished")
	}
	if id > MaxTileID {
		return fmt.Errorf("%w: tile id %d", ErrCoord, id)
	}
	if len(data) == 0 {
		return fmt.Errorf("pmtiles: tile %d is empty", id)
	}
	if len(data) > math.MaxUint32 {
		return fmt.Errorf("pmtiles: tile %d of %d bytes is too large", id, len(data))
	}
	h := sha256.Sum256(data)
	c, ok := w.byHash[h]
	if !ok {
		if len(w.contents) >= math.MaxUint32 {
			return errors.New("pmtiles: too many distinct tiles")
		}
		if _, err := w.sw.Write(data); err != nil {
			return fmt.Errorf("pmtiles: spool tile: %w", err)
		}
		c = uint32(len(w.contents))
		w.contents = append(w.contents, spoolRef{off: w.spoolSize, length: uint32(len(data))})
		w.spoolSize += int64(len(data))
		w.byHash[h] = c
	}
	w.tiles = append(w.tiles, tileRef{id: id, content: c})
	return nil
}

// Abort discards the archive.
func (w *Writer) Abort() error {
	if w.finished {
		return nil
	}
	w.finished = true
	return w.spool.Close()
}

// Finish writes the archive to a temporary file beside the destination and
// renames it into place.
func (w *Writer) Finish(ctx context.Context) (err error) {
	if w.finished {
		return errors.New("pmtiles: writer already finished")
	}
	w.finished = true
	defer w.spool.Close()
	if len(w.tiles) == 0 {
		return errors.New("pmtiles: no tiles to write")
	}
	if err := w.sw.Flush(); err != nil {
		return fmt.Errorf("pmtiles: spool: %w", err)
	}
	slices.SortFunc(w.tiles, func(a, b tileRef) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	for i := 1; i < len(w.tiles); i++ {
		if w.tiles[i].id == w.tiles[i-1].id {
			z, x, y, _ := IDToZXY(w.tiles[i].id)
			return fmt.Errorf("pmtiles: tile %d/%d/%d added twice", z, x, y)
		}
	}

	// Assign final offsets in order of first use and build the entries.
	const unassigned = math.MaxUint64
	final := make([]uint64, len(w.contents))
	for i := range final {
		final[i] = unassigned
	}
	order := make([]uint32, 0, len(w.contents)) // contents in output order
	var dataLen uint64
	entries := make([]Entry, 0, len(w.tiles))
	for _, t := range w.tiles {
		if final[t.content] == unassigned {
			final[t.content] = dataLen
			dataLen += uint64(w.contents[t.content].length)
			order = append(order, t.content)
		}
		off := final[t.content]
		if n := len(entries); n > 0 {
			last := &entries[n-1]
			if last.Offset == off && last.TileID+uint64(last.RunLength) == t.id && last.RunLength < math.MaxUint32 {
				last.RunLength++
				continue
			}
		}
		entries = append(entries, Entry{TileID: t.id, Offset: off, Length: w.contents[t.content].length, RunLength: 1})
	}

	if w.opts.TileType == TileTypeUnknown || w.opts.TileCompression == CompressionUnknown {
		first := w.contents[w.tiles[0].content]
		buf := make([]byte, min(first.length, 64))
		if _, err := w.spool.ReadAt(buf, first.off); err != nil {
			return fmt.Errorf("pmtiles: read spool: %w", err)
		}
		if w.opts.TileType == TileTypeUnknown {
			w.opts.TileType = SniffTileType(buf)
		}
		if w.opts.TileCompression == CompressionUnknown {
			w.opts.TileCompression = SniffCompression(buf)
		}
	}
	internal := w.opts.InternalCompression
	root, leaves, err := buildDirectories(entries, internal, w.rootLimit)
	if err != nil {
		return err
	}
	metadata, err := compress(w.opts.Metadata, internal)
	if err != nil {
		return fmt.Errorf("pmtiles: metadata: %w", err)
	}

	h := Header{
		Clustered:           true,
		InternalCompression: internal,
		TileCompression:     w.opts.TileCompression,
		TileType:            w.opts.TileType,
		AddressedTilesCount: uint64(len(w.tiles)),
		TileEntriesCount:    uint64(len(entries)),
		TileContentsCount:   uint64(len(order)),
	}
	h.RootOffset = HeaderLen
	h.RootLength = uint64(len(root))
	h.MetadataOffset = h.RootOffset + h.RootLength
	h.MetadataLength = uint64(len(metadata))
	h.LeafDirsOffset = h.MetadataOffset + h.MetadataLength
	h.LeafDirsLength = uint64(len(leaves))
	h.TileDataOffset = h.LeafDirsOffset + h.LeafDirsLength
	h.TileDataLength = dataLen
	w.fillGeo(&h)

	dir := filepath.Dir(w.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(w.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("pmtiles: create %s: %w", w.path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	out := bufio.NewWriterSize(tmp, 1<<20)
	out.Write(h.AppendBinary(nil))
	out.Write(root)
	out.Write(metadata)
	out.Write(leaves)
	buf := make([]byte, 0, 64<<10)
	for i, c := range order {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ref := w.contents[c]
		if cap(buf) < int(ref.length) {
			buf = make([]byte, ref.length)
		}
		buf = buf[:ref.length]
		if _, err := w.spool.ReadAt(buf, ref.off); err != nil {
			return fmt.Errorf("pmtiles: read spool: %w", err)
		}
		if _, err := out.Write(buf); err != nil {
			return fmt.Errorf("pmtiles: write %s: %w", w.path, err)
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("pmtiles: write %s: %w", w.path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("pmtiles: sync %s: %w", w.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("pmtiles: close %s: %w", w.path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("pmtiles: chmod %s: %w", w.path, err)
	}
	if err := os.Rename(tmp.Name(), w.path); err != nil {
		return fmt.Errorf("pmtiles: rename into %s: %w", w.path, err)
	}
	return nil
}

// fillGeo sets the zoom, bounds and center fields of h.
func (w *Writer) fillGeo(h *Header) {
	minID, maxID := w.tiles[0].id, w.tiles[len(w.tiles)-1].id
	h.MinZoom = zoomOfID(minID)
	h.MaxZoom = zoomOfID(maxID)
	b := w.opts.Bounds
	if b == [4]float64{} {
		// Union of the extents of all tiles.
		minX, minY := math.Inf(1), math.Inf(1)
		maxX, maxY := math.Inf(-1), math.Inf(-1)
		for _, t := range w.tiles {
			z, x, y, _ := IDToZXY(t.id)
			n := float64(uint64(1) << z)
			minX = math.Min(minX, float64(x)/n)
			maxX = math.Max(maxX, float64(x+1)/n)
			minY = math.Min(minY, float64(y)/n)
			maxY = math.Max(maxY, float64(y+1)/n)
		}
		b = [4]float64{unitXToLon(minX), unitYToLat(maxY), unitXToLon(maxX), unitYToLat(minY)}
		h.CenterLon = (b[0] + b[2]) / 2
		h.CenterLat = (b[1] + b[3]) / 2
		h.CenterZoom = h.MinZoom
	} else {
		h.CenterLon, h.CenterLat = w.opts.CenterLon, w.opts.CenterLat
		h.CenterZoom = uint8(min(max(w.opts.CenterZoom, 0), MaxZoom))
		if h.CenterLon == 0 && h.CenterLat == 0 {
			h.CenterLon = (b[0] + b[2]) / 2
			h.CenterLat = (b[1] + b[3]) / 2
		}
	}
	h.MinLon, h.MinLat, h.MaxLon, h.MaxLat = b[0], b[1], b[2], b[3]
}

func unitXToLon(x float64) float64 { lon, _ := geo.WorldToLonLat(x, 0.5); return lon }

func unitYToLat(y float64) float64 { _, lat := geo.WorldToLonLat(0.5, y); return lat }

// maxRootBytes is the space left for the root directory in the first 16 KiB.
const maxRootBytes = RootDirMaxEnd - HeaderLen

// buildDirectories encodes entries as a root directory alone when it fits in
// the first 16 KiB, or as a root of leaf pointers plus leaf directories.
// rootLimit below maxRootBytes (used by tests) forces leaves earlier, and
// leafSize then starts at 64 entries.
func buildDirectories(entries []Entry, c Compression, rootLimit int) (root, leaves []byte, err error) {
	start := 4096
	if rootLimit <= 0 || rootLimit >= maxRootBytes {
		rootLimit = maxRootBytes
	} else {
		start = 64
	}
	root, err = compress(AppendDirectory(nil, entries), c)
	if err != nil {
		return nil, nil, err
	}
	if len(root) <= rootLimit {
		return root, nil, nil
	}
	for leafSize := start; ; leafSize *= 2 {
		var ptrs []Entry
		leaves = leaves[:0]
		for i := 0; i < len(entries); i += leafSize {
			chunk := entries[i:min(i+leafSize, len(entries))]
			leaf, err := compress(AppendDirectory(nil, chunk), c)
			if err != nil {
				return nil, nil, err
			}
			ptrs = append(ptrs, Entry{TileID: chunk[0].TileID, Offset: uint64(len(leaves)), Length: uint32(len(leaf))})
			leaves = append(leaves, leaf...)
		}
		root, err = compress(AppendDirectory(nil, ptrs), c)
		if err != nil {
			return nil, nil, err
		}
		if len(root) <= rootLimit {
			return root, leaves, nil
		}
		if leafSize > len(entries) {
			return nil, nil, errors.New("pmtiles: cannot fit the root directory in 16 KiB")
		}
	}
}
