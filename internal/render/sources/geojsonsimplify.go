package sources

import (
	"math"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
)

// GL cuts GeoJSON into tiles simplified for their zoom: each vertex of a
// line or ring gets an importance once, the squared distance at which a
// Douglas-Peucker pass over the whole line keeps it (measured in world
// units, down to the tolerance of the source's maxzoom), and a tile of zoom
// z keeps the vertices more important than that zoom's tolerance. Lines
// shorter than the tolerance and rings of less area than its square are
// left out. The tolerance is the source's `tolerance` (0.375 by default)
// in pixels of a 512-pixel tile, that is 16 of GL's 8192 units a tile.

// defaultGeoJSONTolerance is a GeoJSON source's tolerance when it gives none.
const defaultGeoJSONTolerance = 0.375

// simplifier filters the vertices of a source's lines for one zoom.
type simplifier struct {
	sqMax float64 // squared tolerance at the source's maxzoom, world units
	tol   float64 // tolerance at the zoom drawn, world units (0: keep all)
}

// newSimplifier returns the simplifier of a source with the given
// tolerance (pixels of a 512-pixel tile) and maxzoom, drawn from tiles of
// zoom z.
func newSimplifier(tolerance float64, maxZoom, z int) *simplifier {
	units := tolerance * GeoJSONExtent / 512 // tile units
	at := func(zoom int) float64 { return units / (math.Exp2(float64(zoom)) * GeoJSONExtent) }
	s := &simplifier{sqMax: at(maxZoom) * at(maxZoom)}
	if z < maxZoom {
		s.tol = at(z)
	}
	return s
}

// line returns the vertices of a line (or ring) kept at the zoom, nil when
// the whole line is too small to draw there.
func (s *simplifier) line(pts []orb.Point, ring bool) []orb.Point {
	if s == nil || s.tol == 0 || len(pts) < 3 {
		return pts
	}
	if ring {
		if math.Abs(scene.RingArea(pts))/2 < s.tol*s.tol { // RingArea is twice the area
			return nil
		}
	} else if scene.LineLength(pts) < s.tol {
		return nil
	}
	imp := make([]float64, len(pts))
	imp[0], imp[len(pts)-1] = 1, 1
	importance(pts, imp, 0, len(pts)-1, s.sqMax)
	sq := s.tol * s.tol
	out := make([]orb.Point, 0, len(pts))
	for i, p := range pts {
		if imp[i] > sq {
			out = append(out, p)
		}
	}
	return out
}

// importance gives the vertices strictly between first and last their
// Douglas-Peucker importance: the farthest from the segment first-last
// (the one nearest the middle among equals) gets its squared distance,
// when that exceeds sqTol, and each side is done again. Vertices never
// picked keep 0.
func importance(pts []orb.Point, imp []float64, first, last int, sqTol float64) {
	for last-first > 1 {
		best, bestD := -1, sqTol
		mid := first + (last-first)/2
		for i := first + 1; i < last; i++ {
			d := geo.SegmentDist2(pts[i], pts[first], pts[last])
			if d > bestD || d == bestD && best >= 0 && absInt(i-mid) < absInt(best-mid) {
				best, bestD = i, d
			}
		}
		if best < 0 {
			return
		}
		imp[best] = bestD
		// Recurse on the shorter side, loop on the longer.
		if best-first < last-best {
			importance(pts, imp, first, best, sqTol)
			first = best
		} else {
			importance(pts, imp, best, last, sqTol)
			last = best
		}
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// GeoJSONTileZoom is the zoom of the tiles GL cuts a GeoJSON source into
// for a view at zoom: the zoom's floor, up to the source's maxzoom
// (default 18), past which the deepest tiles are overzoomed.
func GeoJSONTileZoom(st *style.Style, source string, zoom float64) float64 {
	maxZoom := 18.0
	if src := st.SourceByKey[source]; src != nil && src.MaxZoom != nil {
		maxZoom = *src.MaxZoom
	}
	return math.Max(0, math.Min(maxZoom, math.Floor(zoom)))
}

// defaultGeoJSONBuffer is the style specification's default buffer of a
// GeoJSON source: how far (in 1/512 of a tile) beyond each side of a tile
// its cut lines and rings reach.
const defaultGeoJSONBuffer = 128

// GeoJSONCut is how GL cuts a GeoJSON source into tiles: its buffer (a
// share of the tile) and GeoJSONExtent's grid.
func GeoJSONCut(src *style.Source) scene.Cut {
	b := float64(defaultGeoJSONBuffer)
	if src != nil && src.Raw != nil {
		if v, ok := src.Raw.Get("buffer"); ok {
			if n, ok := v.(float64); ok && n >= 0 {
				b = n
			}
		}
	}
	return scene.Cut{Buffer: b / 512, Grid: GeoJSONExtent}
}
