package pmtiles

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Entry is one directory entry. RunLength 0 marks a pointer to a leaf
// directory (Offset relative to the leaf directories section); otherwise the
// entry covers tile ids TileID .. TileID+RunLength-1, all with the tile stored
// at Offset (relative to the tile data section).
type Entry struct {
	TileID    uint64
	Offset    uint64
	Length    uint32
	RunLength uint32
}

// entrySize is the in-memory size of an Entry, used for cache accounting.
const entrySize = 24

// DecodeDirectory decodes an uncompressed directory. It validates the entry
// count against the input size (so a corrupt count cannot cause a large
// allocation), that tile ids strictly increase, that no value overflows and
// that lengths are positive and fit 32 bits.
func DecodeDirectory(b []byte) ([]Entry, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, fmt.Errorf("%w: directory: bad entry count varint", ErrFormat)
	}
	b = b[k:]
	// Each entry takes at least 4 bytes (one varint per column).
	if n == 0 {
		return nil, fmt.Errorf("%w: directory has no entries", ErrFormat)
	}
	if n > uint64(len(b))/4 {
		return nil, fmt.Errorf("%w: directory claims %d entries in %d bytes", ErrFormat, n, len(b))
	}
	entries := make([]Entry, n)
	var id uint64
	for i := range entries {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, fmt.Errorf("%w: directory: bad tile id varint at entry %d", ErrFormat, i)
		}
		b = b[k:]
		if i > 0 && d == 0 {
			return nil, fmt.Errorf("%w: directory: tile ids not strictly increasing at entry %d", ErrFormat, i)
		}
		if id+d < id {
			return nil, fmt.Errorf("%w: directory: tile id overflows at entry %d", ErrFormat, i)
		}
		id += d
		entries[i].TileID = id
	}
	for i := range entries {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("%w: directory: bad run length at entry %d", ErrFormat, i)
		}
		b = b[k:]
		entries[i].RunLength = uint32(v)
		if v > 0 && entries[i].TileID+v-1 < entries[i].TileID {
			return nil, fmt.Errorf("%w: directory: run length overflows at entry %d", ErrFormat, i)
		}
	}
	for i := range entries {
		v, k := binary.Uvarint(b)
		if k <= 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("%w: directory: bad length at entry %d", ErrFormat, i)
		}
		if v == 0 {
			return nil, fmt.Errorf("%w: directory: zero length at entry %d", ErrFormat, i)
		}
		b = b[k:]
		entries[i].Length = uint32(v)
	}
	for i := range entries {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, fmt.Errorf("%w: directory: bad offset at entry %d", ErrFormat, i)
		}
		b = b[k:]
		if v == 0 {
			if i == 0 {
				return nil, fmt.Errorf("%w: directory: first entry uses a relative offset", ErrFormat)
			}
			p := entries[i-1]
			o := p.Offset + uint64(p.Length)
			if o < p.Offset {
				return nil, fmt.Errorf("%w: directory: offset overflows at entry %d", ErrFormat, i)
			}
			entries[i].Offset = o
		} else {
			entries[i].Offset = v - 1
		}
		if entries[i].Offset > math.MaxInt64-uint64(entries[i].Length) {
			return nil, fmt.Errorf("%w: directory: offset too large at entry %d", ErrFormat, i)
		}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: directory: %d trailing bytes", ErrFormat, len(b))
	}
	return entries, nil
}

// AppendDirectory appends the uncompressed encoding of entries (sorted by
// strictly increasing TileID) to b.
func AppendDirectory(b []byte, entries []Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(entries)))
	var last uint64
	for _, e := range entries {
		b = binary.AppendUvarint(b, e.TileID-last)
		last = e.TileID
	}
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e.RunLength))
	}
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e.Length))
	}
	for i, e := range entries {
		if i > 0 && e.Offset == entries[i-1].Offset+uint64(entries[i-1].Length) {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, e.Offset+1)
		}
	}
	return b
}

// findEntry returns the entry covering id: the last entry whose TileID is
// <= id, if it is a leaf pointer or its run covers id.
func findEntry(entries []Entry, id uint64) (Entry, bool) {
	lo, hi := 0, len(entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if entries[m].TileID <= id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return Entry{}, false
	}
	e := entries[lo-1]
	if e.RunLength == 0 || id-e.TileID < uint64(e.RunLength) {
		return e, true
	}
	return Entry{}, false
}
