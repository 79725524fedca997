package symbols

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// placeSymbols lays out and places the symbols of every visible symbol
// layer, from the top of the style down, in one collision index.
func (s *Pass) placeSymbols(ctx context.Context) *placement {
	pass := &placement{layers: map[string][]*symbol{}}
	s.Glyphs = sources.NewGlyphs(s.Set)
	hashes := &glyphHashes{gs: s.Glyphs}
	if s.Sprite == nil {
		s.Sprite = sources.NewSprites(s.Set)
	}
	margin := 100.0
	if s.View.LabelMargin > margin {
		margin = s.View.LabelMargin
	}
	grid := newCollisionGrid(s.Frame.W, s.Frame.H, margin*s.Frame.Ratio)
	type laid struct {
		id    string
		lr    *symLayer
		cands []*symbol
		sl    symbolLayout
	}
	// The layers are laid out on all cores (each on its own: layout reads
	// the sources, glyphs and sprite, all safe for concurrent use), then
	// placed one after the other.
	prep := s.comp.Prepare(s.Style)
	var order []int // the symbol layers drawn, top first
	for i := len(s.Style.Layers) - 1; i >= 0; i-- {
		l := s.Style.Layers[i]
		if l.Type == "symbol" && scene.Visible(l, s.View.Zoom) && prep.Layers[i].Err == nil {
			order = append(order, i)
		}
	}
	out := make([]*laid, len(order))
	layout := func(k int) {
		if ctx.Err() != nil {
			return
		}
		i := order[k]
		l := s.Style.Layers[i]
		lr := &symLayer{Layer: &scene.Layer{Style: l, Frame: s.Frame, Zoom: s.View.Zoom, Filter: prep.Layers[i].Filter, Props: prep.Layers[i].Props}, hashes: hashes}
		feats, err := s.Features(ctx, l)
		if err != nil {
			s.Log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
			return
		}
		cands, sl := s.layoutLayer(ctx, lr, feats)
		out[k] = &laid{l.ID, lr, cands, sl}
	}
	var next atomic.Int64
	cpuslots.Render.Spread(min(len(order), runtime.GOMAXPROCS(0)), func() {
		for k := int(next.Add(1)) - 1; k < len(order); k = int(next.Add(1)) - 1 {
			layout(k)
		}
	})
	var layers []laid // top first
	for _, ly := range out {
		if ly != nil {
			layers = append(layers, *ly)
		}
	}
	placed := make([][]*symbol, len(layers))
	if s.View.LabelGrid > 0 {
		// Labels across the edges of the tile grid first, in an order that
		// depends only on them, so that neighbouring tiles agree.
		for i, ly := range layers {
			var edge, rest []*symbol
			for _, sym := range ly.cands {
				if s.crossesGrid(sym) {
					edge = append(edge, sym)
				} else {
					rest = append(rest, sym)
				}
			}
			slices.SortStableFunc(edge, func(a, b *symbol) int {
				if c := compareFloats(a.sortKey, b.sortKey); c != 0 {
					return c
				}
				if c := compareFloats(a.world[1], b.world[1]); c != 0 {
					return c
				}
				return compareFloats(a.world[0], b.world[0])
			})
			placed[i] = placeAll(ctx, edge, ly.sl, grid)
			layers[i].cands = rest
		}
	}
	for i, ly := range layers {
		if ctx.Err() != nil {
			break // the render is thrown away
		}
		placed[i] = append(placed[i], placeAll(ctx, ly.cands, ly.sl, grid)...)
		for _, sym := range placed[i] {
			s.finishText(ctx, ly.lr, sym)
		}
		drawOrder(placed[i], ly.sl)
		pass.layers[ly.id] = placed[i]
	}
	return pass
}

// crossesGrid reports whether a symbol's boxes cross an edge of the view's
// label grid (LabelGrid CSS pixels on the world's pixel grid).
func (s *Pass) crossesGrid(sym *symbol) bool {
	fr := s.Frame
	if fr.Sin != 0 || s.project != nil {
		return false // a turned view, or another grid (Onto), has no tile edges to agree on
	}
	g := s.View.LabelGrid * fr.Ratio
	ox, oy := fr.CX*fr.Scale-fr.W/2, fr.CY*fr.Scale-fr.H/2 // the view's corner, world device pixels
	cross := func(b collisionBox) bool {
		return math.Floor((b.x0+ox)/g) != math.Floor((b.x1+ox)/g) || math.Floor((b.y0+oy)/g) != math.Floor((b.y1+oy)/g)
	}
	for _, b := range sym.textBoxes {
		if cross(b) {
			return true
		}
	}
	return sym.hasIcon && cross(sym.iconBox)
}

