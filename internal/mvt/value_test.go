package mvt

import (
	"math"
	"reflect"
	"testing"
)

func TestDecodeValue(t *testing.T) {
	f32 := math.Float32bits(1.5)
	f64 := math.Float64bits(-2.25)
	tests := []struct {
		name string
		msg  []byte
		want any // as Values gives it; nil: an error
	}{
		{"string", []byte{0x0a, 3, 'a', 'b', 'c'}, "abc"},
		{"empty string", []byte{0x0a, 0}, ""},
		{"float", []byte{0x15, byte(f32), byte(f32 >> 8), byte(f32 >> 16), byte(f32 >> 24)}, float32(1.5)},
		{"double", append([]byte{0x19}, le64(f64)...), -2.25},
		{"int", append([]byte{0x20}, appendVarint(nil, uint64(1<<63|5))...), int64(-1<<63 | 5)},
		{"uint", append([]byte{0x28}, appendVarint(nil, 1<<40)...), uint64(1 << 40)},
		{"sint", []byte{0x30, 3}, int64(-2)},
		{"bool", []byte{0x38, 1}, true},
		{"false", []byte{0x38, 0}, false},
		{"the last field wins", []byte{0x0a, 1, 'x', 0x38, 1}, true},
		{"an unknown field skipped", []byte{0x40, 9, 0x0a, 1, 'y'}, "y"},
		{"no known field", []byte{0x40, 9}, nil},
		{"truncated", []byte{0x0a, 5, 'a'}, nil},
	}
	for _, tc := range tests {
		v, err := decodeValue(tc.msg, string(tc.msg))
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: accepted as %+v", tc.name, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := v.Any(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func le64(u uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return b
}

// TestTypedValues holds a layer's TypedValues to its Values, and its keys
// and string values to the bytes they were cut from.
func TestTypedValues(t *testing.T) {
	props := map[string]any{"name": "Straße", "n": 3.5, "b": true, "i": int64(-7), "u": uint64(9), "empty": ""}
	l := oneFeatureLayer(t, Feature{Geometry: Geometry{Type: Point, Points: []XY{{1, 1}}}, Properties: props})
	typed, err := l.TypedValues()
	if err != nil {
		t.Fatal(err)
	}
	values, err := l.Values()
	if err != nil {
		t.Fatal(err)
	}
	if len(typed) != len(values) {
		t.Fatalf("%d typed values, %d values", len(typed), len(values))
	}
	for i := range typed {
		if !reflect.DeepEqual(typed[i].Any(), values[i]) {
			t.Errorf("value %d: typed %#v, boxed %#v", i, typed[i].Any(), values[i])
		}
	}
	f, err := l.Feature(0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Properties()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "b", "empty"} {
		if got[k] != props[k] {
			t.Errorf("property %s: %#v, want %#v", k, got[k], props[k])
		}
	}
}

// FuzzDecodeValue holds the fast path of decodeValue to the field by field
// decoding: where it takes a message, both give the same value.
func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte{0x0a, 3, 'a', 'b', 'c'})
	f.Add([]byte{0x0a, 0x80, 1})
	f.Add([]byte{0x15, 0, 0, 0xc0, 0x3f})
	f.Add(append([]byte{0x19}, le64(math.Float64bits(-2.25))...))
	f.Add(append([]byte{0x20}, appendVarint(nil, 1<<63|5)...))
	f.Add([]byte{0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	f.Add([]byte{0x30, 3})
	f.Add([]byte{0x38, 2})
	f.Add([]byte{0x38, 1, 0x38, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := decodeValueFast(b, string(b))
		if !ok {
			return
		}
		want, err := decodeValueFields(b, string(b))
		if err != nil {
			t.Fatalf("% x: fast path gives %+v, fields: %v", b, fast, err)
		}
		if fast != want {
			t.Fatalf("% x: fast path gives %+v, fields %+v", b, fast, want)
		}
	})
}
