// Package netcdf reads NetCDF classic files (the CDF-1 "classic" and CDF-2
// "64-bit offset" formats of Unidata's specification): the header with its
// dimensions, attributes and variables, and the values of fixed-size
// (non-record) variables as float32s. NetCDF-4 (HDF5) and CDF-5 files are
// refused. Every count and size in the header is checked against the file's
// size before anything is allocated, so a damaged or hostile file gives an
// error wrapping ErrFormat, never a panic or a huge allocation.
package netcdf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrFormat is wrapped by every error about the file's contents.
var ErrFormat = errors.New("not a usable NetCDF classic file")

// Type is a NetCDF external data type.
type Type int32

// The classic data types.
const (
	Byte   Type = 1
	Char   Type = 2
	Short  Type = 3
	Int    Type = 4
	Float  Type = 5
	Double Type = 6
)

// Size is the byte size of one value of the type (0 for unknown types).
func (t Type) Size() int {
	switch t {
	case Byte, Char:
		return 1
	case Short:
		return 2
	case Int, Float:
		return 4
	case Double:
		return 8
	}
	return 0
}

// Header tags.
const (
	tagDimension = 0x0A
	tagVariable  = 0x0B
	tagAttribute = 0x0C
)

// Limits on names and lists (far above what real files use).
const (
	maxName  = 1 << 12
	maxList  = 1 << 16
	maxRank  = 64
	maxAttrs = 1 << 24 // bytes of one attribute's values
)

// Dim is a dimension; Len 0 is the unlimited (record) dimension.
type Dim struct {
	Name string
	Len  int
}

// Attr is an attribute: Text for Char attributes, Values for numeric ones.
type Attr struct {
	Name   string
	Type   Type
	Text   string
	Values []float64
}

// Var is a variable of the file.
type Var struct {
	Name   string
	DimIDs []int
	// Shape is the length of each dimension (0 for the record dimension).
	Shape []int
	Attrs []Attr
	Type  Type
	// Begin is the offset of the variable's data in the file.
	Begin int64
	// Record tells whether the variable's first dimension is the record
	// dimension (its values interleave with other record variables).
	Record bool
}

// Attr returns the variable's attribute of that name.
func (v *Var) Attr(name string) (Attr, bool) { return findAttr(v.Attrs, name) }

// Len is the number of values of a non-record variable.
func (v *Var) Len() int64 {
	n := int64(1)
	for _, s := range v.Shape {
		n *= int64(s)
	}
	return n
}

// File is an open NetCDF classic file.
type File struct {
	// Version is 1 (classic) or 2 (64-bit offset).
	Version int
	NumRecs int64
	Dims    []Dim
	Attrs   []Attr
	Vars    []Var
	r       io.ReaderAt
	size    int64
}

// Attr returns the global attribute of that name.
func (f *File) Attr(name string) (Attr, bool) { return findAttr(f.Attrs, name) }

// Var returns the variable of that name.
func (f *File) Var(name string) (*Var, bool) {
	for i := range f.Vars {
		if f.Vars[i].Name == name {
			return &f.Vars[i], true
		}
	}
	return nil, false
}

