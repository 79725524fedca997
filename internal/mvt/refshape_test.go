package mvt

import (
	"errors"
	"fmt"
	"math"
)

// refGeomDecoder walks a command stream.
type refGeomDecoder struct {
	cmds   []uint32
	pos    int
	cx, cy int64
}

func (d *refGeomDecoder) command() (id, count int, err error) {
	c := d.cmds[d.pos]
	d.pos++
	id, count = int(c&7), int(c>>3)
	if id != cmdMoveTo && id != cmdLineTo && id != cmdClosePath {
		return 0, 0, fmt.Errorf("unknown command %d at %d", id, d.pos-1)
	}
	if id != cmdClosePath && count*2 > len(d.cmds)-d.pos {
		return 0, 0, fmt.Errorf("command count %d exceeds remaining parameters at %d", count, d.pos-1)
	}
	return id, count, nil
}

func (d *refGeomDecoder) point() (XY, error) {
	dx, dy := unzigzag32(d.cmds[d.pos]), unzigzag32(d.cmds[d.pos+1])
	d.pos += 2
	d.cx += int64(dx)
	d.cy += int64(dy)
	if d.cx < math.MinInt32 || d.cx > math.MaxInt32 || d.cy < math.MinInt32 || d.cy > math.MaxInt32 {
		return XY{}, errors.New("cursor overflows 32 bits")
	}
	return XY{int32(d.cx), int32(d.cy)}, nil
}

// points appends count positions to xy.
func (d *refGeomDecoder) points(xy []XY, count int) ([]XY, error) {
	for range count {
		p, err := d.point()
		if err != nil {
			return xy, err
		}
		xy = append(xy, p)
	}
	return xy, nil
}

// refDecodeShape decodes an unpacked command stream into s: the decoder
// of unpacked integers the decoder of packed bytes is held to.
func refDecodeShape(t GeomType, cmds []uint32, s *Shape) error {
	s.Type = t
	s.XY, s.Ends, s.Polys = s.XY[:0], s.Ends[:0], s.Polys[:0]
	d := refGeomDecoder{cmds: cmds}
	switch t {
	case Point:
		id, count, err := d.firstCommand()
		if err != nil {
			return err
		}
		if id != cmdMoveTo || count == 0 {
			return fmt.Errorf("point geometry must start with MoveTo with count > 0, got command %d count %d", id, count)
		}
		if s.XY, err = d.points(s.XY, count); err != nil {
			return err
		}
		if d.pos != len(cmds) {
			return fmt.Errorf("point geometry has %d trailing integers", len(cmds)-d.pos)
		}
		s.Ends = append(s.Ends, len(s.XY))
	case LineString:
		for d.pos < len(cmds) {
			start, err := d.moveTo()
			if err != nil {
				return err
			}
			if d.pos >= len(cmds) {
				return errors.New("line string ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return err
			}
			if id != cmdLineTo || count == 0 {
				return fmt.Errorf("expected LineTo with count > 0, got command %d count %d", id, count)
			}
			s.XY = append(s.XY, start)
			if s.XY, err = d.points(s.XY, count); err != nil {
				return err
			}
			s.Ends = append(s.Ends, len(s.XY))
		}
		if len(s.Ends) == 0 {
			return errors.New("empty line string geometry")
		}
	case Polygon:
		sign := int64(0) // sign of exterior rings, from the first ring
		for d.pos < len(cmds) {
			start, err := d.moveTo()
			if err != nil {
				return err
			}
			if d.pos >= len(cmds) {
				return errors.New("polygon ring ends after MoveTo")
			}
			id, count, err := d.command()
			if err != nil {
				return err
			}
			if id != cmdLineTo || count < 2 {
				return fmt.Errorf("expected LineTo with count >= 2 in ring, got command %d count %d", id, count)
			}
			first := len(s.XY)
			s.XY = append(s.XY, start)
			if s.XY, err = d.points(s.XY, count); err != nil {
				return err
			}
			if d.pos >= len(cmds) {
				return errors.New("polygon ring is not closed with ClosePath")
			}
			id, count, err = d.command()
			if err != nil {
				return err
			}
			if id != cmdClosePath || count != 1 {
				return fmt.Errorf("expected ClosePath with count 1, got command %d count %d", id, count)
			}
			a := RingArea(s.XY[first:])
			if a == 0 {
				s.XY = s.XY[:first] // degenerate ring: no area to draw
				continue
			}
			s.XY = append(s.XY, start)
			s.Ends = append(s.Ends, len(s.XY))
			if sign == 0 {
				sign = a
			}
			if (a > 0) == (sign > 0) {
				s.Polys = append(s.Polys, len(s.Ends))
			} else {
				s.Polys[len(s.Polys)-1] = len(s.Ends)
			}
		}
	default:
		return fmt.Errorf("unknown geometry type %d", t)
	}
	return nil
}

func (d *refGeomDecoder) firstCommand() (int, int, error) {
	if d.pos >= len(d.cmds) {
		return 0, 0, errors.New("empty geometry")
	}
	return d.command()
}

func (d *refGeomDecoder) moveTo() (XY, error) {
	id, count, err := d.command()
	if err != nil {
		return XY{}, err
	}
	if id != cmdMoveTo || count != 1 {
		return XY{}, fmt.Errorf("expected MoveTo with count 1, got command %d count %d", id, count)
	}
	return d.point()
}
