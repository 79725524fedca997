package layers

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/sources"
)

// Image draws an image source with a raster layer's paint.
func (lr *Painter) Image(img *sources.ImageCover) {
	if img == nil {
		return
	}
	c := lr.FeatureContext(nil)
	adj := lr.rasterAdjust(c)
	if adj.opacity <= 0 {
		return
	}
	fr := lr.Frame.RasterAligned()
	// Magnified pictures take the layer's filter; minified ones are
	// sampled linearly (GL makes no mipmaps of an image source).
	top := math.Hypot(img.Corners[1][0]-img.Corners[0][0], img.Corners[1][1]-img.Corners[0][1]) / 8192 * fr.Scale / math.Exp2(img.Tile[0])
	nearest := (lr.Str("raster-resampling", c, "linear") == "nearest" || lr.Str("resampling", c, "linear") == "nearest") &&
		float64(img.Tex.W) <= top
	// The world copies the view may show.
	x0, _, x1, _ := fr.WorldBounds()
	w0, w1 := int(math.Floor(x0))-1, int(math.Floor(x1))+1
	w, h := lr.Canvas.Rect.Dx(), lr.Canvas.Rect.Dy()
	// Only the pixels of the copies' boxes on the screen are tried (all
	// of them in a tilted view).
	px0, py0, px1, py1 := 0, 0, w, h
	if fr.Tilt == nil {
		bx0, by0, bx1, by1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		n := math.Exp2(img.Tile[0])
		for k := w0; k <= w1; k++ {
			for _, c := range img.Corners {
				p := fr.ToScreen((img.Tile[1]+c[0]/8192)/n+float64(k), (img.Tile[2]+c[1]/8192)/n)
				bx0, by0, bx1, by1 = math.Min(bx0, p.X), math.Min(by0, p.Y), math.Max(bx1, p.X), math.Max(by1, p.Y)
			}
		}
		px0, py0 = max(0, int(math.Floor(bx0))-1), max(0, int(math.Floor(by0))-1)
		px1, py1 = min(w, int(math.Ceil(bx1))+1), min(h, int(math.Ceil(by1))+1)
	}
	for y := py0; y < py1; y++ {
		if !lr.Canvas.Budget.Spend((px1 - px0) * (w1 - w0 + 1)) {
			return
		}
		for x := px0; x < px1; x++ {
			wx, wy := fr.WorldAt(x, y)
			for k := w0; k <= w1; k++ {
				s, t, ok := img.TexCoord(wx-float64(k), wy)
				if !ok {
					continue
				}
				var texel [4]float64
				if nearest {
					texel = img.Tex.SampleNearest(s, t)
				} else {
					texel = img.Tex.SampleLinear(s, t)
				}
				p := adj.apply(texel)
				lr.Canvas.BlendPremul(x, y, p[0], p[1], p[2], p[3])
				break
			}
		}
	}
}
