package staticmap

import (
	"fmt"

	"github.com/paulmach/orb"
)

// maxPolylinePoints bounds the points of one encoded polyline.
const maxPolylinePoints = MaxPoints

// DecodePolyline reads an encoded polyline (precision 5: each value is a
// zig-zag, base-32, 5-bit-chunk varint of the coordinate times 1e5, offset
// by 63 into printable ASCII, latitude first, each point a delta from the
// one before). It returns the points as lon, lat.
func DecodePolyline(s string) ([]orb.Point, error) {
	var pts []orb.Point
	var lat, lon int64
	i := 0
	next := func() (int64, error) {
		var result uint64
		shift := uint(0)
		for {
			if i >= len(s) {
				return 0, fmt.Errorf("the encoded polyline ends inside a value (at character %d)", i+1)
			}
			c := s[i]
			if c < 63 || c > 126 {
				return 0, fmt.Errorf("the encoded polyline has the invalid character %q at position %d", c, i+1)
			}
			i++
			b := uint64(c - 63)
			if shift > 60 {
				return 0, fmt.Errorf("the encoded polyline has a value too long at position %d", i)
			}
			result |= (b & 0x1f) << shift
			shift += 5
			if b < 0x20 {
				break
			}
		}
		v := int64(result >> 1)
		if result&1 != 0 {
			v = ^v
		}
		return v, nil
	}
	for i < len(s) {
		dlat, err := next()
		if err != nil {
			return nil, err
		}
		dlon, err := next()
		if err != nil {
			return nil, err
		}
		lat += dlat
		lon += dlon
		if len(pts) >= maxPolylinePoints {
			return nil, fmt.Errorf("the encoded polyline has more than %d points", maxPolylinePoints)
		}
		p := orb.Point{float64(lon) / 1e5, float64(lat) / 1e5}
		if err := checkLonLat(p); err != nil {
			return nil, fmt.Errorf("point %d of the encoded polyline: %w", len(pts)+1, err)
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// EncodePolyline writes points (lon, lat) as an encoded polyline of
// precision 5: the inverse of DecodePolyline.
func EncodePolyline(pts []orb.Point) string {
	var out []byte
	var plat, plon int64
	put := func(v int64) {
		u := uint64(v) << 1
		if v < 0 {
			u = ^u
		}
		for u >= 0x20 {
			out = append(out, byte(0x20|(u&0x1f))+63)
			u >>= 5
		}
		out = append(out, byte(u)+63)
	}
	for _, p := range pts {
		lat, lon := roundE5(p[1]), roundE5(p[0])
		put(lat - plat)
		put(lon - plon)
		plat, plon = lat, lon
	}
	return string(out)
}

func roundE5(v float64) int64 {
	if v < 0 {
		return -int64(-v*1e5 + 0.5)
	}
	return int64(v*1e5 + 0.5)
}
