package spritesheet

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"
)

// flateRef decompresses src with compress/flate, reading at most limit+1
// bytes, and returns them and how many bytes of src the stream took.
func flateRef(src []byte, limit int) ([]byte, int, error) {
	r := bytes.NewReader(src)
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(r), int64(limit)+1))
	return out, len(src) - r.Len(), err
}

// checkInflate fails if inflate accepts src for an output of n bytes and
// compress/flate does not make exactly those bytes from the same input.
func checkInflate(t *testing.T, src []byte, n int) {
	t.Helper()
	out := make([]byte, n)
	used, ok := inflate(out, src)
	want, wantUsed, err := flateRef(src, n)
	if !ok {
		if err == nil && len(want) == n && wantUsed <= len(src) {
			t.Fatalf("%d bytes: rejected what compress/flate decompresses", len(src))
		}
		return
	}
	if err != nil || !bytes.Equal(out, want) || used != wantUsed {
		t.Fatalf("%d bytes: made %d bytes, took %d; compress/flate: %d bytes, took %d, %v", len(src), n, used, len(want), wantUsed, err)
	}
}

// testStreams are deflate streams of every kind of block: stored, fixed
// and dynamic codes, long runs and copies that overlap themselves.
func testStreams(t testing.TB) map[string][]byte {
	data := testPNG{w: 300, h: 40, ct: ctRGBA, filters: []byte{0, 1, 4}}.encode()
	runs := bytes.Repeat([]byte("abcabcabcd"), 3000)
	runs = append(runs, make([]byte, 5000)...)
	m := map[string][]byte{}
	for _, level := range []int{flate.NoCompression, flate.HuffmanOnly, flate.BestSpeed, 5, flate.BestCompression} {
		for name, in := range map[string][]byte{"png": data, "runs": runs, "short": []byte("a"), "empty": nil} {
			var buf bytes.Buffer
			w, err := flate.NewWriter(&buf, level)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(in)
			w.Close()
			m[name+string(rune('0'+level+2))] = buf.Bytes()
		}
	}
	return m
}

// TestInflate decompresses as compress/flate does, and rejects streams cut
// short or given the wrong size of output.
func TestInflate(t *testing.T) {
	for name, src := range testStreams(t) {
		want, _, err := flateRef(src, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, len(want))
		if used, ok := inflate(out, src); !ok || used != len(src) || !bytes.Equal(out, want) {
			t.Errorf("%s: ok %v, took %d of %d bytes", name, ok, used, len(src))
		}
		for _, n := range []int{len(want) - 1, len(want) + 1} {
			if n >= 0 {
				if _, ok := inflate(make([]byte, n), src); ok {
					t.Errorf("%s: filled %d bytes, not %d", name, n, len(want))
				}
			}
		}
		for _, cut := range []int{0, len(src) / 2, len(src) - 1} {
			checkInflate(t, src[:cut], len(want))
		}
		// Bytes after the stream are not taken.
		if used, ok := inflate(make([]byte, len(want)), append(bytes.Clone(src), 1, 2, 3)); !ok || used != len(src) {
			t.Errorf("%s: with bytes after it, ok %v, took %d of %d", name, ok, used, len(src))
		}
	}
	// Codes compress/flate rejects or accepts: over-subscribed, incomplete,
	// one code of one bit (accepted), a distance before the start.
	for _, src := range [][]byte{
		{0x03, 0x00},                   // fixed, empty
		{0x63, 0x00, 0x02, 0x00},       // fixed, a literal and a copy from before the start
		{0x05, 0xe0, 0x81, 0x00, 0x00}, // dynamic, broken
		{0x04, 0x00, 0xfe, 0xff},       // stored, wrong length check
		{0x07},                         // block type 3
	} {
		for n := range 4 {
			checkInflate(t, src, n)
		}
	}
}

// FuzzInflate: what inflate accepts, compress/flate decompresses alike.
func FuzzInflate(f *testing.F) {
	for _, src := range testStreams(f) {
		if len(src) < 4096 {
			f.Add(src, uint16(100))
		}
	}
	f.Add([]byte{0x05, 0xe0, 0x81, 0x00, 0x00}, uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		checkInflate(t, src, int(n))
		// With the output size compress/flate makes.
		if want, _, err := flateRef(src, 1<<16); err == nil && len(want) <= 1<<16 {
			checkInflate(t, src, len(want))
		}
	})
}
