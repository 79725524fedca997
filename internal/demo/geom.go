package demo

import (
	"math"

	"github.com/paulmach/orb"
	orbgeo "github.com/paulmach/orb/geo"

	"github.com/tesseramaps/tessera/internal/geo"
)

// orientPolygon returns the polygon with its exterior ring counter-clockwise
// and its holes clockwise in longitude/latitude (the RFC 7946 convention).
// TopoJSON from world-atlas follows d3's spherical convention (clockwise
// exteriors), so every polygon is normalised before tiling.
func orientPolygon(p orb.Polygon) orb.Polygon {
	for i, r := range p {
		if len(r) < 4 {
			continue
		}
		want := orb.CW
		if i == 0 {
			want = orb.CCW
		}
		if r.Orientation() != want && r.Orientation() != 0 {
			r.Reverse()
		}
	}
	return p
}

// polygons returns the polygons of a Polygon or MultiPolygon geometry (or of
// the polygonal members of a collection).
func polygons(g orb.Geometry) []orb.Polygon {
	switch g := g.(type) {
	case orb.Polygon:
		return []orb.Polygon{g}
	case orb.MultiPolygon:
		return g
	case orb.Collection:
		var out []orb.Polygon
		for _, c := range g {
			out = append(out, polygons(c)...)
		}
		return out
	}
	return nil
}

// areaKM2 returns the area of a polygonal geometry on the sphere in km².
func areaKM2(g orb.Geometry) float64 { return math.Abs(orbgeo.Area(g)) / 1e6 }

// largestPolygon returns the polygon with the largest spherical area.
func largestPolygon(ps []orb.Polygon) (orb.Polygon, bool) {
	best, bestArea := -1, -1.0
	for i, p := range ps {
		if len(p) == 0 || len(p[0]) < 4 {
			continue
		}
		if a := areaKM2(p); a > bestArea {
			best, bestArea = i, a
		}
	}
	if best < 0 {
		return nil, false
	}
	return ps[best], true
}

// labelPoint returns a point well inside the polygon for placing its label:
// among a grid of candidate points over its bounding box (refined twice
// around the best one), the inside point farthest from every ring, with
// distances measured with longitudes scaled by the cosine of the latitude.
// It falls back to the first vertex for degenerate polygons.
func labelPoint(p orb.Polygon) orb.Point {
	if len(p) == 0 || len(p[0]) == 0 {
		return orb.Point{}
	}
	b := p[0].Bound()
	k := math.Cos((b.Min[1] + b.Max[1]) / 2 * math.Pi / 180)
	if k < 0.05 {
		k = 0.05
	}
	best, bestDist := p[0][0], -1.0
	try := func(c orb.Point) {
		if !inPolygon(p, c) {
			return
		}
		if d := distToRings(p, c, k, bestDist); d > bestDist {
			best, bestDist = c, d
		}
	}
	const n = 24
	w, h := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			try(orb.Point{b.Min[0] + w*(float64(i)+0.5)/n, b.Min[1] + h*(float64(j)+0.5)/n})
		}
	}
	// Refine around the best candidate.
	cw, ch := w/n, h/n
	for round := 0; round < 2 && bestDist >= 0; round++ {
		center := best
		for i := -5; i <= 5; i++ {
			for j := -5; j <= 5; j++ {
				try(orb.Point{center[0] + cw*float64(i)/5, center[1] + ch*float64(j)/5})
			}
		}
		cw, ch = cw/5, ch/5
	}
	return best
}

// inPolygon reports whether pt is inside the exterior ring and outside every
// hole (even-odd ray casting).
func inPolygon(p orb.Polygon, pt orb.Point) bool {
	if !inRing(p[0], pt) {
		return false
	}
	for _, h := range p[1:] {
		if inRing(h, pt) {
			return false
		}
	}
	return true
}

func inRing(r orb.Ring, pt orb.Point) bool {
	in := false
	for i, j := 0, len(r)-1; i < len(r); j, i = i, i+1 {
		a, b := r[i], r[j]
		if (a[1] > pt[1]) != (b[1] > pt[1]) &&
			pt[0] < (b[0]-a[0])*(pt[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// distToRings returns the distance from pt to the nearest edge of any ring,
// with x distances multiplied by k. It stops early, returning a value no
// greater than floor, once an edge is found within floor.
func distToRings(p orb.Polygon, pt orb.Point, k, floor float64) float64 {
	best := math.Inf(1)
	stop := floor * floor
	if floor < 0 {
		stop = -1
	}
	for _, r := range p {
		for i := 1; i < len(r); i++ {
			if d := geo.SegmentDist2(orb.Point{pt[0] * k, pt[1]}, orb.Point{r[i-1][0] * k, r[i-1][1]}, orb.Point{r[i][0] * k, r[i][1]}); d < best {
				best = d
				if best <= stop {
					return math.Sqrt(best)
				}
			}
		}
	}
	return math.Sqrt(best)
}
