package render

import (
	"bytes"
	"context"
	"testing"

	"github.com/tesseramaps/tessera/internal/cpuslots"
)

// TestSlotsSameBytes: a render draws the same pixels whether its work is
// spread over free processor slots or runs on its own goroutine alone (a
// server's render worker holding the slots, see cpuslots): the two runs
// of layers, the symbol bands and the layout give the same bytes either
// way, so a tile's ETag does not depend on the server's load.
func TestSlotsSameBytes(t *testing.T) {
	st, res := streetStyle(t)
	r := newRenderer(t)
	ctx := context.Background()
	for _, ratio := range []float64{1, 2} {
		v := ViewOf(st, 512, 512, ratio)
		free, err := r.Render(ctx, st, v, res)
		if err != nil {
			t.Fatal(err)
		}
		for range cpuslots.Render.Size() {
			if err := cpuslots.Render.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
		}
		held, err := r.Render(ctx, st, v, res)
		for range cpuslots.Render.Size() {
			cpuslots.Render.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(free.Pix, held.Pix) {
			differ := 0
			for i := range free.Pix {
				if free.Pix[i] != held.Pix[i] {
					differ++
				}
			}
			t.Errorf("@%vx: %d of %d bytes differ between a render spread over the free slots and one with none", ratio, differ, len(free.Pix))
		}
	}
}
