package symbols

import (
	"math"
	"strings"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/text"
)

// symbolExtent is the tile extent GL measures symbol spacing in.
const symbolExtent = 8192

// linePath is a symbol's anchor on a line: the line on screen, the anchor
// and the segment it lies on.
type linePath struct {
	world orb.Point      // the anchor, world units
	pts   []raster.Point // the line, device pixels
	seg   int            // the anchor lies on pts[seg]..pts[seg+1]
	at    raster.Point   // the anchor, device pixels
	angle float64        // of the segment on screen, radians clockwise
	tile  tilePoint      // the anchor in tile units
	// tileID is the tile the anchor was found in (y, x, z).
	tileID [3]int
}

// placedGlyph is where a glyph of a label along a line goes.
type placedGlyph struct {
	at    raster.Point
	angle float64
}

// placeGlyphs places the glyphs of a shaping along the path, each centred
// on the line at its distance from the anchor (k device pixels per em
// pixel, offX and offY the text-offset in device pixels) and turned to its
// segment. With keepUpright, a label that would read upside down is laid
// the other way. ok is false when the line is too short for the label.
func (lp *linePath) placeGlyphs(sh text.Shaping, k, offX, offY float64, keepUpright bool) ([]placedGlyph, bool) {
	out := make([]placedGlyph, len(sh.Glyphs))
	for i, g := range sh.Glyphs {
		d := (g.X + g.Metrics.Advance*g.Scale/2) * k
		p, a, ok := lp.walk(d+offX, false)
		if !ok {
			return nil, false
		}
		if offY != 0 {
			sin, cos := math.Sincos(a)
			p.X -= sin * offY
			p.Y += cos * offY
		}
		out[i] = placedGlyph{at: p, angle: a}
	}
	if keepUpright && len(out) > 0 {
		first, last := out[0].at, out[len(out)-1].at
		upsideDown := first.X > last.X
		if len(out) == 1 {
			upsideDown = math.Cos(out[0].angle) < 0
		}
		if upsideDown {
			return lp.flipped(sh, k, offX, offY)
		}
	}
	return out, true
}

// steepLabel reports whether a label along a line whose first and last
// glyphs are placed at first and last (device pixels) runs steeper than 45
// degrees on screen, where GL draws its vertical alternative instead.
func steepLabel(first, last raster.Point) bool {
	return math.Abs(last.Y-first.Y) > math.Abs(last.X-first.X)
}

// placeOriented places a label along the line as GL does with
// keep-upright when the label has a vertical alternative (steep, may be
// nil): the label is placed as it reads; if it then runs steeper than 45
// degrees (from its first glyph to its last, or for a single glyph from
// the anchor to the end of its segment) the vertical alternative is placed
// instead, the other way when its first glyph would come below its last,
// so that it reads downwards; otherwise the horizontal label is laid the
// other way when it would read upside down. It returns the glyphs to draw,
// the shaping they are of, and the horizontal label's glyphs as placed,
// which its collision boxes follow (GL lays them along the horizontal
// label). ok is false when the chosen label does not fit on the line.
func (lp *linePath) placeOriented(sh text.Shaping, steep *text.Shaping, k, offX, offY float64, keepUpright bool) (draw []placedGlyph, drawn text.Shaping, boxes []placedGlyph, ok bool) {
	if steep == nil || !keepUpright {
		placed, ok := lp.placeGlyphs(sh, k, offX, offY, keepUpright)
		return placed, sh, placed, ok
	}
	placed, ok := lp.placeGlyphs(sh, k, offX, offY, false)
	if !ok || len(placed) == 0 {
		return nil, sh, nil, false
	}
	first, last := placed[0].at, placed[len(placed)-1].at
	if len(placed) == 1 {
		first, last = lp.at, lp.pts[min(lp.seg+1, len(lp.pts)-1)]
	}
	if !steepLabel(first, last) {
		drawnH, ok := lp.placeGlyphs(sh, k, offX, offY, true)
		return drawnH, sh, drawnH, ok
	}
	vert, ok := lp.placeGlyphs(*steep, k, offX, offY, false)
	if !ok || len(vert) == 0 {
		return nil, *steep, placed, false
	}
	vf, vl := vert[0].at, vert[len(vert)-1].at
	if len(vert) == 1 {
		vf, vl = lp.at, lp.pts[min(lp.seg+1, len(lp.pts)-1)]
	}
	if vf.Y > vl.Y {
		if vert, ok = lp.flipped(*steep, k, offX, offY); !ok {
			return nil, *steep, placed, false
		}
	}
	return vert, *steep, placed, true
}

