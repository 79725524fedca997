package layers

import (
	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

// lineFills returns what a fill layer makes of a feature's lines: GL fills
// the ring each line closes (its outline closes it too), grouping the
// rings into polygons by their winding as it does a polygon's. A vector
// tile's lines (with the tile's buffer) are closed and cut to its square;
// GeoJSON lines are first cut into the tiles of the view with a quarter
// tile's buffer, as GL cuts them, and each piece closed in its tile.
func (lr *Painter) lineFills(f *scene.Feature) []scene.Feature {
	fill := func(lines [][]orb.Point, square *scene.Box) (scene.Feature, bool) {
		var polys [][][]orb.Point
		for _, poly := range ringPolygons(lines) {
			var rings [][]orb.Point
			for k, r := range poly {
				c := scene.ClipRing(r, *square)
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
		g.Kind, g.Parts, g.Lines, g.Polygons, g.Clip = "Polygon", nil, nil, polys, square
		return g, len(polys) > 0
	}
	if f.Clip != nil {
		if g, ok := fill(f.Parts, f.Clip); ok {
			return []scene.Feature{g}
		}
		return nil
	}
	var out []scene.Feature
	tiles := lr.viewTiles()
	for i := range tiles {
		tile := &tiles[i]
		qx, qy := (tile.X1-tile.X0)/4, (tile.Y1-tile.Y0)/4
		buffered := scene.Box{X0: tile.X0 - qx, Y0: tile.Y0 - qy, X1: tile.X1 + qx, Y1: tile.Y1 + qy}
		var pieces [][]orb.Point
		for _, l := range f.Parts {
			pieces = append(pieces, scene.ClipLine(l, buffered)...)
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
		a := scene.RingArea(r)
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
