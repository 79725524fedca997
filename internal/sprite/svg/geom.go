package svg

import (
	"errors"
	"fmt"
	"math"
)

// matrix is a 2D affine transform [a c e; b d f; 0 0 1], as in SVG's matrix(a b c d e f).
type matrix struct{ a, b, c, d, e, f float64 }

var identity = matrix{a: 1, d: 1}

// mul returns m × n: n is applied first, then m.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		a: m.a*n.a + m.c*n.b,
		b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d,
		d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e,
		f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m matrix) apply(p point) point {
	return point{m.a*p.x + m.c*p.y + m.e, m.b*p.x + m.d*p.y + m.f}
}

func (m matrix) det() float64 { return m.a*m.d - m.b*m.c }

// inverse returns the inverse transform and false when m is singular.
func (m matrix) inverse() (matrix, bool) {
	det := m.det()
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return matrix{}, false
	}
	id := 1 / det
	return matrix{
		a: m.d * id, b: -m.b * id, c: -m.c * id, d: m.a * id,
		e: (m.c*m.f - m.d*m.e) * id,
		f: (m.b*m.e - m.a*m.f) * id,
	}, true
}

// scale is the largest factor by which m stretches a unit vector (an upper bound).
func (m matrix) scale() float64 {
	s1 := math.Hypot(m.a, m.b)
	s2 := math.Hypot(m.c, m.d)
	return math.Max(s1, s2)
}

func translate(x, y float64) matrix { return matrix{a: 1, d: 1, e: x, f: y} }
func scaleM(x, y float64) matrix    { return matrix{a: x, d: y} }

type point struct{ x, y float64 }

