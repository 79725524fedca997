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
)

// labelPitch is the distance between spaced labels along a line (tile
// units): symbol-spacing, widened where needed so that at least a quarter
// of the spacing stays free between labels of labelLen (parity: GL's
// quarter).
func labelPitch(spacing, labelLen float64) float64 {
	return max(spacing, labelLen+spacing/4)
}

// newLabelGuide is the guide of a line (tile units) for a label labelLen
// long; window and maxAngle are the text-max-angle check (window 0: none),
// bounded keeps only anchors inside the tile's square.
func newLabelGuide(line []tilePoint, labelLen, window, maxAngle float64, bounded bool) labelGuide {
	return labelGuide{line: line, length: polylineLength(line), half: labelLen / 2, window: window, maxAngle: maxAngle, bounded: bounded}
}

// centerAnchor returns the anchor at the middle of a line (tile units)
// for symbol-placement "line-center": with text (window > 0), if the label
// fits on the line and passes the text-max-angle check there.
func centerAnchor(line []tilePoint, labelLen, window, maxAngle float64) (lineAnchor, bool) {
	if len(line) < 2 {
		return lineAnchor{}, false
	}
	if window == 0 {
		// Without text (an icon alone) the middle takes the symbol
		// whatever its length, as GL places it.
		labelLen = 0
	}
	g := newLabelGuide(line, labelLen, window, maxAngle, false)
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
	var buf [8]bend
	bends := g.bendsUnder(buf[:0], i, start, at-g.half, at+g.half)
	// Each bend closes a window reaching back window units: the bends
	// from oldest to last are in it.
	sum, oldest := 0.0, 0
	for _, b := range bends {
		sum += b.by
		for b.at-bends[oldest].at > g.window {
			sum -= bends[oldest].by
			oldest++
		}
		if sum > g.maxAngle {
			return false
		}
	}
	return true
}

// bend is a turn of a line: where along it (tile units) and by how much
// (radians, 0..pi).
type bend struct{ at, by float64 }

// bendsUnder appends to dst the line's bends strictly between distances
// lo and hi, in order; segment i, starting at distance start, is under
// the label.
func (g *labelGuide) bendsUnder(dst []bend, i int, start, lo, hi float64) []bend {
	// Back to the last vertex at or before lo.
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
	for ; k+1 < len(g.line) && d < hi; k++ {
		next := g.line[k].dist(g.line[k+1])
		if next == 0 {
			continue
		}
		out := g.line[k+1].angleTo(g.line[k])
		if known && d > lo {
			by := math.Abs(out - heading)
			dst = append(dst, bend{d, min(by, 2*math.Pi-by)})
		}
		heading, known = out, true
		d += next
	}
	return dst
}
