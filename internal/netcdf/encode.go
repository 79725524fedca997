package netcdf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// VarData is a variable to encode: float32 values over named dimensions.
type VarData struct {
	Name   string
	Dims   []string
	Attrs  []Attr
	Values []float32
}

// Encode writes a NetCDF classic (CDF-1) file of fixed-size float
// variables: small grids for tests and tools. Attributes are Char (Text) or
// Double (Values).
func Encode(w io.Writer, dims []Dim, attrs []Attr, vars []VarData) error {
	var hdr []byte
	u32 := func(v uint32) { hdr = binary.BigEndian.AppendUint32(hdr, v) }
	name := func(s string) {
		u32(uint32(len(s)))
		hdr = append(hdr, s...)
		for len(hdr)%4 != 0 {
			hdr = append(hdr, 0)
		}
	}
	attrList := func(as []Attr) {
		if len(as) == 0 {
			u32(0)
			u32(0)
			return
		}
		u32(tagAttribute)
		u32(uint32(len(as)))
		for _, a := range as {
			name(a.Name)
			if a.Type == Char {
				u32(uint32(Char))
				name(a.Text)
				continue
			}
			u32(uint32(Double))
			u32(uint32(len(a.Values)))
			for _, v := range a.Values {
				hdr = binary.BigEndian.AppendUint64(hdr, math.Float64bits(v))
			}
		}
	}
	dimID := map[string]int{}
	for i, d := range dims {
		if d.Len <= 0 {
			return fmt.Errorf("netcdf encode: dimension %q has length %d (record dimensions are not written)", d.Name, d.Len)
		}
		dimID[d.Name] = i
	}
	hdr = append(hdr, 'C', 'D', 'F', 1)
	u32(0)
	if len(dims) == 0 {
		u32(0)
		u32(0)
	} else {
		u32(tagDimension)
		u32(uint32(len(dims)))
		for _, d := range dims {
			name(d.Name)
			u32(uint32(d.Len))
		}
	}
	attrList(attrs)
	// The header's size does not depend on the begin offsets' values: lay
	// it out once with zeros, then patch them.
	if len(vars) == 0 {
		u32(0)
		u32(0)
	} else {
		u32(tagVariable)
		u32(uint32(len(vars)))
	}
	beginAt := make([]int, len(vars))
	for i, v := range vars {
		name(v.Name)
		u32(uint32(len(v.Dims)))
		n := 1
		for _, dn := range v.Dims {
			id, ok := dimID[dn]
			if !ok {
				return fmt.Errorf("netcdf encode: variable %q names unknown dimension %q", v.Name, dn)
			}
			u32(uint32(id))
			n *= dims[id].Len
		}
		if n != len(v.Values) {
			return fmt.Errorf("netcdf encode: variable %q has %d values, its shape %d", v.Name, len(v.Values), n)
		}
		attrList(v.Attrs)
		u32(uint32(Float))
		u32(uint32(4 * n))
		beginAt[i] = len(hdr)
		u32(0)
	}
	off := len(hdr)
	for i, v := range vars {
		if off > math.MaxInt32 {
			return fmt.Errorf("netcdf encode: more than 2 GiB")
		}
		binary.BigEndian.PutUint32(hdr[beginAt[i]:], uint32(off))
		off += 4 * len(v.Values)
	}
	bw := bufio.NewWriter(w)
	bw.Write(hdr)
	var b [4]byte
	for _, v := range vars {
		for _, x := range v.Values {
			binary.BigEndian.PutUint32(b[:], math.Float32bits(x))
			bw.Write(b[:])
		}
	}
	return bw.Flush()
}
