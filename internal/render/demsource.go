package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"

	"github.com/tesseramaps/tessera/internal/style"
)

// Raster-dem sources: image tiles whose red, green and blue channels
// encode an elevation. The tiles under the view are chosen as for raster
// sources (GL's rounded tile zoom on a pyramid of tileSize pixels, 512 by
// default; maxzoom tiles scaled up past the source's maxzoom; nothing
// below its minzoom; bounds honoured). Each tile is decoded into
// elevations with a border of two pixels all round, first the tile's own
// edge repeated, then, where the neighbouring tile is also under the view,
// that tile's pixels, so that slopes at the edges see across them and
// neighbouring tiles shade without a seam (GL backfills its borders from
// the tiles it has in view in the same way).

// demBorder is the number of pixels of border kept around a DEM tile.
const demBorder = 2

// demEncoding turns a texel's red, green and blue (0..255) into metres:
// r*R + g*G + b*B - Shift.
type demEncoding struct {
	R, G, B, Shift float64
}

// The encodings the style specification names.
var (
	// mapboxEncoding is Mapbox Terrain-RGB: (r*65536 + g*256 + b)/10 - 10000.
	mapboxEncoding = demEncoding{R: 6553.6, G: 25.6, B: 0.1, Shift: 10000}
	// terrariumEncoding is Terrarium: r*256 + g + b/256 - 32768.
	terrariumEncoding = demEncoding{R: 256, G: 1, B: 1.0 / 256, Shift: 32768}
)

// decode returns the elevation of one texel.
func (e demEncoding) decode(r, g, b uint8) float64 {
	return float64(r)*e.R + float64(g)*e.G + float64(b)*e.B - e.Shift
}

// encodingOf returns the encoding a raster-dem source names ("mapbox" when
// none; "custom" with its redFactor, greenFactor, blueFactor and
// baseShift, defaulting to 1, 1, 1 and 0).
func encodingOf(src *style.Source) (demEncoding, error) {
	name := "mapbox"
	if v, ok := src.Raw.Get("encoding"); ok {
		s, isStr := v.(string)
		if !isStr {
			return demEncoding{}, fmt.Errorf("encoding is not a string")
		}
		name = s
	}
	switch name {
	case "mapbox":
		return mapboxEncoding, nil
	case "terrarium":
		return terrariumEncoding, nil
	case "custom":
		return demEncoding{
			R:     rawNumber(src.Raw, "redFactor", 1),
			G:     rawNumber(src.Raw, "greenFactor", 1),
			B:     rawNumber(src.Raw, "blueFactor", 1),
			Shift: rawNumber(src.Raw, "baseShift", 0),
		}, nil
	}
	return demEncoding{}, fmt.Errorf("unknown encoding %q", name)
}

// rawNumber returns a number member of a style object, def when absent or
// not a number.
func rawNumber(o *style.Object, key string, def float64) float64 {
	v, ok := o.Get(key)
	if !ok {
		return def
	}
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return def
}

// demTile holds the elevations of one DEM tile of dim x dim pixels, with
// a border of demBorder pixels all round.
type demTile struct {
	dim  int
	elev []float32 // rows of dim+2*demBorder, the border included (GL too decodes in 32-bit floats)
	// slopes is the tile's slope texture, made on first use (see
	// hillshade.go).
	slopes *slopeTexture
}

// stride returns the length of a row of elev.
func (d *demTile) stride() int { return d.dim + 2*demBorder }

// At returns the elevation at pixel x, y of the tile (-demBorder up to
// dim+demBorder-1 along each axis, the border included).
func (d *demTile) at(x, y int) float64 {
	return float64(d.elev[(y+demBorder)*d.stride()+x+demBorder])
}

func (d *demTile) set(x, y int, v float64) {
	d.elev[(y+demBorder)*d.stride()+x+demBorder] = float32(v)
}

