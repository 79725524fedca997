package layers

import (
	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
)

// project maps world points to device pixels, shifted by (dx, dy) on the
// map (before a tilted camera sees it).
func (lr *Painter) project(ps []orb.Point, dx, dy float64) []raster.Point {
	out := lr.projectPlane(ps, dx, dy)
	if t := lr.Frame.Tilt; t != nil {
		for i, q := range out {
			out[i], _ = t.Project(q)
		}
	}
	return out
}

// projectRings projects a polygon's rings as project does, into buffers
// of the layer reused from one polygon to the next: the rings hold until
// the next call.
func (lr *Painter) projectRings(poly [][]orb.Point, dx, dy float64) [][]raster.Point {
	n := 0
	for _, r := range poly {
		n += len(r)
	}
	if cap(lr.pts) < n {
		lr.pts = make([]raster.Point, n)
	}
	pts := lr.pts[:n]
	rings := lr.rings[:0]
	t := lr.Frame.Tilt
	for _, r := range poly {
		ring := pts[:len(r):len(r)]
		pts = pts[len(r):]
		for i, p := range r {
			q := lr.Frame.ToPlane(p[0], p[1])
			ring[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
			if t != nil {
				ring[i], _ = t.Project(ring[i])
			}
		}
		rings = append(rings, ring)
	}
	lr.rings = rings
	return rings
}

// projectPlaneInto is projectPlane writing into the layer's reused buffer:
// the points hold until the next call.
func (lr *Painter) projectPlaneInto(ps []orb.Point, dx, dy float64) []raster.Point {
	if cap(lr.pts) < len(ps) {
		lr.pts = make([]raster.Point, len(ps))
	}
	out := lr.pts[:len(ps)]
	for i, p := range ps {
		q := lr.Frame.ToPlane(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}

// depths returns the relative depth under the tilted camera of each world
// point shifted by (dx, dy), nil when the camera looks straight down.
func (lr *Painter) depths(ps []orb.Point, dx, dy float64) []float64 {
	t := lr.Frame.Tilt
	if t == nil {
		return nil
	}
	out := make([]float64, len(ps))
	for i, q := range lr.projectPlane(ps, dx, dy) {
		_, out[i] = t.Project(q)
	}
	return out
}

// projectPlane maps world points to device pixels of the untilted map,
// shifted by (dx, dy).
func (lr *Painter) projectPlane(ps []orb.Point, dx, dy float64) []raster.Point {
	out := make([]raster.Point, len(ps))
	for i, p := range ps {
		q := lr.Frame.ToPlane(p[0], p[1])
		out[i] = raster.Point{X: q.X + dx, Y: q.Y + dy}
	}
	return out
}
