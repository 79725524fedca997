package mvt

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// refVarint decodes a varint byte by byte, as the specification of the
// wire format gives it: the reference the fast paths are held to.
func refVarint(b []byte) (v uint64, n int, err error) {
	for shift := uint(0); shift < 64; shift += 7 {
		if n >= len(b) {
			return 0, 0, errTruncated
		}
		c := b[n]
		n++
		if shift == 63 && c > 1 {
			return 0, 0, errors.New("overflow")
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, n, nil
		}
	}
	return 0, 0, errors.New("overflow")
}

// refPacked decodes a packed uint32 field with refVarint.
func refPacked(b []byte) ([]uint32, error) {
	var out []uint32
	for len(b) > 0 {
		v, n, err := refVarint(b)
		if err != nil {
			return out, err
		}
		if v > math.MaxUint32 {
			return out, errors.New("overflows uint32")
		}
		out, b = append(out, uint32(v)), b[n:]
	}
	return out, nil
}

func TestVarint(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"one byte", []byte{5}},
		{"two bytes", []byte{0x96, 0x01}},
		{"two bytes, the last of the message", []byte{0xff, 0x7f}},
		{"three bytes", []byte{0x80, 0x80, 0x01}},
		{"the largest", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"overflow in the tenth byte", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}},
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}},
		{"truncated", []byte{0x80}},
		{"truncated after two", []byte{0x80, 0x80}},
		{"empty", nil},
	}
	for _, tc := range tests {
		checkVarint(t, tc.name, tc.b)
	}
}

func checkVarint(t *testing.T, name string, b []byte) {
	t.Helper()
	want, n, wantErr := refVarint(b)
	r := reader{b: b}
	got, err := r.varint()
	if (err != nil) != (wantErr != nil) || err == nil && (got != want || r.pos != n) {
		t.Errorf("%s: varint(% x) = %d at %d, %v; want %d at %d, %v", name, b, got, r.pos, err, want, n, wantErr)
	}
	// A field key, and the bytes of a length-delimited field.
	r = reader{b: b}
	field, wire, err := r.key()
	wantField, wantWire, wantOK := int(want>>3), int(want&7), wantErr == nil && want>>3 != 0 && want>>3 <= math.MaxInt32
	if (err == nil) != wantOK || err == nil && (field != wantField || wire != wantWire || r.pos != n) {
		t.Errorf("%s: key(% x) = %d, %d at %d, %v; want %d, %d at %d (ok %v)", name, b, field, wire, r.pos, err, wantField, wantWire, n, wantOK)
	}
	r = reader{b: b}
	got2, err := r.bytes()
	wantOK = wantErr == nil && want <= uint64(len(b)-n)
	if (err == nil) != wantOK || err == nil && (!slices.Equal(got2, b[n:n+int(want)]) || r.pos != n+int(want)) {
		t.Errorf("%s: bytes(% x) = % x at %d, %v; want ok %v", name, b, got2, r.pos, err, wantOK)
	}
	wantP, wantErr := refPacked(b)
	gotP, err := packedUint32([]uint32{7}, b)
	if (err != nil) != (wantErr != nil) || err == nil && !slices.Equal(gotP[1:], wantP) || gotP[0] != 7 {
		t.Errorf("%s: packedUint32(% x) = %v, %v; want %v, %v", name, b, gotP, err, wantP, wantErr)
	}
}

// FuzzVarint holds the varint and packed decoders to refVarint.
func FuzzVarint(f *testing.F) {
	f.Add([]byte{0x96, 0x01, 5, 0x80, 0x80, 0x01})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkVarint(t, "fuzz", b)
	})
}

func TestCountFields(t *testing.T) {
	feature := appendBytesField(nil, 2, []byte{0x18, 1})
	key := appendStringField(nil, 3, "k")
	value := appendBytesField(nil, 4, []byte{0x0a, 1, 'v'})
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	tests := []struct {
		name    string
		b       []byte
		f, k, v int
	}{
		{"empty", nil, 0, 0, 0},
		{"a layer", cat(appendStringField(nil, 1, "l"), feature, feature, key, value, value, appendVarintField(nil, 5, 4096), appendVarintField(nil, 15, 2)), 2, 1, 2},
		{"a long varint", cat(appendVarintField(nil, 5, 1<<40), feature), 1, 0, 0},
		{"a fixed field stops the count", cat(feature, []byte{0x31, 0, 0, 0, 0, 0, 0, 0, 0}, feature), 1, 0, 0},
		{"a long key stops the count", cat(key, appendVarintField(nil, 100, 1), key), 0, 1, 0},
		{"a truncated field stops the count", cat(value, []byte{0x12, 9, 1}), 0, 0, 1},
	}
	for _, tc := range tests {
		f, k, v := countFields(tc.b)
		if f != tc.f || k != tc.k || v != tc.v {
			t.Errorf("%s: %d features, %d keys, %d values; want %d, %d, %d", tc.name, f, k, v, tc.f, tc.k, tc.v)
		}
	}
}

func TestVarintLong(t *testing.T) {
	// Every length from 1 to 10 bytes, with and without 8 bytes to read
	// after it.
	for _, v := range []uint64{0, 1, 127, 128, 1 << 14, 1<<21 - 1, 1 << 28, 5_000_000_000, 1<<49 - 1, 1 << 49, 1<<56 - 1, 1 << 56, 1<<63 + 12345, math.MaxUint64} {
		b := appendVarint(nil, v)
		checkVarint(t, "varint", b)
		checkVarint(t, "varint then bytes", append(b, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x08))
		r := reader{b: append(b, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x08)}
		if got, err := r.varintLong(); err != nil || got != v || r.pos != len(b) {
			t.Errorf("varintLong(% x) = %d at %d, %v; want %d at %d", b, got, r.pos, err, v, len(b))
		}
	}
}
