package sources

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // raster tiles may be JPEG
	_ "image/png"  // or PNG
	"math"
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // or WebP

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/style"
)

// Raster sources: the image tiles that cover the view, chosen as GL
// chooses them. A raster source serves tiles of tileSize CSS pixels (512
// by default); the zoom of the tiles drawn is the view's zoom on that
// pyramid, rounded to the nearest integer (GL's roundZoom for raster
// sources), so a tile is shown between 0.71 and 1.41 times its own size.
// Past the source's maxzoom its maxzoom tiles are scaled up; below its
// minzoom the source shows nothing.

// defaultRasterTileSize is the tile size of a raster source that names
// none, in CSS pixels.
const defaultRasterTileSize = 512

// rasterMaxZoom is a raster source's maxzoom when it names none.
const rasterMaxZoom = 22

// Cover is what a raster or raster-dem source shows of the view: its
// tiles at one zoom, decoded.
type Cover[T any] struct {
	Z     int           // zoom of the tiles
	Tiles map[[2]int]*T // by column (canonical, 0..2^z-1) and row (xyz)
}

// Tile returns the tile holding world column col (any integer: the world
// repeats east and west) and row, or nil.
func (c *Cover[T]) Tile(col, row int) *T {
	n := 1 << c.Z
	return c.Tiles[[2]int{((col % n) + n) % n, row}]
}

// RasterCover is what a raster source shows of the view.
type RasterCover = Cover[Texture]

// readCover reads the tiles of a raster or raster-dem source (what names
// the kind in the logs) that the view shows at the source's tile zoom,
// each admitted within side pixels and decoded by decode; a tile that
// cannot be decoded is logged and left out.
func readCover[T any](ctx context.Context, s *Set, ts tileSet, what string, side int, decode func([]byte) (*T, error)) (*Cover[T], error) {
	z, ok := s.rasterTileZoom(ts)
	c := &Cover[T]{Z: z, Tiles: map[[2]int]*T{}}
	if !ok {
		return c, nil
	}
	err := s.eachRasterTile(ctx, ts, z, what, func(x, row int, url string, data []byte) {
		err := s.admitImage(data, side)
		var t *T
		if err == nil {
			t, err = decode(data)
		}
		if err != nil {
			s.Log.Warn("render: corrupt "+what+" tile skipped", "url", url, "err", err)
			return
		}
		c.Tiles[[2]int{x, row}] = t
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// rasterZoom returns the zoom of the tiles a raster source of tileSize
// shows at view zoom, and false when the view is below the source's
// minzoom and shows none.
func rasterZoom(zoom float64, tileSize, minZ, maxZ int) (int, bool) {
	// JavaScript's Math.round: halves go up.
	z := int(math.Floor(zoom + math.Log2(512/float64(tileSize)) + 0.5))
	z = max(0, z)
	if z < minZ {
		return 0, false
	}
	return min(z, maxZ), true
}

// Raster returns the raster tiles of the layer's source under the view,
// reading them on first use.
func (s *Set) Raster(ctx context.Context, l *style.Layer) (*RasterCover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.rasters[l.Source]; ok {
		return c, nil
	}
	src := s.Style.SourceByKey[l.Source]
	if src == nil {
		return nil, fmt.Errorf("no source %q", l.Source)
	}
	if src.Type != "raster" {
		return nil, fmt.Errorf("raster layer on a %q source", src.Type)
	}
	c, err := s.rasterTiles(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("raster source %q: %w", l.Source, err)
	}
	s.rasters[l.Source] = c
	return c, nil
}

func (s *Set) rasterTiles(ctx context.Context, src *style.Source) (*RasterCover, error) {
	ts, err := s.tileTemplates(ctx, src, rasterMaxZoom)
	if err != nil {
		return nil, err
	}
	return readCover(ctx, s, ts, "raster", maxRasterTileSize, decodeTexture)
}

// rasterTileZoom returns the zoom of a raster or raster-dem source's tiles
// the view draws (GL's rounded tile zoom for the source's tile size), false
// when the view is outside the source's zooms.
func (s *Set) rasterTileZoom(ts tileSet) (int, bool) {
	size := ts.tileSize
	if size <= 0 {
		size = defaultRasterTileSize
	}
	return rasterZoom(s.View.Zoom, size, ts.minZ, ts.maxZ)
}

// eachRasterTile reads the tiles of a raster or raster-dem source at zoom z
// that the view (turned to the raster grid) covers, each column once however
// wide the view, within the source's bounds, and hands each tile's bytes to
// use with its column (wrapped into the world) and row; a missing tile is
// logged (what names the kind of source) and skipped.
func (s *Set) eachRasterTile(ctx context.Context, ts tileSet, z int, what string, use func(x, row int, url string, data []byte)) error {
	n := 1 << z
	x0, y0, x1, y1 := s.Frame.RasterAligned().WorldBounds()
	c0, c1 := int(math.Floor(x0*float64(n))), int(math.Floor(x1*float64(n)))
	r0, r1 := max(0, int(math.Floor(y0*float64(n)))), min(n-1, int(math.Floor(y1*float64(n))))
	c1 = min(c1, c0+n-1)
	if (c1-c0+1)*(r1-r0+1) > MaxTiles {
		return fmt.Errorf("the view needs more than %d tiles", MaxTiles)
	}
	for row := r0; row <= r1; row++ {
		for col := c0; col <= c1; col++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			x := ((col % n) + n) % n
			if !tileInBounds(ts.bounds, z, x, row) {
				continue
			}
			y := row
			if ts.scheme == "tms" {
				y = n - 1 - row
			}
			url := strings.NewReplacer("{z}", strconv.Itoa(z), "{x}", strconv.Itoa(x), "{y}", strconv.Itoa(y)).Replace(ts.tiles[(x+row)%len(ts.tiles)])
			data, err := s.Res.Fetch(ctx, url)
			if err != nil || len(data) == 0 {
				s.Log.Warn("render: "+what+" tile missing", "url", url, "err", err)
				continue
			}
			use(x, row, url, data)
		}
	}
	return nil
}

// tileInBounds tells whether tile z/x/y touches the source's bounds
// ([w, s, e, n] in degrees; nil for the whole world), as GL tests it: the
// bounds widened to whole tiles.
func tileInBounds(bounds []float64, z, x, y int) bool {
	if len(bounds) != 4 {
		return true
	}
	n := float64(int(1) << z)
	wx, ny := geo.LonLatToWorld(bounds[0], bounds[3])
	ex, sy := geo.LonLatToWorld(bounds[2], bounds[1])
	minX, minY := int(math.Floor(wx*n)), int(math.Floor(ny*n))
	maxX, maxY := int(math.Ceil(ex*n)), int(math.Ceil(sy*n))
	return x >= minX && x < maxX && y >= minY && y < maxY
}

// decodeTexture decodes a PNG, JPEG or WebP tile into premultiplied
// texels.
func decodeTexture(data []byte) (*Texture, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode tile image: %w", err)
	}
	b := img.Bounds()
	if b.Empty() {
		return nil, fmt.Errorf("decode tile image: empty image")
	}
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Rect.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	}
	return newTexture(b.Dx(), b.Dy(), rgba.Pix, rgba.Stride), nil
}
