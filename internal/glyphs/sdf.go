package glyphs

import (
	"cmp"
	"math"
	"slices"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Flattening and size limits.
const (
	flatTolerance  = 0.03  // greatest distance in pixels between a curve and its chords
	maxCurvePieces = 64    // chords per curve at most
	maxSegments    = 20000 // chords per glyph at most
	blockSize      = 4     // side of the pixel blocks sharing a candidate list
	saturation     = 6.0   // distance in pixels from which every byte is 0 or 255
)

// segment is one chord of a flattened outline, in pixels with y up.
type segment struct {
	ax, ay, dx, dy, inv    float64 // start, direction, 1/|direction|²
	minX, minY, maxX, maxY float64 // bounding box
}

// scratch holds the buffers one renderer reuses between glyphs; it is not
// safe for concurrent use.
type scratch struct {
	buf     sfnt.Buffer
	pts     []float64 // flattened points of the current contour, x,y pairs
	segs    []segment
	dc      []float64
	cand    []candidate
	dist2   []float64
	inside  []bool
	crosses []crossing
}

// candidate is a segment that may be nearest to a pixel of a block, with a
// lower bound of its distance to any pixel centre of the block.
type candidate struct {
	k  int32
	lb float64
}

type crossing struct {
	x    float64
	wind int32
}

// renderGlyph renders the code point r. It returns ok false when the font has
// no glyph for r. Glyphs whose outline cannot be read (or has no area, or is
// larger than the format allows, or makes the font parser panic) are returned
// without a bitmap, keeping what metrics could be read.
func (f *Font) renderGlyph(s *scratch, r rune) (g Glyph, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			s.buf = sfnt.Buffer{}
			if ok {
				g.Bitmap, g.Width, g.Height, g.Left, g.Top = nil, 0, 0, 0, -f.ascender
			}
		}
	}()
	x, err := f.sf.GlyphIndex(&s.buf, r)
	if err != nil || x == 0 {
		return Glyph{}, false
	}
	g, ok = Glyph{ID: uint32(r), Top: -f.ascender}, true
	if adv, err := f.sf.GlyphAdvance(&s.buf, x, fixed.I(emPixels), font.HintingNone); err == nil && adv > 0 {
		g.Advance = uint32(adv) >> 6
	}
	segs, err := f.sf.LoadGlyph(&s.buf, x, fixed.I(emPixels), nil)
	if err != nil {
		// Colour bitmap glyphs (sfnt.ErrColoredGlyph) and unreadable
		// outlines keep their advance but have no bitmap, as with the
		// FreeType-based tools.
		return g, true
	}
	minX, minY, maxX, maxY, n := s.flatten(segs)
	if n == 0 {
		return g, true
	}
	left, bottom := math.Round(minX), math.Round(minY)
	right, top := math.Round(maxX), math.Round(maxY)
	w, h := right-left, top-bottom
	if w <= 0 || h <= 0 || w > maxGlyphSide || h > maxGlyphSide {
		return g, true
	}
	g.Width, g.Height = uint32(w), uint32(h)
	g.Left = int32(left)
	g.Top = int32(top) - f.ascender
	g.Bitmap = s.sdf(int(w)+2*buffer, int(h)+2*buffer, left-buffer, top+buffer)
	return g, true
}

