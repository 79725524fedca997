// Package pyramid cuts a large picture (a scanned map, a floor plan) into
// a pixel pyramid of 256-pixel tiles without holding the picture: rows are
// read one at a time (PNGRows streams PNG; other formats are read whole
// within a pixel bound), gathered into bands of 256 rows at full
// resolution, cut into tiles, and each band is halved (2x2 averaging,
// weighted by alpha) into the band of the zoom below, level by level. The
// memory held is one band per zoom: about 2 x 256 rows of the picture.
//
// Zoom maxzoom is the full resolution, the smallest zoom whose 2^z tiles
// of 256 pixels cover the picture's larger side; each lower zoom halves
// it, down to zoom 0 (one tile). Tile (x, y) of zoom z covers pixels
// [256x, 256x+256) x [256y, 256y+256) of that zoom's picture, which sits
// at the top left; tiles past its edge do not exist and fully transparent
// tiles are not stored.
package pyramid

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/tesseramaps/tessera/internal/imageenc"
)

// TileSize is the side of a tile in pixels.
const TileSize = 256

// Info describes a pyramid.
type Info struct {
	Width, Height    int
	MinZoom, MaxZoom int
	TileSize         int
	// Tiles is how many tiles were stored (transparent ones are not).
	Tiles int
}

// MaxZoomFor is the full-resolution zoom of a picture of w x h pixels.
func MaxZoomFor(w, h int) int {
	z := 0
	for TileSize<<z < max(w, h) {
		z++
	}
	return z
}

// LevelSize is the size of zoom z's picture in a pyramid of w x h pixels
// with full resolution at maxZoom.
func LevelSize(w, h, z, maxZoom int) (int, int) {
	d := maxZoom - z
	return (w + 1<<d - 1) >> d, (h + 1<<d - 1) >> d
}

// Contains tells whether tile z/x/y lies on the picture.
func (i Info) Contains(z, x, y int) bool {
	if z < i.MinZoom || z > i.MaxZoom || x < 0 || y < 0 {
		return false
	}
	w, h := LevelSize(i.Width, i.Height, z, i.MaxZoom)
	return x < (w+TileSize-1)/TileSize && y < (h+TileSize-1)/TileSize
}

// TileWriter stores tiles.
type TileWriter interface {
	PutTile(ctx context.Context, z, x, y int, data []byte) error
}

// Options tune Build.
type Options struct {
	// Format of the tiles: PNG (default), WebP or JPEG (JPEG where a tile
	// is opaque; tiles with transparency stay PNG).
	Format imageenc.Format
	// Progress, when set, is told the rows of the full-resolution picture
	// read so far and their number.
	Progress func(done, total int)
}

// Build reads every row of src and writes the pyramid's tiles to out.
func Build(ctx context.Context, src Rows, out TileWriter, opts Options) (Info, error) {
	w, h := src.Size()
	if w <= 0 || h <= 0 || w > MaxSide || h > MaxSide || int64(w)*int64(h) > MaxPixels {
		return Info{}, fmt.Errorf("%w: picture size %dx%d", ErrFormat, w, h)
	}
	if opts.Format == "" {
		opts.Format = imageenc.PNG
	}
	info := Info{Width: w, Height: h, MaxZoom: MaxZoomFor(w, h), TileSize: TileSize}
	b := &builder{ctx: ctx, out: out, opts: opts, info: &info}
	b.levels = make([]*level, info.MaxZoom+1)
	for z := info.MaxZoom; z >= 0; z-- {
		lw, lh := LevelSize(w, h, z, info.MaxZoom)
		b.levels[z] = &level{z: z, w: lw, h: lh, band: make([]byte, TileSize*4*lw), pending: make([]byte, 4*lw)}
		if z > 0 {
			b.levels[z].half = make([]byte, 4*((lw+1)/2))
		}
	}
	row := make([]byte, 4*w)
	for y := 0; y < h; y++ {
		if err := ctx.Err(); err != nil {
			return Info{}, err
		}
		if err := src.Next(row); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Info{}, fmt.Errorf("row %d: %w", y, err)
		}
		if err := b.push(info.MaxZoom, row); err != nil {
			return Info{}, err
		}
		if opts.Progress != nil && (y%TileSize == 0 || y == h-1) {
			opts.Progress(y+1, h)
		}
	}
	return info, nil
}

