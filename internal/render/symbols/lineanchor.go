package symbols

// Where labels go along a line (symbol-placement "line" and "line-center")
// and whether the line bends too much under a label (text-max-angle).
// Written from the style specification (symbol-placement, symbol-spacing,
// text-max-angle), the render tests' images and the geometry of walking a
// polyline by arc length; it follows no other renderer's code. The few
// numbers that fix where the first label goes (a quarter of the spacing
// kept free, two ems before the first label, half a spacing from a tile
// edge the line continues across) are GL's, kept for pixel parity.

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/text"
)

// spacedAnchors returns the anchors of labels spaced along a line (tile
// units) every spacing, for symbol-placement "line". labelLen is the
// label's length in tile units (shapedLen in ems before boxScale), ov how
// many times the tile is overscaled; window and maxAngle are the
// text-max-angle check (window 0: none); bounded keeps only anchors inside
// the tile's square.
func spacedAnchors(line []tilePoint, spacing, labelLen, shapedLen, boxScale, ov, window, maxAngle float64, bounded bool) []lineAnchor {
	// A quarter of the spacing stays free between labels: long labels
	// spread out.
	if spacing-labelLen < spacing/4 {
		spacing = labelLen + spacing/4
	}
	if spacing <= 0 || len(line) < 2 {
		return nil
	}
	g := labelGuide{line: line, half: labelLen / 2, window: window, maxAngle: maxAngle, bounded: bounded}
	g.length = polylineLength(line)
	// A line that starts on the tile's edge comes from the neighbouring
	// tile: its labels keep half a spacing from that edge. Others place
	// their first label past half its length and two ems.
	crossing := bounded && onTileEdge(line[0])
	var first float64
	if crossing {
		first = math.Mod(spacing/2*ov, spacing)
	} else {
		first = math.Mod((shapedLen/2+2*text.OneEm)*boxScale*ov, spacing)
	}
	out := g.every(first, spacing)
	if len(out) == 0 && !crossing {
		// Nothing fitted where the spacing put it: a line of its own
		// still gets a label at its middle if one fits there.
		out = g.every(g.length/2, spacing)
	}
	return out
}

// centerAnchor returns the anchor at the middle of a line (tile units)
// for symbol-placement "line-center": with text (window > 0), if the label
// fits on the line and passes the text-max-angle check there.
func centerAnchor(line []tilePoint, labelLen, window, maxAngle float64) (lineAnchor, bool) {
	if len(line) < 2 {
		return lineAnchor{}, false
	}
	g := labelGuide{line: line, half: labelLen / 2, window: window, maxAngle: maxAngle}
	if window == 0 {
		// Without text (an icon alone) the middle takes the symbol
		// whatever its length, as GL places it.
		g.half = 0
	}
	g.length = polylineLength(line)
	out := g.every(g.length/2, math.Inf(1))
	if len(out) == 0 {
		return lineAnchor{}, false
	}
	return out[0], true
}

// onTileEdge reports whether a point (tile units) lies on the edge of the
// tile's square.
func onTileEdge(p tilePoint) bool {
	const eps = 1e-6
	near := func(v, edge float64) bool { return math.Abs(v-edge) < eps }
	return near(p.x, 0) || near(p.x, symbolExtent) || near(p.y, 0) || near(p.y, symbolExtent)
}

// polylineLength is the length of a line in tile units.
func polylineLength(line []tilePoint) float64 {
	total := 0.0
	for i := 1; i < len(line); i++ {
		total += line[i-1].dist(line[i])
	}
	return total
}

// labelGuide tests positions along one line for a label of a given half
// length.
type labelGuide struct {
	line             []tilePoint
	length           float64 // of the line
	half             float64 // of the label, tile units
	window, maxAngle float64
	bounded          bool
}

// every walks the line and returns an anchor at distance at, at+step,
// at+2*step ... from its start wherever a label fits: the whole label on
// the line, the anchor inside the tile's square when bounded, and the
// line's bends under the label within text-max-angle. Anchors are rounded
// to whole tile units, as the tiles' own coordinates are.
func (g *labelGuide) every(at, step float64) []lineAnchor {
	var out []lineAnchor
	start := 0.0 // distance of the segment's first point
	for i := 0; i+1 < len(g.line); i++ {
		a, b := g.line[i], g.line[i+1]
		seg := a.dist(b)
		for ; at < start+seg; at += step {
			if at-g.half < 0 || at+g.half > g.length {
				continue // the label would run off the line
			}
			t := (at - start) / seg
			p := tilePoint{scene.JSRound(a.x + (b.x-a.x)*t), scene.JSRound(a.y + (b.y-a.y)*t)}
			if g.bounded && (p.x < 0 || p.x >= symbolExtent || p.y < 0 || p.y >= symbolExtent) {
				continue
			}
			if g.window > 0 && !g.gentle(i, start, at) {
				continue
			}
			out = append(out, lineAnchor{p: p, seg: i})
		}
		start += seg
	}
	return out
}

// gentle reports whether the line turns by at most maxAngle over every
// stretch of window length under a label centred at distance at, which
// lies on segment i (starting at distance start). The turns counted are
// those at the line's vertices strictly inside the label.
func (g *labelGuide) gentle(i int, start, at float64) bool {
	lo, hi := at-g.half, at+g.half
	// Back to the last vertex at or before the label's start.
	k, d := i, start
	for k > 0 && d > lo {
		k--
		d -= g.line[k].dist(g.line[k+1])
	}
	// heading is the direction of travel into the next vertex: the last
	// segment of non-zero length.
	heading, known := 0.0, false
	for j := k; j > 0; j-- {
		if g.line[j-1] != g.line[j] {
			heading, known = g.line[j].angleTo(g.line[j-1]), true
			break
		}
	}
	// The turns of the last window, oldest first: at distance, by angle.
	type turn struct{ at, by float64 }
	var recent [8]turn
	turns := recent[:0]
	sum := 0.0
	for ; k+1 < len(g.line); k++ {
		next := g.line[k].dist(g.line[k+1])
		if next == 0 {
			continue
		}
		out := g.line[k+1].angleTo(g.line[k])
		if known && d > lo && d < hi {
			by := math.Abs(out - heading)
			if by > math.Pi {
				by = 2*math.Pi - by
			}
			turns = append(turns, turn{d, by})
			sum += by
			for len(turns) > 0 && d-turns[0].at > g.window {
				sum -= turns[0].by
				turns = turns[1:]
			}
			if sum > g.maxAngle {
				return false
			}
		}
		heading, known = out, true
		d += next
		if d >= hi {
			break
		}
	}
	return true
}
