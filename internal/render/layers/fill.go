package layers

import (
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// fillPaint is how a polygon feature is filled, kept from the pass that
// draws its interior for the one that draws its outline.
type fillPaint struct {
	col, outline    raster.Color
	opacity, dx, dy float64
	pattern         *raster.Pattern
}

// fill draws a polygon feature's interior; it reports whether the feature
// has an antialiasing outline to draw, and how (fillOutline).
func (lr *Painter) fill(f scene.Feature, c *expr.EvalContext) (fillPaint, bool) {
	if f.Kind != "Polygon" {
		return fillPaint{}, false
	}
	col, ok := lr.Color("fill-color", c)
	if !ok {
		return fillPaint{}, false
	}
	antialias := lr.Bool("fill-antialias", c, true)
	fp := fillPaint{col: col, outline: col, opacity: lr.Num("fill-opacity", c, 1)}
	fp.dx, fp.dy = lr.Translate("fill-translate", c)
	if img := lr.patternImage("fill-pattern", c); img != nil {
		fp.pattern = lr.planePattern(img, fp.dx, fp.dy)
	}
	// GL draws fills without antialiasing, then a one-pixel outline on
	// top when fill-antialias is on; a pattern fill, and its outline,
	// take the pattern's colours.
	if antialias {
		if oc, ok := lr.Color("fill-outline-color", c); ok && lr.Style.Paint != nil && lr.Style.Paint.Has("fill-outline-color") {
			fp.outline = oc
		}
	}
	for _, poly := range f.Polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 0) {
			continue // pixels are drawn where their centres lie in the rings
		}
		if fp.pattern == nil {
			lr.Canvas.FillPolygon(rings, col, fp.opacity)
			continue
		}
		lr.Mask.Reset()
		lr.Mask.FillPolygon(rings)
		lr.Canvas.CompositePattern(lr.Mask, fp.pattern, fp.opacity)
	}
	return fp, antialias
}

// fillOutline draws a polygon feature's antialiasing outline with the
// paint its interior had.
func (lr *Painter) fillOutline(f scene.Feature, fp *fillPaint) {
	for _, poly := range f.Polygons {
		rings := lr.projectRings(poly, fp.dx, fp.dy)
		if !lr.reaches(rings, 1) {
			continue // outlines are drawn within a pixel of an edge
		}
		lr.Mask.Reset()
		for k, r := range rings {
			lr.Mask.HairlineDepth(r, lr.depths(poly[k], fp.dx, fp.dy), f.CutEdge(poly[k]), f.CutPoint(poly[k]))
		}
		if fp.pattern != nil {
			lr.Canvas.CompositePattern(lr.Mask, fp.pattern, fp.opacity)
		} else {
			lr.Canvas.Composite(lr.Mask, fp.outline, fp.opacity)
		}
	}
}
