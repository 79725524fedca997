package demo

import (
	"math"

	"github.com/paulmach/orb"
)

// World-atlas keeps d3's spherical geometry: a ring that crosses the
// antimeridian (Chukotka, Fiji) jumps from about +180° to -180° between two
// consecutive positions, and Antarctica's exterior ring goes once around the
// South Pole. Drawn on a plane these become bands across the whole map, so
// such polygons are cut at the antimeridian before tiling (the tiler expects
// longitudes within ±180 and does not wrap).

// unwrapRing returns the ring with longitudes shifted by multiples of 360 so
// that consecutive positions are at most 180° apart, and the number of turns
// it makes around the pole (0 for ordinary rings).
func unwrapRing(r orb.Ring) (orb.Ring, int) {
	out := make(orb.Ring, len(r))
	if len(r) == 0 {
		return out, 0
	}
	out[0] = r[0]
	for i := 1; i < len(r); i++ {
		lon := r[i][0]
		prev := out[i-1][0]
		lon += 360 * math.Round((prev-lon)/360)
		out[i] = orb.Point{lon, r[i][1]}
	}
	turns := int(math.Round((out[len(out)-1][0] - out[0][0]) / 360))
	return out, turns
}

// splitAntimeridian cuts a polygon whose rings cross the antimeridian into
// polygons within longitudes -180..180, and closes rings that go around a
// pole through that pole. Other polygons are returned unchanged.
func splitAntimeridian(p orb.Polygon) []orb.Polygon {
	if len(p) == 0 {
		return nil
	}
	rings := make([]orb.Ring, 0, len(p))
	changed := false
	minX, maxX := math.Inf(1), math.Inf(-1)
	for i, r := range p {
		u, turns := unwrapRing(r)
		if turns != 0 {
			if i > 0 || len(u) < 3 {
				// A hole around a pole cannot be represented; keep as is.
				return []orb.Polygon{p}
			}
			u = closeAroundPole(u)
			changed = true
		}
		if i > 0 {
			u = alignHole(u, rings[0])
		}
		for _, pt := range u {
			minX, maxX = math.Min(minX, pt[0]), math.Max(maxX, pt[0])
		}
		rings = append(rings, u)
	}
	if !changed && minX >= -180 && maxX <= 180 {
		// Within range once unwrapped: the unwrapped rings, since a ring
		// can touch the antimeridian with a vertex at -180 between
		// vertices at +180 (a Fiji island), a jump across the whole map.
		return []orb.Polygon{orb.Polygon(rings)}
	}
	var out []orb.Polygon
	for k := math.Floor((minX - 180) / 360); k <= math.Ceil((maxX+180)/360); k++ {
		off := -360 * k
		var poly orb.Polygon
		for i, r := range rings {
			c := clipRingX(r, off)
			if len(c) < 4 || c.Orientation() == 0 {
				if i == 0 {
					break
				}
				continue
			}
			poly = append(poly, c)
		}
		if len(poly) > 0 {
			out = append(out, poly)
		}
	}
	return out
}

// alignHole shifts an unwrapped hole by whole turns so that it lies within
// the longitudes of its unwrapped exterior: both are unwrapped from their own
// first positions, so a hole can come out 360° away from the exterior (the
// Caspian Sea in Afro-Eurasia, whose exterior starts in Chukotka).
func alignHole(hole, exterior orb.Ring) orb.Ring {
	if len(hole) == 0 || len(exterior) == 0 {
		return hole
	}
	hb, eb := hole.Bound(), exterior.Bound()
	mid := (hb.Min[0] + hb.Max[0]) / 2
	var k float64
	switch {
	case mid < eb.Min[0]:
		k = math.Ceil((eb.Min[0] - mid) / 360)
	case mid > eb.Max[0]:
		k = -math.Ceil((mid - eb.Max[0]) / 360)
	default:
		return hole
	}
	out := make(orb.Ring, len(hole))
	for i, pt := range hole {
		out[i] = orb.Point{pt[0] + 360*k, pt[1]}
	}
	return out
}

// closeAroundPole turns an unwrapped ring that goes once around a pole into
// a closed ring through the pole nearer its positions.
func closeAroundPole(u orb.Ring) orb.Ring {
	first, last := u[0], u[len(u)-1]
	var sum float64
	for _, pt := range u {
		sum += pt[1]
	}
	pole := 90.0
	if sum < 0 {
		pole = -90
	}
	out := append(orb.Ring(nil), u...)
	out = append(out, orb.Point{last[0], pole}, orb.Point{first[0], pole}, first)
	return out
}

// clipRingX shifts a ring by off degrees of longitude and clips it to
// -180 <= lon <= 180 (Sutherland-Hodgman against the two meridians). The
// result is closed, or empty.
func clipRingX(r orb.Ring, off float64) orb.Ring {
	pts := make([]orb.Point, len(r))
	for i, p := range r {
		pts[i] = orb.Point{p[0] + off, p[1]}
	}
	pts = clipHalf(pts, -180, true)
	pts = clipHalf(pts, 180, false)
	if len(pts) < 3 {
		return nil
	}
	if pts[0] != pts[len(pts)-1] {
		pts = append(pts, pts[0])
	}
	return orb.Ring(pts)
}

// clipHalf keeps the part of a closed polygon ring with lon >= x (keepAbove)
// or lon <= x.
func clipHalf(pts []orb.Point, x float64, keepAbove bool) []orb.Point {
	in := func(p orb.Point) bool {
		if keepAbove {
			return p[0] >= x
		}
		return p[0] <= x
	}
	var out []orb.Point
	n := len(pts)
	for i := 0; i < n; i++ {
		cur, next := pts[i], pts[(i+1)%n]
		if in(cur) {
			out = append(out, cur)
		}
		if in(cur) != in(next) {
			t := (x - cur[0]) / (next[0] - cur[0])
			out = append(out, orb.Point{x, cur[1] + t*(next[1]-cur[1])})
		}
	}
	return out
}

// splitLineAntimeridian cuts a line where it jumps across the antimeridian
// (consecutive longitudes more than 180° apart).
func splitLineAntimeridian(ls orb.LineString) []orb.LineString {
	var out []orb.LineString
	cur := orb.LineString{}
	for i, p := range ls {
		if i > 0 {
			prev := ls[i-1]
			if d := p[0] - prev[0]; math.Abs(d) > 180 {
				// Unwrap p next to prev and cut at the meridian between them.
				edge := 180.0
				if d > 0 { // prev near -180, p near +180: crossing at -180
					edge = -180
				}
				uw := p[0] - 360*math.Copysign(1, d)
				t := (edge - prev[0]) / (uw - prev[0])
				lat := prev[1] + t*(p[1]-prev[1])
				cur = append(cur, orb.Point{edge, lat})
				if len(cur) >= 2 {
					out = append(out, cur)
				}
				cur = orb.LineString{{-edge, lat}}
			}
		}
		cur = append(cur, p)
	}
	if len(cur) >= 2 {
		out = append(out, cur)
	}
	return out
}
