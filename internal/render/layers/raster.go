package layers

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// The raster layer: each device pixel is mapped back through the view to
// the tile under it and the tile's image sampled there (bilinear or
// nearest), the colour adjusted by the layer's paint as GL's raster shader
// adjusts it, and blended over the canvas. Every pixel belongs to exactly
// one tile square, so tiles join without seams.

// rasterAdjust is a raster layer's paint, evaluated at the view's zoom, in
// the form the per-pixel step uses.
type rasterAdjust struct {
	opacity float64
	// spin holds the weights of the hue rotation: a rotation of the RGB
	// cube about its grey diagonal, whose matrix is circulant, so three
	// numbers give it.
	spin [3]float64
	// saturation and contrast are the factors the paint values map to.
	saturation, contrast float64
	// lo and hi are what black and white map to (raster-brightness-min and
	// -max).
	lo, hi float64
}

// newRasterAdjust turns raster paint values into the factors of the
// per-pixel step. hue is in degrees; saturation and contrast in -1..1.
func newRasterAdjust(opacity, hue, brightMin, brightMax, saturation, contrast float64) rasterAdjust {
	a := rasterAdjust{opacity: opacity, lo: brightMin, hi: brightMax}
	// Rotating by angle θ about the unit axis (1,1,1)/√3 (Rodrigues): the
	// diagonal is cos θ + (1 - cos θ)/3, and off the diagonal (1 - cos θ)/3
	// plus or minus sin θ/√3, by the side of the diagonal.
	s, c := math.Sincos(hue * math.Pi / 180)
	a.spin = [3]float64{
		(2*c + 1) / 3,
		(1 - c - math.Sqrt(3)*s) / 3,
		(1 - c + math.Sqrt(3)*s) / 3,
	}
	// Saturation moves each channel towards the grey of the pixel (the
	// mean of its channels) by the factor: -s when desaturating (1 is
	// all grey), and away from it when saturating, the factor going to
	// -1000 as the saturation goes to 1.
	if saturation > 0 {
		a.saturation = 1 - 1/(1.001-saturation)
	} else {
		a.saturation = -saturation
	}
	// Contrast scales the distance from mid-grey: 1 + c below zero (down
	// to flat grey), 1/(1 - c) above it.
	if contrast > 0 {
		a.contrast = 1 / (1 - contrast)
	} else {
		a.contrast = 1 + contrast
	}
	return a
}

// apply adjusts a premultiplied texel (components 0..1) and returns the
// premultiplied colour to blend, each component clamped to 0..1 as a
// framebuffer stores it. The steps, on the straight colour: hue rotation,
// saturation, contrast, then brightness maps 0..1 onto min..max; the
// alpha is scaled by the opacity.
func (a rasterAdjust) apply(t [4]float64) [4]float64 {
	alpha := t[3]
	rgb := [3]float64{t[0], t[1], t[2]}
	if alpha > 0 {
		for i := range rgb {
			rgb[i] /= alpha
		}
	}
	alpha *= a.opacity
	var out [3]float64
	for i := range out {
		// Row i of the circulant rotation matrix.
		out[i] = rgb[i]*a.spin[0] + rgb[(i+1)%3]*a.spin[1] + rgb[(i+2)%3]*a.spin[2]
	}
	// The rotation keeps the mean of the channels: the grey of the pixel
	// is the same before and after it.
	grey := (rgb[0] + rgb[1] + rgb[2]) / 3
	for i := range out {
		v := out[i] + (grey-out[i])*a.saturation
		v = (v-0.5)*a.contrast + 0.5
		out[i] = (a.lo + (a.hi-a.lo)*v) * alpha
	}
	return [4]float64{clamp01(out[0]), clamp01(out[1]), clamp01(out[2]), clamp01(alpha)}
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// rasterAdjust returns the layer's raster paint: opacity, hue rotation,
// brightness, saturation and contrast.
func (lr *Painter) rasterAdjust(c *expr.EvalContext) rasterAdjust {
	return newRasterAdjust(
		lr.Num("raster-opacity", c, 1),
		lr.Num("raster-hue-rotate", c, 0),
		lr.Num("raster-brightness-min", c, 0),
		lr.Num("raster-brightness-max", c, 1),
		lr.Num("raster-saturation", c, 0),
		lr.Num("raster-contrast", c, 0),
	)
}

// Raster draws the tiles of a raster source.
func (lr *Painter) Raster(cover *sources.RasterCover) {
	if cover == nil || len(cover.Tiles) == 0 {
		return
	}
	c := lr.FeatureContext(nil)
	adj := lr.rasterAdjust(c)
	if adj.opacity <= 0 {
		return
	}
	nearest := lr.Str("raster-resampling", c, "linear") == "nearest"
	fr := lr.Frame.RasterAligned()
	n := float64(int(1) << cover.Z)
	tilePixels := fr.Scale / n // device pixels across a tile
	// GL magnifies with the layer's filter and minifies (any texture drawn
	// smaller than its size) with linear filtering of the nearest mipmap.
	type choice struct {
		t      *sources.Texture
		linear bool
	}
	levels := map[*sources.Texture]choice{}
	eachTilePixel(lr.Canvas, fr, cover.Z, cover.Tile, func(x, y int, t *sources.Texture, tx, ty float64) {
		col, row := math.Floor(tx), math.Floor(ty)
		wx, wy := tx/n, ty/n
		var ch choice
		var ok bool
		if fr.Tilt != nil {
			// Under a tilted camera a texel covers fewer pixels with
			// distance: the level is chosen per pixel, as the GPU
			// does, from how far the next pixels land on the map.
			ax, ay := fr.WorldAt(x+1, y)
			bx, by := fr.WorldAt(x, y+1)
			perPixel := math.Max(math.Hypot(ax-wx, ay-wy), math.Hypot(bx-wx, by-wy)) * n * float64(t.W)
			ch = choice{t: t.Level(perPixel), linear: !nearest || perPixel > 1}
		} else if ch, ok = levels[t]; !ok {
			perPixel := float64(t.W) / tilePixels
			ch = choice{t: t.Level(perPixel), linear: !nearest || perPixel > 1}
			levels[t] = ch
		}
		var texel [4]float64
		if ch.linear {
			texel = ch.t.SampleLinear(tx-col, ty-row)
		} else {
			texel = ch.t.SampleNearest(tx-col, ty-row)
		}
		p := adj.apply(texel)
		lr.Canvas.BlendPremul(x, y, p[0], p[1], p[2], p[3])
	})
}

// eachTilePixel calls draw for each pixel of cv whose place on the map
// (through the frame, a tilted camera included) falls on a tile of a cover
// of zoom z, tile looking tiles up by column and row (the column wrapped
// by the cover), with the pixel's position in tile units of the zoom.
func eachTilePixel[T any](cv *raster.Canvas, fr scene.Frame, z int, tile func(col, row int) *T, draw func(x, y int, t *T, tx, ty float64)) {
	n := float64(int(1) << z)
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	for y := 0; y < h; y++ {
		if !cv.Budget.Spend(w) {
			return
		}
		for x := 0; x < w; x++ {
			wx, wy := fr.WorldAt(x, y)
			tx, ty := wx*n, wy*n
			row := math.Floor(ty)
			if row < 0 || row >= n {
				continue
			}
			if t := tile(int(math.Floor(tx)), int(row)); t != nil {
				draw(x, y, t, tx, ty)
			}
		}
	}
}
