package tiler

import (
	"github.com/tesseramaps/tessera/internal/geo"
	"math"

	"github.com/paulmach/orb"
)

// MaxLatitude is the latitude limit of Web Mercator.
const MaxLatitude = geo.MaxLat

// pt is a position in world coordinates: x and y in [0, 1], y growing
// southwards (the Web Mercator square seen as one tile at zoom 0).
type pt struct{ x, y float64 }

// Project returns the world coordinates (0..1, y down) of a longitude and
// latitude, clamping the latitude to ±MaxLatitude.
func Project(lon, lat float64) (x, y float64) { return geo.LonLatToWorld(lon, lat) }

// Unproject is the inverse of Project.
func Unproject(x, y float64) (lon, lat float64) { return geo.WorldToLonLat(x, y) }

func project(p orb.Point) pt {
	x, y := Project(p[0], p[1])
	return pt{x, y}
}

type box struct{ minX, minY, maxX, maxY float64 }

func emptyBox() box {
	return box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
}

func (b *box) add(p pt) {
	b.minX = math.Min(b.minX, p.x)
	b.minY = math.Min(b.minY, p.y)
	b.maxX = math.Max(b.maxX, p.x)
	b.maxY = math.Max(b.maxY, p.y)
}

func (b box) lo(axis int) float64 {
	if axis == 0 {
		return b.minX
	}
	return b.minY
}

func (b box) hi(axis int) float64 {
	if axis == 0 {
		return b.maxX
	}
	return b.maxY
}

type gtype uint8

const (
	gPoint gtype = iota + 1
	gLine
	gPoly
)

// source is what an item needs of its input feature.
type source struct {
	layer   int
	id      uint64
	props   map[string]any
	minZoom int
	maxZoom int
}

// item is a feature's geometry of one type in world coordinates, possibly
// clipped. Items are immutable once built so that clipping can share them.
type item struct {
	src   *source
	typ   gtype
	pts   []pt     // gPoint
	lines [][]pt   // gLine
	polys [][][]pt // gPoly: rings closed (last == first), exterior first
	bbox  box
}

func (it *item) computeBox() {
	b := emptyBox()
	for _, p := range it.pts {
		b.add(p)
	}
	for _, l := range it.lines {
		for _, p := range l {
			b.add(p)
		}
	}
	for _, pg := range it.polys {
		for _, p := range pg[0] { // holes lie inside the exterior
			b.add(p)
		}
	}
	it.bbox = b
}

func (it *item) empty() bool {
	return len(it.pts) == 0 && len(it.lines) == 0 && len(it.polys) == 0
}

// collect appends the projected parts of g to the three items.
func collect(g orb.Geometry, pts, lines, polys *item) {
	switch v := g.(type) {
	case orb.Point:
		pts.pts = append(pts.pts, project(v))
	case orb.MultiPoint:
		for _, p := range v {
			pts.pts = append(pts.pts, project(p))
		}
	case orb.LineString:
		if l := projectLine(v); len(l) >= 2 {
			lines.lines = append(lines.lines, l)
		}
	case orb.MultiLineString:
		for _, ls := range v {
			collect(ls, pts, lines, polys)
		}
	case orb.Ring:
		collect(orb.Polygon{v}, pts, lines, polys)
	case orb.Polygon:
		var pg [][]pt
		for i, r := range v {
			ring := projectRing(r)
			if ring == nil {
				if i == 0 {
					break
				}
				continue
			}
			pg = append(pg, ring)
		}
		if len(pg) > 0 {
			polys.polys = append(polys.polys, pg)
		}
	case orb.MultiPolygon:
		for _, p := range v {
			collect(p, pts, lines, polys)
		}
	case orb.Collection:
		for _, c := range v {
			collect(c, pts, lines, polys)
		}
	case orb.Bound:
		collect(v.ToPolygon(), pts, lines, polys)
	}
}

func projectLine(ls orb.LineString) []pt {
	out := make([]pt, 0, len(ls))
	for _, p := range ls {
		q := project(p)
		if len(out) > 0 && out[len(out)-1] == q {
			continue
		}
		out = append(out, q)
	}
	return out
}

// projectRing returns a closed projected ring, or nil when it has fewer than
// three distinct positions.
func projectRing(r orb.Ring) []pt {
	out := projectLine(orb.LineString(r))
	if len(out) > 1 && out[0] == out[len(out)-1] {
		out = out[:len(out)-1]
	}
	if len(out) < 3 {
		return nil
	}
	return append(out, out[0])
}

func finite(p orb.Point) bool {
	return !math.IsNaN(p[0]) && !math.IsNaN(p[1]) && !math.IsInf(p[0], 0) && !math.IsInf(p[1], 0)
}

// validGeometry reports whether all coordinates of g are finite.
func validGeometry(g orb.Geometry) bool {
	ok := true
	var walk func(g orb.Geometry)
	walk = func(g orb.Geometry) {
		switch v := g.(type) {
		case orb.Point:
			ok = ok && finite(v)
		case orb.MultiPoint:
			for _, p := range v {
				ok = ok && finite(p)
			}
		case orb.LineString:
			walk(orb.MultiPoint(v))
		case orb.Ring:
			walk(orb.MultiPoint(v))
		case orb.MultiLineString:
			for _, l := range v {
				walk(l)
			}
		case orb.Polygon:
			for _, r := range v {
				walk(r)
			}
		case orb.MultiPolygon:
			for _, p := range v {
				walk(p)
			}
		case orb.Collection:
			for _, c := range v {
				walk(c)
			}
		case orb.Bound:
			ok = ok && finite(v.Min) && finite(v.Max)
		}
	}
	walk(g)
	return ok
}
