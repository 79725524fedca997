package glyphs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Glyph is one glyph of a range, as stored in the glyph PBF format.
type Glyph struct {
	// ID is the Unicode code point.
	ID uint32
	// Bitmap holds (Width+6)*(Height+6) signed distance bytes, top row first;
	// it is empty when Width or Height is 0.
	Bitmap []byte
	// Width and Height are the glyph's pixel bounds, without the buffer.
	Width, Height uint32
	// Left is the distance from the pen position to the left of the bounds.
	Left int32
	// Top is the top of the bounds relative to the font's ascender (negative
	// for glyphs below the ascender).
	Top int32
	// Advance is the horizontal advance in pixels.
	Advance uint32
}

// Fontstack is one fontstack message: a name, a range ("0-255") and glyphs.
type Fontstack struct {
	Name   string
	Range  string
	Glyphs []Glyph
}

// Limits of DecodeRange: a range holds at most 256 glyphs per stack, and a
// glyph bitmap is at most (255+6)^2 bytes.
const (
	maxDecodeStacks = 16
	maxDecodeGlyphs = 65536
	maxGlyphSide    = 255
	maxStringLen    = 4096
)

// ErrMalformed reports a glyph PBF that cannot be decoded.
var ErrMalformed = errors.New("malformed glyph pbf")

// EncodeRange encodes one fontstack as a glyph PBF (a glyphs message with a
// single stack), the body served for /fonts/{fontstack}/{range}.pbf.
func EncodeRange(fs Fontstack) []byte {
	size := 0
	for i := range fs.Glyphs {
		size += 40 + len(fs.Glyphs[i].Bitmap)
	}
	inner := make([]byte, 0, size+len(fs.Name)+len(fs.Range)+8)
	inner = appendBytesField(inner, 1, []byte(fs.Name))
	inner = appendBytesField(inner, 2, []byte(fs.Range))
	var g []byte
	for i := range fs.Glyphs {
		g = encodeGlyph(g[:0], &fs.Glyphs[i])
		inner = appendBytesField(inner, 3, g)
	}
	out := make([]byte, 0, len(inner)+8)
	return appendBytesField(out, 1, inner)
}

func encodeGlyph(b []byte, g *Glyph) []byte {
	b = appendVarintField(b, 1, uint64(g.ID))
	if len(g.Bitmap) > 0 {
		b = appendBytesField(b, 2, g.Bitmap)
	}
	b = appendVarintField(b, 3, uint64(g.Width))
	b = appendVarintField(b, 4, uint64(g.Height))
	b = appendVarintField(b, 5, zigzag(g.Left))
	b = appendVarintField(b, 6, zigzag(g.Top))
	b = appendVarintField(b, 7, uint64(g.Advance))
	return b
}

func zigzag(v int32) uint64 { return uint64(uint32((v << 1) ^ (v >> 31))) }

func unzigzag(v uint64) int32 { return int32(uint32(v>>1)) ^ -int32(uint32(v&1)) }

func appendVarintField(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// field is one decoded protobuf field: a varint value or a byte slice.
type field struct {
	num  uint64
	wire uint64
	v    uint64
	data []byte
}

// nextField reads one field from b, returning it and the rest of b. Fixed32
// and fixed64 fields are read (and ignored by the callers); groups are errors.
func nextField(b []byte) (field, []byte, error) {
	key, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, nil, fmt.Errorf("%w: bad field key", ErrMalformed)
	}
	b = b[n:]
	f := field{num: key >> 3, wire: key & 7}
	if f.num == 0 {
		return field{}, nil, fmt.Errorf("%w: field number 0", ErrMalformed)
	}
	switch f.wire {
	case 0:
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return field{}, nil, fmt.Errorf("%w: bad varint in field %d", ErrMalformed, f.num)
		}
		f.v = v
		return f, b[n:], nil
	case 1:
		if len(b) < 8 {
			return field{}, nil, fmt.Errorf("%w: short fixed64 field %d", ErrMalformed, f.num)
		}
		return f, b[8:], nil
	case 2:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return field{}, nil, fmt.Errorf("%w: bad length in field %d", ErrMalformed, f.num)
		}
		f.data = b[n : n+int(l)]
		return f, b[n+int(l):], nil
	case 5:
		if len(b) < 4 {
			return field{}, nil, fmt.Errorf("%w: short fixed32 field %d", ErrMalformed, f.num)
		}
		return f, b[4:], nil
	default:
		return field{}, nil, fmt.Errorf("%w: unsupported wire type %d in field %d", ErrMalformed, f.wire, f.num)
	}
}

