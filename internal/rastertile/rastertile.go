// Package rastertile cuts a georeferenced image (a decoded GeoTIFF in
// EPSG:4326 or EPSG:3857) into web mercator raster tiles of 256 pixels.
//
// Every tile pixel takes the colour of the source pixel under its centre
// (nearest neighbour), at every zoom: the tiles hold the source's own
// colours, never blends, so that they can be checked pixel for pixel.
// Pixels outside the image, and those equal to the file's no-data value,
// are transparent; tiles with no opaque pixel are not written.
package rastertile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/tesseramaps/tessera/internal/geotiff"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

// TileSize is the size of the tiles made, in pixels.
const TileSize = 256

// Earth radius of web mercator, metres.
const radius = 6378137.0

// maxLat is the latitude at which web mercator's square world ends.
var maxLat = 2*math.Atan(math.Exp(math.Pi))*180/math.Pi - 90

// ErrInput is wrapped when the image cannot be tiled (outside the world,
// too many tiles).
var ErrInput = errors.New("cannot tile the image")

// Writer takes the tiles made (XYZ scheme); it must be safe for concurrent
// use.
type Writer interface {
	PutTile(ctx context.Context, z, x, y int, data []byte) error
}

// Options tune Build.
type Options struct {
	// Format of the tiles: PNG (the default) or lossless WebP.
	Format imageenc.Format
	// MaxZoom caps the deepest zoom (DefaultMaxZoom when zero).
	MaxZoom int
	// MaxTiles refuses images needing more tiles (DefaultMaxTiles when
	// zero).
	MaxTiles int
	// Progress, when set, is called with the tiles done and the total.
	Progress func(done, total int)
}

// Defaults of Options.
const (
	DefaultMaxZoom  = 22
	DefaultMaxTiles = 4 << 20
)

// Result describes the tiles made.
type Result struct {
	MinZoom, MaxZoom int
	// Bounds in longitude and latitude: west, south, east, north.
	Bounds [4]float64
	// Tiles is the number of tiles written.
	Tiles int
}

// mercBounds returns the image's extent in web mercator metres (clamped to
// the square world): minX, minY, maxX, maxY.
func mercBounds(info geotiff.Info) [4]float64 {
	b := info.Bounds()
	if info.EPSG == geotiff.EPSG4326 {
		lon := func(v float64) float64 { return math.Max(-180, math.Min(180, v)) * math.Pi / 180 * radius }
		lat := func(v float64) float64 {
			v = math.Max(-maxLat, math.Min(maxLat, v)) * math.Pi / 180
			return radius * math.Log(math.Tan(math.Pi/4+v/2))
		}
		return [4]float64{lon(b[0]), lat(b[1]), lon(b[2]), lat(b[3])}
	}
	e := math.Pi * radius
	c := func(v float64) float64 { return math.Max(-e, math.Min(e, v)) }
	return [4]float64{c(b[0]), c(b[1]), c(b[2]), c(b[3])}
}

// Zooms chooses the zoom range of an image: the deepest zoom is the first
// whose tile pixels are no larger than the source's (so no detail is
// lost), capped at maxZoom; the shallowest is the one at which the image
// spans about one tile.
func Zooms(info geotiff.Info, maxZoom int) (minZ, maxZ int) {
	if maxZoom <= 0 {
		maxZoom = DefaultMaxZoom
	}
	// Metres of web mercator x per source pixel (x does not depend on the
	// latitude).
	px := info.ScaleX
	if info.EPSG == geotiff.EPSG4326 {
		px = info.ScaleX * math.Pi / 180 * radius
	}
	z := math.Ceil(math.Log2(2*math.Pi*radius/(TileSize*px)) - 1e-9)
	maxZ = int(math.Max(0, math.Min(float64(maxZoom), z)))
	span := math.Max(float64(info.Width), float64(info.Height))
	minZ = maxZ - int(math.Ceil(math.Log2(math.Max(1, span/TileSize))))
	if minZ < 0 {
		minZ = 0
	}
	return minZ, maxZ
}

// tileRange returns the tiles of zoom z covering the mercator bounds b.
func tileRange(b [4]float64, z int) (x0, y0, x1, y1 int) {
	n := float64(int(1) << z)
	world := 2 * math.Pi * radius
	tx := func(m float64) float64 { return (m/world + 0.5) * n }
	ty := func(m float64) float64 { return (0.5 - m/world) * n }
	clamp := func(v float64) int { return int(math.Max(0, math.Min(n-1, math.Floor(v)))) }
	x0, x1 = clamp(tx(b[0])), clamp(math.Nextafter(tx(b[2]), math.Inf(-1)))
	y0, y1 = clamp(ty(b[3])), clamp(math.Nextafter(ty(b[1]), math.Inf(-1)))
	return x0, y0, x1, y1
}