func (p point) sub(q point) point      { return point{p.x - q.x, p.y - q.y} }
func (p point) add(q point) point      { return point{p.x + q.x, p.y + q.y} }
func (p point) mulf(s float64) point   { return point{p.x * s, p.y * s} }
func (p point) dot(q point) float64    { return p.x*q.x + p.y*q.y }
func (p point) cross(q point) float64  { return p.x*q.y - p.y*q.x }
func (p point) length() float64        { return math.Hypot(p.x, p.y) }
func lerp(p, q point, t float64) point { return point{p.x + (q.x-p.x)*t, p.y + (q.y-p.y)*t} }
func finite(v float64) bool            { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func (p point) finite() bool           { return finite(p.x) && finite(p.y) }
func (p point) perp() point            { return point{-p.y, p.x} }
func (p point) eq(q point) bool        { return p.x == q.x && p.y == q.y }
func (p point) near(q point, e float64) bool {
	return math.Abs(p.x-q.x) <= e && math.Abs(p.y-q.y) <= e
}

// segKind enumerates path segment kinds after normalisation (absolute coordinates, arcs as cubics).
type segKind uint8

const (
	segMove segKind = iota
	segLine
	segQuad
	segCubic
	segClose
)

type segment struct {
	kind segKind
	p    [3]point // control points; the end point is the last used one
}

// path is a normalised SVG path in user space.
type path struct{ segs []segment }

func (p *path) moveTo(a point)    { p.segs = append(p.segs, segment{kind: segMove, p: [3]point{a}}) }
func (p *path) lineTo(a point)    { p.segs = append(p.segs, segment{kind: segLine, p: [3]point{a}}) }
func (p *path) quadTo(c, a point) { p.segs = append(p.segs, segment{kind: segQuad, p: [3]point{c, a}}) }
func (p *path) cubicTo(c1, c2, a point) {
	p.segs = append(p.segs, segment{kind: segCubic, p: [3]point{c1, c2, a}})
}
func (p *path) close() { p.segs = append(p.segs, segment{kind: segClose}) }

// polyline is a flattened subpath. corner[i] is false for vertices that only come from
// flattening a curve (joins there are drawn as bevels whatever the line join).
type polyline struct {
	pts    []point
	corner []bool
	closed bool
}

var errTooComplex = errors.New("svg: geometry too complex")

// flatten turns the path into polylines with the given tolerance (user units).
// maxPoints bounds the output size.
func (p *path) flatten(tol float64, maxPoints int) ([]polyline, error) {
	if !(tol > 0) || !finite(tol) {
		tol = 0.1
	}
	var out []polyline
	var cur polyline
	var start, last point
	n := 0
	push := func(q point, corner bool) error {
		if len(cur.pts) > 0 && cur.pts[len(cur.pts)-1].eq(q) {
			if corner {
				cur.corner[len(cur.corner)-1] = true
			}
			return nil
		}
		n++
		if n > maxPoints {
			return errTooComplex
		}
		cur.pts = append(cur.pts, q)
		cur.corner = append(cur.corner, corner)
		return nil
	}
	flush := func() {
		if len(cur.pts) > 0 {
			out = append(out, cur)
		}
		cur = polyline{}
	}
	started := false
	for _, s := range p.segs {
		switch s.kind {
		case segMove:
			flush()
			start, last = s.p[0], s.p[0]
			started = true
			if err := push(last, true); err != nil {
				return nil, err
			}
			continue
		case segClose:
			if started {
				cur.closed = true
				flush()
				// A segment after closepath starts at the subpath's start point.
				last = start
				if err := push(last, true); err != nil {
					return nil, err
				}
				// Keep the implicit start only if more drawing follows; flush drops single points later.
			}
			continue
		}
		if !started {
			start, last = point{}, point{}
			started = true
			if err := push(last, true); err != nil {
				return nil, err
			}
		}
		switch s.kind {
		case segLine:
			last = s.p[0]
			if err := push(last, true); err != nil {
				return nil, err
			}
		case segQuad:
			c, e := s.p[0], s.p[1]
			dd := last.sub(c.mulf(2)).add(e).length()
			k := segmentsFor(math.Sqrt(dd / (4 * tol)))
			for i := 1; i <= k; i++ {
				t := float64(i) / float64(k)
				q := lerp(lerp(last, c, t), lerp(c, e, t), t)
				if err := push(q, i == k); err != nil {
					return nil, err
				}
			}
			last = e
		case segCubic:
			c1, c2, e := s.p[0], s.p[1], s.p[2]
			dd1 := last.sub(c1.mulf(2)).add(c2).length()
			dd2 := c1.sub(c2.mulf(2)).add(e).length()
			k := segmentsFor(math.Sqrt(0.75 * math.Max(dd1, dd2) / tol))
			for i := 1; i <= k; i++ {
				t := float64(i) / float64(k)
				a, b, c := lerp(last, c1, t), lerp(c1, c2, t), lerp(c2, e, t)
				d, f := lerp(a, b, t), lerp(b, c, t)
				if err := push(lerp(d, f, t), i == k); err != nil {
					return nil, err
				}
			}
			last = e
		}
	}
	flush()
	// Drop the lone start points left behind by a trailing closepath.
	kept := out[:0]
	for i, pl := range out {
		if len(pl.pts) == 1 && !pl.closed && i > 0 && out[i-1].closed {
			continue
		}
		kept = append(kept, pl)
	}
	return kept, nil
}

func segmentsFor(v float64) int {
	if !(v >= 1) {
		return 1
	}
	if v > 256 {
		return 256
	}
	return int(math.Ceil(v))
}

// arcTo appends an SVG elliptical arc (endpoint parameterisation) as cubic Béziers.
// The conversion follows the SVG 1.1 implementation notes (F.6.5 and F.6.6).
func (p *path) arcTo(from point, rx, ry, xrot float64, large, sweep bool, to point) {
	if from.eq(to) {
		return
	}
	rx, ry = math.Abs(rx), math.Abs(ry)
	if rx == 0 || ry == 0 || !finite(rx) || !finite(ry) {
		p.lineTo(to)
		return
	}
	phi := xrot * math.Pi / 180
	cosPhi, sinPhi := math.Cos(phi), math.Sin(phi)
	dx, dy := (from.x-to.x)/2, (from.y-to.y)/2
	x1p := cosPhi*dx + sinPhi*dy
	y1p := -sinPhi*dx + cosPhi*dy
	lambda := (x1p*x1p)/(rx*rx) + (y1p*y1p)/(ry*ry)
	if lambda > 1 {
		s := math.Sqrt(lambda)
		rx *= s
		ry *= s
	}
	num := rx*rx*ry*ry - rx*rx*y1p*y1p - ry*ry*x1p*x1p
	den := rx*rx*y1p*y1p + ry*ry*x1p*x1p
	coef := 0.0
	if den != 0 && num > 0 {
		coef = math.Sqrt(num / den)
	}
	if large == sweep {
		coef = -coef
	}
	cxp := coef * rx * y1p / ry
	cyp := -coef * ry * x1p / rx
	cx := cosPhi*cxp - sinPhi*cyp + (from.x+to.x)/2
	cy := sinPhi*cxp + cosPhi*cyp + (from.y+to.y)/2
	ang := func(ux, uy, vx, vy float64) float64 {
		return math.Atan2(ux*vy-uy*vx, ux*vx+uy*vy)
	}
	theta1 := ang(1, 0, (x1p-cxp)/rx, (y1p-cyp)/ry)
	dtheta := ang((x1p-cxp)/rx, (y1p-cyp)/ry, (-x1p-cxp)/rx, (-y1p-cyp)/ry)
	if !sweep && dtheta > 0 {
		dtheta -= 2 * math.Pi
	} else if sweep && dtheta < 0 {
		dtheta += 2 * math.Pi
	}
	if !finite(cx) || !finite(cy) || !finite(theta1) || !finite(dtheta) {
		p.lineTo(to)
		return
	}
	n := int(math.Ceil(math.Abs(dtheta) / (math.Pi / 2)))
	if n < 1 {
		n = 1
	}
	step := dtheta / float64(n)
	k := 4.0 / 3.0 * math.Tan(step/4)
	ell := func(t float64) (point, point) { // point and derivative on the ellipse
		ct, st := math.Cos(t), math.Sin(t)
		pt := point{cx + rx*ct*cosPhi - ry*st*sinPhi, cy + rx*ct*sinPhi + ry*st*cosPhi}
		d := point{-rx*st*cosPhi - ry*ct*sinPhi, -rx*st*sinPhi + ry*ct*cosPhi}
		return pt, d
	}
	t := theta1
	p0, d0 := ell(t)
	for i := 0; i < n; i++ {
		t2 := t + step
		p3, d3 := ell(t2)
		if i == n-1 {
			p3 = to
		}
		p.cubicTo(p0.add(d0.mulf(k)), p3.sub(d3.mulf(k)), p3)
		t, p0, d0 = t2, p3, d3
	}
}

// pathParser reads SVG path data ("d" attributes).
type pathParser struct {
	s   string
	i   int
	max int
}

func (pp *pathParser) skipSpace() {
	for pp.i < len(pp.s) {
		switch pp.s[pp.i] {
		case ' ', '\t', '\n', '\r', '\f':
			pp.i++
		default:
			return
		}
	}
}

func (pp *pathParser) skipSep() {
	pp.skipSpace()
	if pp.i < len(pp.s) && pp.s[pp.i] == ',' {
		pp.i++
		pp.skipSpace()
	}
}

// number reads one number; ok is false when none starts here.
func (pp *pathParser) number() (float64, bool) {
	pp.skipSpace()
	v, n := scanNumber(pp.s[pp.i:])
	if n == 0 {
		return 0, false
	}
	pp.i += n
	pp.skipSep()
	return v, true
}

func (pp *pathParser) flag() (bool, bool) {
	pp.skipSpace()
	if pp.i >= len(pp.s) {
		return false, false
	}
	c := pp.s[pp.i]
	if c != '0' && c != '1' {
		return false, false
	}
	pp.i++
	pp.skipSep()
	return c == '1', true
}

// scanNumber parses a number at the start of s (SVG number grammar) and returns it with its length.
func scanNumber(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		fd := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			fd++
		}
		if fd > 0 || digits > 0 {
			i = j
			digits += fd
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		ed := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			ed++
		}
		if ed > 0 {
			i = j
		}
	}
	v, err := parseFloat(s[:i])
	if err != nil {
		return 0, 0
	}
	return v, i
}

