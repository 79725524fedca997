package glyphs

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func sampleStack() Fontstack {
	bm := make([]byte, (2+6)*(3+6))
	for i := range bm {
		bm[i] = byte(i * 7)
	}
	return Fontstack{
		Name:  "Open Sans Regular,Noto Sans Regular",
		Range: "256-511",
		Glyphs: []Glyph{
			{ID: 256, Bitmap: bm, Width: 2, Height: 3, Left: -2, Top: -26, Advance: 7},
			{ID: 300, Width: 0, Height: 0, Left: 0, Top: -25, Advance: 6},
			{ID: 511, Bitmap: make([]byte, 36), Width: 0, Height: 0, Left: 2147483647, Top: -2147483648, Advance: 4294967295},
		},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	fs := sampleStack()
	fs.Glyphs = fs.Glyphs[:2] // the third has a bitmap without a size
	data := EncodeRange(fs)
	got, err := DecodeRange(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], fs) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, fs)
	}
}

func TestEncodeKnownBytes(t *testing.T) {
	// A glyphs message with one stack "A", range "0-255" and one glyph
	// {id 65, no bitmap, 0x0, left -1, top -3, advance 7}, written by hand
	// from the protobuf wire format.
	want := []byte{
		0x0a, 0x18, // stacks (field 1, bytes), 24 bytes
		0x0a, 0x01, 'A', // name
		0x12, 0x05, '0', '-', '2', '5', '5', // range
		0x1a, 0x0c, // glyph (field 3, bytes), 12 bytes
		0x08, 65, // id
		0x18, 0, // width
		0x20, 0, // height
		0x28, 1, // left -1, zigzag
		0x30, 5, // top -3, zigzag
		0x38, 7, // advance
	}
	got := EncodeRange(Fontstack{Name: "A", Range: "0-255", Glyphs: []Glyph{{ID: 65, Left: -1, Top: -3, Advance: 7}}})
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
}

func TestDecodeRangeErrors(t *testing.T) {
	valid := EncodeRange(Fontstack{Name: "A", Range: "0-255", Glyphs: []Glyph{{ID: 65, Bitmap: make([]byte, 49), Width: 1, Height: 1}}})
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated", valid[:len(valid)-3]},
		{"bad key varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"length past end", []byte{0x0a, 0x7f, 0x00}},
		{"field zero", []byte{0x00, 0x01}},
		{"group wire type", []byte{0x0b}},
		{"stack as varint", []byte{0x08, 0x01}},
		{"bitmap size mismatch", EncodeRange(Fontstack{Glyphs: []Glyph{{ID: 1, Bitmap: make([]byte, 48), Width: 1, Height: 1}}})},
		{"bitmap without size", EncodeRange(Fontstack{Glyphs: []Glyph{{ID: 1, Bitmap: make([]byte, 36)}}})},
		{"glyph id as bytes", []byte{0x0a, 0x04, 0x1a, 0x02, 0x0a, 0x00}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeRange(tc.data); !errors.Is(err, ErrMalformed) {
				t.Fatalf("DecodeRange = %v, want ErrMalformed", err)
			}
		})
	}
	if _, err := DecodeRange(valid); err != nil {
		t.Fatalf("valid input: %v", err)
	}
}

func TestDecodeSkipsUnknownFields(t *testing.T) {
	fs := Fontstack{Name: "X", Range: "0-255", Glyphs: []Glyph{{ID: 1, Advance: 3}}}
	data := EncodeRange(fs)
	// An unknown top-level varint field 9, and a fixed32 field 10.
	data = append(data, 0x48, 0x05, 0x55, 1, 2, 3, 4)
	got, err := DecodeRange(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []Fontstack{fs}) {
		t.Fatalf("got %+v", got)
	}
}

func TestZigzag(t *testing.T) {
	for _, v := range []int32{0, -1, 1, -26, 255, -2147483648, 2147483647} {
		if got := unzigzag(zigzag(v)); got != v {
			t.Errorf("unzigzag(zigzag(%d)) = %d", v, got)
		}
	}
	if zigzag(-1) != 1 || zigzag(1) != 2 || zigzag(-2) != 3 {
		t.Errorf("zigzag does not follow the protobuf sint32 encoding")
	}
}

func FuzzDecodeRange(f *testing.F) {
	f.Add(EncodeRange(sampleStack()))
	f.Add([]byte{0x0a, 0x04, 0x1a, 0x02, 0x08, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		stacks, err := DecodeRange(data)
		if err != nil {
			return
		}
		// What decodes must encode and decode to the same thing (fields
		// are canonicalised, so compare after one round).
		for _, fs := range stacks {
			again, err := DecodeRange(EncodeRange(fs))
			if err != nil {
				t.Fatalf("re-decoding an encoded stack: %v", err)
			}
			if len(again) != 1 || again[0].Name != fs.Name || again[0].Range != fs.Range || len(again[0].Glyphs) != len(fs.Glyphs) {
				t.Fatalf("round trip changed the stack: %+v vs %+v", again, fs)
			}
			for i := range fs.Glyphs {
				a, b := again[0].Glyphs[i], fs.Glyphs[i]
				if a.ID != b.ID || !bytes.Equal(a.Bitmap, b.Bitmap) || a.Width != b.Width || a.Height != b.Height || a.Left != b.Left || a.Top != b.Top || a.Advance != b.Advance {
					t.Fatalf("glyph %d changed: %+v vs %+v", i, a, b)
				}
			}
		}
	})
}
