package render

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/render/layers"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/symbols"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// View is what to draw (see scene.View): the map around a centre at a
// zoom, of a size in CSS pixels drawn at a pixel ratio.
type View = scene.View

// Resources gives the renderer the bytes behind the style's URLs (see
// sources.Resources).
type Resources = sources.Resources

// MaxPixels bounds the device pixels of one picture.
const MaxPixels = 4096 * 4096

// Renderer draws styles. It is safe for concurrent use.
type Renderer struct {
	log *slog.Logger
	// comp compiles the styles' layers, once per style.
	comp *scene.Compiler
	// decoded keeps decoded vector tiles between renders.
	decoded *sources.DecodedCache
	// layouts keeps the symbol layouts of vector tiles between renders.
	layouts *symbols.LayoutCache
}

// New returns a renderer.
func New(log *slog.Logger) (*Renderer, error) {
	if log == nil {
		log = slog.Default()
	}
	r := &Renderer{log: log, comp: scene.NewCompiler(log), decoded: sources.NewDecodedCache(sources.DefaultDecodedCacheBytes),
		layouts: symbols.NewLayoutCache(symbols.DefaultLayoutCacheBytes)}
	r.decoded.OnEvict = r.layouts.DropTile
	return r, nil
}

// ViewOf returns the style's own view (its center and zoom) at a size.
func ViewOf(st *style.Style, width, height int, pixelRatio float64) View {
	v := View{Width: width, Height: height, PixelRatio: pixelRatio}
	if len(st.Center) == 2 {
		v.Center = [2]float64{st.Center[0], st.Center[1]}
	}
	if st.Zoom != nil {
		v.Zoom = *st.Zoom
	}
	v.Bearing = docNumber(st, "bearing")
	v.Pitch = math.Max(0, math.Min(scene.MaxPitch, docNumber(st, "pitch")))
	return v
}

// docNumber returns a number at the top of the style document, 0 when
// absent.
func docNumber(st *style.Style, key string) float64 {
	b, ok := st.Doc().Get(key)
	if !ok {
		return 0
	}
	switch f := b.(type) {
	case float64:
		return f
	case json.Number:
		n, _ := f.Float64()
		return n
	}
	return 0
}

// Render draws st in view v.
func (r *Renderer) Render(ctx context.Context, st *style.Style, v View, res Resources) (*image.RGBA, error) {
	return r.render(ctx, st, v, res, nil)
}

// Output is a picture on another grid than a view's, made from it by
// RenderOnto: a WMS map in geographic coordinates, or with pixels that
// are not square. Project puts world units (the unit Web Mercator
// square) on its pixels (x right, y down, a pixel's centre at half
// units); Warp resamples a picture of the view onto its grid (a new
// picture of Width x Height, transparent where the view has nothing).
type Output struct {
	Width, Height int
	Project       func(wx, wy float64) (x, y float64)
	Warp          func(view *image.RGBA) *image.RGBA
}

// RenderOnto draws st in view v, resampled onto out, with the symbols
// drawn on out itself. The layers are drawn in runs, in style order:
// each run of layers that are not symbols is drawn in the view and
// warped onto out; the symbol layers are placed (in one collision grid,
// as in Render) and drawn straight on out, their anchors and the lines
// they follow put where out.Project puts them, their glyphs and icons
// upright and at their size in out's pixels. A layer above a symbol
// layer covers its labels. The view must look straight down, north up.
// The render's deadline and work bound are Render's, the bound counting
// the pixels of both pictures.
func (r *Renderer) RenderOnto(ctx context.Context, st *style.Style, v View, res Resources, out Output) (*image.RGBA, error) {
	if out.Width <= 0 || out.Height <= 0 || out.Width*out.Height > MaxPixels {
		return nil, fmt.Errorf("render: output size %dx%d outside 1..%d pixels", out.Width, out.Height, MaxPixels)
	}
	if out.Project == nil || out.Warp == nil {
		return nil, errors.New("render: an output needs Project and Warp")
	}
	if v.Bearing != 0 || v.Pitch != 0 {
		return nil, errors.New("render: an output is drawn from a view without bearing or pitch")
	}
	return r.render(ctx, st, v, res, &out)
}

