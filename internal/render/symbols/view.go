package symbols

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
)

// tileInView reports whether a vector tile ([y, x, z]) shows in the view:
// GL lays out symbols only from the tiles it draws. Those are the tiles
// whose square meets the view (grown by the label margin): a turned map
// does not take the tiles that only the box around a turned square
// reaches, as MapLibre GL JS 6.17 does not request them (docs/rendering.md,
// "Tile choice"). On another picture's grid (Onto) the box of the
// projected corners stands for the square.
func (s *Pass) tileInView(t [3]int) bool {
	if t[2] < 0 {
		return true
	}
	n := float64(int(1) << t[2])
	if s.Frame.Tilt != nil {
		return s.tiltedTileInView(t)
	}
	var tile [4]raster.Point
	for i, c := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		tile[i] = s.toScreen((float64(t[1])+c[0])/n, (float64(t[0])+c[1])/n)
	}
	// A tile that only touches the view's left edge (its right side on
	// it) is laid out, one that only touches its right edge is not: in
	// MapLibre GL JS 6.17's pictures of views whose edges fall on tile
	// sides (extent/1024-symbol and three made for it, at zooms 0 and 1,
	// on the world's seam and inside it) the labels of the tile left of
	// the view show in all four, those of the tile right of it in one.
	const eps = 1e-6
	m := s.View.LabelMargin * s.Frame.Ratio
	x0, x1, y0, y1 := -m-eps, s.Frame.W+m-eps, -m+eps, s.Frame.H+m-eps
	view := [4]raster.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	if s.project != nil {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range tile {
			minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
			minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
		}
		tile = [4]raster.Point{{X: minX, Y: minY}, {X: maxX, Y: minY}, {X: maxX, Y: maxY}, {X: minX, Y: maxY}}
	}
	return convexOverlap(tile[:], view[:])
}

// tiltedTileInView is tileInView under a tilted camera: whether the
// tile's square on the map's plane meets the part of the plane the view
// shows (its screen, grown by the label margin, taken back onto the
// plane; the part above the horizon cut off a pixel below it). The
// square's corners are not projected: those behind the camera would land
// on the wrong side of the screen.
func (s *Pass) tiltedTileInView(t [3]int) bool {
	tilt := s.Frame.Tilt
	n := float64(int(1) << t[2])
	var tile, view [4]raster.Point
	for i, c := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		tile[i] = s.Frame.ToPlane((float64(t[1])+c[0])/n, (float64(t[0])+c[1])/n)
	}
	m := s.View.LabelMargin * s.Frame.Ratio
	// Screen rows at or above the horizon have no place on the plane.
	horizon := tilt.CY - tilt.Cos*tilt.Dist/tilt.Sin + 1
	top, bottom := max(-m, horizon), s.Frame.H+m
	if bottom <= top {
		return false
	}
	for i, c := range [4][2]float64{{-m, top}, {s.Frame.W + m, top}, {s.Frame.W + m, bottom}, {-m, bottom}} {
		view[i] = tilt.Unproject(raster.Point{X: c[0], Y: c[1]})
	}
	return convexOverlap(tile[:], view[:])
}

// convexOverlap reports whether two convex polygons share more than an
// edge: no edge of either separates them.
func convexOverlap(a, b []raster.Point) bool {
	separates := func(p, q []raster.Point) bool {
		for i := range p {
			e0, e1 := p[i], p[(i+1)%len(p)]
			nx, ny := e0.Y-e1.Y, e1.X-e0.X // a normal of the edge
			pMin, pMax := math.Inf(1), math.Inf(-1)
			for _, v := range p {
				d := v.X*nx + v.Y*ny
				pMin, pMax = min(pMin, d), max(pMax, d)
			}
			qMin, qMax := math.Inf(1), math.Inf(-1)
			for _, v := range q {
				d := v.X*nx + v.Y*ny
				qMin, qMax = min(qMin, d), max(qMax, d)
			}
			if qMin >= pMax || pMin >= qMax {
				return true
			}
		}
		return false
	}
	return !separates(a, b) && !separates(b, a)
}

// tileUnitsY returns the height of a world point on screen measured in
// whole units of its tile (symbolExtent across, from the tile's corner), as
// GL sorts symbols by it.
func (s *Pass) tileUnitsY(w orb.Point, t [3]int) float64 {
	z := max(t[2], 0)
	n := float64(int(1) << z)
	x, y := (w[0]*n-float64(t[1]))*symbolExtent, (w[1]*n-float64(t[0]))*symbolExtent
	return math.Round(s.Frame.Sin*x + s.Frame.Cos*y)
}