// flipped places a shaping along the path laid the other way (read from
// its end), as keep-upright lays a label that would read upside down.
func (lp *linePath) flipped(sh text.Shaping, k, offX, offY float64) ([]placedGlyph, bool) {
	out := make([]placedGlyph, len(sh.Glyphs))
	for i, g := range sh.Glyphs {
		d := (g.X + g.Metrics.Advance*g.Scale/2) * k
		p, a, ok := lp.walk(-(d - offX), true)
		if !ok {
			return nil, false
		}
		a += math.Pi
		if offY != 0 {
			sin, cos := math.Sincos(a)
			p.X -= sin * offY
			p.Y += cos * offY
		}
		out[i] = placedGlyph{at: p, angle: a}
	}
	return out, true
}

// uprightCorner returns where the top-left corner of an upright glyph of
// a label's vertical alternative goes, em pixels in the frame of the line
// turned a quarter turn back (the glyph is drawn at the line's angle less
// 90 degrees, so that it stands upright on a line that runs downwards).
// x and y are the corner of the glyph laid along the line (its texture's
// left less half its advance, its top plus its line's y). GL turns the
// glyph back about the middle of the left of its em box (17 below its
// line's y) and moves it across by the width of that box less 2 and
// half the glyph's advance: in the turned frame the corner comes 17 plus
// the line's y before x across and 7 plus half the advance before its
// top along.
func uprightCorner(g text.Glyph, x, y float64) (float64, float64) {
	half := g.Metrics.Advance * g.Scale / 2
	return x - g.Y - 17, y - g.Y - half - 7
}

// walk returns the point at distance e along the line from the anchor
// (backwards when negative, and at 0 unless forward is set) and the
// angle of the piece of line it lands on, as GL places a glyph: the piece
// from the anchor itself to the next vertex for the anchor's own segment,
// passing a vertex the distance reaches exactly.
func (lp *linePath) walk(e float64, forward bool) (raster.Point, float64, bool) {
	pts := lp.pts
	cur := lp.at
	if e > 0 || (e == 0 && forward) {
		for i := lp.seg + 1; i < len(pts); i++ {
			d := math.Hypot(pts[i].X-cur.X, pts[i].Y-cur.Y)
			if e < d {
				t := e / d
				return raster.Point{X: cur.X + (pts[i].X-cur.X)*t, Y: cur.Y + (pts[i].Y-cur.Y)*t},
					math.Atan2(pts[i].Y-cur.Y, pts[i].X-cur.X), true
			}
			e -= d
			cur = pts[i]
		}
		return raster.Point{}, 0, false
	}
	e = -e
	for i := lp.seg; i >= 0; i-- {
		d := math.Hypot(pts[i].X-cur.X, pts[i].Y-cur.Y)
		if e < d {
			t := e / d
			return raster.Point{X: cur.X + (pts[i].X-cur.X)*t, Y: cur.Y + (pts[i].Y-cur.Y)*t},
				math.Atan2(cur.Y-pts[i].Y, cur.X-pts[i].X), true
		}
		e -= d
		cur = pts[i]
	}
	return raster.Point{}, 0, false
}

// tilePoint is a position in a tile's units (symbolExtent across).
type tilePoint struct{ x, y float64 }

func (a tilePoint) dist(b tilePoint) float64 { return math.Hypot(b.x-a.x, b.y-a.y) }