// render draws st in view v: onto the view's picture, or onto out when
// it is not nil (RenderOnto).
func (r *Renderer) render(ctx context.Context, st *style.Style, v View, res Resources, out *Output) (*image.RGBA, error) {
	if v.PixelRatio <= 0 {
		v.PixelRatio = 1
	}
	w, h := int(math.Round(float64(v.Width)*v.PixelRatio)), int(math.Round(float64(v.Height)*v.PixelRatio))
	if w <= 0 || h <= 0 || w*h > MaxPixels {
		return nil, fmt.Errorf("render: image size %dx%d outside 1..%d pixels", w, h, MaxPixels)
	}
	cv := raster.NewCanvas(w, h)
	// The drawing stops when the context ends or when it has done more
	// work than the picture's size allows (see workLimit).
	limit := workLimit(w, h)
	if out != nil {
		limit += workLimit(out.Width, out.Height)
	}
	budget := raster.NewBudget(ctx.Done(), limit)
	cv.Budget = budget
	srcs := sources.NewSet(st, v, res, r.log, r.decoded)
	fr := srcs.Frame
	sprites := sources.NewPatterns(ctx, srcs.Sprite)
	prep := r.comp.Prepare(st)
	syms := symbols.NewPass(srcs, r.comp, r.layouts)
	if out != nil {
		syms.Onto(out.Width, out.Height, func(wx, wy float64) raster.Point {
			x, y := out.Project(wx, wy)
			return raster.Point{X: x, Y: y}
		})
	}
	syms.Start(ctx)
	defer syms.Wait()
	var drawn []int // the layers drawn, in style order
	for i, l := range st.Layers {
		if scene.Visible(l, v.Zoom) && prep.Layers[i].Err == nil { // a broken layer was logged when the style was prepared
			drawn = append(drawn, i)
		}
	}
	d := layerDrawer{r: r, st: st, prep: prep, srcs: srcs, syms: syms, sprites: sprites, fr: fr, zoom: v.Zoom, budget: budget}
	if out != nil {
		cv = d.drawOnto(ctx, drawn, cv, out)
	} else {
		d.drawRun(ctx, drawn, cv)
	}
	// A resource cut short by the deadline leaves a picture with holes:
	// it is not the picture asked for; nor is one whose drawing was
	// stopped for asking too much.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if workObserved != nil {
		workObserved(budget.Used(), w*h)
	}
	if budget.Exceeded() {
		return nil, fmt.Errorf("render: %w (%d units of work for %dx%d pixels)", ErrWorkBound, budget.Used(), w, h)
	}
	return cv.RGBA, nil
}

// drawOnto draws the layers (indexes into the style's layers) onto out
// in runs (see RenderOnto), the runs that are not symbols on view, a
// transparent canvas of the view, and returns out's canvas.
func (d layerDrawer) drawOnto(ctx context.Context, order []int, view *raster.Canvas, out *Output) *raster.Canvas {
	var oc *raster.Canvas
	viewDrawn := false
	for k := 0; k < len(order); {
		symbol := d.st.Layers[order[k]].Type == "symbol"
		j := k + 1
		for j < len(order) && (d.st.Layers[order[j]].Type == "symbol") == symbol {
			j++
		}
		run := order[k:j]
		k = j
		if ctx.Err() != nil || d.budget.Stopped() {
			break
		}
		if oc == nil && symbol {
			oc = raster.NewCanvas(out.Width, out.Height)
			oc.Budget = d.budget
		}
		if symbol {
			// Symbols draw no coverage mask: none is taken for them.
			for _, i := range run {
				if ctx.Err() != nil || d.budget.Stopped() {
					break
				}
				d.drawLayer(ctx, i, d.st.Layers[i], oc, nil)
			}
			continue
		}
		if viewDrawn {
			clear(view.Pix) // of the run drawn before
		}
		d.drawRun(ctx, run, view)
		viewDrawn = true
		warped := &raster.Canvas{RGBA: out.Warp(view.RGBA), Budget: d.budget}
		if oc == nil {
			oc = warped
		} else {
			oc.Over(warped)
		}
	}
	if oc == nil {
		oc = raster.NewCanvas(out.Width, out.Height)
	}
	return oc
}

// drawRun draws the layers (indexes into the style's layers) onto cv:
// in two runs at once when split finds a cut worth it.
func (d layerDrawer) drawRun(ctx context.Context, drawn []int, cv *raster.Canvas) {
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	if split := d.split(ctx, drawn, w*h); split > 0 {
		// The layers above the split are drawn at the same time on a
		// transparent canvas, laid over the rest at the end: "over" is
		// associative, so the picture is the same up to the rounding of
		// each pixel to 8 bits. At the same time only when a processor
		// slot is free (see cpuslots), else one run after the other: the
		// same bytes either way.
		top := raster.NewCanvas(w, h)
		top.Budget = d.budget
		wait := cpuslots.Render.Go(func() { d.draw(ctx, drawn[split:], top) })
		func() {
			defer wait() // a panic of the upper run is raised here
			d.draw(ctx, drawn[:split], cv)
		}()
		cv.Over(top)
	} else {
		d.draw(ctx, drawn, cv)
	}
}

