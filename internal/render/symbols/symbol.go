package symbols

import (
	"context"
	"image"
	"runtime"
	"sync"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/glyphs"
	"github.com/tesseramaps/tessera/internal/panics"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
)

// symbolPass is the outcome of symbol placement for a whole render: the
// symbols each symbol layer draws. GL decides placement once for the view,
// from the top layer down, and then draws each layer in style order.
type placement struct {
	layers map[string][]*symbol
}

// symbol is one placed label: an icon, a text, or both.
type symbol struct {
	order   int       // feature order within the layer
	sortKey float64   // symbol-sort-key
	y       float64   // anchor y on screen, for viewport-y ordering
	tile    [3]int    // the feature's tile
	ykey    float64   // anchor height on screen in whole tile units, GL's sort key
	world   orb.Point // the anchor, world units

	text    []glyphQuad
	textSDF sdfPaint
	// The text of a point label is put on screen once placed: pending
	// holds its layout while textPending is set; ss and textScale are
	// what its paint is evaluated from (see finishText).
	pending     pendingText
	textPending bool
	ss          *shapedSymbol
	textScale   float64

	icon     *iconQuad
	iconSDF  sdfPaint
	iconOpac float64

	textBoxes []collisionBox
	box       [1]collisionBox // textBoxes of a point label
	// alts are the same symbol with its text at the other
	// text-variable-anchor positions, tried in order when it does not fit.
	alts             []*symbol
	iconBox          collisionBox
	hasText, hasIcon bool
}

// sdfPaint is how an SDF text or icon is drawn.
type sdfPaint struct {
	color, halo         raster.Color
	haloWidth, haloBlur float64
	opacity             float64
	fontScale           float64 // text-size / 24, or icon-size
	// imagesInHalo: the images inside the text are drawn in the halo
	// pass too (see imagesInHalo).
	imagesInHalo bool
}

// glyphQuad is a glyph, or an image inside the text, placed on screen.
type glyphQuad struct {
	g     *glyphs.Glyph // nil for an image
	q     texQuad
	color *raster.Color // a format section's text-color, or nil
	// ic is the image of an image section; linear its sampling.
	ic     *sources.Icon
	linear bool
}

// iconQuad is an icon placed on screen.
type iconQuad struct {
	ic     *sources.Icon
	q      texQuad
	linear bool
}

// Pass lays out, places and draws the symbols of one render, reading
// its sources.
type Pass struct {
	*sources.Set
	// Frame is the picture the symbols are placed and drawn on: the
	// view's, or another grid's (Onto). It hides the sources' Frame,
	// which stays the view's: the features are read for the view.
	Frame scene.Frame
	// project, when set (Onto), puts world positions on that grid in
	// place of Frame.ToScreen.
	project func(wx, wy float64) raster.Point
	comp    *scene.Compiler
	layouts *LayoutCache
	// placement holds the symbol placement of the view; placed waits
	// until it is ready (raising the placement's panic, if any), as often
	// as it is called.
	placement *placement
	placed    func()
}

// NewPass returns the symbol pass of one render over its sources, with
// the style's layers compiled by comp and tile layouts kept in layouts.
func NewPass(set *sources.Set, comp *scene.Compiler, layouts *LayoutCache) *Pass {
	return &Pass{Set: set, Frame: set.Frame, comp: comp, layouts: layouts}
}

// Onto makes the pass place and draw its symbols on a picture of w x h
// device pixels other than the view's, project mapping world units onto
// it: each anchor and each line a label follows goes where project puts
// it, while glyphs and icons stay upright and at their size in the
// picture's pixels, and collisions are decided in them. The view must
// look straight down, north up (no bearing, no pitch). Call it before
// Start.
func (s *Pass) Onto(w, h int, project func(wx, wy float64) raster.Point) {
	v := s.Set.Frame
	s.Frame = scene.Frame{CX: v.CX, CY: v.CY, Scale: v.Scale, W: float64(w), H: float64(h), Cos: 1, Zoom: v.Zoom, Ratio: v.Ratio}
	s.project = project
}