// inTile reports whether p lies in its tile's square.
func (a tilePoint) inTile() bool {
	return a.x >= 0 && a.x < symbolExtent && a.y >= 0 && a.y < symbolExtent
}

// angleTo is the angle of the vector from b to a (radians, y down).
func (a tilePoint) angleTo(b tilePoint) float64 { return math.Atan2(a.y-b.y, a.x-b.x) }

// lineAnchor is an anchor found on a line in tile units.
type lineAnchor struct {
	p   tilePoint
	seg int
}

// linePiece is a feature's lines within one tile, as GL lays them out.
type linePiece struct {
	tile    [3]int // y, x, z; z -1: unbounded (GeoJSON line-center)
	lines   [][]orb.Point
	bounded bool
}

// linePieces cuts a feature's lines into the tiles GL lays them out in:
// the feature's own vector tile, or for GeoJSON the tiles of the view at
// the source's zoom.
func (s *Pass) linePieces(lr *symLayer, ss *shapedSymbol, center bool) []linePiece {
	f := ss.f
	var lines [][]orb.Point
	switch f.Kind {
	case "LineString":
		switch {
		case center && f.Lines != nil:
			lines = f.Lines
		case center:
			lines = f.Parts
		default:
			lines = ss.lines
		}
	case "Polygon":
		for _, p := range f.Polygons {
			for _, r := range p {
				lines = append(lines, scene.CloseRing(r))
			}
		}
	default:
		return nil
	}
	clip := func(t [3]int) [][]orb.Point {
		var out [][]orb.Point
		for _, l := range lines {
			out = append(out, scene.ClipLine(l, scene.TileSquare(t, 0))...)
		}
		return out
	}
	if f.Tile[2] >= 0 {
		if center || f.Kind == "Polygon" {
			return []linePiece{{tile: f.Tile, lines: lines, bounded: true}}
		}
		if pieces, ok := s.slicedPieces(f.Tile, lines); ok {
			return pieces
		}
		// GL clips the (merged) lines to the tile for "line".
		return []linePiece{{tile: f.Tile, lines: clip(f.Tile), bounded: true}}
	}
	// GeoJSON: GL cuts it into tiles at the view's zoom.
	src := s.Style.SourceByKey[lr.Style.Source]
	z := int(sources.GeoJSONTileZoom(s.Style, lr.Style.Source, s.View.Zoom))
	n := 1 << z
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l {
			minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
			minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
		}
	}
	x0, x1 := max(0, int(math.Floor(minX*float64(n)))), min(n-1, int(math.Floor(maxX*float64(n))))
	y0, y1 := max(0, int(math.Floor(minY*float64(n)))), min(n-1, int(math.Floor(maxY*float64(n))))
	if (x1-x0+1)*(y1-y0+1) > 4*sources.MaxTiles {
		return nil
	}
	var out []linePiece
	for ty := y0; ty <= y1; ty++ {
		for tx := x0; tx <= x1; tx++ {
			t := [3]int{ty, tx, z}
			if !s.tileInView(t) {
				continue
			}
			var ls [][]orb.Point
			if center {
				ls = sources.GeoJSONCut(src).Parts(lines, t, false)
			} else {
				ls = clip(t)
			}
			if len(ls) > 0 {
				out = append(out, linePiece{tile: t, lines: ls, bounded: true})
			}
		}
	}
	return out
}

