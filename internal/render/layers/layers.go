package layers

import (
	"sort"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Painter draws a layer of one of the kinds that are not symbols, keeping
// what it reuses between features.
type Painter struct {
	scene.Layer
	lines *lineBuilder // reused between features
	// pts and rings hold a polygon's projected rings, reused between
	// polygons (projectRings).
	pts   []raster.Point
	rings [][]raster.Point
	tiles []scene.Box // the view's tiles, once asked
	// sprites gives the images of patterns.
	sprites *sources.Patterns

	gradient *raster.Gradient // line-gradient's ramp, once built
	// lineConst is the style of every feature's line when it depends on
	// no feature, once lineChecked.
	lineConst    *lineStyle
	lineChecked  bool
	gradientDone bool
	seen         map[*scene.Box]bool // whether tile squares reach the image
}

// NewPainter returns a painter of layer l, which takes its patterns'
// images from patterns.
func NewPainter(l scene.Layer, patterns *sources.Patterns) *Painter {
	return &Painter{Layer: l, sprites: patterns}
}

// Background fills the canvas with the background layer's colour or
// pattern.
func (lr *Painter) Background() {
	c := lr.FeatureContext(nil)
	if img := lr.patternImage("background-pattern", c); img != nil {
		lr.Canvas.FillPattern(lr.planePattern(img, 0, 0), lr.Num("background-opacity", c, 1))
		return
	}
	if lr.Style.Paint != nil && lr.Style.Paint.Has("background-pattern") {
		return // a pattern whose image is missing draws nothing, as in GL
	}
	col, ok := lr.Color("background-color", c)
	if !ok {
		return
	}
	lr.Canvas.Fill(col, lr.Num("background-opacity", c, 1))
}

// Draw draws the layer's features, each feature with its own properties.
func (lr *Painter) Draw(runs scene.Runs) {
	if lr.Style.Type == "circle" {
		runs = scene.Runs{byTileOrder(runs.Flat(), lr.viewTiles)}
	}
	if lr.sortKeyed() {
		runs = scene.Runs{lr.sortByKey(runs.Flat())}
	}
	clipped := lr.Style.Type == "fill" || lr.Style.Type == "line"
	// GL draws a fill layer's interiors, then its antialiasing outlines
	// over all of them: the outlines are a pass of their own.
	type outline struct {
		f     *scene.Feature
		paint fillPaint
	}
	var outlines []outline
	// One context serves every feature in turn: evaluation keeps none.
	c := lr.FeatureContext(nil)
	var cull featureCull
	if clipped {
		cull = lr.featureCull(c)
	}
	for _, run := range runs {
		for i := range run {
			if lr.Canvas.Budget.Stopped() {
				return // cancelled, or over the render's work bound
			}
			if lr.Style.Type == "fill" && run[i].Kind == "LineString" {
				// GL fills the rings lines close.
				for _, g := range lr.lineFills(&run[i]) {
					if fp, ok := lr.drawFeature(&g, c, clipped, &cull); ok {
						outlines = append(outlines, outline{&g, fp})
					}
				}
				continue
			}
			if fp, ok := lr.drawFeature(&run[i], c, clipped, &cull); ok {
				outlines = append(outlines, outline{&run[i], fp})
			}
		}
	}
	for k := range outlines {
		lr.fillOutline(*outlines[k].f, &outlines[k].paint)
	}
}

// drawFeature draws one feature of the layer with context c (its feature
// set here), unless it is culled or filtered out. A fill drawn returns its
// paint: its antialiasing outline is drawn after every interior.
func (lr *Painter) drawFeature(f *scene.Feature, c *expr.EvalContext, clipped bool, cull *featureCull) (fillPaint, bool) {
	if clipped && f.Clip != nil && !lr.squareVisible(f.Clip) {
		// Fills and lines are cut to their tile's square: a tile read
		// only for the labels around the view draws nothing here.
		return fillPaint{}, false
	}
	if cull.ok && !lr.featureReaches(*f, cull) {
		return fillPaint{}, false // nothing of it can reach the canvas: no filter to evaluate
	}
	c.Feature = f.Expr
	if !lr.Keeps(c) {
		return fillPaint{}, false
	}
	switch lr.Style.Type {
	case "fill":
		return lr.fill(*f, c)
	case "line":
		lr.line(*f, c)
	case "circle":
		lr.circle(*f, c)
	}
	return fillPaint{}, false
}

// sortKeyed reports whether the layer orders its features by a sort key.
func (lr *Painter) sortKeyed() bool {
	return lr.Style.Layout != nil && lr.Style.Layout.Has(lr.Style.Type+"-sort-key")
}

// sortByKey orders the features by the layer's fill-, line- or
// circle-sort-key, ascending (a higher key is drawn above), keeping the
// order of features with equal keys. GL sorts each tile's features: fills
// and lines are cut to their tiles, so one sort of all of them draws the
// same; circles keep their tiles' order (byTileOrder) and are sorted
// within each tile.
func (lr *Painter) sortByKey(feats []scene.Feature) []scene.Feature {
	name := lr.Style.Type + "-sort-key"
	if lr.Style.Layout == nil || !lr.Style.Layout.Has(name) || len(feats) < 2 {
		return feats
	}
	// Circles come in runs of one tile (byTileOrder); each run is sorted
	// apart. Fills and lines sort as one run.
	type keyed struct {
		run int
		key float64
		i   int
	}
	ks := make([]keyed, len(feats))
	for i, f := range feats {
		ks[i] = keyed{key: lr.Num(name, lr.FeatureContext(f.Expr), 0), i: i}
		if i > 0 {
			ks[i].run = ks[i-1].run
			if lr.Style.Type == "circle" && !sameTile(f.Clip, feats[i-1].Clip) {
				ks[i].run++
			}
		}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		if ks[a].run != ks[b].run {
			return ks[a].run < ks[b].run
		}
		return ks[a].key < ks[b].key
	})
	out := make([]scene.Feature, len(feats))
	for j, k := range ks {
		out[j] = feats[k.i]
	}
	return out
}

// byTileOrder returns the features in the order GL draws circles: tile by
// tile, from the bottom row of tiles up and right to left within a row,
// each tile's features in their order. GeoJSON features (without a tile)
// are cut into the view's tiles: each copy keeps the points of one.
func byTileOrder(feats []scene.Feature, viewTiles func() []scene.Box) []scene.Feature {
	type entry struct {
		tile scene.Box
		i    int
	}
	var entries []entry
	for i, f := range feats {
		if f.Clip != nil {
			entries = append(entries, entry{*f.Clip, i})
			continue
		}
		for _, t := range viewTiles() {
			entries = append(entries, entry{t, i})
		}
	}
	sort.SliceStable(entries, func(a, b int) bool {
		ta, tb := entries[a].tile, entries[b].tile
		if ta.Y0 != tb.Y0 {
			return ta.Y0 > tb.Y0
		}
		return ta.X0 > tb.X0
	})
	out := make([]scene.Feature, 0, len(entries))
	for _, e := range entries {
		f := feats[e.i]
		if f.Clip == nil {
			tile := e.tile
			f.Clip = &tile
		}
		out = append(out, f)
	}
	return out
}
