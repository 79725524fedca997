package sources

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
)

// Image sources: one picture pinned to the map by its four corners (top
// left, top right, bottom right, bottom left, as longitude and latitude),
// drawn by raster layers with all their paint. As in GL the corners are
// first rounded to the 8192 units of the smallest tile holding them all.
// A rectangle or parallelogram is mapped affinely; any other quadrilateral
// is warped as GL 6 warps it: projectively (the perspective view of a
// plane), blended towards the bilinear "rubber sheet" when the corners
// foreshorten the picture by more than four times. Every world copy of the
// picture in the view is drawn.

// ImageCover is an image source ready to draw.
type ImageCover struct {
	Tex *Texture
	// Corners are top left, top right, bottom right and bottom left in
	// the 8192 units of tile tile (z, x, y: GL's tile of the image).
	Corners [4][2]float64
	Tile    [3]float64
	// warp holds GL's perspective terms and the share of the bilinear
	// warp (0, 0, 1 for an affine mapping).
	warp [3]float64
}

// Foreshortening limits of GL's warp: purely projective up to the first,
// blended towards bilinear up to the second, bilinear beyond.
const (
	projectiveForeshortening = 4
	bilinearForeshortening   = 512
)

// IsImage tells whether a layer's source is an image source.
func (s *Set) IsImage(l *style.Layer) bool {
	src := s.Style.SourceByKey[l.Source]
	return src != nil && src.Type == "image"
}

// Image returns the layer's image source, read on first use; nil (and
// the reason logged) when it cannot be drawn.
func (s *Set) Image(ctx context.Context, l *style.Layer) *ImageCover {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.images[l.Source]; ok {
		return c
	}
	c, err := s.readImage(ctx, s.Style.SourceByKey[l.Source])
	if err != nil {
		s.Log.Warn("render: image source unreadable", "layer", l.ID, "source", l.Source, "err", err)
	}
	if s.images == nil {
		s.images = map[string]*ImageCover{}
	}
	s.images[l.Source] = c
	return c
}

func (s *Set) readImage(ctx context.Context, src *style.Source) (*ImageCover, error) {
	corners, err := imageCorners(src)
	if err != nil {
		return nil, err
	}
	if src.URL == "" {
		return nil, fmt.Errorf("image source without url")
	}
	data, err := s.Res.Fetch(ctx, src.URL)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", src.URL, err)
	}
	if err := s.admitImage(data, maxImageSize); err != nil {
		return nil, fmt.Errorf("image %s: %w", src.URL, err)
	}
	tex, err := decodeTexture(data)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", src.URL, err)
	}
	c := &ImageCover{Tex: tex}
	c.Corners, c.Tile = tileCorners(corners)
	c.warp = imageWarp(c.Corners)
	return c, nil
}

// imageCorners reads the source's four [lon, lat] corners as world
// positions.
func imageCorners(src *style.Source) ([4][2]float64, error) {
	var out [4][2]float64
	raw, ok := src.Raw.Get("coordinates")
	list, isList := raw.([]any)
	if !ok || !isList || len(list) != 4 {
		return out, fmt.Errorf("image source needs four coordinates")
	}
	for i, p := range list {
		pair, ok := p.([]any)
		if !ok || len(pair) != 2 {
			return out, fmt.Errorf("image corner %d is not [lon, lat]", i)
		}
		var ll [2]float64
		for k, v := range pair {
			switch n := v.(type) {
			case float64:
				ll[k] = n
			case json.Number:
				f, err := n.Float64()
				if err != nil {
					return out, fmt.Errorf("image corner %d: %w", i, err)
				}
				ll[k] = f
			default:
				return out, fmt.Errorf("image corner %d is not [lon, lat]", i)
			}
		}
		out[i][0], out[i][1] = geo.LonLatToWorld(ll[0], ll[1])
	}
	return out, nil
}

// tileCorners returns the corners in the 8192 units of the tile GL draws
// the image in, rounded to whole units, and that tile (z, x, y): the tile
// at the deepest zoom whose size still holds the corners' box, around the
// box's centre.
func tileCorners(c [4][2]float64) ([4][2]float64, [3]float64) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range c {
		x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
	}
	span := math.Max(x1-x0, y1-y0)
	z := 0.0
	if span > 0 {
		z = math.Max(0, math.Floor(-math.Log2(span)))
	}
	z = math.Min(z, 25)
	n := math.Exp2(z)
	tx, ty := math.Floor((x0+x1)/2*n), math.Floor((y0+y1)/2*n)
	var out [4][2]float64
	for i, p := range c {
		out[i][0] = scene.JSRound((p[0]*n - tx) * 8192)
		out[i][1] = scene.JSRound((p[1]*n - ty) * 8192)
	}
	return out, [3]float64{z, tx, ty}
}