// parsePathData parses SVG path data. Like browsers, it keeps everything before the first error
// and returns that error alongside.
func parsePathData(d string, maxSegs int) (*path, error) {
	pp := &pathParser{s: d}
	p := &path{}
	var cur, start, lastCtrl point
	var prevCmd byte
	cmd := byte(0)
	pp.skipSpace()
	for pp.i < len(pp.s) {
		if len(p.segs) > maxSegs {
			return p, errTooComplex
		}
		c := pp.s[pp.i]
		if isCommand(c) {
			cmd = c
			pp.i++
			pp.skipSpace()
		} else if cmd == 0 || cmd == 'z' || cmd == 'Z' {
			return p, fmt.Errorf("svg: path data: unexpected %q at offset %d", c, pp.i)
		}
		if cmd != 'M' && cmd != 'm' && len(p.segs) == 0 {
			return p, fmt.Errorf("svg: path data must start with moveto")
		}
		rel := cmd >= 'a'
		base := point{}
		if rel {
			base = cur
		}
		nums := func(k int) ([]float64, bool) {
			var v [7]float64
			for j := 0; j < k; j++ {
				f, ok := pp.number()
				if !ok {
					return nil, false
				}
				v[j] = f
			}
			return v[:k], true
		}
		bad := func() error { return fmt.Errorf("svg: path data: bad arguments for %q at offset %d", cmd, pp.i) }
		switch cmd | 0x20 {
		case 'm':
			v, ok := nums(2)
			if !ok {
				return p, bad()
			}
			cur = base.add(point{v[0], v[1]})
			start = cur
			p.moveTo(cur)
			// Following pairs are implicit linetos.
			if rel {
				cmd = 'l'
			} else {
				cmd = 'L'
			}
		case 'z':
			p.close()
			cur = start
		case 'l':
			v, ok := nums(2)
			if !ok {
				return p, bad()
			}
			cur = base.add(point{v[0], v[1]})
			p.lineTo(cur)
		case 'h':
			v, ok := nums(1)
			if !ok {
				return p, bad()
			}
			if rel {
				cur.x += v[0]
			} else {
				cur.x = v[0]
			}
			p.lineTo(cur)
		case 'v':
			v, ok := nums(1)
			if !ok {
				return p, bad()
			}
			if rel {
				cur.y += v[0]
			} else {
				cur.y = v[0]
			}
			p.lineTo(cur)
		case 'c':
			v, ok := nums(6)
			if !ok {
				return p, bad()
			}
			c1 := base.add(point{v[0], v[1]})
			c2 := base.add(point{v[2], v[3]})
			cur = base.add(point{v[4], v[5]})
			p.cubicTo(c1, c2, cur)
			lastCtrl = c2
		case 's':
			v, ok := nums(4)
			if !ok {
				return p, bad()
			}
			c1 := cur
			if pc := prevCmd | 0x20; pc == 'c' || pc == 's' {
				c1 = cur.mulf(2).sub(lastCtrl)
			}
			c2 := base.add(point{v[0], v[1]})
			cur = base.add(point{v[2], v[3]})
			p.cubicTo(c1, c2, cur)
			lastCtrl = c2
		case 'q':
			v, ok := nums(4)
			if !ok {
				return p, bad()
			}
			c := base.add(point{v[0], v[1]})
			cur = base.add(point{v[2], v[3]})
			p.quadTo(c, cur)
			lastCtrl = c
		case 't':
			v, ok := nums(2)
			if !ok {
				return p, bad()
			}
			c := cur
			if pc := prevCmd | 0x20; pc == 'q' || pc == 't' {
				c = cur.mulf(2).sub(lastCtrl)
			}
			cur = base.add(point{v[0], v[1]})
			p.quadTo(c, cur)
			lastCtrl = c
		case 'a':
			rx, ok1 := pp.number()
			ry, ok2 := pp.number()
			rot, ok3 := pp.number()
			large, ok4 := pp.flag()
			sweep, ok5 := pp.flag()
			x, ok6 := pp.number()
			y, ok7 := pp.number()
			if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
				return p, bad()
			}
			to := base.add(point{x, y})
			p.arcTo(cur, rx, ry, rot, large, sweep, to)
			cur = to
		default:
			return p, fmt.Errorf("svg: path data: unknown command %q", cmd)
		}
		prevCmd = cmd
		pp.skipSpace()
	}
	return p, nil
}

func isCommand(c byte) bool {
	switch c | 0x20 {
	case 'm', 'z', 'l', 'h', 'v', 'c', 's', 'q', 't', 'a':
		return true
	}
	return false
}