// flatten turns the outline into chords in s.segs (pixels, y up), closing
// every contour, and returns the bounds of the flattened points and the
// number of chords.
func (s *scratch) flatten(segs sfnt.Segments) (minX, minY, maxX, maxY float64, n int) {
	s.segs = s.segs[:0]
	s.pts = s.pts[:0]
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	var cx, cy float64 // current point
	add := func(x, y float64) {
		s.pts = append(s.pts, x, y)
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	conv := func(p fixed.Point26_6) (float64, float64) {
		return float64(p.X) / 64, -float64(p.Y) / 64
	}
	for _, sg := range segs {
		if len(s.segs)+len(s.pts)/2 > maxSegments {
			break
		}
		switch sg.Op {
		case sfnt.SegmentOpMoveTo:
			s.closeContour()
			cx, cy = conv(sg.Args[0])
			add(cx, cy)
		case sfnt.SegmentOpLineTo:
			if len(s.pts) == 0 {
				add(cx, cy)
			}
			cx, cy = conv(sg.Args[0])
			add(cx, cy)
		case sfnt.SegmentOpQuadTo:
			if len(s.pts) == 0 {
				add(cx, cy)
			}
			x1, y1 := conv(sg.Args[0])
			x2, y2 := conv(sg.Args[1])
			dd := math.Hypot(cx-2*x1+x2, cy-2*y1+y2)
			k := pieces(dd / (4 * flatTolerance))
			for i := 1; i <= k; i++ {
				t := float64(i) / float64(k)
				u := 1 - t
				add(u*u*cx+2*u*t*x1+t*t*x2, u*u*cy+2*u*t*y1+t*t*y2)
			}
			cx, cy = x2, y2
		case sfnt.SegmentOpCubeTo:
			if len(s.pts) == 0 {
				add(cx, cy)
			}
			x1, y1 := conv(sg.Args[0])
			x2, y2 := conv(sg.Args[1])
			x3, y3 := conv(sg.Args[2])
			dd := max(math.Hypot(cx-2*x1+x2, cy-2*y1+y2), math.Hypot(x1-2*x2+x3, y1-2*y2+y3))
			k := pieces(0.75 * dd / flatTolerance)
			for i := 1; i <= k; i++ {
				t := float64(i) / float64(k)
				u := 1 - t
				a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				add(a*cx+b*x1+c*x2+d*x3, a*cy+b*y1+c*y2+d*y3)
			}
			cx, cy = x3, y3
		}
	}
	s.closeContour()
	return minX, minY, maxX, maxY, len(s.segs)
}

// pieces returns the number of chords for a curve whose squared chord count
// estimate is q, between 1 and maxCurvePieces.
func pieces(q float64) int {
	if !(q > 1) {
		return 1
	}
	return int(min(math.Ceil(math.Sqrt(q)), maxCurvePieces))
}

// closeContour turns the pending points into chords, adding the closing
// chord, and empties the point list.
func (s *scratch) closeContour() {
	p := s.pts
	n := len(p) / 2
	if n >= 2 {
		for i := range n {
			j := (i + 1) % n
			ax, ay := p[2*i], p[2*i+1]
			dx, dy := p[2*j]-ax, p[2*j+1]-ay
			if dx == 0 && dy == 0 {
				continue
			}
			s.segs = append(s.segs, segment{
				ax: ax, ay: ay, dx: dx, dy: dy, inv: 1 / (dx*dx + dy*dy),
				minX: min(ax, ax+dx), minY: min(ay, ay+dy), maxX: max(ax, ax+dx), maxY: max(ay, ay+dy),
			})
		}
	}
	s.pts = s.pts[:0]
}

// dist2 returns the squared distance from (px, py) to the segment.
func (sg *segment) dist2(px, py float64) float64 {
	ex, ey := px-sg.ax, py-sg.ay
	t := (ex*sg.dx + ey*sg.dy) * sg.inv
	t = min(max(t, 0), 1)
	ex -= t * sg.dx
	ey -= t * sg.dy
	return ex*ex + ey*ey
}

// boxDist2 returns the squared distance from (px, py) to the segment's
// bounding box, a lower bound of dist2.
func (sg *segment) boxDist2(px, py float64) float64 {
	dx := max(sg.minX-px, 0, px-sg.maxX)
	dy := max(sg.minY-py, 0, py-sg.maxY)
	return dx*dx + dy*dy
}

// sdf computes the W×H distance bitmap whose top-left pixel's top-left corner
// is at (x0, y0) in outline coordinates (pixels, y up).
func (s *scratch) sdf(W, H int, x0, y0 float64) []byte {
	segs := s.segs
	out := make([]byte, W*H)
	s.dist2 = slices.Grow(s.dist2[:0], W*H)[:W*H]
	s.inside = slices.Grow(s.inside[:0], W*H)[:W*H]
	s.dc = slices.Grow(s.dc[:0], len(segs))[:len(segs)]
	const r2 = radius * radius

	// Distances, block by block: the candidates of a block are the segments
	// that can be nearest to one of its pixels. Distances of 6 px and more
	// all encode to 0 (outside) or 255 (inside), so beyond that the nearest
	// candidate need not be the nearest segment.
	for by := 0; by < H; by += blockSize {
		bh := min(blockSize, H-by)
		for bx := 0; bx < W; bx += blockSize {
			bw := min(blockSize, W-bx)
			cx := x0 + float64(bx) + float64(bw)/2
			cy := y0 - float64(by) - float64(bh)/2
			hd := math.Hypot(float64(bw-1)/2, float64(bh-1)/2)
			// The squared distance to a segment's bounding box bounds the
			// distance to the segment from below: it skips most segments.
			best2 := math.Inf(1)
			for k := range segs {
				lb := segs[k].boxDist2(cx, cy)
				s.dc[k] = lb
				if lb < best2 {
					best2 = min(best2, segs[k].dist2(cx, cy))
				}
			}
			limit := min(math.Sqrt(best2)+hd, saturation) + hd
			limit2 := limit * limit
			// Candidates in order of distance from the block's centre, so
			// that each pixel can stop at the first one that cannot beat
			// its nearest so far.
			s.cand = s.cand[:0]
			for k, lb := range s.dc {
				if lb > limit2 {
					continue
				}
				if d2 := segs[k].dist2(cx, cy); d2 <= limit2 {
					s.cand = append(s.cand, candidate{k: int32(k), lb: max(math.Sqrt(d2)-hd, 0)})
				}
			}
			slices.SortFunc(s.cand, func(a, b candidate) int { return cmp.Compare(a.lb, b.lb) })
			for j := by; j < by+bh; j++ {
				py := y0 - float64(j) - 0.5
				for i := bx; i < bx+bw; i++ {
					px := x0 + float64(i) + 0.5
					m := math.Inf(1)
					for _, c := range s.cand {
						if c.lb*c.lb > m {
							break
						}
						if d := segs[c.k].dist2(px, py); d < m {
							m = d
						}
					}
					s.dist2[j*W+i] = m
				}
			}
		}
	}

	// Inside or outside, row by row, by the nonzero winding rule.
	for j := range H {
		py := y0 - float64(j) - 0.5
		s.crosses = s.crosses[:0]
		for k := range segs {
			sg := &segs[k]
			ya, yb := sg.ay, sg.ay+sg.dy
			var w int32
			switch {
			case ya <= py && py < yb:
				w = 1
			case yb <= py && py < ya:
				w = -1
			default:
				continue
			}
			x := sg.ax + (py-ya)*sg.dx/sg.dy
			s.crosses = append(s.crosses, crossing{x: x, wind: w})
		}
		slices.SortFunc(s.crosses, func(a, b crossing) int {
			switch {
			case a.x < b.x:
				return -1
			case a.x > b.x:
				return 1
			}
			return 0
		})
		wind, c := int32(0), 0
		for i := range W {
			px := x0 + float64(i) + 0.5
			for c < len(s.crosses) && s.crosses[c].x <= px {
				wind += s.crosses[c].wind
				c++
			}
			s.inside[j*W+i] = wind != 0
		}
	}

	for i := range out {
		d := math.Inf(1)
		if m := s.dist2[i]; m < r2 {
			d = math.Sqrt(m)
		}
		if s.inside[i] {
			d = -d
		}
		out[i] = encodeDistance(d)
	}
	return out
}

// encodeDistance maps a signed distance in pixels (negative inside) to a
// byte the way the common glyph tools do: 255 - clamp(trunc(32d + 64)).
func encodeDistance(d float64) byte {
	v := d*(256/radius) + 0.25*256
	switch {
	case v >= 255:
		return 0
	case v <= 0:
		return 255
	}
	return 255 - byte(int(v))
}
