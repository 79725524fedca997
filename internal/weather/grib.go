// Package weather turns GRIB2 model output into the hosted weather
// service: one web mercator raster tileset per variable and keyframe, each
// value packed into the red and green channels of a PNG between the
// variable's decoding minimum and maximum, and the catalog of the latest
// ingested run of every variable that /weather/latest.json serves.
//
// GRIB2 messages are decoded by github.com/nilsmagnus/grib; this package
// first walks every message's sections itself and refuses, with a clear
// error, what that library cannot read or would read unboundedly: other
// editions, grids other than regular latitude/longitude (template 3.0),
// packings other than simple or complex (templates 5.0, 5.2, 5.3; JPEG2000,
// 5.40, is refused), bitmaps, and grids larger than MaxPoints.
package weather

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nilsmagnus/grib/griblib"
)

// Bounds on what is read.
const (
	// MaxFileBytes is the largest GRIB2 file read.
	MaxFileBytes = 1 << 30
	// MaxPoints is the largest grid (points per message) read: 8 M, a
	// little more than a global 0.1 degree grid.
	MaxPoints = 1 << 23
	// MaxMessages is the most messages read from one file.
	MaxMessages = 10000
)

// ErrFormat is wrapped by every error about the content of a GRIB file.
var ErrFormat = errors.New("grib2")

// Grid is a regular latitude/longitude grid (GRIB2 template 3.0) in
// degrees: point (i, j) lies at longitude Lon1+i*Di and latitude
// Lat1-j*Dj (Lat1+j*Dj when SouthToNorth); values are stored row by row,
// i fastest.
type Grid struct {
	Ni, Nj       int
	Lat1, Lon1   float64
	Di, Dj       float64
	SouthToNorth bool
}

// Global tells whether the grid wraps round the world in longitude.
func (g Grid) Global() bool { return math.Abs(float64(g.Ni)*g.Di-360) < 1e-6 }

// LonLat returns the position of grid point (i, j).
func (g Grid) LonLat(i, j int) (lon, lat float64) {
	lon = g.Lon1 + float64(i)*g.Di
	if g.SouthToNorth {
		return lon, g.Lat1 + float64(j)*g.Dj
	}
	return lon, g.Lat1 - float64(j)*g.Dj
}

// Field is one decoded GRIB2 message: a parameter at one level and time.
type Field struct {
	// Discipline, Category and Number identify the parameter (GRIB2 code
	// tables 0.0, 4.1 and 4.2).
	Discipline, Category, Number int
	// SurfaceType, SurfaceValue: the first fixed surface (table 4.5) and
	// its value in the table's unit.
	SurfaceType  int
	SurfaceValue float64
	// Surface2Type and Surface2Value: the second fixed surface of a layer
	// (type 255: none).
	Surface2Type  int
	Surface2Value float64
	// Centre is the originating centre (table C-11; 7 is NCEP).
	Centre int
	// Process is the generating process (the centre's model number).
	Process int
	// Reference is the model run's reference time, Valid the time the
	// values are for.
	Reference, Valid time.Time
	Grid             Grid
	// Values holds Ni*Nj values, row by row.
	Values []float64
	// Label names a field read from NetCDF (nil for GRIB2 fields).
	Label *Label
}

// At returns the value at grid point (i, j).
func (f *Field) At(i, j int) float64 { return f.Values[j*f.Grid.Ni+i] }

// Skipped is a message left out of a file, and why.
type Skipped struct {
	Index  int
	Reason string
}

