// Package elevation answers elevation queries from gridded elevation models
// held in memory: a global model (ETOPO5 from Debian's ferret-datasets, read
// from its NetCDF classic file by internal/netcdf) and finer models an
// operator adds as GeoTIFF files, which take precedence where they cover a
// point. Values are sampled bilinearly between the four grid nodes around a
// point; the grid nodes are where GDAL puts its pixel centres, so a query at
// a node gives what `gdallocationinfo` gives there.
//
// The package also parses the locations of the elevation endpoint
// (ParseLocations) and encodes a model as Terrarium terrain tiles
// (terrain.go) that map styles use as a raster-dem source.
package elevation

import (
	"math"
)

// Grid is a regular longitude/latitude grid of elevations in metres.
// Node (col, row) is at longitude X0 + col*DX and latitude Y0 + row*DY
// (DY is negative for grids stored north to south); values are row-major.
type Grid struct {
	Name   string
	W, H   int
	X0, DX float64
	Y0, DY float64
	// Period is the number of columns spanning 360 degrees when the grid
	// wraps around the globe (its last column joins its first), else 0.
	Period float64
	Data   []float32
	// NoData marks missing values (NaN values are missing too).
	NoData    float32
	HasNoData bool
	// Mercator tells that X0, DX, Y0, DY are web mercator (EPSG:3857)
	// metres: a point is sampled at its projected position.
	Mercator bool
}

// mercatorR is the sphere radius of web mercator, metres.
const mercatorR = 6378137

// toMercator projects a longitude and latitude to web mercator metres.
func toMercator(lon, lat float64) (x, y float64) {
	return lon * math.Pi / 180 * mercatorR, math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * mercatorR
}

// fromMercator is the inverse of toMercator.
func fromMercator(x, y float64) (lon, lat float64) {
	return x / mercatorR * 180 / math.Pi, (2*math.Atan(math.Exp(y/mercatorR)) - math.Pi/2) * 180 / math.Pi
}

// Res is the grid's resolution: the larger of its node spacings, degrees.
// A web mercator grid's spacing is converted at the equator (its finest).
func (g *Grid) Res() float64 {
	r := max(math.Abs(g.DX), math.Abs(g.DY))
	if g.Mercator {
		return r / mercatorR * 180 / math.Pi
	}
	return r
}

// Bounds is the extent of the grid's nodes: west, south, east, north.
func (g *Grid) Bounds() [4]float64 {
	x0, y0 := g.X0, g.Y0
	x1 := g.X0 + float64(g.W-1)*g.DX
	y1 := g.Y0 + float64(g.H-1)*g.DY
	if g.Mercator {
		x0, y0 = fromMercator(x0, y0)
		x1, y1 = fromMercator(x1, y1)
	}
	return [4]float64{min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)}
}

func (g *Grid) missing(v float32) bool {
	return v != v || (g.HasNoData && v == g.NoData)
}

// Node returns the value at a node (false when it is missing).
func (g *Grid) Node(col, row int) (float64, bool) {
	v := g.Data[row*g.W+col]
	if g.missing(v) {
		return 0, false
	}
	return float64(v), true
}

// Sample returns the bilinear interpolation of the four nodes around
// (lon, lat); false when the point is outside the grid or a node with a
// non-zero weight is missing.
func (g *Grid) Sample(lon, lat float64) (float64, bool) {
	if g.W < 2 || g.H < 2 || math.IsNaN(lon) || math.IsNaN(lat) {
		return 0, false
	}
	if g.Mercator {
		lon, lat = toMercator(lon, lat)
	}
	// Rows.
	v := (lat - g.Y0) / g.DY
	const eps = 1e-9
	if v < -eps || v > float64(g.H-1)+eps {
		return 0, false
	}
	v = min(max(snap(v), 0), float64(g.H-1))
	r0 := min(int(v), g.H-2)
	tv := v - float64(r0)
	// Columns, around the globe when the grid wraps.
	u := snap((lon - g.X0) / g.DX)
	var c0, c1 int
	var tu float64
	if g.Period > 0 {
		u = math.Mod(u, g.Period)
		if u < 0 {
			u += g.Period
		}
		c0 = int(u)
		if c0 >= g.W-1 {
			c0, c1 = g.W-1, 0
			gap := g.Period - float64(g.W-1)
			tu = min((u-float64(g.W-1))/gap, 1)
		} else {
			c1 = c0 + 1
			tu = u - float64(c0)
		}
	} else {
		if u < -eps || u > float64(g.W-1)+eps {
			return 0, false
		}
		u = min(max(u, 0), float64(g.W-1))
		c0 = min(int(u), g.W-2)
		c1 = c0 + 1
		tu = u - float64(c0)
	}
	i0, i1 := r0*g.W, (r0+1)*g.W
	var sum float64
	for _, n := range [4]struct {
		i int
		w float64
	}{
		{i0 + c0, (1 - tu) * (1 - tv)}, {i0 + c1, tu * (1 - tv)},
		{i1 + c0, (1 - tu) * tv}, {i1 + c1, tu * tv},
	} {
		if n.w == 0 {
			continue
		}
		val := g.Data[n.i]
		if g.missing(val) {
			return 0, false
		}
		sum += n.w * float64(val)
	}
	return sum, true
}

// snap puts a grid position within 1e-9 of a node on the node, so that a
// query at a node's coordinates gives the node's value exactly despite the
// rounding of (lon - X0) / DX.
func snap(u float64) float64 {
	if r := math.Round(u); math.Abs(u-r) < 1e-9 {
		return r
	}
	return u
}

// Model is a stack of grids: the finest grid holding a value at a point
// answers for it.
type Model struct {
	// Grids, finest first.
	Grids []*Grid
}

// NewModel orders the grids finest first.
func NewModel(grids ...*Grid) *Model {
	m := &Model{Grids: append([]*Grid(nil), grids...)}
	// Insertion sort: a handful of grids, stable for equal resolutions.
	for i := 1; i < len(m.Grids); i++ {
		for j := i; j > 0 && m.Grids[j].Res() < m.Grids[j-1].Res(); j-- {
			m.Grids[j], m.Grids[j-1] = m.Grids[j-1], m.Grids[j]
		}
	}
	return m
}

// At returns the elevation in metres at (lon, lat) and the grid that gave
// it; false when no grid has a value there.
func (m *Model) At(lon, lat float64) (float64, *Grid, bool) {
	for _, g := range m.Grids {
		if v, ok := g.Sample(lon, lat); ok {
			return v, g, true
		}
	}
	return 0, nil, false
}
