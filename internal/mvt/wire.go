package mvt

import (
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
	// Most varints of a tile (commands, small deltas, tags) are one byte.
	if r.pos < len(r.b) && r.b[r.pos] < 0x80 {
		v := r.b[r.pos]
		r.pos++
		return uint64(v), nil
	}
	return r.varintLong()
}

// varintLong reads a varint of any length.
func (r *reader) varintLong() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.pos >= len(r.b) {
			return 0, errTruncated
		}
		c := r.b[r.pos]
		r.pos++
		if shift == 63 && c > 1 {
			return 0, errors.New("varint overflows 64 bits")
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint overflows 64 bits")
}

// key reads a field key and returns field number and wire type.
func (r *reader) key() (int, int, error) {
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

func (r *reader) bytes() ([]byte, error) {
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
	dst = slices.Grow(dst, len(b)) // at least a byte a value
	r := reader{b: b}
	for !r.done() {
		if c := r.b[r.pos]; c < 0x80 {
			dst = append(dst, uint32(c))
			r.pos++
			continue
		}
		v, err := r.varintLong()
		if err != nil {
			return dst, err
		}
		if v > math.MaxUint32 {
			return dst, fmt.Errorf("value %d overflows uint32", v)
		}
		dst = append(dst, uint32(v))
	}
	return dst, nil
}