// slicedPieces cuts lines of a vector tile of a lower zoom than the view's
// into the tiles of the view's zoom (up to scene.SlicedMaxZoom) that are
// in view, as GL JS 6 slices an overzoomed tile (scene.Sliced, as the
// lines and extrusions drawn from it are cut), then (as GL lays out line
// labels) clipped to each child itself. ok is false when the tile is not
// overzoomed that way.
func (s *Pass) slicedPieces(tile [3]int, lines [][]orb.Point) ([]linePiece, bool) {
	if s.Frame.Tilt != nil {
		// Under a tilted camera labels follow the first reference's
		// model (see perspectiveRatio), which lays them out on the
		// deepest tile itself.
		return nil, false
	}
	z, ok := scene.SliceZoom(s.View.Zoom, tile[2])
	dz := z - tile[2]
	if !ok || dz > maxSliceLevels {
		return nil, false
	}
	var out []linePiece
	k := 1 << dz
	for cy := tile[0] * k; cy < (tile[0]+1)*k; cy++ {
		for cx := tile[1] * k; cx < (tile[1]+1)*k; cx++ {
			t := [3]int{cy, cx, z}
			if !s.tileInView(t) {
				continue
			}
			sq := scene.TileSquare(t, 0)
			var ls [][]orb.Point
			for _, piece := range scene.Sliced.Parts(lines, t, false) {
				// GL lays out line labels on the lines clipped to the
				// tile itself.
				ls = append(ls, scene.ClipLine(piece, sq)...)
			}
			if len(ls) > 0 {
				out = append(out, linePiece{tile: t, lines: ls, bounded: true})
			}
		}
	}
	return out, true
}

// maxSliceLevels bounds how many zooms below the view's a tile is sliced
// for its labels (up to 4^10 children looked at).
const maxSliceLevels = 10

// lineSpot is an anchor found along a line of a symbol, before it is put
// on screen: its line (world units, shared by the anchors on it), the
// anchor and the segment it lies on.
type lineSpot struct {
	line   []orb.Point
	world  orb.Point // the anchor, world units
	seg    int       // the anchor lies on line[seg]..line[seg+1]
	tile   tilePoint // the anchor in tile units
	tileID [3]int    // the tile it was found in (y, x, z)
	// vertex is the vertex the anchor was rounded onto, -1 for none.
	vertex int
}

// maxAngleWindowEms is the stretch of line, in ems of the label's text,
// whose bends text-max-angle limits: the bends under any 3/5 em of the
// label together may not exceed it (a parity number, observed in GL's
// pictures; the specification names no window).
const maxAngleWindowEms = 3.0 / 5

// tileSize is the size, in CSS pixels, of a tile drawn at its own zoom.
const tileSize = 512

// tileFrame is a tile whose coordinates (symbolExtent units a side) line
// labels are spaced in: the tile z/x/y, the world's size in such tiles,
// how many times the view's zoom enlarges it and the tile units that
// make one CSS pixel at that zoom.
type tileFrame struct {
	z, x, y   int
	tiles     float64 // 2^z
	overscale float64 // at least 1
	perPixel  float64 // tile units per CSS pixel
}

// frameOf returns the frame of tile id (y, x, z) at a layout zoom; a
// negative z (lines not cut into tiles) is the tile grid of that zoom,
// counted from the world's corner.
func frameOf(id [3]int, zoom float64) tileFrame {
	f := tileFrame{z: id[2], x: id[1], y: id[0]}
	if f.z < 0 {
		f = tileFrame{z: int(zoom)}
	}
	f.tiles = math.Exp2(float64(f.z))
	f.overscale = math.Max(1, math.Exp2(zoom-float64(f.z)))
	f.perPixel = symbolExtent / (tileSize * f.overscale)
	return f
}

// toTile returns a world point (0..1) in the frame's tile units.
func (f tileFrame) toTile(p orb.Point) tilePoint {
	return tilePoint{(p[0]*f.tiles - float64(f.x)) * symbolExtent, (p[1]*f.tiles - float64(f.y)) * symbolExtent}
}

// toWorld is the inverse of toTile.
func (f tileFrame) toWorld(p tilePoint) orb.Point {
	return orb.Point{(p.x/symbolExtent + float64(f.x)) / f.tiles, (p.y/symbolExtent + float64(f.y)) / f.tiles}
}

// labelRoom is how much line a label along it takes: its length and its
// text's em, both in glyph pixels of text.OneEm at the size the label is
// laid out at, and whether it has text (only text is held to
// text-max-angle).
type labelRoom struct {
	length  float64 // glyph pixels
	emScale float64 // CSS pixels per glyph pixel
	text    bool
}

