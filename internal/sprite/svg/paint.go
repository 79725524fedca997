package svg

import (
	"math"
	"slices"
	"strings"
)

// painter yields the premultiplied source colour of a device pixel.
type painter interface {
	at(x, y int) [4]float32
}

type solid [4]float32

func (s solid) at(int, int) [4]float32 { return s }

func premul(c rgba, opacity float64) [4]float32 {
	a := c.a * opacity
	return [4]float32{float32(c.r * a), float32(c.g * a), float32(c.b * a), float32(a)}
}

// painter resolves a paint for a shape with the given user-space bounding box (x, y, w, h).
// It returns nil when nothing is to be drawn.
func (r *renderer) painter(p paint, opacity float64, current rgba, bbox [4]float64, ctm matrix) painter {
	switch p.kind {
	case paintColor:
		if p.color.a*opacity <= 0 {
			return nil
		}
		return solid(premul(p.color, opacity))
	case paintCurrent:
		if current.a*opacity <= 0 {
			return nil
		}
		return solid(premul(current, opacity))
	case paintURL:
		if g := r.gradient(p.url, opacity, bbox, ctm); g != nil {
			return g
		}
		if n := r.doc.ids[p.url]; n != nil && (n.tag == "linearGradient" || n.tag == "radialGradient") {
			return nil // a valid gradient with nothing to draw
		}
		if p.fallback != nil {
			return r.painter(*p.fallback, opacity, current, bbox, ctm)
		}
	}
	return nil
}

type stop struct {
	offset float64
	color  [4]float32 // premultiplied, with opacity applied
}

type gradient struct {
	inv     matrix // device → gradient space
	radial  bool
	x1, y1  float64
	x2, y2  float64
	cx, cy  float64
	r       float64
	fx, fy  float64
	spread  string
	stops   []stop
	lut     [256][4]float32
	flatLUT bool
}

// gradientAttr looks up a gradient attribute along the href chain.
func (r *renderer) gradientAttr(n *node, k string) (string, bool) {
	for i := 0; n != nil && i < 16; i++ {
		if v, ok := n.attrs[k]; ok {
			return v, true
		}
		href := n.attr("href")
		if !strings.HasPrefix(href, "#") {
			break
		}
		n = r.doc.ids[href[1:]]
	}
	return "", false
}

func (r *renderer) gradientStops(n *node, opacity float64) []stop {
	for i := 0; n != nil && i < 16; i++ {
		var stops []stop
		last := 0.0
		for _, c := range n.children {
			if c.tag != "stop" {
				continue
			}
			off := 0.0
			if v := strings.TrimSpace(c.attr("offset")); v != "" {
				if strings.HasSuffix(v, "%") {
					f, _ := parseFloat(v[:len(v)-1])
					off = f / 100
				} else {
					off, _ = parseFloat(v)
				}
			}
			off = math.Max(clamp01(off), last)
			last = off
			col := rgba{0, 0, 0, 1}
			if v, ok := c.props["stop-color"]; ok {
				if cc, good := parseColor(v); good {
					col = cc
				}
			}
			op := 1.0
			if v, ok := c.props["stop-opacity"]; ok {
				if f, good := parseOpacity(v); good {
					op = f
				}
			}
			stops = append(stops, stop{offset: off, color: premul(col, op*opacity)})
		}
		if len(stops) > 0 {
			return stops
		}
		href := n.attr("href")
		if !strings.HasPrefix(href, "#") {
			break
		}
		n = r.doc.ids[href[1:]]
	}
	return nil
}

