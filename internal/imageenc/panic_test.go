package imageenc

import (
	"testing"

	"github.com/tesseramaps/tessera/internal/panics"
)

// TestSegmentPanic: a panic while encoding a segment on a goroutine of its
// own comes out in the caller's goroutine, after every segment ended.
func TestSegmentPanic(t *testing.T) {
	for bad := range 3 { // the caller's own segment and the others
		st := &pngState{segs: []*pngSegment{{y0: 0}, {y0: 1}, {y0: 2}}}
		got := func() (p *panics.Recovered) {
			defer func() { p = panics.Of(recover()) }()
			st.run(func(s *pngSegment) {
				if s.y0 == bad {
					panic("boom in a segment")
				}
			})
			return nil
		}()
		if got == nil || got.Value != "boom in a segment" {
			t.Errorf("segment %d: recovered %v", bad, got)
		}
	}
}