// roomOf measures a label along a line at a layout zoom. Its size is
// text-size one zoom above (a symbol's layout size, as GL lays out a
// tile's labels). Observed in GL's pictures: the length is the longer of
// the text and the icon, the icon's width counted in the text's glyph
// pixels too; a label with a vertical alternative is measured by that
// alternative.
func (lr *symLayer) roomOf(ss *shapedSymbol, zoom float64) labelRoom {
	up := lr.newContext(zoom+1, ss.f.Expr)
	room := labelRoom{emScale: lr.num(pTextSize, up, 16) / text.OneEm, text: len(ss.sh.Glyphs) > 0}
	lr.ctxs.free(up)
	if room.text {
		sh := &ss.sh
		if ss.steep != nil {
			sh = ss.steep
		}
		room.length = sh.Right - sh.Left
	}
	if ss.ic != nil {
		room.length = math.Max(room.length, ss.iconRight-ss.iconLeft)
	}
	return room
}

// lineSpots finds where a feature's symbols go along its lines: every
// symbol-spacing (first at an offset that depends on the label length),
// where the label fits on the line and bends by at most text-max-angle; or
// only at the middle of each line for line-center. Each piece of line is
// laid out in the coordinates of the tile it was cut for.
func (s *Pass) lineSpots(lr *symLayer, ss *shapedSymbol, center bool) []lineSpot {
	zoom := math.Floor(s.View.Zoom)
	room := lr.roomOf(ss, zoom)
	maxAngle := lr.num(pTextMaxAngle, ss.c, 45) * math.Pi / 180
	spacingPx := lr.num(pSymbolSpacing, ss.c, 250)
	var out []lineSpot
	var tl []tilePoint
	for _, pc := range s.linePieces(lr, ss, center) {
		fr := frameOf(pc.tile, zoom)
		// Tile units per glyph pixel of the label.
		perGlyph := fr.perPixel * room.emScale
		labelLen := room.length * perGlyph
		window := 0.0 // no text: no angle check
		if room.text {
			window = maxAngleWindowEms * text.OneEm * perGlyph
		}
		pitch := labelPitch(spacingPx*fr.perPixel, labelLen)
		fit := lineFit{
			pitch:    pitch,
			labelLen: labelLen,
			// Where the first label goes, in the units of the tile at
			// its own zoom (so times the overscale): past half the
			// label and two ems on a line that starts in the tile,
			// half a pitch in on one continued from the neighbouring
			// tile (parity numbers: GL's).
			leadIn:   (room.length/2 + 2*text.OneEm) * perGlyph * fr.overscale,
			edgeIn:   pitch / 2 * fr.overscale,
			window:   window,
			maxAngle: maxAngle,
		}
		for _, l := range pc.lines {
			if len(l) < 2 {
				continue
			}
			tl = tl[:0]
			for _, p := range l {
				tl = append(tl, fr.toTile(p))
			}
			anchors := fit.anchorsOn(tl, center, pc.bounded)
			for _, a := range anchors {
				out = append(out, lineSpot{line: l, world: fr.toWorld(a.p), seg: a.seg, tile: a.p, tileID: pc.tile, vertex: vertexAt(tl, a)})
			}
		}
	}
	return out
}

// lineFit is what decides where labels go along the lines of one tile's
// piece of a feature (tile units unless said).
type lineFit struct {
	pitch    float64 // labelPitch: the distance between spaced labels
	labelLen float64 // the label's length
	// leadIn and edgeIn are how far along a line its first spaced
	// label goes, before it is known to fit and before wrapping at the
	// pitch: on a line that starts in the tile, and on one continued
	// from the neighbouring tile across the tile's edge.
	leadIn, edgeIn float64
	// window and maxAngle are the text-max-angle check (window 0: none).
	window, maxAngle float64
}

