package glyphs

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/cpuslots"
)

// RenderRange renders the glyphs the font has among the 256 code points from
// start (a multiple of 256 up to 65280), in code point order, spreading the
// work over GOMAXPROCS goroutines.
func (f *Font) RenderRange(ctx context.Context, start int) ([]Glyph, error) {
	if err := checkStart(start); err != nil {
		return nil, err
	}
	// Find the code points first: rendering is the expensive part, and
	// ranges are often sparse.
	var s scratch
	var cps []rune
	for r := rune(start); r < rune(start+256); r++ {
		if x, err := f.glyphIndex(&s.buf, r); err == nil && x != 0 {
			cps = append(cps, r)
		}
	}
	out := make([]Glyph, len(cps))
	present := make([]bool, len(cps))
	// On the caller's goroutine and one more for each processor slot free
	// now (cpuslots); a panic is raised in the caller's goroutine.
	var next atomic.Int64
	cpuslots.Render.Spread(min(runtime.GOMAXPROCS(0), max(1, len(cps)/8)), func() {
		var s scratch
		for i := int(next.Add(1) - 1); i < len(cps) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
			out[i], present[i] = f.renderGlyph(&s, cps[i])
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render %s %s: %w", f.Name, rangeName(start), err)
	}
	glyphs := out[:0]
	for i, g := range out {
		if present[i] {
			glyphs = append(glyphs, g)
		}
	}
	return glyphs, nil
}

// checkStart validates the first code point of a range.
func checkStart(start int) error {
	if start < 0 || start > 65280 || start%256 != 0 {
		return fmt.Errorf("%w: start %d is not a multiple of 256 in 0..65280", ErrBadRange, start)
	}
	return nil
}
