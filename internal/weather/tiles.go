package weather

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"

	"github.com/tesseramaps/tessera/internal/imageenc"
)

// TileSize is the size of the weather tiles, in pixels.
const TileSize = 256

// Channels is the packing of the tiles (decoding.channels): a value v is
// stored as the 16-bit integer q = round((v-min)/(max-min)*65535), its
// high byte in red and its low byte in green (blue is 0, alpha 255; alpha
// 0 where the grid has no value); it reads back as
// min + (R*256+G)/65535*(max-min).
const Channels = "rg"

// MaxZoomCap bounds the deepest zoom made.
const MaxZoomCap = 6

// Packing maps values to 16 bits between Min and Max.
type Packing struct{ Min, Max float64 }

// NewPacking returns the packing of values in [lo, hi]; a constant field
// gets a range of 1 so that it still decodes.
func NewPacking(lo, hi float64) Packing {
	if !(hi > lo) {
		hi = lo + 1
	}
	return Packing{Min: lo, Max: hi}
}

// Pack returns the red and green bytes of v.
func (p Packing) Pack(v float64) (r, g uint8) {
	q := math.Round((v - p.Min) / (p.Max - p.Min) * 65535)
	q = math.Max(0, math.Min(65535, q))
	return uint8(int(q) >> 8), uint8(int(q) & 255)
}

// Unpack returns the value of red and green bytes.
func (p Packing) Unpack(r, g uint8) float64 {
	return p.Min + float64(int(r)<<8|int(g))/65535*(p.Max-p.Min)
}

// Step is the packing's precision: decoded values are within Step/2 of
// the value packed.
func (p Packing) Step() float64 { return (p.Max - p.Min) / 65535 }

// MaxZoom is the deepest zoom of a grid's tiles: one past the first zoom
// whose pixels are no larger than the grid's spacing (so that bilinear
// sampling shows), at most MaxZoomCap.
func MaxZoom(g Grid) int {
	d := math.Min(g.Di, g.Dj)
	z := int(math.Ceil(math.Log2(360/(TileSize*d))-1e-9)) + 1
	return max(0, min(MaxZoomCap, z))
}

// Sample returns the field's value at a position by bilinear
// interpolation between the four grid points round it, wrapping round the
// antimeridian on global grids; ok is false outside the grid or next to a
// missing (NaN) value.
func (f *Field) Sample(lon, lat float64) (v float64, ok bool) {
	g := f.Grid
	fi := (lon - g.Lon1) / g.Di
	if g.Global() {
		fi = math.Mod(fi, float64(g.Ni))
		if fi < 0 {
			fi += float64(g.Ni)
		}
	} else {
		// Regional grids: longitudes may be given 0..360 or -180..180.
		for fi < 0 && fi+360/g.Di <= float64(g.Ni-1)+1e-9 {
			fi += 360 / g.Di
		}
		for fi > float64(g.Ni-1) && fi-360/g.Di >= -1e-9 {
			fi -= 360 / g.Di
		}
	}
	fj := (g.Lat1 - lat) / g.Dj
	if g.SouthToNorth {
		fj = (lat - g.Lat1) / g.Dj
	}
	const eps = 1e-9
	if fj < -eps || fj > float64(g.Nj-1)+eps || fi < -eps || !g.Global() && fi > float64(g.Ni-1)+eps {
		return 0, false
	}
	i0, j0 := int(math.Floor(fi)), int(math.Floor(fj))
	i0, j0 = max(0, min(g.Ni-1, i0)), max(0, min(g.Nj-1, j0))
	ti, tj := fi-float64(i0), fj-float64(j0)
	i1, j1 := i0+1, min(j0+1, g.Nj-1)
	if i1 == g.Ni {
		if g.Global() {
			i1 = 0
		} else {
			i1 = i0
		}
	}
	a, b, c, d := f.At(i0, j0), f.At(i1, j0), f.At(i0, j1), f.At(i1, j1)
	v = (a*(1-ti)+b*ti)*(1-tj) + (c*(1-ti)+d*ti)*tj
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// TileLonLat returns the position of the centre of pixel (px, py) of tile
// z/x/y (XYZ, web mercator).
func TileLonLat(z, x, y, px, py int) (lon, lat float64) {
	n := float64(int(1)<<z) * TileSize
	u := (float64(x*TileSize+px) + 0.5) / n
	v := (float64(y*TileSize+py) + 0.5) / n
	return u*360 - 180, math.Atan(math.Sinh(math.Pi*(1-2*v))) * 180 / math.Pi
}

// Tile draws tile z/x/y of the field with the packing; empty is true when
// no pixel has a value.
func (f *Field) Tile(z, x, y int, p Packing) (img *image.NRGBA, empty bool) {
	img = image.NewNRGBA(image.Rect(0, 0, TileSize, TileSize))
	empty = true
	for py := range TileSize {
		row := img.Pix[py*img.Stride:]
		for px := range TileSize {
			lon, lat := TileLonLat(z, x, y, px, py)
			v, ok := f.Sample(lon, lat)
			if !ok {
				continue
			}
			r, g := p.Pack(v)
			row[4*px], row[4*px+1], row[4*px+3] = r, g, 255
			empty = false
		}
	}
	return img, empty
}

// TileWriter takes tiles (XYZ scheme).
type TileWriter interface {
	PutTile(ctx context.Context, z, x, y int, data []byte) error
}

// WriteTiles writes the field's PNG tiles for zooms 0..maxZoom and returns
// how many were written (tiles without a value are left out).
func (f *Field) WriteTiles(ctx context.Context, w TileWriter, p Packing, maxZoom int) (int, error) {
	n := 0
	for z := 0; z <= maxZoom; z++ {
		for x := range 1 << z {
			for y := range 1 << z {
				if err := ctx.Err(); err != nil {
					return n, err
				}
				img, empty := f.Tile(z, x, y, p)
				if empty {
					continue
				}
				var buf bytes.Buffer
				if err := imageenc.EncodePNG(&buf, img); err != nil {
					return n, fmt.Errorf("tile %d/%d/%d: %w", z, x, y, err)
				}
				if err := w.PutTile(ctx, z, x, y, buf.Bytes()); err != nil {
					return n, err
				}
				n++
			}
		}
	}
	return n, nil
}

// Range returns the smallest and largest finite values of the field.
func (f *Field) Range() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range f.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, lo <= hi
}
