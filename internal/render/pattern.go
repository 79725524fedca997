package render

import (
	"context"
	"math"

	"github.com/tesseramaps/tessera/internal/style/expr"
)

// backgroundPattern draws a background layer's background-pattern, the
// sprite icon repeated across the map at its display size (its pixels over
// its pixel ratio, in CSS pixels), aligned to the world's pixel grid and
// sampled linearly with wrapping, as GL's pattern atlas lets it. It
// reports false when the layer has no pattern.
func (s *sourceSet) backgroundPattern(ctx context.Context, lr *layerRender) bool {
	e := lr.props["background-pattern"]
	if e == nil {
		return false
	}
	c := lr.ctx(nil)
	v := e.EvalOrDefault(c)
	var name string
	switch v.Kind() {
	case expr.KindString:
		name = v.Str()
	case expr.KindResolvedImage:
		if im := v.Image(); im != nil {
			name = im.Name
		}
	}
	if name == "" {
		return false
	}
	if s.sprite == nil {
		s.sprite = &spriteSet{s: s}
	}
	ic := s.sprite.icon(ctx, name)
	if ic == nil {
		return true // a missing image draws nothing
	}
	opacity := lr.num("background-opacity", c, 1)
	if opacity <= 0 {
		return true
	}
	fr := s.frame
	// Texels per device pixel, and the texel under the image's origin.
	k := ic.ratio / fr.ratio
	w, h := lr.cv.Rect.Dx(), lr.cv.Rect.Dy()
	pw, ph := float64(ic.w), float64(ic.h)
	at := func(i, j int, ch int) float64 {
		i = ((i % ic.w) + ic.w) % ic.w
		j = ((j % ic.h) + ic.h) % ic.h
		return float64(ic.pix[(j*ic.w+i)*4+ch])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// The pixel centre in world device pixels, unrotated.
			dx, dy := float64(x)+0.5-fr.w/2, float64(y)+0.5-fr.h/2
			wx := fr.cx*fr.scale + dx*fr.cos + dy*fr.sin
			wy := fr.cy*fr.scale - dx*fr.sin + dy*fr.cos
			u := math.Mod(wx*k, pw) - 0.5
			t := math.Mod(wy*k, ph) - 0.5
			i0, j0 := int(math.Floor(u)), int(math.Floor(t))
			ax, ay := u-math.Floor(u), t-math.Floor(t)
			var p [4]float64
			for ch := 0; ch < 4; ch++ {
				top := at(i0, j0, ch)*(1-ax) + at(i0+1, j0, ch)*ax
				bot := at(i0, j0+1, ch)*(1-ax) + at(i0+1, j0+1, ch)*ax
				p[ch] = (top*(1-ay) + bot*ay) / 255 * opacity
			}
			lr.cv.BlendPremul(x, y, p[0], p[1], p[2], p[3])
		}
	}
	return true
}
