package pmtiles

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// HeaderLen is the size of the fixed PMTiles v3 header in bytes.
const HeaderLen = 127

// RootDirMaxEnd is the offset the root directory must end before according to
// the specification (the first 16 KiB of the archive).
const RootDirMaxEnd = 16384

var magic = []byte("PMTiles")

// ErrFormat is wrapped by every error about a malformed archive.
var ErrFormat = errors.New("pmtiles: invalid archive")

// Compression identifies a compression scheme (internal or tile).
type Compression uint8

// Compression values defined by the PMTiles v3 specification.
const (
	CompressionUnknown Compression = 0
	CompressionNone    Compression = 1
	CompressionGzip    Compression = 2
	CompressionBrotli  Compression = 3
	CompressionZstd    Compression = 4
)

// String returns the lower-case name used by the specification.
func (c Compression) String() string {
	switch c {
	case CompressionUnknown:
		return "unknown"
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionBrotli:
		return "br"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("compression(%d)", uint8(c))
}

// ContentEncoding returns the HTTP Content-Encoding for tiles stored with c,
// or "" when none applies.
func (c Compression) ContentEncoding() string {
	switch c {
	case CompressionGzip:
		return "gzip"
	case CompressionBrotli:
		return "br"
	case CompressionZstd:
		return "zstd"
	}
	return ""
}

// TileType identifies the format of the tiles in an archive.
type TileType uint8

// Tile types defined by the PMTiles v3 specification.
const (
	TileTypeUnknown TileType = 0
	TileTypeMVT     TileType = 1
	TileTypePNG     TileType = 2
	TileTypeJPEG    TileType = 3
	TileTypeWebP    TileType = 4
	TileTypeAVIF    TileType = 5
)

// String returns the short name of the tile type ("mvt", "png", ...).
func (t TileType) String() string {
	switch t {
	case TileTypeMVT:
		return "mvt"
	case TileTypePNG:
		return "png"
	case TileTypeJPEG:
		return "jpeg"
	case TileTypeWebP:
		return "webp"
	case TileTypeAVIF:
		return "avif"
	}
	return "unknown"
}

// Extension returns the usual file extension of the tile type, without dot
// ("pbf" for mvt), or "" when unknown.
func (t TileType) Extension() string {
	switch t {
	case TileTypeMVT:
		return "pbf"
	case TileTypePNG, TileTypeJPEG, TileTypeWebP, TileTypeAVIF:
		return t.String()
	}
	return ""
}

// MediaType returns the HTTP media type of the tile type.
func (t TileType) MediaType() string {
	switch t {
	case TileTypeMVT:
		return "application/vnd.mapbox-vector-tile"
	case TileTypePNG:
		return "image/png"
	case TileTypeJPEG:
		return "image/jpeg"
	case TileTypeWebP:
		return "image/webp"
	case TileTypeAVIF:
		return "image/avif"
	}
	return "application/octet-stream"
}

// Header holds every field of the 127-byte PMTiles v3 header. Positions are
// in degrees (stored as 1e-7 degree integers).
type Header struct {
	Version             uint8
	RootOffset          uint64
	RootLength          uint64
	MetadataOffset      uint64
	MetadataLength      uint64
	LeafDirsOffset      uint64
	LeafDirsLength      uint64
	TileDataOffset      uint64
	TileDataLength      uint64
	AddressedTilesCount uint64
	TileEntriesCount    uint64
	TileContentsCount   uint64
	Clustered           bool
	InternalCompression Compression
	TileCompression     Compression
	TileType            TileType
	MinZoom             uint8
	MaxZoom             uint8
	MinLon, MinLat      float64
	MaxLon, MaxLat      float64
	CenterZoom          uint8
	CenterLon           float64
	CenterLat           float64
}

func e7(v int32) float64 { return float64(v) / 1e7 }

func toE7(v float64) int32 {
	r := math.Round(v * 1e7)
	if r > math.MaxInt32 {
		return math.MaxInt32
	}
	if r < math.MinInt32 {
		return math.MinInt32
	}
	return int32(r)
}

// ParseHeader decodes and validates a PMTiles v3 header from the first
// HeaderLen bytes of b. It checks the magic, the version, the compression and
// zoom fields and that no section overflows; it does not know the archive size
// (see Header.CheckSize).
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < HeaderLen {
		return h, fmt.Errorf("%w: header is %d bytes, need %d", ErrFormat, len(b), HeaderLen)
	}
	if !bytes.Equal(b[:7], magic) {
		return h, fmt.Errorf("%w: missing PMTiles magic (got %q)", ErrFormat, b[:7])
	}
	h.Version = b[7]
	if h.Version != 3 {
		if h.Version >= 0x20 && h.Version < 0x7f {
			return h, fmt.Errorf("%w: version byte is 0x%02x (ASCII %q), need the binary value 3", ErrFormat, h.Version, rune(h.Version))
		}
		return h, fmt.Errorf("%w: unsupported version %d, need 3", ErrFormat, h.Version)
	}
	le := binary.LittleEndian
	h.RootOffset = le.Uint64(b[8:])
	h.RootLength = le.Uint64(b[16:])
	h.MetadataOffset = le.Uint64(b[24:])
	h.MetadataLength = le.Uint64(b[32:])
	h.LeafDirsOffset = le.Uint64(b[40:])
	h.LeafDirsLength = le.Uint64(b[48:])
	h.TileDataOffset = le.Uint64(b[56:])
	h.TileDataLength = le.Uint64(b[64:])
	h.AddressedTilesCount = le.Uint64(b[72:])
	h.TileEntriesCount = le.Uint64(b[80:])
	h.TileContentsCount = le.Uint64(b[88:])
	switch b[96] {
	case 0:
	case 1:
		h.Clustered = true
	default:
		return h, fmt.Errorf("%w: clustered flag is %d, need 0 or 1", ErrFormat, b[96])
	}
	h.InternalCompression = Compression(b[97])
	h.TileCompression = Compression(b[98])
	h.TileType = TileType(b[99])
	h.MinZoom = b[100]
	h.MaxZoom = b[101]
	h.MinLon = e7(int32(le.Uint32(b[102:])))
	h.MinLat = e7(int32(le.Uint32(b[106:])))
	h.MaxLon = e7(int32(le.Uint32(b[110:])))
	h.MaxLat = e7(int32(le.Uint32(b[114:])))
	h.CenterZoom = b[118]
	h.CenterLon = e7(int32(le.Uint32(b[119:])))
	h.CenterLat = e7(int32(le.Uint32(b[123:])))
	if err := h.validate(); err != nil {
		return h, err
	}
	return h, nil
}

