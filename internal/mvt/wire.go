package mvt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Protocol buffer wire types used by the vector tile schema.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

var errTruncated = errors.New("truncated data")

// appendVarint appends v as a base-128 varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendTag appends a field key.
func appendTag(b []byte, field int, wire int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wire))
}

// appendBytesField appends a length-delimited field.
func appendBytesField(b []byte, field int, data []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(data)))
	return append(b, data...)
}

func appendStringField(b []byte, field int, s string) []byte {
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	b = appendTag(b, field, wireVarint)
	return appendVarint(b, v)
}

func zigzag32(v int32) uint32 { return uint32((v << 1) ^ (v >> 31)) }

func unzigzag32(v uint32) int32 { return int32(v>>1) ^ -int32(v&1) }

func zigzag64(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }

func unzigzag64(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// reader walks a protocol buffer message.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) varint() (uint64, error) {
	// Most varints of a tile (commands, deltas, tags, lengths) are one or
	// two bytes.
	if p := r.pos; p+1 < len(r.b) {
		if c := r.b[p]; c < 0x80 {
			r.pos = p + 1
			return uint64(c), nil
		} else if d := r.b[p+1]; d < 0x80 {
			r.pos = p + 2
			return uint64(c&0x7f) | uint64(d)<<7, nil
		}
	} else if p < len(r.b) && r.b[p] < 0x80 {
		r.pos = p + 1
		return uint64(r.b[p]), nil
	}
	return r.varintLong()
}

// varintLong reads a varint of any length.
func (r *reader) varintLong() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.pos:])
	switch {
	case n == 0:
		return 0, errTruncated
	case n < 0:
		return 0, errors.New("varint overflows 64 bits")
	}
	r.pos += n
	return v, nil
}

// key reads a field key and returns field number and wire type.
func (r *reader) key() (int, int, error) {
	// A key of one byte (fields 1 to 15): no varint to read.
	if p := r.pos; p < len(r.b) && r.b[p] >= 1<<3 && r.b[p] < 0x80 {
		r.pos = p + 1
		return int(r.b[p] >> 3), int(r.b[p] & 7), nil
	}
	k, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	field := k >> 3
	if field == 0 || field > math.MaxInt32 {
		return 0, 0, fmt.Errorf("invalid field number %d", field)
	}
	return int(field), int(k & 7), nil
}

// bytes reads the bytes of a length-delimited field.
func (r *reader) bytes() ([]byte, error) {
	// A length of one byte: no varint to read.
	if p := r.pos; p < len(r.b) {
		if n := int(r.b[p]); n < 0x80 && n < len(r.b)-p {
			r.pos = p + 1 + n
			return r.b[p+1 : r.pos], nil
		}
	}
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.pos) {
		return nil, fmt.Errorf("length %d exceeds remaining %d bytes", n, len(r.b)-r.pos)
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *reader) fixed32() (uint32, error) {
	if len(r.b)-r.pos < 4 {
		return 0, errTruncated
	}
	b := r.b[r.pos:]
	r.pos += 4
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, nil
}

func (r *reader) fixed64() (uint64, error) {
	if len(r.b)-r.pos < 8 {
		return 0, errTruncated
	}
	b := r.b[r.pos:]
	r.pos += 8
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// skip skips a field value of the given wire type.
func (r *reader) skip(wire int) error {
	switch wire {
	case wireVarint:
		_, err := r.varint()
		return err
	case wireFixed64:
		_, err := r.fixed64()
		return err
	case wireBytes:
		_, err := r.bytes()
		return err
	case wireFixed32:
		_, err := r.fixed32()
		return err
	default:
		return fmt.Errorf("unsupported wire type %d", wire)
	}
}

// packedUint32 decodes a packed repeated uint32 field, appending to dst.
func packedUint32(dst []uint32, b []byte) ([]uint32, error) {
	n := len(dst)
	dst = slices.Grow(dst, len(b))[:n+len(b)] // at least a byte a value
	out := dst[n:]
	k := 0
	for i := 0; i < len(b); {
		// Tags, commands and the deltas of positions are mostly of one or
		// two bytes.
		if c := b[i]; c < 0x80 {
			out[k] = uint32(c)
			i++
		} else if i+1 < len(b) && b[i+1] < 0x80 {
			out[k] = uint32(c&0x7f) | uint32(b[i+1])<<7
			i += 2
		} else {
			r := reader{b: b, pos: i}
			v, err := r.varintLong()
			if err != nil {
				return dst[:n+k], err
			}
			if v > math.MaxUint32 {
				return dst[:n+k], fmt.Errorf("value %d overflows uint32", v)
			}
			out[k] = uint32(v)
			i = r.pos
		}
		k++
	}
	return dst[:n+k], nil
}