// decodeDEM decodes a square PNG or WebP DEM tile. The border repeats the
// Tile's edge pixels until a neighbour fills it.
func decodeDEM(data []byte, enc demEncoding) (*demTile, error) {
	if _, _, err := checkImageSize(data, maxDEMSize); err != nil {
		return nil, fmt.Errorf("decode DEM tile: %w", err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode DEM tile: %w", err)
	}
	b := img.Bounds()
	if b.Empty() || b.Dx() != b.Dy() {
		return nil, fmt.Errorf("decode DEM tile: %dx%d image is not square", b.Dx(), b.Dy())
	}
	// The channels are read as stored, not premultiplied: an elevation
	// is no colour.
	var pix []uint8
	var stride int
	switch m := img.(type) {
	case *image.NRGBA:
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	case *image.RGBA:
		pix, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
	default:
		n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(n, n.Rect, img, b.Min, draw.Src)
		pix, stride = n.Pix, n.Stride
	}
	dim := b.Dx()
	d := &demTile{dim: dim, elev: make([]float32, (dim+2*demBorder)*(dim+2*demBorder))}
	for y := 0; y < dim; y++ {
		row := pix[y*stride:]
		for x := 0; x < dim; x++ {
			d.set(x, y, enc.decode(row[4*x], row[4*x+1], row[4*x+2]))
		}
	}
	for y := -demBorder; y < dim+demBorder; y++ {
		for x := -demBorder; x < dim+demBorder; x++ {
			if x >= 0 && x < dim && y >= 0 && y < dim {
				continue
			}
			d.set(x, y, d.at(max(0, min(dim-1, x)), max(0, min(dim-1, y))))
		}
	}
	return d, nil
}

// backfill copies into the border of d the pixels of its neighbour nb,
// which lies dx columns and dy rows of tiles away (each -1, 0 or 1, not
// both 0). Tiles of different sizes are left alone.
func (d *demTile) backfill(nb *demTile, dx, dy int) {
	if nb == nil || nb.dim != d.dim || (dx == 0 && dy == 0) {
		return
	}
	span := func(dd int) (int, int) {
		switch dd {
		case -1:
			return -demBorder, 0
		case 1:
			return d.dim, d.dim + demBorder
		}
		return 0, d.dim
	}
	x0, x1 := span(dx)
	y0, y1 := span(dy)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			d.set(x, y, nb.at(x-dx*d.dim, y-dy*d.dim))
		}
	}
	d.slopes = nil
}

// demCover is what a raster-dem source shows of the view: its tiles at
// one zoom, their borders filled from each other.
type demCover struct {
	z     int
	tiles map[[2]int]*demTile // by column (canonical, 0..2^z-1) and row
}

// Tile returns the tile holding world column col (any integer: the world
// repeats) and row, or nil.
func (c *demCover) tile(col, row int) *demTile {
	n := 1 << c.z
	return c.tiles[[2]int{((col % n) + n) % n, row}]
}

// dem returns the DEM tiles of the layer's source under the view, reading
// them on first use.
func (s *sourceSet) dem(ctx context.Context, l *style.Layer) (*demCover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.dems[l.Source]; ok {
		return c, nil
	}
	src := s.st.SourceByKey[l.Source]
	if src == nil {
		return nil, fmt.Errorf("no source %q", l.Source)
	}
	if src.Type != "raster-dem" {
		return nil, fmt.Errorf("%s layer on a %q source", l.Type, src.Type)
	}
	c, err := s.demTiles(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("raster-dem source %q: %w", l.Source, err)
	}
	if s.dems == nil {
		s.dems = map[string]*demCover{}
	}
	s.dems[l.Source] = c
	return c, nil
}

func (s *sourceSet) demTiles(ctx context.Context, src *style.Source) (*demCover, error) {
	ts, err := s.tileTemplates(ctx, src, rasterMaxZoom)
	if err != nil {
		return nil, err
	}
	if !src.Raw.Has("encoding") && len(src.Tiles) == 0 && src.URL != "" {
		// A TileJSON may name the encoding the style leaves out.
		if b, err := s.res.Fetch(ctx, src.URL); err == nil {
			var tj struct {
				Encoding string `json:"encoding"`
			}
			if json.Unmarshal(b, &tj) == nil && tj.Encoding != "" {
				raw := style.NewObject()
				for _, k := range src.Raw.Keys() {
					v, _ := src.Raw.Get(k)
					raw.Set(k, v)
				}
				raw.Set("encoding", tj.Encoding)
				src = &style.Source{Type: src.Type, Raw: raw}
			}
		}
	}
	enc, err := encodingOf(src)
	if err != nil {
		return nil, err
	}
	z, ok := s.rasterTileZoom(ts)
	c := &demCover{z: z, tiles: map[[2]int]*demTile{}}
	if !ok {
		return c, nil
	}
	err = s.eachRasterTile(ctx, ts, z, "DEM", func(x, row int, url string, data []byte) {
		err := s.admitImage(data, maxDEMSize)
		var t *demTile
		if err == nil {
			t, err = decodeDEM(data, enc)
		}
		if err != nil {
			s.r.log.Warn("render: corrupt DEM tile skipped", "url", url, "err", err)
			return
		}
		c.tiles[[2]int{x, row}] = t
	})
	if err != nil {
		return nil, err
	}
	c.backfillAll()
	return c, nil
}

// backfillAll fills each tile's border from its eight neighbours that are
// in the cover (across the antimeridian too).
func (c *demCover) backfillAll() {
	n := 1 << c.z
	for k, t := range c.tiles {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 {
					continue
				}
				nx := ((k[0]+dx)%n + n) % n
				if dx != 0 && nx == k[0] {
					continue // a world one tile wide has no neighbour
				}
				t.backfill(c.tiles[[2]int{nx, k[1] + dy}], dx, dy)
			}
		}
	}
}