func (h *Header) validate() error {
	switch h.InternalCompression {
	case CompressionNone, CompressionGzip:
	case CompressionBrotli, CompressionZstd:
		return fmt.Errorf("%w: internal compression %s is not supported (only none and gzip)", ErrFormat, h.InternalCompression)
	default:
		return fmt.Errorf("%w: invalid internal compression %d", ErrFormat, uint8(h.InternalCompression))
	}
	if h.TileCompression > CompressionZstd {
		return fmt.Errorf("%w: invalid tile compression %d", ErrFormat, uint8(h.TileCompression))
	}
	if h.MaxZoom > MaxZoom {
		return fmt.Errorf("%w: max zoom %d exceeds %d", ErrFormat, h.MaxZoom, MaxZoom)
	}
	if h.MinZoom > h.MaxZoom {
		return fmt.Errorf("%w: min zoom %d above max zoom %d", ErrFormat, h.MinZoom, h.MaxZoom)
	}
	if h.RootLength == 0 {
		return fmt.Errorf("%w: empty root directory", ErrFormat)
	}
	sections := []struct {
		name        string
		off, length uint64
	}{
		{"root directory", h.RootOffset, h.RootLength},
		{"metadata", h.MetadataOffset, h.MetadataLength},
		{"leaf directories", h.LeafDirsOffset, h.LeafDirsLength},
		{"tile data", h.TileDataOffset, h.TileDataLength},
	}
	for _, s := range sections {
		if s.off > math.MaxInt64 || s.length > math.MaxInt64 || s.off+s.length > math.MaxInt64 {
			return fmt.Errorf("%w: %s section (offset %d, length %d) overflows", ErrFormat, s.name, s.off, s.length)
		}
		if s.length > 0 && s.off < HeaderLen {
			return fmt.Errorf("%w: %s section at offset %d overlaps the header", ErrFormat, s.name, s.off)
		}
	}
	return nil
}

// CheckSize verifies that every section of the archive lies within size bytes.
func (h *Header) CheckSize(size int64) error {
	if size < HeaderLen {
		return fmt.Errorf("%w: archive is %d bytes, shorter than the header", ErrFormat, size)
	}
	for _, s := range []struct {
		name        string
		off, length uint64
	}{
		{"root directory", h.RootOffset, h.RootLength},
		{"metadata", h.MetadataOffset, h.MetadataLength},
		{"leaf directories", h.LeafDirsOffset, h.LeafDirsLength},
		{"tile data", h.TileDataOffset, h.TileDataLength},
	} {
		if s.off+s.length > uint64(size) {
			return fmt.Errorf("%w: %s section ends at %d, beyond the archive size %d (truncated file?)", ErrFormat, s.name, s.off+s.length, size)
		}
	}
	return nil
}

// AppendBinary appends the 127-byte encoding of h to b. The Version field is
// ignored: 3 is always written.
func (h *Header) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	b = append(b, magic...)
	b = append(b, 3)
	for _, v := range []uint64{h.RootOffset, h.RootLength, h.MetadataOffset, h.MetadataLength,
		h.LeafDirsOffset, h.LeafDirsLength, h.TileDataOffset, h.TileDataLength,
		h.AddressedTilesCount, h.TileEntriesCount, h.TileContentsCount} {
		b = le.AppendUint64(b, v)
	}
	var cl byte
	if h.Clustered {
		cl = 1
	}
	b = append(b, cl, byte(h.InternalCompression), byte(h.TileCompression), byte(h.TileType), h.MinZoom, h.MaxZoom)
	for _, v := range []float64{h.MinLon, h.MinLat, h.MaxLon, h.MaxLat} {
		b = le.AppendUint32(b, uint32(toE7(v)))
	}
	b = append(b, h.CenterZoom)
	b = le.AppendUint32(b, uint32(toE7(h.CenterLon)))
	b = le.AppendUint32(b, uint32(toE7(h.CenterLat)))
	return b
}