// ReadGRIB2 decodes the GRIB2 messages of data. Messages this package
// cannot decode (see the package comment) are listed in skipped; an error
// means the file itself is broken.
func ReadGRIB2(data []byte) (fields []*Field, skipped []Skipped, err error) {
	if len(data) > MaxFileBytes {
		return nil, nil, fmt.Errorf("%w: the file is larger than %d bytes", ErrFormat, MaxFileBytes)
	}
	off := 0
	for n := 0; ; n++ {
		start := bytes.Index(data[off:], []byte("GRIB"))
		if start < 0 {
			break
		}
		off += start
		if n >= MaxMessages {
			return nil, nil, fmt.Errorf("%w: more than %d messages", ErrFormat, MaxMessages)
		}
		if len(data)-off < 16 {
			return nil, nil, fmt.Errorf("%w: message %d at byte %d: truncated indicator section", ErrFormat, n, off)
		}
		if ed := data[off+7]; ed != 2 {
			return nil, nil, fmt.Errorf("%w: message %d at byte %d: GRIB edition %d (only edition 2 is read)", ErrFormat, n, off, ed)
		}
		length := binary.BigEndian.Uint64(data[off+8:])
		if length < 16+4 || length > uint64(len(data)-off) {
			return nil, nil, fmt.Errorf("%w: message %d at byte %d: length %d does not fit the file's %d bytes", ErrFormat, n, off, length, len(data)-off)
		}
		msg := data[off : off+int(length)]
		off += int(length)
		if !bytes.HasSuffix(msg, []byte("7777")) {
			return nil, nil, fmt.Errorf("%w: message %d: no end section (7777)", ErrFormat, n)
		}
		if reason := checkMessage(msg); reason != "" {
			skipped = append(skipped, Skipped{Index: n, Reason: reason})
			continue
		}
		f, err := decode(msg)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: message %d: %v", ErrFormat, n, err)
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 && len(skipped) == 0 {
		return nil, nil, fmt.Errorf("%w: no GRIB message in the file", ErrFormat)
	}
	return fields, skipped, nil
}

// checkMessage walks the sections of one message (indicator section to
// end section) and returns why it cannot be decoded, or "".
func checkMessage(msg []byte) string {
	pos, end := 16, len(msg)-4
	var points, ni, nj uint64
	var seen [8]int
	for pos < end {
		if end-pos < 5 {
			return fmt.Sprintf("truncated section head at byte %d", pos)
		}
		slen := uint64(binary.BigEndian.Uint32(msg[pos:]))
		num := msg[pos+4]
		if slen < 5 || slen > uint64(end-pos) {
			return fmt.Sprintf("section %d at byte %d: length %d does not fit the message", num, pos, slen)
		}
		if num < 1 || num > 7 {
			return fmt.Sprintf("unknown section number %d at byte %d", num, pos)
		}
		seen[num]++
		s := msg[pos : pos+int(slen)]
		switch num {
		case 1:
			if len(s) < 21 {
				return "identification section shorter than 21 bytes"
			}
		case 3:
			if len(s) < 72 {
				return "grid definition section too short for template 3.0"
			}
			if s[5] != 0 {
				return fmt.Sprintf("grid definition source %d (only code table 3.1 grids are read)", s[5])
			}
			if t := binary.BigEndian.Uint16(s[12:]); t != 0 {
				return fmt.Sprintf("grid template 3.%d (only regular latitude/longitude, 3.0, is read)", t)
			}
			if s[10] != 0 {
				return "grid with a list of points per row (quasi-regular grids are not read)"
			}
			points = uint64(binary.BigEndian.Uint32(s[6:]))
			ni, nj = uint64(binary.BigEndian.Uint32(s[30:])), uint64(binary.BigEndian.Uint32(s[34:]))
			if ni == 0 || nj == 0 || ni*nj != points || points > MaxPoints {
				return fmt.Sprintf("grid of %dx%d points (%d declared): empty, inconsistent or more than %d", ni, nj, points, MaxPoints)
			}
			if ba, sub := binary.BigEndian.Uint32(s[38:]), binary.BigEndian.Uint32(s[42:]); !(ba == 0 || ba == 1 && sub == 1000000) {
				return fmt.Sprintf("basic angle %d/%d (only micro-degrees are read)", ba, sub)
			}
			if scan := s[71]; scan&0xb0 != 0 {
				return fmt.Sprintf("scanning mode %#x (only west to east rows, i consecutive, are read)", scan)
			}
		case 4:
			if len(s) < 34 {
				return "product definition section too short for template 4.0"
			}
			if t := binary.BigEndian.Uint16(s[7:]); t != 0 {
				return fmt.Sprintf("product template 4.%d (only 4.0, an analysis or forecast at a point in time, is read)", t)
			}
		case 5:
			if len(s) < 11 {
				return "data representation section too short"
			}
			if n := uint64(binary.BigEndian.Uint32(s[5:])); n != points {
				return fmt.Sprintf("%d packed values for a grid of %d points", n, points)
			}
			t := binary.BigEndian.Uint16(s[9:])
			if len(s) < 20 || s[19] > 32 {
				return "data representation section too short, or more than 32 bits per value"
			}
			switch t {
			case 0:
			case 2, 3:
				if len(s) < 47 || t == 3 && len(s) < 49 {
					return fmt.Sprintf("data template 5.%d: section too short", t)
				}
				if ng := uint64(binary.BigEndian.Uint32(s[31:])); ng == 0 || ng > points {
					return fmt.Sprintf("complex packing with %d groups for %d points", ng, points)
				}
				if t == 3 && (s[47] < 1 || s[47] > 2 || s[48] > 4) {
					return fmt.Sprintf("spatial differencing of order %d with %d-byte descriptors is not read", s[47], s[48])
				}
			case 40:
				return "JPEG2000 packing (template 5.40) is not read"
			default:
				return fmt.Sprintf("data template 5.%d (only simple and complex packing, 5.0, 5.2 and 5.3, are read)", t)
			}
		case 6:
			if len(s) < 6 || s[5] != 255 {
				return "a bitmap (missing values) is present: not read"
			}
		}
		pos += int(slen)
	}
	if pos != end {
		return "sections overrun the end section"
	}
	for num := 1; num <= 7; num++ {
		if num == 2 {
			continue
		}
		if seen[num] != 1 {
			return fmt.Sprintf("section %d appears %d times (one field per message is read)", num, seen[num])
		}
	}
	return ""
}

// decode runs the GRIB library on one checked message and takes out its
// field. The library panics on some malformed input: a panic is an error.
func decode(msg []byte) (f *Field, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the decoder failed: %v", r)
		}
	}()
	m, err := griblib.ReadMessage(bytes.NewReader(msg))
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	g, ok := m.Section3.Definition.(*griblib.Grid0)
	if !ok {
		return nil, fmt.Errorf("grid definition %T is not template 3.0", m.Section3.Definition)
	}
	grid := Grid{
		Ni: int(g.Ni), Nj: int(g.Nj),
		Lat1: float64(signMagnitude(g.La1)) / 1e6, Lon1: float64(signMagnitude(g.Lo1)) / 1e6,
		Di: float64(uint32(g.Di)) / 1e6, Dj: float64(uint32(g.Dj)) / 1e6,
		SouthToNorth: g.ScanningMode&0x40 != 0,
	}
	if !(grid.Di > 0 && grid.Dj > 0) || grid.Lat1 < -90 || grid.Lat1 > 90 || float64(grid.Ni-1)*grid.Di > 360+1e-6 {
		return nil, fmt.Errorf("grid %dx%d from %g,%g by %g,%g degrees is not a grid on the globe", grid.Ni, grid.Nj, grid.Lon1, grid.Lat1, grid.Di, grid.Dj)
	}
	lastLat := grid.Lat1 - float64(grid.Nj-1)*grid.Dj
	if grid.SouthToNorth {
		lastLat = grid.Lat1 + float64(grid.Nj-1)*grid.Dj
	}
	if lastLat < -90-1e-6 || lastLat > 90+1e-6 {
		return nil, fmt.Errorf("grid rows run to latitude %g", lastLat)
	}
	vals := m.Data()
	if len(vals) != grid.Ni*grid.Nj {
		return nil, fmt.Errorf("%d values decoded for a %dx%d grid", len(vals), grid.Ni, grid.Nj)
	}
	p := m.Section4.ProductDefinitionTemplate
	rt := m.Section1.ReferenceTime
	ref := time.Date(int(rt.Year), time.Month(rt.Month), int(rt.Day), int(rt.Hour), int(rt.Minute), int(rt.Second), 0, time.UTC)
	if rt.Month < 1 || rt.Month > 12 || rt.Day < 1 || rt.Day > 31 || rt.Hour > 23 || rt.Minute > 59 || rt.Second > 60 || ref.Day() != int(rt.Day) {
		return nil, fmt.Errorf("reference time %d-%d-%d %d:%d:%d is not a date", rt.Year, rt.Month, rt.Day, rt.Hour, rt.Minute, rt.Second)
	}
	unit, ok := timeUnits[p.TimeUnitIndicator]
	if !ok {
		return nil, fmt.Errorf("forecast time unit %d (code table 4.4) is not read", p.TimeUnitIndicator)
	}
	if p.ForecastTime > 1<<20 {
		return nil, fmt.Errorf("forecast time %d is out of range", p.ForecastTime)
	}
	return &Field{
		Discipline: int(m.Section0.Discipline), Category: int(p.ParameterCategory), Number: int(p.ParameterNumber),
		SurfaceType: int(p.FirstSurface.Type), SurfaceValue: scaled(p.FirstSurface.Scale, p.FirstSurface.Value),
		Surface2Type: int(p.SecondSurface.Type), Surface2Value: scaled(p.SecondSurface.Scale, p.SecondSurface.Value),
		Centre: int(m.Section1.OriginatingCenter), Process: int(p.AnalysisProcess),
		Reference: ref, Valid: ref.Add(time.Duration(p.ForecastTime) * unit),
		Grid: grid, Values: vals,
	}, nil
}

// timeUnits are the forecast time units of code table 4.4 that are read.
var timeUnits = map[uint8]time.Duration{
	0: time.Minute, 1: time.Hour, 2: 24 * time.Hour, 10: 3 * time.Hour, 11: 6 * time.Hour, 12: 12 * time.Hour, 13: time.Second,
}

// signMagnitude reads GRIB2's signed integers (the high bit is the sign),
// which the library hands over as two's complement bits.
func signMagnitude(v int32) int32 {
	if v < 0 {
		return -int32(uint32(v) & 0x7fffffff)
	}
	return v
}

// scaled is a GRIB2 scaled value: value / 10^scale, the scale factor
// being a sign-magnitude byte.
func scaled(scale uint8, value uint32) float64 {
	s := int(scale & 0x7f)
	if scale&0x80 != 0 {
		s = -s
	}
	if value == math.MaxUint32 {
		return math.NaN() // missing
	}
	return float64(value) / math.Pow(10, float64(s))
}
