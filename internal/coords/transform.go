package coords

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// MaxPoints is the most coordinates a transform takes.
const MaxPoints = 50

// ErrNotTransformable tells that PROJ could not transform a point (a 400:
// the point is outside what the operation covers).
var ErrNotTransformable = errors.New("not transformable")

// Point is a coordinate: x and y in the CRS's GIS axis order (longitude or
// easting first), z 0 when not given.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// TransformRequest is a parsed transform.
type TransformRequest struct {
	Points         []Point
	Source, Target Ref
	// Ops are the operations to apply in order (none: PROJ chooses).
	Ops []Ref
}

// key identifies the transformer a request needs.
func (r TransformRequest) key() string {
	var b strings.Builder
	b.WriteString(r.Source.String())
	b.WriteByte('>')
	b.WriteString(r.Target.String())
	for _, o := range r.Ops {
		b.WriteByte('|')
		b.WriteString(o.String())
	}
	return b.String()
}

// TransformResult is the answer of a transform.
type TransformResult struct {
	Results  []Point `json:"results"`
	Strategy string  `json:"transformer_selection_strategy"`
}

// DefaultCRS is the source and target CRS when none is given: WGS 84.
const DefaultCRS = 4326

// ParseTransform parses the coordinates of
// /coordinates/transform/{coordinates}.json (unescaped, ".json" removed):
// "x,y[,z]" separated by ";", at most MaxPoints; and the parameters s_srs
// and t_srs (EPSG codes, 4326 when absent) and ops (EPSG operation codes
// separated by "|", optionally written EPSG:NNNN).
func ParseTransform(coords string, params url.Values) (TransformRequest, error) {
	var req TransformRequest
	if coords == "" {
		return req, invalid("no coordinates: give x,y[,z] pairs separated by ';'")
	}
	if n := strings.Count(coords, ";") + 1; n > MaxPoints {
		return req, invalid("%d coordinates: at most %d", n, MaxPoints)
	}
	req.Points = make([]Point, 0, strings.Count(coords, ";")+1)
	for i, rest, more := 0, coords, true; more; i++ {
		var s string
		s, rest, more = strings.Cut(rest, ";")
		n := strings.Count(s, ",") + 1
		if n < 2 || n > 3 {
			return req, invalid("coordinate %d (%.40q) is not x,y or x,y,z", i+1, s)
		}
		var v [3]float64
		for j := range n {
			var num string
			num, s, _ = strings.Cut(s, ",")
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || !finite(f) {
				return req, invalid("coordinate %d: %.40q is not a finite number", i+1, num)
			}
			v[j] = f
		}
		req.Points = append(req.Points, Point{X: v[0], Y: v[1], Z: v[2]})
	}
	var err error
	if req.Source, err = crsParam(params, "s_srs"); err != nil {
		return req, err
	}
	if req.Target, err = crsParam(params, "t_srs"); err != nil {
		return req, err
	}
	if vs, ok := params["ops"]; ok {
		if len(vs) != 1 {
			return req, invalid("ops is given %d times", len(vs))
		}
		for _, o := range strings.Split(vs[0], "|") {
			code, err := epsgCode(strings.TrimPrefix(strings.TrimPrefix(o, "EPSG:"), "epsg:"))
			if err != nil {
				return req, invalid("ops: %.40q is not an EPSG operation code", o)
			}
			req.Ops = append(req.Ops, Ref{"EPSG", Code(strconv.Itoa(code))})
			if len(req.Ops) > 8 {
				return req, invalid("ops: at most 8 operations")
			}
		}
	}
	return req, nil
}

func crsParam(q url.Values, name string) (Ref, error) {
	vs, ok := q[name]
	if !ok {
		return Ref{"EPSG", Code(strconv.Itoa(DefaultCRS))}, nil
	}
	if len(vs) != 1 {
		return Ref{}, invalid("%s is given %d times", name, len(vs))
	}
	code, err := epsgCode(vs[0])
	if err != nil {
		return Ref{}, invalid("%s is an EPSG code (an integer), not %.40q", name, vs[0])
	}
	return Ref{"EPSG", Code(strconv.Itoa(code))}, nil
}

// epsgCode parses a positive integer code (EPSG codes are below 2^31).
func epsgCode(s string) (int, error) {
	if !isInteger(s) {
		return 0, errors.New("not a code")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("code out of range: %s", s)
	}
	return n, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