// toScreen puts a world position on the picture the symbols are drawn on.
func (s *Pass) toScreen(wx, wy float64) raster.Point {
	if s.project != nil {
		return s.project(wx, wy)
	}
	return s.Frame.ToScreen(wx, wy)
}

// symbols returns the symbol placement of the view, placing every symbol
// layer of the style on first use, or waiting for the placement started
// by Start.
func (s *Pass) symbols(ctx context.Context) *placement {
	s.Wait()
	if s.placement == nil {
		s.placement = s.placeSymbols(ctx)
	}
	return s.placement
}

// Start places the view's symbols on a goroutine of its own when
// the style has symbol layers to draw and a processor slot is free
// (cpuslots; else when they are first needed): placement needs only the
// sources, so it runs while the layers under the symbols are drawn. The caller
// waits for it with symbols (or Wait) before returning.
func (s *Pass) Start(ctx context.Context) {
	draws := false
	for _, l := range s.Style.Layers {
		if l.Type == "symbol" && scene.Visible(l, s.View.Zoom) {
			draws = true
			break
		}
	}
	if !draws {
		return
	}
	s.placed = sync.OnceFunc(cpuslots.Render.Go(func() { s.placement = s.placeSymbols(ctx) }))
}

// Wait waits for a placement started by Start, raising its
// panic, if any, in the caller's goroutine.
func (s *Pass) Wait() {
	if s.placed != nil {
		s.placed()
	}
}

// Draw draws the layer's placed symbols: icons, then text; for
// SDF images the halos of all symbols first, then their fills.
func (s *Pass) Draw(ctx context.Context, lr *scene.Layer) {
	syms := s.symbols(ctx).layers[lr.Style.ID]
	// The symbols are drawn in bands of rows, one per core, at once: each
	// band draws every symbol in the same order, clipped to its rows, so
	// every pixel gets the same blends in the same order as in one pass.
	// The symbol layers are drawn last, after the placement; the other
	// core is then often idle.
	b := lr.Canvas.Rect
	// One band for the render's goroutine and one for each processor slot
	// free now (cpuslots), taken before the bands are cut.
	bands := 1
	for most := min(runtime.GOMAXPROCS(0), b.Dy()/minSymbolBand); bands < most && len(syms) > 0 && cpuslots.Render.TryAcquire(); {
		bands++
	}
	if bands == 1 {
		s.drawSymbolsOn(lr.Canvas, syms)
		return
	}
	var wg sync.WaitGroup
	var carrier panics.Carrier
	band := func(i int) *raster.Canvas {
		y0, y1 := b.Min.Y+b.Dy()*i/bands, b.Min.Y+b.Dy()*(i+1)/bands
		return &raster.Canvas{RGBA: lr.Canvas.SubImage(image.Rect(b.Min.X, y0, b.Max.X, y1)).(*image.RGBA), Budget: lr.Canvas.Budget}
	}
	for i := 1; i < bands; i++ {
		cv := band(i)
		carrier.Go(&wg, func() {
			defer cpuslots.Render.Release()
			s.drawSymbolsOn(cv, syms)
		})
	}
	func() { defer carrier.Catch(); s.drawSymbolsOn(band(0), syms) }()
	wg.Wait()
	carrier.Rethrow()
}

// minSymbolBand is the fewest rows a band of Draw has.
const minSymbolBand = 128

// drawSymbolsOn draws a layer's placed symbols on a canvas (or a part of
// one): icons, then text, each halos first.
func (s *Pass) drawSymbolsOn(cv *raster.Canvas, syms []*symbol) {
	for _, halo := range []bool{true, false} {
		for _, sym := range syms {
			if sym.icon == nil {
				continue
			}
			if sym.icon.ic.SDF {
				drawSDFIcon(cv, sym.icon, sym.iconSDF, halo)
			} else if !halo {
				drawIcon(cv, sym.icon, sym.iconOpac)
			}
		}
	}
	for _, halo := range []bool{true, false} {
		for _, sym := range syms {
			for i := range sym.text {
				drawGlyph(cv, &sym.text[i], sym.textSDF, halo, s.Frame.Ratio)
			}
		}
	}
}
