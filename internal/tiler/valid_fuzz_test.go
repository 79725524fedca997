package tiler

import (
	"encoding/binary"
	"testing"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// FuzzUntangle feeds untangle rings of up to 64 positions read from the
// input (int16 pairs): it returns nil or a closed ring that does not cross
// itself, with an area.
func FuzzUntangle(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 10, 0, 10, 0, 10, 0, 0, 0, 0, 0, 10, 0})                // bow tie
	f.Add([]byte{0, 0, 0, 0, 30, 0, 30, 0, 30, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0})    // figure eight
	f.Add([]byte{0, 0, 0, 0, 100, 0, 0, 0, 100, 0, 100, 0, 0, 0, 100, 0, 50, 0, 50}) // square
	f.Fuzz(func(t *testing.T, data []byte) {
		var ring []mvt.XY
		for i := 0; i+4 <= len(data) && len(ring) < 64; i += 4 {
			ring = append(ring, mvt.XY{
				X: int32(int16(binary.LittleEndian.Uint16(data[i:]))),
				Y: int32(int16(binary.LittleEndian.Uint16(data[i+2:]))),
			})
		}
		if len(ring) < 3 {
			return
		}
		ring = append(ring, ring[0])
		got := untangle(append([]mvt.XY(nil), ring...))
		if got == nil {
			return
		}
		if len(got) < 4 || got[0] != got[len(got)-1] {
			t.Fatalf("untangle(%v) = %v: not a closed ring", ring, got)
		}
		if mvt.RingArea(got) == 0 {
			t.Fatalf("untangle(%v) = %v: no area", ring, got)
		}
		if a, b, ok := findCrossing([][]mvt.XY{got}, nil); ok {
			t.Fatalf("untangle(%v) = %v: edges %d and %d still cross", ring, got, a.i, b.i)
		}
	})
}
