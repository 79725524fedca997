package symbols

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/text"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Where a point label's text goes. A text anchor names the part of the
// text box put at the label's point ("top-left": the box's top left
// corner), so the text lies on the opposite side: right of and below the
// point for "top-left". Each way of setting the label is an anchorChoice:
// the anchor, and a move from where the anchor alone puts the text. The
// style specification gives the moves:
//
//   - text-offset under a fixed text-anchor: the offset as given;
//   - text-offset under text-variable-anchor: its absolute values, each
//     axis directed away from the point (none along an axis where the
//     anchor is centred);
//   - text-radial-offset: a distance straight away from the point, along
//     an axis for the side anchors and along the diagonal for corners;
//   - text-variable-anchor-offset: the offset paired with the anchor,
//     as given.
//
// All are in em pixels (text.OneEm to the em), right and down positive.
// The last three move text set above or below its point by verticalInset
// back towards it, as observed below.

// verticalInset is how much nearer its point (em pixels of the 24-pixel
// em) MapLibre GL JS 6.17 draws text that one of the last three moves sets
// below or above the point ("top..." and "bottom..." anchors) than the
// anchor and the move alone would: a parity number, measured in its
// pictures of a capital H at text sizes 12 and 24, text-line-height 1, 1.2
// and 2, one and two lines, text-padding 0, 2 and 8, offsets from -1.5 to
// 1.5 em on both axes and all nine anchors. The text box's edge then lies
// that far past the point, whatever the line height; left and right the
// edge is at the point (plus the padding, for a variable anchor).
const verticalInset = 7

// anchorChoice is one way to set a point label: its text anchor and the
// move (em pixels) from where the anchor alone puts the text.
type anchorChoice struct {
	anchor string
	move   [2]float64
}

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

// insetChoice is the choice of anchor with move, the vertical inset taken
// off the move of text set below or above the point.
func insetChoice(anchor string, move [2]float64) anchorChoice {
	_, sy := textSide(anchor)
	move[1] -= sy * verticalInset
	return anchorChoice{anchor: anchor, move: move}
}

// pairedChoice is anchor with the offset text-variable-anchor-offset pairs
// with it (em pixels).
func pairedChoice(anchor string, offset [2]float64) anchorChoice {
	return insetChoice(anchor, offset)
}

// awayChoice is anchor with text-offset (em pixels) as a variable anchor
// takes it: its sizes, directed away from the point.
func awayChoice(anchor string, offset [2]float64) anchorChoice {
	sx, sy := textSide(anchor)
	return insetChoice(anchor, [2]float64{sx * math.Abs(offset[0]), sy * math.Abs(offset[1])})
}

// radialChoice is anchor with text-radial-offset r (em pixels): r away
// from the point.
func radialChoice(anchor string, r float64) anchorChoice {
	sx, sy := textSide(anchor)
	if sx != 0 && sy != 0 {
		r /= math.Sqrt2 // a corner: r along the diagonal
	}
	return insetChoice(anchor, [2]float64{sx * r, sy * r})
}

// labelChoices returns how a feature's label is set: fixed by text-anchor
// (with no move from text-offset when the text follows a line), and the
// choices a point label is tried at in order when the layer has variable
// anchors (appended to tried), from text-variable-anchor-offset, else from
// text-variable-anchor.
//
// A text-radial-offset of 0 counts as none, so that text-offset applies,
// and a negative one is placed as 0: GL JS 6.17's pictures show both
// (testdata/layers/text-radial-*).
func labelChoices(lr *symLayer, c *expr.EvalContext, point, alongLine bool, tried []anchorChoice) (fixed anchorChoice, _ []anchorChoice) {
	// radial is the radial offset (em pixels) when there is one.
	radial, hasRadial := 0.0, false
	if lr.hasLayout(pTextRadialOffset) {
		r := lr.num(pTextRadialOffset, c, 0)
		radial, hasRadial = max(r, 0)*text.OneEm, r != 0
	}
	var offset [2]float64
	if point || !alongLine {
		offset = floats2(lr, pTextOffset, c)
		offset[0] *= text.OneEm
		offset[1] *= text.OneEm
	}
	anchor := lr.str(pTextAnchor, c, "center")
	switch {
	case hasRadial && !lr.hasLayout(pTextOffset):
		fixed = radialChoice(anchor, radial)
	case !alongLine:
		fixed = anchorChoice{anchor: anchor, move: offset}
	default:
		fixed = anchorChoice{anchor: anchor}
	}
	if !point {
		return fixed, tried
	}
	if pairs := anchorOffsetPairs(lr, c); pairs != nil {
		for i, a := range pairs.Anchors {
			o := pairs.Offsets[i]
			tried = append(tried, pairedChoice(a, [2]float64{o[0] * text.OneEm, o[1] * text.OneEm}))
		}
		return fixed, tried
	}
	for _, a := range variableAnchors(lr, c) {
		if hasRadial {
			tried = append(tried, radialChoice(a, radial))
		} else {
			tried = append(tried, awayChoice(a, offset))
		}
	}
	return fixed, tried
}

// anchorOffsetPairs evaluates text-variable-anchor-offset: nil when the
// layer has none or it holds no whole pair.
func anchorOffsetPairs(lr *symLayer, c *expr.EvalContext) *expr.VariableAnchorOffsets {
	if !lr.hasLayout(pTextVariableAnchorOffset) {
		return nil
	}
	var tmp expr.Value
	v := lr.at(pTextVariableAnchorOffset, c, &tmp)
	if v == nil {
		return nil
	}
	if p := v.AnchorOffsets(); p != nil && len(p.Anchors) > 0 && len(p.Anchors) == len(p.Offsets) {
		return p
	}
	return nil
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
