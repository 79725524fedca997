package raster

import "sync/atomic"

// Budget bounds the drawing of one picture: the canvases and masks that
// share it stop drawing once its done channel is closed (the render's
// context has ended) or once they have done more work than it allows.
// Work is counted in units of about one pixel shaded (a fragment of a
// line, a polygon or a circle, a pixel composited) or one polygon edge a
// row of pixels crosses, so that a style whose shapes cover the picture
// many times over (lines thousands of pixels wide, huge circles, labels)
// is bounded by the picture's size, not by its features.
//
// The long loops ask it once a row or a shape; it looks at done once
// every checkEvery units, so a closed channel is seen within a few
// milliseconds of drawing. A nil *Budget bounds nothing. It is safe for
// concurrent use.
type Budget struct {
	done  <-chan struct{}
	limit int64
	used  atomic.Int64
	stop  atomic.Int32 // why the drawing stopped: a stop value
}

// Why a budget stopped the drawing.
const (
	going int32 = iota
	cancelled
	overLimit
)

// checkEvery is how many units of work pass between looks at the done
// channel: some 65 thousand pixels, a few milliseconds at most.
const checkEvery = 1 << 16

// NewBudget returns a budget of limit units of work (no limit when limit
// is 0 or less) that also stops when done is closed (never when nil).
func NewBudget(done <-chan struct{}, limit int64) *Budget {
	if limit <= 0 {
		limit = 1<<63 - 1
	}
	return &Budget{done: done, limit: limit}
}

// Spend counts n units of work about to be done (none when n is not
// above 0); it reports whether the drawing may go on. Once it has said no
// it always does.
func (b *Budget) Spend(n int) bool {
	if b == nil {
		return true
	}
	if b.stop.Load() != going {
		return false
	}
	n = max(n, 0)
	u := b.used.Add(int64(n))
	if u > b.limit {
		b.stop.CompareAndSwap(going, overLimit)
		return false
	}
	if (u-int64(n))/checkEvery != u/checkEvery {
		return !b.Stopped()
	}
	return true
}

// SpendArea is Spend for the pixels of the box x0..x1, y0..y1 (ends
// excluded; none when it is empty), each cost units.
func (b *Budget) SpendArea(x0, y0, x1, y1, cost int) bool {
	if x1 <= x0 || y1 <= y0 {
		return b.Spend(0)
	}
	return b.Spend((x1 - x0) * (y1 - y0) * cost)
}

// The work of a pixel of the costlier kinds, in units of a plain one's
// (about its time over a plain fragment's).
const (
	// CostTexture is a pixel sampled from an image: a pattern, an icon,
	// a glyph's distance field.
	CostTexture = 4
	// CostCircle is a pixel of a circle: its distance and two smoothsteps.
	CostCircle = 3
)

// Stopped reports whether the drawing has stopped, looking at the done
// channel now.
func (b *Budget) Stopped() bool {
	if b == nil {
		return false
	}
	if b.stop.Load() != going {
		return true
	}
	select {
	case <-b.done:
		b.stop.CompareAndSwap(going, cancelled)
		return true
	default:
		return false
	}
}

// Exceeded reports whether the drawing stopped because it asked for more
// work than the budget allows.
func (b *Budget) Exceeded() bool {
	return b != nil && b.stop.Load() == overLimit
}

// Used returns the units of work counted so far.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}
