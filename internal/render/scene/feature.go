package scene

import (
	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Visible tells whether a layer shows at zoom.
func Visible(l *style.Layer, zoom float64) bool {
	if l.Layout != nil {
		if v, ok := l.Layout.Get("visibility"); ok && v == "none" {
			return false
		}
	}
	if l.MinZoom != nil && zoom < *l.MinZoom {
		return false
	}
	if l.MaxZoom != nil && zoom >= *l.MaxZoom {
		return false
	}
	return true
}

// Feature is a feature ready to draw: its properties for the
// expressions and its geometry in world coordinates.
type Feature struct {
	Expr  expr.Feature // *expr.MapFeature, or *tileFeature for vector tiles
	Kind  string       // Point, LineString, Polygon
	Parts [][]orb.Point
	// Polygons groups rings of a polygon feature, outer ring first.
	Polygons [][][]orb.Point
	// Clip is the tile square the polygons were clipped to (nil for
	// GeoJSON): edges along it are cuts, not the polygon's own edges.
	Clip *Box
	// Unclipped holds a vector tile's polygons as the tile has them
	// (buffer included), for drawing their rings as lines.
	Unclipped [][][]orb.Point
	// Tile is the [y, x, z] of the vector tile the feature came from, z
	// -1 for GeoJSON (symbol placement goes through tiles in GL's order).
	Tile [3]int
	// Lines are a tile's lines before clipping, with the tile's buffer
	// (symbols along lines are laid out on them); nil for GeoJSON.
	Lines [][]orb.Point
	// WholePolygons are a tile's polygons before clipping (symbols go to
	// their poles of inaccessibility); nil for GeoJSON.
	WholePolygons [][][]orb.Point
	// Metrics marks the features of a GeoJSON source with lineMetrics:
	// their lines can be coloured by line-gradient.
	Metrics bool
}

// Runs are the features a layer draws, as the runs of its tiles'
// features that hold them (one run for GeoJSON), in tile order: read where
// the tiles keep them, without a copy.
type Runs [][]Feature

// Count returns the number of features.
func (r Runs) Count() int {
	n := 0
	for _, run := range r {
		n += len(run)
	}
	return n
}

// At returns the i-th feature, counted across the runs.
func (r Runs) At(i int) *Feature {
	for _, run := range r {
		if i < len(run) {
			return &run[i]
		}
		i -= len(run)
	}
	return nil
}

// Flat returns the features in one slice: the run itself when there is
// one, else a copy.
func (r Runs) Flat() []Feature {
	switch len(r) {
	case 0:
		return nil
	case 1:
		return r[0]
	}
	out := make([]Feature, 0, r.Count())
	for _, run := range r {
		out = append(out, run...)
	}
	return out
}