// toTile maps a world position to the units of the image's tile.
func (c *ImageCover) toTile(x, y float64) (float64, float64) {
	n := math.Exp2(c.Tile[0])
	return (x*n - c.Tile[1]) * 8192, (y*n - c.Tile[2]) * 8192
}

// imageWarp returns GL's warp of the corners (top left, top right, bottom
// right, bottom left): the perspective terms of the projective map from
// the unit square, and the share of the bilinear map mixed into it.
func imageWarp(c [4][2]float64) [3]float64 {
	tl, tr, br, bl := c[0], c[1], c[2], c[3]
	affine := [3]float64{0, 0, 1}
	if tl[0]+br[0] == tr[0]+bl[0] && tl[1]+br[1] == tr[1]+bl[1] {
		return affine // a parallelogram
	}
	sumX := tl[0] - tr[0] + br[0] - bl[0]
	sumY := tl[1] - tr[1] + br[1] - bl[1]
	rx, ry := tr[0]-br[0], tr[1]-br[1]
	dx, dy := bl[0]-br[0], bl[1]-br[1]
	det := rx*dy - dx*ry
	if det == 0 {
		return affine
	}
	px := (sumX*dy - dx*sumY) / det
	py := (rx*sumY - sumX*ry) / det
	dens := []float64{1, 1 + px, 1 + px + py, 1 + py}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range dens {
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	fore := hi / lo
	blend := math.Max(0, (1-projectiveForeshortening/fore)/(1-float64(projectiveForeshortening)/bilinearForeshortening))
	if !(fore >= 1 && fore <= bilinearForeshortening) || blend >= 1 {
		return affine
	}
	return [3]float64{px, py, blend}
}

// at returns the position (in tile units) of texture coordinates s, t
// (0..1 across the picture) under the warp.
func (c *ImageCover) at(s, t float64) [2]float64 {
	tl, tr, br, bl := c.Corners[0], c.Corners[1], c.Corners[2], c.Corners[3]
	den := c.warp[0]*s + c.warp[1]*t + 1
	var out [2]float64
	for i := range out {
		bil := lerp(lerp(tl[i], tr[i], s), lerp(bl[i], br[i], s), t)
		across := tr[i] - tl[i] + c.warp[0]*tr[i]
		down := bl[i] - tl[i] + c.warp[1]*bl[i]
		proj := (across*s + down*t + tl[i]) / den
		out[i] = lerp(proj, bil, c.warp[2])
	}
	return out
}

// TexCoord returns the texture coordinates of world position wx, wy,
// and false when no point of the picture lands there. The warp is
// inverted by Newton's method from the affine guess of the top left
// corner's two edges (exact at once for a parallelogram).
func (c *ImageCover) TexCoord(wx, wy float64) (float64, float64, bool) {
	x, y := c.toTile(wx, wy)
	tl, tr, bl := c.Corners[0], c.Corners[1], c.Corners[3]
	ax, ay := tr[0]-tl[0], tr[1]-tl[1]
	bx, by := bl[0]-tl[0], bl[1]-tl[1]
	det := ax*by - bx*ay
	if det == 0 {
		return 0, 0, false
	}
	ex, ey := x-tl[0], y-tl[1]
	s, t := (ex*by-bx*ey)/det, (ax*ey-ex*ay)/det
	if c.warp != [3]float64{0, 0, 1} {
		const h = 1e-4
		for i := 0; i < 20; i++ {
			p := c.at(s, t)
			fx, fy := p[0]-x, p[1]-y
			ps, pt := c.at(s+h, t), c.at(s, t+h)
			j00, j10 := (ps[0]-p[0])/h, (ps[1]-p[1])/h
			j01, j11 := (pt[0]-p[0])/h, (pt[1]-p[1])/h
			d := j00*j11 - j01*j10
			if d == 0 {
				return 0, 0, false
			}
			ds, dt := (fx*j11-j01*fy)/d, (j00*fy-j10*fx)/d
			s, t = s-ds, t-dt
			if math.Abs(ds) < 1e-12 && math.Abs(dt) < 1e-12 {
				break
			}
		}
		p := c.at(s, t)
		// A point the warp does not reach (Newton lost) is no part of
		// the picture.
		if math.Hypot(p[0]-x, p[1]-y) > 1e-3 {
			return 0, 0, false
		}
	}
	return s, t, s >= 0 && s < 1 && t >= 0 && t < 1
}