// anchorsOn returns where labels go along one line of a tile's piece:
// for line-center (center) its middle, if a label fits there and the
// middle lies in the tile (GL leaves the others to the neighbours); for
// line, one every pitch from the first label's place where a label fits. A line
// that starts in the tile (not continued from a neighbour across the
// tile's edge) and takes no spaced label still takes one at its middle
// if one fits there. bounded keeps only anchors inside the tile's square.
func (f lineFit) anchorsOn(line []tilePoint, center, bounded bool) []lineAnchor {
	if center {
		a, ok := centerAnchor(line, f.labelLen, f.window, f.maxAngle)
		if !ok || bounded && !a.p.inTile() {
			return nil
		}
		return []lineAnchor{a}
	}
	if f.pitch <= 0 || len(line) < 2 {
		return nil
	}
	g := newLabelGuide(line, f.labelLen, f.window, f.maxAngle, bounded)
	continued := bounded && onTileEdge(line[0])
	first := f.leadIn
	if continued {
		first = f.edgeIn
	}
	spaced := g.every(math.Mod(first, f.pitch), f.pitch)
	if len(spaced) > 0 || continued {
		return spaced
	}
	return g.every(g.length/2, f.pitch)
}

// vertexAt returns the end of the anchor's segment that the anchor was
// rounded onto (the later one if both), -1 for none: such an anchor is
// that vertex, and takes the direction GL gives it from the segment
// behind.
func vertexAt(line []tilePoint, a lineAnchor) int {
	v := -1
	for _, i := range [2]int{a.seg, a.seg + 1} {
		if line[i].dist(a.p) < 1e-6 {
			v = i
		}
	}
	return v
}

// spotPaths puts anchors along lines on screen. The anchors on one line
// share its points on screen.
func (s *Pass) spotPaths(spots []lineSpot) []*linePath {
	out := make([]*linePath, 0, len(spots))
	var line []orb.Point
	var pts []raster.Point
	var start []int // where each vertex of line is in pts
	for _, sp := range spots {
		if !sameLine(sp.line, line) {
			line = sp.line
			pts, start = s.linePoints(line)
		}
		at := s.toScreen(sp.world[0], sp.world[1])
		seg := sp.seg
		if start != nil {
			seg = start[sp.seg] + s.subSegment(line[sp.seg], line[sp.seg+1], sp.world, start[sp.seg+1]-start[sp.seg])
		}
		if sp.vertex >= 0 {
			if start != nil {
				at = pts[start[sp.vertex]]
			} else {
				at = pts[sp.vertex]
			}
		}
		p0, p1 := pts[seg], pts[seg+1]
		lp := &linePath{world: sp.world, pts: pts, seg: seg, at: at, angle: math.Atan2(p1.Y-p0.Y, p1.X-p0.X), tile: sp.tile, tileID: sp.tileID}
		// A single glyph or icon at the anchor takes the direction GL
		// finds for it: from the vertex behind to the (rounded) anchor.
		if _, ang, ok := lp.walk(0, false); ok {
			lp.angle = ang
		}
		out = append(out, lp)
	}
	return out
}

// projectedStep is the longest piece, in device pixels, of a line put on
// another grid than the view's (Onto): a straight segment of the view
// bends there, and labels follow it as the picture warped shows it.
const projectedStep = 8

// linePoints puts a line on the picture. On the view's own picture its
// points are the line's; on another grid (Onto) each segment is cut into
// pieces of at most projectedStep pixels there, and start says where each
// vertex of the line went (nil on the view's picture).
func (s *Pass) linePoints(line []orb.Point) (pts []raster.Point, start []int) {
	pts = make([]raster.Point, 0, len(line))
	if s.project == nil {
		for _, p := range line {
			pts = append(pts, s.toScreen(p[0], p[1]))
		}
		return pts, nil
	}
	start = make([]int, len(line))
	for i, p := range line {
		q := s.toScreen(p[0], p[1])
		if i > 0 {
			prev := pts[len(pts)-1]
			n := s.pieces(prev, q)
			for k := 1; k < n; k++ {
				f := float64(k) / float64(n)
				a := line[i-1]
				pts = append(pts, s.toScreen(a[0]+(p[0]-a[0])*f, a[1]+(p[1]-a[1])*f))
			}
		}
		start[i] = len(pts)
		pts = append(pts, q)
	}
	return pts, start
}