// KeepLayouts says whether the renderer keeps the symbol layouts of vector
// tiles between renders (it does unless told otherwise). A layout kept is
// of every feature of its tile; a renderer that draws one picture lays out
// only the symbols that may reach it.
func (r *Renderer) KeepLayouts(keep bool) { r.layouts.Keep(keep) }

// ErrWorkBound is the error of a render whose style asks for more drawing
// than its picture can show: shapes that cover the picture hundreds of
// times over (lines or circles far wider than the picture, on every
// feature). Such a picture is refused rather than drawn for minutes.
var ErrWorkBound = errors.New("the style asks for more drawing than the picture can show")

// Work bounds: a render may shade some workPerPixel fragments (or cross
// as many polygon edges) for each pixel of its picture, and at least
// minWork in all. Normal styles stay far below: the dense street view of
// the benchmark does about 2.5 units a pixel (see TestWorkOfNormalStyles).
const (
	workPerPixel = 100
	minWork      = 1 << 24
)

// workObserved, when set (by tests), is told the work each render did
// and its picture's pixels.
var workObserved func(used int64, pixels int)

// workLimit returns the work a render of a w x h picture may do.
func workLimit(w, h int) int64 {
	return max(minWork, int64(w)*int64(h)*workPerPixel)
}

// layerDrawer draws a run of a style's layers onto a canvas; several may
// draw runs of one render at once.
type layerDrawer struct {
	r       *Renderer
	st      *style.Style
	prep    *scene.Prepared
	srcs    *sources.Set
	syms    *symbols.Pass
	sprites *sources.Patterns
	fr      scene.Frame
	zoom    float64
	// budget bounds the drawing of the render (raster.Budget).
	budget *raster.Budget
}

// parallelPixels is the smallest image drawn by two goroutines: below it
// the second canvas costs more than it saves.
const parallelPixels = 256 * 256

// split returns where to cut the layers in two runs of about equal work
// drawn at once, or 0 to draw them in one run: when the machine has one
// core, the image is small or the work cannot be split. The work of a
// layer is estimated from what it reads (the features of its source
// layer, read here as drawing would: their count, their vertices, the
// image area their boxes cover) and, for backgrounds and rasters, the
// pixels. The cut depends only on the style, the view and the data, never
// on timing: a view is drawn to the same bytes every time.
func (d layerDrawer) split(ctx context.Context, order []int, pixels int) int {
	if runtime.GOMAXPROCS(0) < 2 || pixels < parallelPixels || len(order) < 2 {
		return 0
	}
	stats := map[[2]string]featureStats{}
	cost := make([]float64, len(order))
	for k, i := range order {
		l := d.st.Layers[i]
		c := 1000.0
		switch l.Type {
		case "background", "raster", "hillshade":
			c += float64(pixels)
		case "fill", "line", "circle", "symbol", "heatmap", "fill-extrusion":
			feats, err := d.srcs.Features(ctx, l)
			if err != nil {
				break
			}
			key := [2]string{l.Source, l.SourceLayer}
			st, ok := stats[key]
			if !ok {
				st = d.measure(l, feats, pixels)
				stats[key] = st
			}
			// The share of the features the layer's filter keeps, from a
			// sample of them: many order draw a few of one source
			// layer's features.
			share := d.filterShare(i, feats)
			switch l.Type {
			case "fill", "fill-extrusion", "heatmap":
				c += share * (2000*st.features + st.area)
			case "line":
				c += share * (2000*st.features + 300*st.vertices + 8*st.length)
			default:
				c += share * 3000 * st.features
			}
		}
		cost[k] = c
	}
	return balancedCut(cost)
}

// filterSample is how many features, evenly spread, filterShare tries.
const filterSample = 64

// filterShare returns the share of a sample of the features that layer i's
// filter keeps (1 without a filter).
func (d layerDrawer) filterShare(i int, feats scene.Runs) float64 {
	f := d.prep.Layers[i].Filter
	total := feats.Count()
	if f == nil || total == 0 {
		return 1
	}
	n := min(total, filterSample)
	kept := 0
	for k := range n {
		c := &expr.EvalContext{Zoom: d.zoom, Feature: feats.At(k * total / n).Expr}
		if v := f.EvalOrDefault(c); v.Kind() == expr.KindBoolean && v.Boolean() {
			kept++
		}
	}
	return float64(kept) / float64(n)
}