type builder struct {
	ctx    context.Context
	out    TileWriter
	opts   Options
	info   *Info
	levels []*level
}

// level is one zoom's band of up to 256 rows, and the row waiting for its
// pair to be halved into the zoom below.
type level struct {
	z, w, h int
	band    []byte
	rows    int // rows in the band
	y       int // rows of this level received
	// pending is an odd row waiting for the next; half the row they make
	// in the zoom below.
	pending, half []byte
}

// push adds the next row of zoom z.
func (b *builder) push(z int, row []byte) error {
	l := b.levels[z]
	copy(l.band[l.rows*4*l.w:], row[:4*l.w])
	l.rows++
	l.y++
	last := l.y == l.h
	if l.rows == TileSize || last {
		if err := b.flush(l); err != nil {
			return err
		}
	}
	if z == 0 {
		return nil
	}
	// Halve into zoom z-1: rows in pairs (the last alone when odd).
	switch {
	case l.y%2 == 1 && !last:
		copy(l.pending, row[:4*l.w])
		return nil
	case l.y%2 == 1:
		halve(l.half, row, nil, l.w)
	default:
		halve(l.half, l.pending, row, l.w)
	}
	return b.push(z-1, l.half)
}

// halve averages 2x2 pixels of the rows top and bottom (nil when the
// picture ends) of width w into dst, weighting colours by alpha.
func halve(dst, top, bottom []byte, w int) {
	for x := 0; 2*x < w; x++ {
		var r, g, bl, a, n int
		add := func(p []byte) {
			pa := int(p[3])
			r += int(p[0]) * pa
			g += int(p[1]) * pa
			bl += int(p[2]) * pa
			a += pa
			n++
		}
		add(top[8*x:])
		if 2*x+1 < w {
			add(top[8*x+4:])
		}
		if bottom != nil {
			add(bottom[8*x:])
			if 2*x+1 < w {
				add(bottom[8*x+4:])
			}
		}
		o := dst[4*x : 4*x+4]
		if a == 0 {
			o[0], o[1], o[2], o[3] = 0, 0, 0, 0
			continue
		}
		o[0], o[1], o[2] = byte((r+a/2)/a), byte((g+a/2)/a), byte((bl+a/2)/a)
		o[3] = byte((a + n/2) / n)
	}
}

// flush cuts the band of l into tiles and stores those not transparent.
func (b *builder) flush(l *level) error {
	ty := (l.y - 1) / TileSize
	cols := (l.w + TileSize - 1) / TileSize
	tiles := make([][]byte, cols)
	g, ctx := errgroup.WithContext(b.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for tx := 0; tx < cols; tx++ {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := b.tile(l, tx)
			tiles[tx] = data
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for tx, data := range tiles {
		if data == nil {
			continue
		}
		if err := b.out.PutTile(b.ctx, l.z, tx, ty, data); err != nil {
			return fmt.Errorf("store tile %d/%d/%d: %w", l.z, tx, ty, err)
		}
		b.info.Tiles++
	}
	l.rows = 0
	return nil
}

// tile encodes column tx of the band, or nil when it is transparent.
func (b *builder) tile(l *level, tx int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, TileSize, TileSize))
	x0 := tx * TileSize
	n := min(TileSize, l.w-x0)
	opaque, empty := l.rows == TileSize && n == TileSize, true
	for y := 0; y < l.rows; y++ {
		src := l.band[(y*l.w+x0)*4 : (y*l.w+x0+n)*4]
		copy(img.Pix[y*img.Stride:], src)
		for i := 3; i < len(src); i += 4 {
			if src[i] != 0 {
				empty = false
			}
			if src[i] != 255 {
				opaque = false
			}
		}
	}
	if empty {
		return nil, nil
	}
	format := b.opts.Format
	if format == imageenc.JPEG && !opaque {
		format = imageenc.PNG
	}
	var buf bytes.Buffer
	if err := imageenc.Encode(&buf, img, imageenc.Options{Format: format}); err != nil {
		return nil, fmt.Errorf("encode tile %d/%d/%d: %w", l.z, tx, (l.y-1)/TileSize, err)
	}
	return buf.Bytes(), nil
}
