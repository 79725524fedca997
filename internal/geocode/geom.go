package geocode

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/paulmach/orb"
)

// Geometry blob encoding: a kind byte, then uvarint counts and positions as
// zigzag varint deltas of 1e-7 degree integers (delta chained through the
// whole geometry).
const (
	gPoint byte = iota + 1
	gLineString
	gPolygon
	gMultiPoint
	gMultiLineString
	gMultiPolygon
)

const e7 = 1e7

func toE7(v float64) int32 { return int32(math.Round(v * e7)) }
func fromE7(v int32) float64 {
	return float64(v) / e7
}

type geomEncoder struct {
	b            []byte
	lastX, lastY int64
}

func (e *geomEncoder) pos(p orb.Point) {
	x, y := int64(toE7(clampLon(p[0]))), int64(toE7(clampLat(p[1])))
	e.b = binary.AppendVarint(e.b, x-e.lastX)
	e.b = binary.AppendVarint(e.b, y-e.lastY)
	e.lastX, e.lastY = x, y
}

func (e *geomEncoder) line(ps []orb.Point) {
	e.b = binary.AppendUvarint(e.b, uint64(len(ps)))
	for _, p := range ps {
		e.pos(p)
	}
}

func (e *geomEncoder) rings(rs []orb.Ring) {
	e.b = binary.AppendUvarint(e.b, uint64(len(rs)))
	for _, r := range rs {
		e.line(r)
	}
}

func clampLon(v float64) float64 { return math.Max(-180, math.Min(180, v)) }
func clampLat(v float64) float64 { return math.Max(-90, math.Min(90, v)) }

// encodeGeometry appends g to dst; unsupported kinds encode nothing.
func encodeGeometry(dst []byte, g orb.Geometry) []byte {
	e := geomEncoder{b: dst}
	switch g := g.(type) {
	case orb.Point:
		e.b = append(e.b, gPoint)
		e.pos(g)
	case orb.LineString:
		e.b = append(e.b, gLineString)
		e.line(g)
	case orb.Polygon:
		e.b = append(e.b, gPolygon)
		e.rings(g)
	case orb.MultiPoint:
		e.b = append(e.b, gMultiPoint)
		e.line(g)
	case orb.MultiLineString:
		e.b = append(e.b, gMultiLineString)
		e.b = binary.AppendUvarint(e.b, uint64(len(g)))
		for _, l := range g {
			e.line(l)
		}
	case orb.MultiPolygon:
		e.b = append(e.b, gMultiPolygon)
		e.b = binary.AppendUvarint(e.b, uint64(len(g)))
		for _, p := range g {
			e.rings(p)
		}
	}
	return e.b
}

var errGeom = errors.New("corrupt geometry")

type geomDecoder struct {
	b            []byte
	lastX, lastY int64
}

func (d *geomDecoder) count() (int, error) {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)) { // every element takes at least one byte
		return 0, errGeom
	}
	d.b = d.b[k:]
	return int(n), nil
}

func (d *geomDecoder) pos() (orb.Point, error) {
	dx, k := binary.Varint(d.b)
	if k <= 0 {
		return orb.Point{}, errGeom
	}
	d.b = d.b[k:]
	dy, k := binary.Varint(d.b)
	if k <= 0 {
		return orb.Point{}, errGeom
	}
	d.b = d.b[k:]
	d.lastX += dx
	d.lastY += dy
	return orb.Point{float64(d.lastX) / e7, float64(d.lastY) / e7}, nil
}

func (d *geomDecoder) line() ([]orb.Point, error) {
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	ps := make([]orb.Point, n)
	for i := range ps {
		if ps[i], err = d.pos(); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

func (d *geomDecoder) rings() ([]orb.Ring, error) {
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	rs := make([]orb.Ring, n)
	for i := range rs {
		l, err := d.line()
		if err != nil {
			return nil, err
		}
		rs[i] = l
	}
	return rs, nil
}

// decodeGeometry decodes one encoded geometry; nil for an empty blob.
func decodeGeometry(b []byte) (orb.Geometry, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := geomDecoder{b: b[1:]}
	switch b[0] {
	case gPoint:
		return d.pos()
	case gLineString:
		l, err := d.line()
		return orb.LineString(l), err
	case gMultiPoint:
		l, err := d.line()
		return orb.MultiPoint(l), err
	case gPolygon:
		r, err := d.rings()
		return orb.Polygon(r), err
	case gMultiLineString:
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		m := make(orb.MultiLineString, n)
		for i := range m {
			l, err := d.line()
			if err != nil {
				return nil, err
			}
			m[i] = l
		}
		return m, nil
	case gMultiPolygon:
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		m := make(orb.MultiPolygon, n)
		for i := range m {
			r, err := d.rings()
			if err != nil {
				return nil, err
			}
			m[i] = r
		}
		return m, nil
	}
	return nil, errGeom
}