func (r *renderer) gradient(id string, opacity float64, bbox [4]float64, ctm matrix) painter {
	n := r.doc.ids[id]
	if n == nil || (n.tag != "linearGradient" && n.tag != "radialGradient") {
		return nil
	}
	stops := r.gradientStops(n, opacity)
	r.ras.work += int64(len(stops)) + 1024 // stop parsing and the colour table
	if len(stops) == 0 {
		return nil
	}
	if len(stops) == 1 {
		if stops[0].color[3] <= 0 {
			return nil
		}
		return solid(stops[0].color)
	}
	units, _ := r.gradientAttr(n, "gradientUnits")
	obb := units != "userSpaceOnUse"
	refW, refH := r.vpW, r.vpH
	if obb {
		if bbox[2] <= 0 || bbox[3] <= 0 {
			return nil // objectBoundingBox on a degenerate box: not rendered
		}
		refW, refH = 1, 1
	}
	get := func(k string, def string, ref float64) float64 {
		v, ok := r.gradientAttr(n, k)
		if !ok {
			v = def
		}
		f, good := parseLength(v, ref)
		if !good {
			f, _ = parseLength(def, ref)
		}
		return f
	}
	g := &gradient{radial: n.tag == "radialGradient"}
	g.spread, _ = r.gradientAttr(n, "spreadMethod")
	diag := math.Sqrt((refW*refW + refH*refH) / 2)
	if g.radial {
		g.cx = get("cx", "50%", refW)
		g.cy = get("cy", "50%", refH)
		g.r = get("r", "50%", diag)
		g.fx, g.fy = g.cx, g.cy
		if _, ok := r.gradientAttr(n, "fx"); ok {
			g.fx = get("fx", "50%", refW)
		}
		if _, ok := r.gradientAttr(n, "fy"); ok {
			g.fy = get("fy", "50%", refH)
		}
		if !(g.r > 0) {
			// Zero radius: painted with the last stop colour.
			return solid(stops[len(stops)-1].color)
		}
		// Keep the focal point inside the circle.
		d := math.Hypot(g.fx-g.cx, g.fy-g.cy)
		if d > g.r*0.999 {
			k := g.r * 0.999 / d
			g.fx = g.cx + (g.fx-g.cx)*k
			g.fy = g.cy + (g.fy-g.cy)*k
		}
	} else {
		g.x1 = get("x1", "0%", refW)
		g.y1 = get("y1", "0%", refH)
		g.x2 = get("x2", "100%", refW)
		g.y2 = get("y2", "0%", refH)
	}
	m := ctm
	if obb {
		m = m.mul(matrix{a: bbox[2], d: bbox[3], e: bbox[0], f: bbox[1]})
	}
	if t, ok := r.gradientAttr(n, "gradientTransform"); ok {
		if tm, good := parseTransform(t); good {
			m = m.mul(tm)
		}
	}
	inv, ok := m.inverse()
	if !ok {
		return nil
	}
	g.inv = inv
	g.stops = stops
	for i := range g.lut {
		g.lut[i] = g.colorAt(float64(i) / 255)
	}
	return g
}

func (g *gradient) colorAt(t float64) [4]float32 {
	s := g.stops
	if t <= s[0].offset {
		return s[0].color
	}
	if t >= s[len(s)-1].offset {
		return s[len(s)-1].color
	}
	i, _ := slices.BinarySearchFunc(s, t, func(st stop, t float64) int {
		if st.offset < t {
			return -1
		}
		if st.offset > t {
			return 1
		}
		return 0
	})
	if i == 0 {
		return s[0].color
	}
	a, b := s[i-1], s[i]
	span := b.offset - a.offset
	if span <= 0 {
		return b.color
	}
	k := float32((t - a.offset) / span)
	var c [4]float32
	for j := range c {
		c[j] = a.color[j] + (b.color[j]-a.color[j])*k
	}
	return c
}

func (g *gradient) at(x, y int) [4]float32 {
	p := g.inv.apply(point{float64(x) + 0.5, float64(y) + 0.5})
	var t float64
	if g.radial {
		// Solve |p - f - t(c - f)| = t·r for t ≥ 0.
		pd := point{p.x - g.fx, p.y - g.fy}
		cd := point{g.cx - g.fx, g.cy - g.fy}
		a := cd.dot(cd) - g.r*g.r // < 0 with the focal point inside
		b := pd.dot(cd)
		c := pd.dot(pd)
		disc := b*b - a*c
		if disc < 0 {
			disc = 0
		}
		t = (b - math.Sqrt(disc)) / a
	} else {
		d := point{g.x2 - g.x1, g.y2 - g.y1}
		l2 := d.dot(d)
		if l2 == 0 {
			return g.stops[len(g.stops)-1].color
		}
		t = point{p.x - g.x1, p.y - g.y1}.dot(d) / l2
	}
	switch g.spread {
	case "repeat":
		t -= math.Floor(t)
	case "reflect":
		t = math.Mod(math.Abs(t), 2)
		if t > 1 {
			t = 2 - t
		}
	}
	if !finite(t) {
		t = 0
	}
	t = clamp01(t)
	return g.lut[int(t*255+0.5)]
}
