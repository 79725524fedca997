// Package mvt encodes and decodes Mapbox Vector Tiles (specification 2.1).
//
// The protocol buffer wire format is written and read by hand. Encoding goes
// through a LayerBuilder per layer (keys and values are deduplicated) and
// EncodeTile; decoding with Decode is lazy: it indexes the layers and their
// features, and keys, values, properties and geometry are decoded only when
// asked for. Geometry is always in integer tile coordinates (0..extent,
// y pointing down), as stored in the tile.
package mvt

import (
	"fmt"
	"math"
)

// DefaultExtent is the tile extent used when none is given.
const DefaultExtent = 4096

// GeomType is the geometry type of a feature.
type GeomType int

// Geometry types of the specification.
const (
	Unknown    GeomType = 0
	Point      GeomType = 1
	LineString GeomType = 2
	Polygon    GeomType = 3
)

func (t GeomType) String() string {
	switch t {
	case Point:
		return "Point"
	case LineString:
		return "LineString"
	case Polygon:
		return "Polygon"
	default:
		return "Unknown"
	}
}

// XY is a position in tile coordinates.
type XY struct{ X, Y int32 }

// Geometry is the geometry of one feature in tile coordinates. Exactly one of
// the slices matching Type is used.
type Geometry struct {
	Type GeomType
	// Points holds the positions of a Point (one) or MultiPoint geometry.
	Points []XY
	// Lines holds the parts of a LineString or MultiLineString.
	Lines [][]XY
	// Polygons holds polygons; each is a list of rings, the exterior first
	// and holes after it. Decoded rings are closed (last == first); the
	// encoder accepts closed or open rings.
	Polygons [][][]XY
}

// RingArea returns twice the signed area of a ring using the surveyor's
// formula. With the y axis pointing down (tile coordinates), a positive
// value means the ring is clockwise on screen: an exterior ring per the
// specification. Closing the ring is implicit.
func RingArea(ring []XY) int64 {
	n := len(ring)
	if n < 3 {
		return 0
	}
	var a int64
	for i := 0; i < n; i++ {
		p, q := ring[i], ring[(i+1)%n]
		a += int64(p.X)*int64(q.Y) - int64(q.X)*int64(p.Y)
	}
	return a
}

// Command ids.
const (
	cmdMoveTo    = 1
	cmdLineTo    = 2
	cmdClosePath = 7
)

func command(id, count int) uint32 { return uint32(id&7) | uint32(count)<<3 }

// maxCount is the largest command count (29 bits).
const maxCount = 1<<29 - 1

// geomEncoder writes geometry commands with a cursor.
type geomEncoder struct {
	out    []uint32
	cx, cy int32
	err    error
}

// delta appends the parameters moving the cursor to p.
func (e *geomEncoder) delta(p XY) {
	dx, dy := int64(p.X)-int64(e.cx), int64(p.Y)-int64(e.cy)
	if dx < math.MinInt32 || dx > math.MaxInt32 || dy < math.MinInt32 || dy > math.MaxInt32 {
		if e.err == nil {
			e.err = fmt.Errorf("move from (%d,%d) to (%d,%d) overflows 32 bits", e.cx, e.cy, p.X, p.Y)
		}
	}
	e.out = append(e.out, zigzag32(int32(dx)), zigzag32(int32(dy)))
	e.cx, e.cy = p.X, p.Y
}

func (e *geomEncoder) moveTo(p XY) {
	e.out = append(e.out, command(cmdMoveTo, 1))
	e.delta(p)
}

func (e *geomEncoder) lineTo(ps []XY) {
	e.out = append(e.out, command(cmdLineTo, len(ps)))
	for _, p := range ps {
		e.delta(p)
	}
}

// dedup removes consecutive repeated positions (and, for rings, a closing
// position equal to the first).
func dedup(ps []XY, ring bool) []XY {
	out := make([]XY, 0, len(ps))
	for i, p := range ps {
		if i > 0 && p == out[len(out)-1] {
			continue
		}
		out = append(out, p)
	}
	if ring {
		for len(out) > 1 && out[len(out)-1] == out[0] {
			out = out[:len(out)-1]
		}
	}
	return out
}

// encodeGeometry returns the command stream of g. It reports false when
// nothing of the geometry survives (empty, or every part degenerate).
func encodeGeometry(g Geometry) ([]uint32, bool, error) {
	var e geomEncoder
	switch g.Type {
	case Point:
		if len(g.Points) == 0 {
			return nil, false, nil
		}
		if len(g.Points) > maxCount {
			return nil, false, fmt.Errorf("too many points: %d", len(g.Points))
		}
		e.out = append(e.out, command(cmdMoveTo, len(g.Points)))
		for _, p := range g.Points {
			e.delta(p)
		}
	case LineString:
		for _, l := range g.Lines {
			l = dedup(l, false)
			if len(l) < 2 {
				continue
			}
			if len(l) > maxCount {
				return nil, false, fmt.Errorf("line too long: %d positions", len(l))
			}
			e.moveTo(l[0])
			e.lineTo(l[1:])
		}
	case Polygon:
		for _, poly := range g.Polygons {
			for i, ring := range poly {
				ring = dedup(ring, true)
				if len(ring) < 3 {
					if i == 0 {
						break // exterior collapsed: drop the polygon
					}
					continue
				}
				if len(ring) > maxCount {
					return nil, false, fmt.Errorf("ring too long: %d positions", len(ring))
				}
				a := RingArea(ring)
				if a == 0 {
					if i == 0 {
						break
					}
					continue
				}
				// Exterior rings must have positive area, holes negative.
				if (i == 0) != (a > 0) {
					ring = reversed(ring)
				}
				e.moveTo(ring[0])
				e.lineTo(ring[1:])
				e.out = append(e.out, command(cmdClosePath, 1))
			}
		}
	default:
		return nil, false, fmt.Errorf("unsupported geometry type %d", g.Type)
	}
	if e.err != nil {
		return nil, false, e.err
	}
	return e.out, len(e.out) > 0, nil
}

func reversed(ps []XY) []XY {
	out := make([]XY, len(ps))
	for i, p := range ps {
		out[len(ps)-1-i] = p
	}
	return out
}
