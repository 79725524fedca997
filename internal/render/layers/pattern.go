package layers

import (
	"math"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Patterns (background-pattern, fill-pattern, line-pattern) are images of
// the style's sprite sheets.

// patternImage returns the image a pattern property names, nil for none.
func (lr *Painter) patternImage(name string, c *expr.EvalContext) *sources.PatternImage {
	e := lr.Props[name]
	if e == nil || lr.Style.Paint == nil || !lr.Style.Paint.Has(name) {
		return nil
	}
	v := e.EvalOrDefault(c)
	var id string
	switch v.Kind() {
	case expr.KindResolvedImage:
		if img := v.Image(); img != nil {
			id = img.Name
		}
	case expr.KindString:
		id = v.Str()
	}
	if id == "" {
		return nil
	}
	return lr.sprites.Image(id)
}

// planePattern returns the image repeated over the map as GL's fill and
// background patterns are: anchored to the world's pixels at the zoom's
// floor, each repeat the image's size in CSS pixels there, the whole
// shifted by (dx, dy) device pixels.
func (lr *Painter) planePattern(img *sources.PatternImage, dx, dy float64) *raster.Pattern {
	fr := lr.Frame
	// Texels per world unit.
	k := 512 * math.Exp2(math.Floor(lr.Zoom)) * img.Ratio
	// A device pixel's centre (x+.5, y+.5), shifted back, to the world:
	// the inverse of frame.toScreen.
	ox, oy := 0.5-dx-fr.W/2, 0.5-dy-fr.H/2
	wx0 := fr.CX + (ox*fr.Cos+oy*fr.Sin)/fr.Scale
	wy0 := fr.CY + (-ox*fr.Sin+oy*fr.Cos)/fr.Scale
	return &raster.Pattern{
		Img: img.Sheet, Rect: img.Rect,
		X0: wx0 * k, Y0: wy0 * k,
		XX: fr.Cos / fr.Scale * k, XY: -fr.Sin / fr.Scale * k,
		YX: fr.Sin / fr.Scale * k, YY: fr.Cos / fr.Scale * k,
		Tilt: fr.Tilt,
	}
}
