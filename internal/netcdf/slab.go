package netcdf

import (
	"fmt"
	"math"
)

// recordSize is the byte size of one record: the per-record sizes of every
// record variable, each padded to 4 bytes unless it is the only one (the
// classic format's rule). Sizes past the file's size are capped there (a
// hostile header cannot overflow the arithmetic).
func (f *File) recordSize() int64 {
	var n, only int64
	count := 0
	for i := range f.Vars {
		v := &f.Vars[i]
		if !v.Record {
			continue
		}
		count++
		only = f.capped(int64(v.Type.Size()), v.Shape[1:])
		n = min(n+(only+3)&^3, f.size+1)
	}
	if count == 1 {
		return only
	}
	return n
}

// capped is s times the dimensions, capped just past the file's size.
func (f *File) capped(s int64, dims []int) int64 {
	for _, d := range dims {
		if d != 0 && s > (f.size+1)/int64(d) {
			return f.size + 1
		}
		s *= int64(d)
	}
	return s
}

// ReadSlab reads the values of v with its leading dimensions fixed at the
// indices at (len(at) of them; for a record variable the first index is the
// record number), every remaining dimension whole, in the file's order, as
// float64s. limit bounds the number of values. Packing attributes
// (scale_factor, add_offset, _FillValue) are not applied: see Unpacking.
func (f *File) ReadSlab(v *Var, at []int, limit int64) ([]float64, error) {
	if len(at) > len(v.Shape) {
		return nil, fmt.Errorf("%w: %d indices for variable %q of rank %d", ErrFormat, len(at), v.Name, len(v.Shape))
	}
	n := int64(1)
	for _, d := range v.Shape[len(at):] {
		n *= int64(d)
		if n > limit {
			return nil, fmt.Errorf("%w: a slab of variable %q has more than %d values", ErrFormat, v.Name, limit)
		}
	}
	size := int64(v.Type.Size())
	// The slab's place: leading indices, row-major over the fixed-size
	// dimensions; a record variable's first index picks the record.
	off := v.Begin
	lead := at
	if v.Record {
		if len(at) == 0 {
			return nil, fmt.Errorf("%w: variable %q is a record variable: give the record number", ErrFormat, v.Name)
		}
		if at[0] < 0 || int64(at[0]) >= f.NumRecs {
			return nil, fmt.Errorf("%w: record %d of variable %q: the file has %d", ErrFormat, at[0], v.Name, f.NumRecs)
		}
		rs := f.recordSize()
		if f.NumRecs > (f.size-v.Begin)/max(rs, 1)+1 {
			return nil, fmt.Errorf("%w: %d records of %d bytes do not fit the file (%d bytes)", ErrFormat, f.NumRecs, rs, f.size)
		}
		off += int64(at[0]) * rs
		lead = at[1:]
	}
	shape := v.Shape[len(at)-len(lead):]
	var idx int64
	for i, a := range lead {
		if a < 0 || a >= shape[i] {
			return nil, fmt.Errorf("%w: index %d of dimension %d of variable %q (length %d)", ErrFormat, a, len(at)-len(lead)+i, v.Name, shape[i])
		}
		idx = idx*int64(shape[i]) + int64(a)
		if idx > f.size {
			return nil, fmt.Errorf("%w: variable %q: index past the end of the file", ErrFormat, v.Name)
		}
	}
	off += f.capped(idx, []int{int(n), int(size)})
	if off < 0 || off > f.size || n*size > f.size-off {
		return nil, fmt.Errorf("%w: variable %q (%d values from byte %d) runs past the end of the file (%d bytes)", ErrFormat, v.Name, n, off, f.size)
	}
	out := make([]float64, n)
	err := f.readChunks(v, off, n, func(i int64, b []byte) {
		for j := range int64(len(b)) / size {
			out[i+j] = decode(v.Type, b[j*size:])
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Unpacking is how a variable's stored values become its values (the CF
// conventions): stored values equal to a fill or missing value are missing,
// the others are scale*stored + offset.
type Unpacking struct {
	Scale, Offset float64
	// Missing are the stored values that mark no value (_FillValue,
	// missing_value).
	Missing []float64
}

// Unpacking returns the variable's unpacking attributes.
func (v *Var) Unpacking() Unpacking {
	u := Unpacking{Scale: 1}
	if a, ok := v.Attr("scale_factor"); ok && len(a.Values) == 1 {
		u.Scale = a.Values[0]
	}
	if a, ok := v.Attr("add_offset"); ok && len(a.Values) == 1 {
		u.Offset = a.Values[0]
	}
	for _, name := range []string{"_FillValue", "missing_value"} {
		if a, ok := v.Attr(name); ok {
			u.Missing = append(u.Missing, a.Values...)
		}
	}
	return u
}

// Apply unpacks stored values in place: missing ones become NaN.
func (u Unpacking) Apply(vals []float64) {
	for i, s := range vals {
		missing := math.IsNaN(s)
		for _, m := range u.Missing {
			if s == m {
				missing = true
			}
		}
		if missing {
			vals[i] = math.NaN()
			continue
		}
		vals[i] = s*u.Scale + u.Offset
	}
}