// DecodeRange decodes a glyph PBF into its fontstacks. It checks every length
// against the input, the wire types of the known fields and the size of each
// bitmap against its width and height, and never allocates more than the
// input's size in glyph bitmaps (they alias data).
func DecodeRange(data []byte) ([]Fontstack, error) {
	var stacks []Fontstack
	glyphs := 0
	for b := data; len(b) > 0; {
		f, rest, err := nextField(b)
		if err != nil {
			return nil, err
		}
		b = rest
		if f.num != 1 {
			continue
		}
		if f.wire != 2 {
			return nil, fmt.Errorf("%w: stack field has wire type %d", ErrMalformed, f.wire)
		}
		if len(stacks) == maxDecodeStacks {
			return nil, fmt.Errorf("%w: more than %d fontstacks", ErrMalformed, maxDecodeStacks)
		}
		fs, err := decodeFontstack(f.data, &glyphs)
		if err != nil {
			return nil, fmt.Errorf("fontstack %d: %w", len(stacks), err)
		}
		stacks = append(stacks, fs)
	}
	return stacks, nil
}

func decodeFontstack(b []byte, count *int) (Fontstack, error) {
	var fs Fontstack
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return fs, err
		}
		b = rest
		switch f.num {
		case 1, 2:
			if f.wire != 2 || len(f.data) > maxStringLen {
				return fs, fmt.Errorf("%w: bad string field %d", ErrMalformed, f.num)
			}
			if f.num == 1 {
				fs.Name = string(f.data)
			} else {
				fs.Range = string(f.data)
			}
		case 3:
			if f.wire != 2 {
				return fs, fmt.Errorf("%w: glyph field has wire type %d", ErrMalformed, f.wire)
			}
			if *count >= maxDecodeGlyphs {
				return fs, fmt.Errorf("%w: more than %d glyphs", ErrMalformed, maxDecodeGlyphs)
			}
			*count++
			g, err := decodeGlyph(f.data)
			if err != nil {
				return fs, fmt.Errorf("glyph %d: %w", len(fs.Glyphs), err)
			}
			fs.Glyphs = append(fs.Glyphs, g)
		}
	}
	return fs, nil
}

func decodeGlyph(b []byte) (Glyph, error) {
	var g Glyph
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return g, err
		}
		b = rest
		if f.num > 7 {
			continue
		}
		want := uint64(0)
		if f.num == 2 {
			want = 2
		}
		if f.wire != want {
			return g, fmt.Errorf("%w: glyph field %d has wire type %d", ErrMalformed, f.num, f.wire)
		}
		switch f.num {
		case 1:
			g.ID = uint32(f.v)
		case 2:
			g.Bitmap = f.data
		case 3:
			g.Width = uint32(f.v)
		case 4:
			g.Height = uint32(f.v)
		case 5:
			g.Left = unzigzag(f.v)
		case 6:
			g.Top = unzigzag(f.v)
		case 7:
			g.Advance = uint32(f.v)
		}
	}
	if len(g.Bitmap) > 0 {
		if g.Width == 0 || g.Height == 0 || g.Width > maxGlyphSide || g.Height > maxGlyphSide {
			return g, fmt.Errorf("%w: glyph %d has a bitmap but is %dx%d", ErrMalformed, g.ID, g.Width, g.Height)
		}
		if want := int(g.Width+2*buffer) * int(g.Height+2*buffer); len(g.Bitmap) != want {
			return g, fmt.Errorf("%w: glyph %d bitmap has %d bytes, want %d", ErrMalformed, g.ID, len(g.Bitmap), want)
		}
	}
	return g, nil
}

// rangeName returns the "start-end" label of the 256 code points from start.
func rangeName(start int) string {
	return strconv.Itoa(start) + "-" + strconv.Itoa(start+255)
}