// compareFloats compares a and b as a stable sort by a < b orders them:
// -1 when a < b, 1 when a > b, else 0 (NaN too, which sorts nowhere).
func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// symbolLayout holds a layer's layout switches that do not vary by feature.
type symbolLayout struct {
	textOverlap, iconOverlap                 overlapMode
	textIgnorePlacement, iconIgnorePlacement bool
	textOptional, iconOptional               bool
	zOrder                                   string
	hasSortKey                               bool
}

// overlapMode is how a symbol part treats the symbols placed before it
// (text-overlap, icon-overlap; GL JS's newer form of *-allow-overlap).
type overlapMode uint8

const (
	overlapNever       overlapMode = iota // hidden when it collides
	overlapAlways                         // shown whatever it collides with
	overlapCooperative                    // hidden only by parts placed with never
)

// overlap returns a layer's text or icon overlap mode: *-overlap when the
// layer sets it, else always or never by *-allow-overlap.
func (lr *symLayer) overlap(part symPart, c *expr.EvalContext) overlapMode {
	if lr.hasLayout(part.overlap) {
		switch lr.str(part.overlap, c, "never") {
		case "always":
			return overlapAlways
		case "cooperative":
			return overlapCooperative
		}
		return overlapNever
	}
	if lr.boolean(part.allowOverlap, c, false) {
		return overlapAlways
	}
	return overlapNever
}

// sortByY reports whether a layer's symbols are drawn by their anchor's
// height on screen (lowest on top), and placed in the reverse order.
func (sl symbolLayout) sortByY() bool {
	return sl.zOrder == "viewport-y" || (sl.zOrder == "auto" && !sl.hasSortKey &&
		(sl.textOverlap != overlapNever || sl.iconOverlap != overlapNever || sl.textIgnorePlacement || sl.iconIgnorePlacement))
}

// placeAll places symbols in order against the grid and returns those
// placed; it stops when ctx ends (the render is then thrown away).
func placeAll(ctx context.Context, cands []*symbol, sl symbolLayout, grid *collisionGrid) []*symbol {
	var placed []*symbol
	textFits := func(s *symbol) bool {
		return s.hasText && grid.inside(s.textBoxes...) && grid.free(sl.textOverlap, s.textBoxes...)
	}
	for k, sym := range cands {
		if k%256 == 255 && ctx.Err() != nil {
			break
		}
		if sym.hasText && sl.textOverlap != overlapAlways && !textFits(sym) {
			// The first other text-variable-anchor position that fits.
			if i := slices.IndexFunc(sym.alts, textFits); i >= 0 {
				alt := sym.alts[i]
				alt.order, alt.tile, alt.ykey, alt.world = sym.order, sym.tile, sym.ykey, sym.world
				sym = alt
			}
		}
		textOK := textFits(sym)
		iconFits := sym.hasIcon && grid.inside(sym.iconBox) && grid.free(sl.iconOverlap, sym.iconBox)
		// A part that is not optional holds its partner back: each part
		// shows when it fits and, unless the other is optional (or absent),
		// the other fits too.
		textLeansOnIcon := sym.hasIcon && !sl.iconOptional
		iconLeansOnText := sym.hasText && !sl.textOptional
		placeText := textOK && (iconFits || !textLeansOnIcon)
		placeIcon := iconFits && (textOK || !iconLeansOnText)
		if !placeText && !placeIcon {
			continue
		}
		if placeText && !sl.textIgnorePlacement {
			grid.insert(sl.textOverlap, sym.textBoxes...)
		}
		if placeIcon && !sl.iconIgnorePlacement {
			grid.insert(sl.iconOverlap, sym.iconBox)
		}
		if !placeText {
			sym.text, sym.textPending = nil, false
		}
		if !placeIcon {
			sym.icon = nil
		}
		placed = append(placed, sym)
	}
	return placed
}

// drawOrder sorts a layer's placed symbols in GL's drawing order.
func drawOrder(placed []*symbol, sl symbolLayout) {
	sortByY := sl.sortByY()
	// GL draws the tiles from the top left, and the symbols of each tile by
	// sort key, by height on screen (lowest on top, the later feature below
	// on a tie) or in feature order.
	slices.SortStableFunc(placed, func(pa, pb *symbol) int {
		if c := cmp.Compare(pa.tile[0], pb.tile[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(pa.tile[1], pb.tile[1]); c != 0 {
			return c
		}
		if pa.tile[2] != pb.tile[2] {
			return 0 // other tiles at one column and row: kept in order
		}
		switch {
		case sl.hasSortKey && sl.zOrder != "viewport-y":
			return compareFloats(pa.sortKey, pb.sortKey)
		case sortByY:
			if c := compareFloats(pa.ykey, pb.ykey); c != 0 {
				return c
			}
			return cmp.Compare(pb.order, pa.order)
		}
		return cmp.Compare(pa.order, pb.order)
	})
}
