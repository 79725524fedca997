package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"math"

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

// DEMTile holds the elevations of one DEM tile of dim x dim pixels, with
// a border of demBorder pixels all round.
type DEMTile struct {
	dim  int
	elev []float32 // rows of dim+2*demBorder, the border included (GL too decodes in 32-bit floats)
	// slopes is the tile's slope texture, made on first use (see
	// Slopes).
	slopes *Slopes
}

// stride returns the length of a row of elev.
func (d *DEMTile) stride() int { return d.dim + 2*demBorder }

// at returns the elevation at pixel x, y of the tile (-demBorder up to
// dim+demBorder-1 along each axis, the border included).
func (d *DEMTile) at(x, y int) float64 {
	return float64(d.elev[(y+demBorder)*d.stride()+x+demBorder])
}

func (d *DEMTile) set(x, y int, v float64) {
	d.elev[(y+demBorder)*d.stride()+x+demBorder] = float32(v)
}

// decodeDEM decodes a square PNG or WebP DEM tile. The border repeats the
// tile's edge pixels until a neighbour fills it.
func decodeDEM(data []byte, enc demEncoding) (*DEMTile, error) {
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
	d := &DEMTile{dim: dim, elev: make([]float32, (dim+2*demBorder)*(dim+2*demBorder))}
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
func (d *DEMTile) backfill(nb *DEMTile, dx, dy int) {
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

// DEMCover is what a raster-dem source shows of the view: its tiles at
// one zoom, their borders filled from each other.
type DEMCover = Cover[DEMTile]

// DEM returns the DEM tiles of the layer's source under the view, reading
// them on first use.
func (s *Set) DEM(ctx context.Context, l *style.Layer) (*DEMCover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.dems[l.Source]; ok {
		return c, nil
	}
	src := s.Style.SourceByKey[l.Source]
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
		s.dems = map[string]*DEMCover{}
	}
	s.dems[l.Source] = c
	return c, nil
}

func (s *Set) demTiles(ctx context.Context, src *style.Source) (*DEMCover, error) {
	ts, err := s.tileTemplates(ctx, src, rasterMaxZoom)
	if err != nil {
		return nil, err
	}
	if !src.Raw.Has("encoding") && len(src.Tiles) == 0 && src.URL != "" {
		// A TileJSON may name the encoding the style leaves out.
		if b, err := s.Res.Fetch(ctx, src.URL); err == nil {
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
	c, err := readCover(ctx, s, ts, "DEM", maxDEMSize, func(data []byte) (*DEMTile, error) { return decodeDEM(data, enc) })
	if err != nil {
		return nil, err
	}
	backfillAll(c)
	return c, nil
}

// backfillAll fills each tile's border from its eight neighbours that are
// in the cover (across the antimeridian too).
func backfillAll(c *DEMCover) {
	n := 1 << c.Z
	for k, t := range c.Tiles {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 {
					continue
				}
				nx := ((k[0]+dx)%n + n) % n
				if dx != 0 && nx == k[0] {
					continue // a world one tile wide has no neighbour
				}
				t.backfill(c.Tiles[[2]int{nx, k[1] + dy}], dx, dy)
			}
		}
	}
}

// Slopes is a DEM tile's derivatives as GL's prepare pass leaves
// them: two bytes a texel (east, south), size x size texels.
type Slopes struct {
	size int
	rg   []uint8
}

// lowZoomBoost lists how GL steepens slopes below zoom 15 so that hills
// show at small scales (parity numbers, from GL's output): at a zoom
// under below, the kernel's divisor is multiplied by 2^((z-15)*perZoom).
// From zoom 15 up slopes are left as measured.
var lowZoomBoost = []struct{ below, perZoom float64 }{
	{2, 0.4},
	{4.5, 0.35},
	{15, 0.3},
}

// worldMetresLog2 is log2 of the world's width in metres at the equator
// as GL reckons it (parity number: 2^25.2562 m, about 40 075 km).
const worldMetresLog2 = 25.2562

// SlopeDivisor returns what Horn's kernel sum is divided by to give a
// slope for a tile of dim pixels at zoom z: the kernel's total weight (8)
// times the metres a pixel spans at the equator, boosted at low zooms
// (see lowZoomBoost).
func SlopeDivisor(dim, z int) float64 {
	zf := float64(z)
	boost := 0.0
	for _, step := range lowZoomBoost {
		if zf < step.below {
			boost = (zf - 15) * step.perZoom
			break
		}
	}
	return math.Exp2(boost+3+worldMetresLog2-zf) / float64(dim)
}

// slopeBias is where a slope of nought sits in a stored byte (GL's
// parity: 128/255), slopeRange what one step of the byte's range is worth
// (parity: 8 units of slope across 0..1). Bytes are read back with the
// same bias, so flat ground reads a slope of exactly 0: GL's pictures of
// flat ground show no shade from it (TestHillshadeFlatGround).
const (
	slopeBias  = 128.0 / 255
	slopeRange = 8.0
)

// SlopesAt returns the tile's slope texture at zoom z, made on first use.
func (d *DEMTile) SlopesAt(z int) *Slopes {
	if d.slopes != nil {
		return d.slopes
	}
	size := d.dim + 2
	st := &Slopes{size: size, rg: make([]uint8, 2*size*size)}
	div := SlopeDivisor(d.dim, z)
	for j := 0; j < size; j++ {
		y := j - 1 // the tile's pixel row, -1..dim
		for i := 0; i < size; i++ {
			x := i - 1
			// Horn's kernel: each side's three neighbours, the middle one
			// counted twice; east less west, south less north.
			nw, n, ne := d.at(x-1, y-1), d.at(x, y-1), d.at(x+1, y-1)
			w, e := d.at(x-1, y), d.at(x+1, y)
			sw, s, se := d.at(x-1, y+1), d.at(x, y+1), d.at(x+1, y+1)
			east := ((ne + 2*e + se) - (nw + 2*w + sw)) / div
			south := ((sw + 2*s + se) - (nw + 2*n + ne)) / div
			o := 2 * (j*size + i)
			st.rg[o] = unorm8(east/slopeRange + slopeBias)
			st.rg[o+1] = unorm8(south/slopeRange + slopeBias)
		}
	}
	d.slopes = st
	return st
}

// unorm8 stores v (clamped to 0..1) in eight bits, as a framebuffer does.
func unorm8(v float64) uint8 {
	return uint8(math.Floor(math.Max(0, math.Min(1, v))*255 + 0.5))
}

// texel returns the stored east and south values of texel x, y (clamped
// to the edge), 0..1.
func (s *Slopes) texel(x, y int) (float64, float64) {
	x, y = max(0, min(s.size-1, x)), max(0, min(s.size-1, y))
	o := 2 * (y*s.size + x)
	return float64(s.rg[o]) / 255, float64(s.rg[o+1]) / 255
}

// Derivative returns the east and south derivatives at u, v across the
// tile (0..1), as GL's draw pass reads them: the texture sampled within
// its border, bilinear or nearest.
func (s *Slopes) Derivative(u, v float64, nearest bool) (float64, float64) {
	n := float64(s.size)
	// Texel i+1 is the tile's pixel i: u spans the inner dim texels.
	tx, ty := u*(n-2)+1, v*(n-2)+1
	var r, g float64
	if nearest {
		r, g = s.texel(int(math.Floor(tx)), int(math.Floor(ty)))
	} else {
		sx, sy := tx-0.5, ty-0.5
		fx, fy := math.Floor(sx), math.Floor(sy)
		x, y := int(fx), int(fy)
		ax, ay := sx-fx, sy-fy
		r00, g00 := s.texel(x, y)
		r10, g10 := s.texel(x+1, y)
		r01, g01 := s.texel(x, y+1)
		r11, g11 := s.texel(x+1, y+1)
		r = lerp(lerp(r00, r10, ax), lerp(r01, r11, ax), ay)
		g = lerp(lerp(g00, g10, ax), lerp(g01, g11, ax), ay)
	}
	return (r - slopeBias) * slopeRange, (g - slopeBias) * slopeRange
}

func lerp(a, b, t float64) float64 { return a + (b-a)*t }
