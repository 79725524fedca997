package symbols

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/text"
)

// Text offsets under variable anchors. A text anchor names the part of the
// text box put at the label's point ("top-left": the box's top left
// corner), so the text lies on the opposite side: to the right of and below
// the point for "top-left". The style specification's offsets that follow
// the anchor push the text further that way:
//
//   - text-offset with text-variable-anchor: the absolute values of the
//     offset, each axis directed away from the point (none along an axis
//     where the anchor is centred);
//   - text-radial-offset: a distance straight away from the point, along an
//     axis for the side anchors and along the diagonal for the corners;
//   - text-variable-anchor-offset: the offset paired with the anchor, as
//     given.
//
// All are in em pixels (text.OneEm to the em).

// baselineAllowance is how much closer to the point GL sets text above or
// below it, in em pixels of its 24-pixel em: the space its line box keeps
// between the line's top and the glyphs, so that the offset is measured
// from the glyphs (GL's number, 7; kept for pixel parity).
const baselineAllowance = 7

// textSide returns the signs of the direction from the point to the text
// for an anchor: sx is +1 when the text lies to the right, -1 to the left,
// 0 when it is centred across the point; sy likewise downwards.
//
// The text lies where the box does not: away from the named part of the box
// (text.AnchorAlign's shares 0, 1/2, 1 give the signs 1, 0, -1).
func textSide(anchor string) (sx, sy float64) {
	h, v := text.AnchorAlign(anchor)
	return 1 - 2*h, 1 - 2*v
}

// towardBaseline takes the baseline allowance off a vertical offset dy of
// text on side sy (none when the text is centred vertically).
func towardBaseline(sy, dy float64) float64 {
	return dy - sy*baselineAllowance
}

// offsetAway is text-offset (ox, oy) as text-variable-anchor applies it.
func offsetAway(anchor string, ox, oy float64) [2]float64 {
	sx, sy := textSide(anchor)
	return [2]float64{sx * math.Abs(ox), towardBaseline(sy, sy*math.Abs(oy))}
}

// offsetRadial is text-radial-offset r: r away from the point.
func offsetRadial(anchor string, r float64) [2]float64 {
	sx, sy := textSide(anchor)
	if sx != 0 && sy != 0 {
		r /= math.Sqrt2 // a corner: r along the diagonal
	}
	return [2]float64{sx * r, towardBaseline(sy, sy*r)}
}

// offsetPaired is the offset (ox, oy) text-variable-anchor-offset pairs
// with anchor.
func offsetPaired(anchor string, ox, oy float64) [2]float64 {
	_, sy := textSide(anchor)
	return [2]float64{ox, towardBaseline(sy, oy)}
}

// turnedBoxShift is the move (em pixels, on screen) that puts the side
// named by away (textSide's signs) of a centred shaping's box, turned by
// angle, at the point.
func turnedBoxShift(sh text.Shaping, angle float64, away [2]float64) (dx, dy float64) {
	minX, minY, maxX, maxY := turnedBounds(sh.Left, sh.Top, sh.Right, sh.Bottom, angle)
	side := func(s, lo, hi float64) float64 {
		switch {
		case s > 0:
			return -lo
		case s < 0:
			return -hi
		}
		return 0
	}
	return side(away[0], minX, maxX), side(away[1], minY, maxY)
}