// featureStats sums what drawing a source layer's features costs: their
// number, their vertices, their lengths in device pixels and the image
// area (device pixels) their boxes cover.
type featureStats struct {
	features, vertices, length, area float64
}

// measure returns the stats of a layer's features. A vector tile keeps
// what they are in world units (layerShape): a render only scales it.
func (d layerDrawer) measure(l *style.Layer, runs scene.Runs, pixels int) featureStats {
	var st featureStats
	if tiles := d.srcs.VectorTiles(l); tiles != nil {
		for _, t := range tiles {
			st.add(t.Shape(l.SourceLayer), d.fr.Scale, pixels)
		}
		return st
	}
	st.add(sources.ShapeOf(runs), d.fr.Scale, pixels)
	return st
}

// add adds the stats of features of shape sh drawn at scale device pixels
// a world unit on an image of pixels: a polygon's box covers at most the
// image.
func (st *featureStats) add(sh *sources.LayerShape, scale float64, pixels int) {
	st.features += float64(sh.Features)
	st.vertices += float64(sh.Vertices)
	st.length += sh.Length * scale
	s2 := scale * scale
	k, _ := slices.BinarySearchFunc(sh.Areas, float64(pixels), func(a, p float64) int { return cmp.Compare(a*s2, p) })
	st.area += sh.Sums[k]*s2 + float64(len(sh.Areas)-k)*float64(pixels)
}

// balancedCut returns the cut 1..len(cost)-1 that leaves the least work
// to the busier of the two runs, or 0 when there is nothing to cut.
func balancedCut(cost []float64) int {
	total := 0.0
	for _, c := range cost {
		total += c
	}
	best, bestMax, sum := 0, math.Inf(1), 0.0
	for k := 1; k < len(cost); k++ {
		sum += cost[k-1]
		if m := math.Max(sum, total-sum); m < bestMax {
			best, bestMax = k, m
		}
	}
	return best
}

// draw draws the layers (indexes into the style's layers) onto cv.
func (d layerDrawer) draw(ctx context.Context, order []int, cv *raster.Canvas) {
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	mask := getMask(w, h)
	mask.Budget = d.budget
	defer maskPool.Put(mask)
	for _, i := range order {
		if ctx.Err() != nil || d.budget.Stopped() {
			return
		}
		l := d.st.Layers[i]
		d.drawLayer(ctx, i, l, cv, mask)
	}
}

// drawLayer draws layer i, l, onto cv. A layer whose source cannot be
// read is logged and left out.
func (d layerDrawer) drawLayer(ctx context.Context, i int, l *style.Layer, cv *raster.Canvas, mask *raster.Mask) {
	lr := layers.NewPainter(scene.Layer{Style: l, Canvas: cv, Mask: mask, Frame: d.fr, Zoom: d.zoom}, d.sprites)
	c := d.prep.Layers[i]
	lr.Filter, lr.Props = c.Filter, c.Props
	var err error
	switch l.Type {
	case "background":
		lr.Background()
	case "fill", "line", "circle", "heatmap", "fill-extrusion":
		var feats scene.Runs
		if feats, err = d.srcs.Features(ctx, l); err != nil {
			break
		}
		switch l.Type {
		case "heatmap":
			lr.Heatmap(feats.Flat())
		case "fill-extrusion":
			lr.Extrusion(feats.Flat(), d.st)
		default:
			lr.Draw(feats)
		}
	case "raster":
		if d.srcs.IsImage(l) {
			lr.Image(d.srcs.Image(ctx, l))
			break
		}
		var cover *sources.RasterCover
		if cover, err = d.srcs.Raster(ctx, l); err == nil {
			lr.Raster(cover)
		}
	case "symbol":
		d.syms.Draw(ctx, &lr.Layer)
	case "hillshade":
		var cover *sources.DEMCover
		if cover, err = d.srcs.DEM(ctx, l); err == nil {
			lr.Hillshade(cover)
		}
	}
	if err != nil {
		d.r.log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
	}
}

// maskPool keeps coverage masks between renders: a tile server draws many
// pictures of one size, and a mask is four bytes a pixel to clear.
var maskPool sync.Pool

// getMask returns an empty mask of w x h, reused when one of that size is
// free (masks are left empty by the layers that use them).
func getMask(w, h int) *raster.Mask {
	if m, ok := maskPool.Get().(*raster.Mask); ok && m.W == w && m.H == h {
		m.Reset()
		return m
	}
	return raster.NewMask(w, h)
}