func findAttr(as []Attr, name string) (Attr, bool) {
	for _, a := range as {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}

// headerReader reads big-endian header fields, counting bytes.
type headerReader struct {
	br   *bufio.Reader
	off  int64
	size int64
	err  error
}

func (h *headerReader) fail(format string, args ...any) {
	if h.err == nil {
		h.err = fmt.Errorf("%w: at byte %d: %s", ErrFormat, h.off, fmt.Sprintf(format, args...))
	}
}

func (h *headerReader) bytes(n int) []byte {
	if h.err != nil {
		return nil
	}
	if n < 0 || int64(n) > h.size-h.off {
		h.fail("%d bytes past the end of the file", n)
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(h.br, b); err != nil {
		h.fail("read: %v", err)
		return nil
	}
	h.off += int64(n)
	return b
}

func (h *headerReader) u32() uint32 {
	b := h.bytes(4)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func (h *headerReader) u64() uint64 {
	b := h.bytes(8)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// count reads a non-negative count no larger than limit.
func (h *headerReader) count(what string, limit int) int {
	v := h.u32()
	if h.err == nil && (v > math.MaxInt32 || int(v) > limit) {
		h.fail("%s %d is more than %d", what, v, limit)
		return 0
	}
	return int(v)
}

// name reads a padded name.
func (h *headerReader) name() string {
	n := h.count("name length", maxName)
	b := h.bytes(pad4(n))
	if b == nil {
		return ""
	}
	return string(b[:n])
}

func pad4(n int) int { return (n + 3) &^ 3 }

// list reads a list's tag and element count; absent lists are ZERO ZERO.
func (h *headerReader) list(tag uint32, what string) int {
	t := h.u32()
	n := h.count(what+" count", maxList)
	if h.err != nil {
		return 0
	}
	if t == 0 && n == 0 {
		return 0
	}
	if t != tag {
		h.fail("%s list tag %#x, want %#x", what, t, tag)
		return 0
	}
	return n
}

func (h *headerReader) attrs() []Attr {
	n := h.list(tagAttribute, "attribute")
	var out []Attr
	for i := 0; i < n && h.err == nil; i++ {
		a := Attr{Name: h.name(), Type: Type(h.u32())}
		size := a.Type.Size()
		if size == 0 {
			h.fail("attribute %q has unknown type %d", a.Name, a.Type)
			break
		}
		cnt := h.count("attribute values", maxAttrs/size)
		raw := h.bytes(pad4(cnt * size))
		if raw == nil {
			break
		}
		raw = raw[:cnt*size]
		if a.Type == Char {
			a.Text = string(raw)
			for len(a.Text) > 0 && a.Text[len(a.Text)-1] == 0 {
				a.Text = a.Text[:len(a.Text)-1]
			}
		} else {
			a.Values = make([]float64, cnt)
			for j := range a.Values {
				a.Values[j] = decode(a.Type, raw[j*size:])
			}
		}
		out = append(out, a)
	}
	return out
}

// decode converts one big-endian value to float64.
func decode(t Type, b []byte) float64 {
	switch t {
	case Byte:
		return float64(int8(b[0]))
	case Char:
		return float64(b[0])
	case Short:
		return float64(int16(binary.BigEndian.Uint16(b)))
	case Int:
		return float64(int32(binary.BigEndian.Uint32(b)))
	case Float:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	case Double:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	}
	return math.NaN()
}

// Open reads the header of the NetCDF classic file in r, of the given size.
func Open(r io.ReaderAt, size int64) (*File, error) {
	h := &headerReader{br: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}
	magic := h.bytes(4)
	if h.err != nil {
		return nil, h.err
	}
	if string(magic[:3]) != "CDF" || (magic[3] != 1 && magic[3] != 2) {
		if string(magic[:4]) == "\x89HDF" {
			return nil, fmt.Errorf("%w: a NetCDF-4 (HDF5) file", ErrFormat)
		}
		return nil, fmt.Errorf("%w: magic %q", ErrFormat, magic)
	}
	f := &File{Version: int(magic[3]), r: r, size: size}
	nrecs := h.u32()
	if nrecs != 0xFFFFFFFF {
		f.NumRecs = int64(nrecs)
	}
	nd := h.list(tagDimension, "dimension")
	for i := 0; i < nd && h.err == nil; i++ {
		d := Dim{Name: h.name(), Len: h.count("dimension length", math.MaxInt32)}
		f.Dims = append(f.Dims, d)
	}
	f.Attrs = h.attrs()
	nv := h.list(tagVariable, "variable")
	for i := 0; i < nv && h.err == nil; i++ {
		v := Var{Name: h.name()}
		rank := h.count("variable rank", maxRank)
		for j := 0; j < rank && h.err == nil; j++ {
			id := h.count("dimension id", len(f.Dims))
			if h.err == nil && id >= len(f.Dims) {
				h.fail("variable %q names dimension %d of %d", v.Name, id, len(f.Dims))
			}
			if h.err != nil {
				break
			}
			v.DimIDs = append(v.DimIDs, id)
			v.Shape = append(v.Shape, f.Dims[id].Len)
			if f.Dims[id].Len == 0 {
				if j != 0 {
					h.fail("variable %q has the record dimension in place %d", v.Name, j)
				}
				v.Record = true
			}
		}
		v.Attrs = h.attrs()
		v.Type = Type(h.u32())
		if h.err == nil && v.Type.Size() == 0 {
			h.fail("variable %q has unknown type %d", v.Name, v.Type)
		}
		h.u32() // vsize: recomputed from the shape where needed
		if f.Version == 1 {
			v.Begin = int64(h.u32())
		} else {
			b := h.u64()
			if b > math.MaxInt64 {
				h.fail("variable %q begins past 2^63", v.Name)
			}
			v.Begin = int64(b)
		}
		f.Vars = append(f.Vars, v)
	}
	if h.err != nil {
		return nil, h.err
	}
	return f, nil
}

// ReadFloat32 reads every value of a non-record variable, converted to
// float32, in the file's order (the last dimension varies fastest). max
// bounds the number of values (the caller's memory budget).
func (f *File) ReadFloat32(v *Var, max int64) ([]float32, error) {
	if v.Record {
		return nil, fmt.Errorf("%w: variable %q is a record variable (not supported)", ErrFormat, v.Name)
	}
	n := v.Len()
	if n > max {
		return nil, fmt.Errorf("%w: variable %q has %d values, more than the limit of %d", ErrFormat, v.Name, n, max)
	}
	size := int64(v.Type.Size())
	if v.Begin < 0 || v.Begin > f.size || n*size > f.size-v.Begin {
		return nil, fmt.Errorf("%w: variable %q (%d values from byte %d) runs past the end of the file (%d bytes)", ErrFormat, v.Name, n, v.Begin, f.size)
	}
	out := make([]float32, n)
	err := f.readChunks(v, v.Begin, n, func(i int64, b []byte) {
		if v.Type == Float {
			for j := range int64(len(b)) / 4 {
				out[i+j] = math.Float32frombits(binary.BigEndian.Uint32(b[j*4:]))
			}
			return
		}
		for j := range int64(len(b)) / size {
			out[i+j] = float32(decode(v.Type, b[j*size:]))
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readChunks reads n values of v from byte off in chunks of up to 64 KiB,
// handing put each chunk and the index of its first value.
func (f *File) readChunks(v *Var, off, n int64, put func(i int64, b []byte)) error {
	size := int64(v.Type.Size())
	sr := io.NewSectionReader(f.r, off, n*size)
	buf := make([]byte, min(n*size, 64<<10))
	per := int64(len(buf)) / size
	for i := int64(0); i < n; i += per {
		b := buf[:min(per, n-i)*size]
		if _, err := io.ReadFull(sr, b); err != nil {
			return fmt.Errorf("read variable %q: %w", v.Name, err)
		}
		put(i, b)
	}
	return nil
}
