package render

import "github.com/paulmach/orb"

// lineFills returns what a fill layer makes of a feature's lines: GL fills
// the ring each line closes (its outline closes it too), grouping the
// rings into polygons by their winding as it does a polygon's. A vector
// tile's lines (with the tile's buffer) are closed and cut to its square;
// GeoJSON lines are first cut into the tiles of the view with a quarter
// tile's buffer, as GL cuts them, and each piece closed in its tile.
func (lr *layerRender) lineFills(f *sourceFeature) []sourceFeature {
	fill := func(lines [][]orb.Point, square *box) (sourceFeature, bool) {
		var polys [][][]orb.Point
		for _, poly := range ringPolygons(lines) {
			var rings [][]orb.Point
			for k, r := range poly {
				c := clipRing(r, *square)
				if c == nil {
					if k == 0 {
						break // the outer ring is outside: holes and all
					}
					continue
				}
				rings = append(rings, c)
			}
			if len(rings) > 0 {
				polys = append(polys, rings)
			}
		}
		g := *f
		g.kind, g.parts, g.lines, g.polygons, g.clip = "Polygon", nil, nil, polys, square
		return g, len(polys) > 0
	}
	if f.clip != nil {
		if g, ok := fill(f.parts, f.clip); ok {
			return []sourceFeature{g}
		}
		return nil
	}
	var out []sourceFeature
	tiles := lr.viewTiles()
	for i := range tiles {
		tile := &tiles[i]
		qx, qy := (tile.x1-tile.x0)/4, (tile.y1-tile.y0)/4
		buffered := box{tile.x0 - qx, tile.y0 - qy, tile.x1 + qx, tile.y1 + qy}
		var pieces [][]orb.Point
		for _, l := range f.parts {
			pieces = append(pieces, clipLine(l, buffered)...)
		}
		if g, ok := fill(pieces, tile); ok {
			out = append(out, g)
		}
	}
	return out
}

// ringPolygons groups rings into polygons as GL does a feature's rings:
// the first ring with an area sets the outer rings' winding; each ring of
// that winding starts a polygon, and each of the other winding is a hole
// of the polygon before it (none before: dropped). Rings without an area
// are dropped.
func ringPolygons(rings [][]orb.Point) [][][]orb.Point {
	var out [][][]orb.Point
	outerSign := 0.0
	for _, r := range rings {
		a := ringArea(r)
		if a == 0 || a != a {
			continue
		}
		if outerSign == 0 {
			outerSign = a
		}
		if (a > 0) == (outerSign > 0) {
			out = append(out, [][]orb.Point{r})
		} else if len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], r)
		}
	}
	return out
}