// pieces returns how many pieces linePoints cuts a segment from p to q
// (device pixels on the picture) into: at most projectedStep pixels
// each, and at most maxPieces.
func (s *Pass) pieces(p, q raster.Point) int {
	const maxPieces = 256
	d := math.Hypot(q.X-p.X, q.Y-p.Y)
	if !(d > projectedStep) {
		return 1
	}
	return int(math.Min(maxPieces, math.Ceil(d/projectedStep)))
}

// subSegment returns which of the n pieces of the segment a..b (world
// units, cut evenly by linePoints) holds the point w on it.
func (s *Pass) subSegment(a, b, w orb.Point, n int) int {
	dx, dy := b[0]-a[0], b[1]-a[1]
	l2 := dx*dx + dy*dy
	if n <= 1 || !(l2 > 0) {
		return 0
	}
	f := ((w[0]-a[0])*dx + (w[1]-a[1])*dy) / l2
	return max(0, min(n-1, int(f*float64(n))))
}

// repeatFilter drops anchors of a label text that come closer than a
// distance (tile units) to an earlier anchor of the same text in the same
// tile, as GL does for labels along lines.
type repeatFilter struct {
	seen map[repeatKey][]tilePoint
}

type repeatKey struct {
	tile [3]int
	text string
}

// tooClose reports whether the anchor repeats one already kept (and keeps
// it when it does not).
func (r *repeatFilter) tooClose(tile [3]int, text string, p tilePoint, dist float64) bool {
	if r.seen == nil {
		r.seen = map[repeatKey][]tilePoint{}
	}
	k := repeatKey{tile, text}
	for _, q := range r.seen[k] {
		if p.dist(q) < dist {
			return true
		}
	}
	r.seen[k] = append(r.seen[k], p)
	return false
}

// labelText is a shaped symbol's text, "" when it has none.
func (ss *shapedSymbol) labelText() string {
	if len(ss.sh.Glyphs) == 0 {
		return ""
	}
	var sb strings.Builder
	image := rune(0xE000)
	for _, sec := range ss.sections {
		if sec.Image != nil {
			// GL's text holds a code point of the private use area for
			// each image, in order, whatever the image.
			sb.WriteRune(image)
			image++
			continue
		}
		sb.WriteString(sec.Text)
	}
	return sb.String()
}

// onPlane returns the path on the plane of the map under a tilted camera
// (labels pitched with the map are laid out there), with the direction at
// the anchor found again on it.
func (lp *linePath) onPlane(t *raster.Tilt) *linePath {
	out := *lp
	out.pts = make([]raster.Point, len(lp.pts))
	for i, p := range lp.pts {
		out.pts[i] = t.Unproject(p)
	}
	out.at = t.Unproject(lp.at)
	if _, ang, ok := out.walk(0, false); ok {
		out.angle = ang
	}
	return &out
}

// perspectiveRatio is the scale of a label under a tilted camera, for a
// point at relative distance w from the camera (1 at the centre of the
// view), as the reference images draw it: labels pitched with the map keep
// their size on the map's plane (so shrink on screen with the distance as
// the plane does), labels facing the viewer shrink on screen by the same
// 1/w. (GL JS later offsets half of that shrink; its pictures are the
// second reference and the first is closer: see docs/rendering.md.)
func perspectiveRatio(w float64, pitchWithMap bool) float64 {
	if pitchWithMap {
		return 1
	}
	return math.Min(4, 1/w) // bounded for points near the camera
}