// Build tiles img into w.
func Build(ctx context.Context, img *geotiff.Image, w Writer, opts Options) (Result, error) {
	if opts.Format == "" {
		opts.Format = imageenc.PNG
	}
	if opts.Format != imageenc.PNG && opts.Format != imageenc.WebP {
		return Result{}, fmt.Errorf("raster tiles: format %q is not png or webp", opts.Format)
	}
	if opts.MaxTiles <= 0 {
		opts.MaxTiles = DefaultMaxTiles
	}
	mb := mercBounds(img.Info)
	if !(mb[2] > mb[0] && mb[3] > mb[1]) {
		return Result{}, fmt.Errorf("%w: the image lies outside the web mercator world (longitudes -180..180, latitudes -85.05..85.05)", ErrInput)
	}
	res := Result{}
	res.MinZoom, res.MaxZoom = Zooms(img.Info, opts.MaxZoom)
	b := img.Bounds()
	if img.EPSG == geotiff.EPSG3857 {
		toLon := func(x float64) float64 { return x / radius * 180 / math.Pi }
		toLat := func(y float64) float64 { return math.Atan(math.Sinh(y/radius)) * 180 / math.Pi }
		res.Bounds = [4]float64{toLon(mb[0]), toLat(mb[1]), toLon(mb[2]), toLat(mb[3])}
	} else {
		res.Bounds = [4]float64{math.Max(-180, b[0]), math.Max(-maxLat, b[1]), math.Min(180, b[2]), math.Min(maxLat, b[3])}
	}
	type job struct{ z, x, y int }
	var jobs []job
	for z := res.MinZoom; z <= res.MaxZoom; z++ {
		x0, y0, x1, y1 := tileRange(mb, z)
		if (x1-x0+1)*(y1-y0+1)+len(jobs) > opts.MaxTiles {
			return Result{}, fmt.Errorf("%w: more than %d tiles would be needed", ErrInput, opts.MaxTiles)
		}
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				jobs = append(jobs, job{z, x, y})
			}
		}
	}
	s := newSampler(img)
	var done, written atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			tile, any := s.tile(j.z, j.x, j.y)
			if any {
				var buf bytes.Buffer
				if err := imageenc.Encode(&buf, tile, imageenc.Options{Format: opts.Format, Lossless: true}); err != nil {
					return fmt.Errorf("encode tile %d/%d/%d: %w", j.z, j.x, j.y, err)
				}
				if err := w.PutTile(gctx, j.z, j.x, j.y, buf.Bytes()); err != nil {
					return err
				}
				written.Add(1)
			}
			if d := done.Add(1); opts.Progress != nil {
				opts.Progress(int(d), len(jobs))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	res.Tiles = int(written.Load())
	if res.Tiles == 0 {
		return Result{}, fmt.Errorf("%w: the image has no visible pixel inside the web mercator world", ErrInput)
	}
	return res, nil
}

// sampler reads the source pixel under a web mercator point.
type sampler struct {
	img *geotiff.Image
	// nrgba is the source when it is straight RGBA (read directly).
	nrgba  *image.NRGBA
	at     func(col, row int) color.NRGBA
	nodata func(col, row int) bool
}

func newSampler(img *geotiff.Image) *sampler {
	s := &sampler{img: img, nodata: func(int, int) bool { return false }}
	src := img.Image
	b := src.Bounds()
	switch m := src.(type) {
	case *image.NRGBA:
		s.nrgba = m
		s.at = func(c, r int) color.NRGBA { return m.NRGBAAt(b.Min.X+c, b.Min.Y+r) }
	default:
		s.at = func(c, r int) color.NRGBA {
			return color.NRGBAModel.Convert(src.At(b.Min.X+c, b.Min.Y+r)).(color.NRGBA)
		}
	}
	if img.NoData != nil {
		v := *img.NoData
		switch m := src.(type) {
		case *image.Gray16:
			s.nodata = func(c, r int) bool { return float64(m.Gray16At(b.Min.X+c, b.Min.Y+r).Y) == v }
		case *image.Gray:
			s.nodata = func(c, r int) bool { return float64(m.GrayAt(b.Min.X+c, b.Min.Y+r).Y) == v }
		default:
			s.nodata = func(c, r int) bool {
				p := s.at(c, r)
				return float64(p.R) == v && float64(p.G) == v && float64(p.B) == v
			}
		}
	}
	return s
}

// tile makes tile z/x/y and tells whether any pixel of it is visible.
func (s *sampler) tile(z, x, y int) (*image.NRGBA, bool) {
	info := s.img.Info
	world := 2 * math.Pi * radius
	size := float64(TileSize) * float64(int(1)<<z)
	cols := make([]int, TileSize)
	for px := range cols {
		mx := ((float64(x*TileSize+px)+0.5)/size - 0.5) * world
		sx := mx
		if info.EPSG == geotiff.EPSG4326 {
			sx = mx / radius * 180 / math.Pi
		}
		cols[px] = index((sx-info.OriginX)/info.ScaleX, info.Width)
	}
	out := image.NewNRGBA(image.Rect(0, 0, TileSize, TileSize))
	any := false
	for py := 0; py < TileSize; py++ {
		my := (0.5 - (float64(y*TileSize+py)+0.5)/size) * world
		sy := my
		if info.EPSG == geotiff.EPSG4326 {
			sy = math.Atan(math.Sinh(my/radius)) * 180 / math.Pi
		}
		row := index((info.OriginY-sy)/info.ScaleY, info.Height)
		if row < 0 {
			continue
		}
		dst := out.Pix[py*out.Stride : py*out.Stride+4*TileSize]
		if s.nrgba != nil && s.img.NoData == nil {
			// The common case: copy the source's bytes.
			srow := s.nrgba.Pix[row*s.nrgba.Stride:]
			for px, col := range cols {
				if col < 0 {
					continue
				}
				p := srow[4*col:][:4]
				copy(dst[4*px:4*px+4], p)
				any = any || p[3] != 0
			}
			continue
		}
		for px, col := range cols {
			if col < 0 || s.nodata(col, row) {
				continue
			}
			c := s.at(col, row)
			if c.A != 0 {
				any = true
			}
			dst[4*px], dst[4*px+1], dst[4*px+2], dst[4*px+3] = c.R, c.G, c.B, c.A
		}
	}
	return out, any
}

// index is the pixel holding the fractional position v, or -1 outside
// 0..n-1.
func index(v float64, n int) int {
	f := math.Floor(v)
	if f < 0 || f >= float64(n) || math.IsNaN(f) {
		return -1
	}
	return int(f)
}
