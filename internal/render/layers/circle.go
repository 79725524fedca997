package layers

import (
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

func (lr *Painter) circle(f scene.Feature, c *expr.EvalContext) {
	// GL draws a circle at every vertex of a feature, of lines and
	// polygon rings too, but only at those inside the tile's square.
	parts := vertexParts(f)
	if parts == nil {
		return
	}
	ratio := lr.Frame.Ratio
	radius := lr.Num("circle-radius", c, 5) * ratio
	blur := lr.Num("circle-blur", c, 0)
	opacity := lr.Num("circle-opacity", c, 1)
	stroke := lr.Num("circle-stroke-width", c, 0) * ratio
	dx, dy := lr.Translate("circle-translate", c)
	col, ok := lr.Color("circle-color", c)
	if !ok {
		return
	}
	scol, _ := lr.Color("circle-stroke-color", c)
	sop := lr.Num("circle-stroke-opacity", c, 1)
	// Under a tilted camera circles face the viewer; with pitch scale
	// "map" they shrink with their distance, antialiased as at their own
	// size.
	scaleWithMap := lr.Str("circle-pitch-scale", c, "map") == "map"
	for _, part := range parts {
		for _, p := range lr.projectPlane(part, dx, dy) {
			k := 1.0
			if t := lr.Frame.Tilt; t != nil {
				var w float64
				p, w = t.Project(p)
				if scaleWithMap {
					k = 1 / w
				}
			}
			aa := 0.0
			if k != 1 && radius+stroke > 0 {
				aa = 1 / (radius + stroke)
			}
			lr.Canvas.Circle(p, radius*k, stroke*k, blur, aa, col, scol, opacity, sop*opacity)
		}
	}
}