// labelSpan returns the path a label along a line covers: from the start
// of its first glyph through the glyphs' centres to the end of its last
// (k device pixels per em pixel, as the glyphs were placed).
func labelSpan(placed []placedGlyph, sh text.Shaping, k float64) []raster.Point {
	n := min(len(placed), len(sh.Glyphs))
	if n == 0 {
		return nil
	}
	half := func(i int) float64 {
		g := sh.Glyphs[i]
		return g.Metrics.Advance * g.Scale / 2 * k
	}
	out := make([]raster.Point, 0, n+2)
	f, l := placed[0], placed[n-1]
	sin, cos := math.Sincos(f.angle)
	out = append(out, raster.Point{X: f.at.X - cos*half(0), Y: f.at.Y - sin*half(0)})
	for _, p := range placed[:n] {
		out = append(out, p.at)
	}
	sin, cos = math.Sincos(l.angle)
	return append(out, raster.Point{X: l.at.X + cos*half(n-1), Y: l.at.Y + sin*half(n-1)})
}

// spanBoxCentres returns the centres of square collision boxes of the
// given side laid along a path: boxes every half side, the first with its
// edge on the start, as many as whole half sides fit in the path's length
// (the layout of line labels' boxes of GL's first collision tiles).
func spanBoxCentres(path []raster.Point, side float64) []raster.Point {
	if len(path) == 0 || side <= 0 {
		return nil
	}
	dist := pathDistances(path)
	step := side / 2
	n := max(1, int(math.Floor(dist[len(dist)-1]/step)))
	ds := make([]float64, n)
	for i := range ds {
		ds[i] = float64(i)*step + side/2
	}
	return pointsAlong(path, dist, ds)
}

// pathDistances returns the distance along a path of each of its points.
func pathDistances(path []raster.Point) []float64 {
	dist := make([]float64, len(path))
	for i := 1; i < len(path); i++ {
		dist[i] = dist[i-1] + math.Hypot(path[i].X-path[i-1].X, path[i].Y-path[i-1].Y)
	}
	return dist
}

// pointsAlong returns the points of a path (of at least one point, its
// distances from pathDistances) at ascending distances along it; a distance
// past the end gives the end.
func pointsAlong(path []raster.Point, dist, ds []float64) []raster.Point {
	out := make([]raster.Point, 0, len(ds))
	seg := 1
	for _, d := range ds {
		for seg < len(path)-1 && dist[seg] < d {
			seg++
		}
		a, b := path[seg-1], path[min(seg, len(path)-1)]
		t := 0.0
		if l := dist[min(seg, len(path)-1)] - dist[seg-1]; l > 0 {
			t = min(1, (d-dist[seg-1])/l)
		}
		out = append(out, raster.Point{X: a.X + (b.X-a.X)*t, Y: a.Y + (b.Y-a.Y)*t})
	}
	return out
}

// lineCircleCentres returns the centres of the collision circles of
// radius r along a label's path, as GL JS 6 lays them: one in the middle
// when the path is shorter than half the radius, else evenly from a
// quarter radius after the start to a quarter radius before the end, at
// most 2.5 radii apart.
func lineCircleCentres(path []raster.Point, r float64) []raster.Point {
	if len(path) <= 1 {
		return path
	}
	dist := pathDistances(path)
	length := dist[len(dist)-1]
	pad := min(r/4, length/2)
	inner := length - 2*pad
	n := 1 // the middle of a short path
	if length > r/2 {
		n = int(math.Ceil(inner/(2.5*r))) + 1
	}
	ds := make([]float64, n)
	for i := range ds {
		ds[i] = pad + inner*float64(i)/float64(max(n-1, 1))
	}
	return pointsAlong(path, dist, ds)
}

// allowsVerticalAlong reports whether a label along a line has a vertical
// alternative: a character of its text stands upright (its images never
// do).
func (ss *shapedSymbol) allowsVerticalAlong() bool {
	for _, sec := range ss.sections {
		if sec.Image == nil && text.AllowsVerticalWriting(sec.Text) {
			return true
		}
	}
	return false
}
