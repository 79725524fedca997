package svg

import "math"

// ElementBounds returns the bounding box (left, top, right, bottom) of the element with the
// given id, in the document's natural pixel coordinates (multiply by the render scale to get
// image pixels). Strokes are not included. ok is false when there is no such element or it
// has no geometry.
func (d *Document) ElementBounds(id string) (box [4]float64, ok bool) {
	n := d.ids[id]
	if n == nil {
		return box, false
	}
	var chain []*node
	for p := n; p != nil; p = p.parent {
		chain = append(chain, p)
	}
	r := &renderer{doc: d, points: d.lim.MaxPoints, vpW: d.width, vpH: d.height}
	ctm := identity
	// Walk from the root down to n, accumulating viewports and transforms.
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		if i < len(chain)-1 {
			if t, has := c.attrs["transform"]; has {
				m, good := parseTransform(t)
				if !good {
					return box, false
				}
				ctm = ctm.mul(m)
			}
		}
		if c.tag == "svg" && i > 0 { // a viewport that contains n
			x, y, w, h := 0.0, 0.0, d.width, d.height
			if i < len(chain)-1 {
				x, _ = parseLength(c.attr("x"), r.vpW)
				y, _ = parseLength(c.attr("y"), r.vpH)
				if v, good := parseLength(c.attr("width"), r.vpW); good {
					w = v
				}
				if v, good := parseLength(c.attr("height"), r.vpH); good {
					h = v
				}
			}
			if vb, has := parseViewBox(c.attr("viewBox")); has {
				ctm = ctm.mul(viewBoxTransform(vb, parseAspect(c.attr("preserveAspectRatio")), x, y, w, h))
				r.vpW, r.vpH = vb[2], vb[3]
			} else {
				ctm = ctm.mul(translate(x, y))
				r.vpW, r.vpH = w, h
			}
		}
	}
	box = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	r.bounds(n, ctm, &box, 0)
	if !(box[2] >= box[0] && box[3] >= box[1]) {
		return box, false
	}
	return box, true
}

func (r *renderer) bounds(n *node, ctm matrix, box *[4]float64, depth int) {
	if depth > r.doc.lim.MaxDepth {
		return
	}
	if p := r.shapePath(n); p != nil {
		lines, err := p.flatten(0.05/math.Max(ctm.scale(), 1e-9), r.points)
		if err != nil {
			return
		}
		for _, l := range lines {
			for _, q := range l.pts {
				q = ctm.apply(q)
				box[0] = math.Min(box[0], q.x)
				box[1] = math.Min(box[1], q.y)
				box[2] = math.Max(box[2], q.x)
				box[3] = math.Max(box[3], q.y)
			}
		}
		return
	}
	for _, c := range n.children {
		m := ctm
		if t, has := c.attrs["transform"]; has {
			tm, good := parseTransform(t)
			if !good {
				continue
			}
			m = m.mul(tm)
		}
		r.bounds(c, m, box, depth+1)
	}
}
