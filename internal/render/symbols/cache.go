package symbols

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"unsafe"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/lru"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/text"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// DefaultLayoutCacheBytes bounds the symbol layouts a renderer keeps.
const DefaultLayoutCacheBytes = 32 << 20

// tileLayout is the part of a symbol layer's layout of one vector tile
// that does not depend on the view, as GL keeps a tile's symbol buckets
// while the tile is loaded: the features the filter keeps, their anchors
// (world units), text sections, shapings and icons, the lines of line
// labels merged, and where the view cannot change them the anchors along
// those lines. A render puts them on screen (viewSymbol, spotPaths) and
// places them. A tileLayout is never modified once built: renders share
// it and copy what they change.
type tileLayout struct {
	// syms are the symbols' layouts in the order of the tile's features
	// (order counts from the tile's first feature of the layer); their pc
	// is nil unless the layout was made for one render only (see
	// buildLayout).
	syms []shapedSymbol
	// spotsKept is set when each of syms holds its anchors along its lines
	// (spots), the repeated ones left out; else a render finds them.
	spotsKept bool
	// glyphs and icons are what the layout was made from: the glyph
	// ranges its texts were shaped with (a hash of their metrics) and the
	// sprite's icons it looked up by name (nil when the sprite had none).
	glyphs []rangeHash
	icons  []iconUse
	size   int64 // an estimate of its bytes
}

// rangeHash is a glyph range's hash in a layout's record.
type rangeHash struct {
	rg   fontRange
	hash uint64
}

// fontRange names a range of 256 code points of a font stack.
type fontRange struct {
	stack string
	start int
}

// iconUse is an icon looked up by a layout, and what the sprite gave.
type iconUse struct {
	name string
	ic   *sources.Icon
}

// layoutKey identifies a tileLayout: a symbol layer of a parsed style
// (its expressions are compiled once for the style), a decoded vector
// tile (a tileset that changes is read from other URLs into other decoded
// tiles), the layout zoom, and the sprite's pixel ratio when the layout
// looked icons up (see spriteKey). The glyphs and the icons are checked on
// use (see layoutValid).
type layoutKey struct {
	style  *style.Style
	layer  *style.Layer
	tile   *sources.VectorTile
	zoom   float64
	sprite spriteKey
}

// spriteKey is the sprite a layout was made with: none (the layout looked
// no icon up, and serves every pixel ratio), or the one read at 1x or @2x.
type spriteKey uint8

const (
	noSprite spriteKey = iota
	sprite1x
	sprite2x
)

// LayoutCache keeps tileLayouts between renders, least recently used
// first out, bounded by an estimate of their bytes: a raster tile at two
// pixel ratios, its neighbours and repeated views lay out the same vector
// tiles. Safe for concurrent use.
type LayoutCache struct {
	mu sync.Mutex
	lru.Sized[layoutKey, *tileLayout]
	// byTile holds the keys of each tile's layouts: a layout points into
	// its decoded tile's features, so it goes when the renderer lets the
	// tile go (dropTile), and a tile's memory is never held by layouts
	// alone, outside the decoded tiles' bound.
	byTile map[*sources.VectorTile][]layoutKey
}

// NewLayoutCache returns an empty cache bounded by max bytes (0: it
// keeps nothing).
func NewLayoutCache(max int64) *LayoutCache {
	return &LayoutCache{Sized: lru.New[layoutKey, *tileLayout](max), byTile: map[*sources.VectorTile][]layoutKey{}}
}

// DropTile lets go of the layouts of a tile.
func (c *LayoutCache) DropTile(t *sources.VectorTile) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.byTile[t] {
		c.Sized.Delete(k)
	}
	delete(c.byTile, t)
}

// spriteNames names the sprite variants of the layouts (BySprite).
var spriteNames = [...]string{noSprite: "none", sprite1x: "1x", sprite2x: "@2x"}

// BySprite counts the layouts kept by the sprite they were made with:
// "none" (they looked no icon up), "1x" or "@2x".
func (c *LayoutCache) BySprite() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := map[string]int{}
	for k := range c.All() {
		n[spriteNames[k.sprite]]++
	}
	return n
}

// Check returns what is out of step in the cache's bookkeeping: a layout
// not indexed under its tile or indexed but gone, and, when held is not
// nil, a layout kept for a tile that held reports let go of (the decoded
// tiles' cache). Empty when all is well.
func (c *LayoutCache) Check(held func(*sources.VectorTile) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var problems []string
	if held != nil {
		for k := range c.All() {
			if !held(k.tile) {
				problems = append(problems, "a layout of a tile let go of is kept")
			}
		}
	}
	n := 0
	for tile, keys := range c.byTile {
		for _, k := range keys {
			n++
			if !c.Has(k) || k.tile != tile {
				problems = append(problems, "the index of layouts by tile is out of step")
			}
		}
	}
	if n != c.Len() {
		problems = append(problems, fmt.Sprintf("%d layouts indexed by tile, %d kept", n, c.Len()))
	}
	return problems
}

// Tiles returns the number of tiles whose layouts are kept.
func (c *LayoutCache) Tiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byTile)
}

// Keep says whether the cache keeps layouts (at its default bound) or
// none, letting go of those it holds when not.
func (c *LayoutCache) Keep(keep bool) {
	max := int64(0)
	if keep {
		max = DefaultLayoutCacheBytes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unindex(c.SetMax(max))
}

// enabled reports whether the cache keeps anything.
func (c *LayoutCache) enabled() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Max() > 0
}

func (c *LayoutCache) get(k layoutKey) (*tileLayout, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Sized.Get(k)
}

// put keeps tl under k, in place of what k held (a layout found stale).
func (c *LayoutCache) put(k layoutKey, tl *tileLayout) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Max() <= 0 || tl.size > c.Max()/4 {
		return // one huge layout would push everything else out
	}
	gone := c.Sized.Put(k, tl, tl.size)
	c.unindex(gone)
	c.byTile[k.tile] = append(c.byTile[k.tile], k)
}

// unindex takes layouts let go of out of byTile.
func (c *LayoutCache) unindex(gone []*lru.Entry[layoutKey, *tileLayout]) {
	for _, ent := range gone {
		keys := c.byTile[ent.Key.tile]
		if i := slices.Index(keys, ent.Key); i >= 0 {
			keys = slices.Delete(keys, i, i+1)
		}
		if len(keys) == 0 {
			delete(c.byTile, ent.Key.tile)
		} else {
			c.byTile[ent.Key.tile] = keys
		}
	}
}

// layoutRecord notes what a layout being built reads from the glyphs and
// the sprite.
type layoutRecord struct {
	glyphs map[fontRange]struct{}
	last   fontRange // the range noted last, to skip a map write
	icons  map[string]*sources.Icon
}

// glyph notes the range of a glyph looked up for shaping.
func (rec *layoutRecord) glyph(stack string, r rune) {
	if r < 0 || r > 0xffff {
		return // no range has it
	}
	rg := fontRange{stack, int(r) &^ 0xff}
	if rg == rec.last && rec.glyphs != nil {
		return
	}
	if rec.glyphs == nil {
		rec.glyphs = map[fontRange]struct{}{}
	}
	rec.glyphs[rg] = struct{}{}
	rec.last = rg
}

// icon returns the sprite's icon of a name for a layout, noting it when
// the layout is recorded.
func (s *Pass) layoutIcon(ctx context.Context, lr *symLayer, name string) *sources.Icon {
	ic := s.Sprite.Icon(ctx, name)
	if rec := lr.rec; rec != nil {
		if rec.icons == nil {
			rec.icons = map[string]*sources.Icon{}
		}
		rec.icons[name] = ic
	}
	return ic
}

// glyphHashes are the hashes of a render's glyph ranges, computed once
// for all its symbol layers. Safe for concurrent use.
type glyphHashes struct {
	gs *sources.Glyphs
	mu sync.Mutex
	m  map[fontRange]uint64
}

// glyphSeed seeds the hashes of glyph ranges (for the life of the process,
// as long as layouts are kept).
var glyphSeed = maphash.MakeSeed()

// get returns the hash of a range's glyphs as far as shaping reads them:
// which code points it has and their metrics. It loads the range when the
// render has not yet.
func (h *glyphHashes) get(ctx context.Context, rg fontRange) uint64 {
	h.mu.Lock()
	v, ok := h.m[rg]
	h.mu.Unlock()
	if ok {
		return v
	}
	buf := make([]byte, 0, 256*24)
	for r := rune(rg.start); r < rune(rg.start+256); r++ {
		gl, ok := h.gs.Glyph(ctx, rg.stack, r)
		if !ok {
			continue
		}
		buf = binary.LittleEndian.AppendUint32(buf, uint32(r))
		buf = binary.LittleEndian.AppendUint32(buf, gl.Width)
		buf = binary.LittleEndian.AppendUint32(buf, gl.Height)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(gl.Left))
		buf = binary.LittleEndian.AppendUint32(buf, uint32(gl.Top))
		buf = binary.LittleEndian.AppendUint32(buf, gl.Advance)
	}
	v = maphash.Bytes(glyphSeed, buf)
	h.mu.Lock()
	if h.m == nil {
		h.m = map[fontRange]uint64{}
	}
	h.m[rg] = v
	h.mu.Unlock()
	return v
}

// layoutValid reports whether a kept layout was made from the glyphs and
// icons this render has: a server may load other fonts or another sprite
// for the same style.
func (s *Pass) layoutValid(ctx context.Context, lr *symLayer, tl *tileLayout) bool {
	for _, u := range tl.icons {
		if s.Sprite.Icon(ctx, u.name) != u.ic {
			return false
		}
	}
	for _, g := range tl.glyphs {
		if lr.hashes.get(ctx, g.rg) != g.hash {
			return false
		}
	}
	return true
}

// tileLayouts calls each with the layouts of a layer's features, tile by
// tile in the order of feats, and the order of each layout's first
// feature in feats. The layouts of a vector source's tiles in view are
// kept across renders (built when missing or stale); other sources (and
// all when the renderer keeps no layouts, or no decoded tiles, which a
// layout is of and holds) are laid out for this render only.
func (s *Pass) tileLayouts(ctx context.Context, lr *symLayer, feats scene.Runs, lz float64, placement string, each func(tl *tileLayout, base int)) {
	tiles := s.VectorTiles(lr.Style)
	cache := s.layouts
	if tiles == nil || !cache.enabled() || s.Decoded == nil || s.Decoded.Max() <= 0 {
		each(s.buildLayout(ctx, lr, feats, lz, placement, true), 0)
		return
	}
	sprite := sprite1x
	if s.View.PixelRatio > 1 {
		sprite = sprite2x // the sprite is read at @2x
	}
	base := 0
	for _, t := range tiles {
		if ctx.Err() != nil {
			return
		}
		runs, n := t.LayerRuns(lr.Style.SourceLayer)
		if n == 0 {
			continue
		}
		if !s.tileInView(runs[0][0].Tile) {
			base += n
			continue
		}
		// A layout that looked no icon up serves both pixel ratios.
		key := layoutKey{style: s.Style, layer: lr.Style, tile: t, zoom: lz}
		tl, ok := cache.get(key)
		if !ok {
			key.sprite = sprite
			tl, ok = cache.get(key)
		}
		if !ok || !s.layoutValid(ctx, lr, tl) {
			tl = s.buildLayout(ctx, lr, runs, lz, placement, false)
			key.sprite = sprite
			if len(tl.icons) == 0 {
				key.sprite = noSprite
			}
			// Kept only beside its tile: a tile let go of meanwhile takes
			// the layout with it (dropTile), or it is let go of here.
			if ctx.Err() == nil && s.Decoded.Holds(t) {
				cache.put(key, tl)
				if !s.Decoded.Holds(t) {
					cache.DropTile(t)
				}
			}
		}
		each(tl, base)
		base += n
	}
}

// layoutBuild holds what a layout being built allocates.
type layoutBuild struct {
	shaped slab[shapedSymbol]
	ctxs   slab[expr.EvalContext]
	points []orb.Point
}

// buildLayout lays out the features of runs (one tile's, or for a
// render only all of a layer's) up to what depends on the view: with
// cull, for this render only, dropping the features off the view and the
// tiles out of it as it goes (their symbols evaluated at the view's zoom
// too); without, for every feature, recording the glyphs and icons it
// reads.
func (s *Pass) buildLayout(ctx context.Context, lr *symLayer, runs [][]scene.Feature, lz float64, placement string, cull bool) *tileLayout {
	var b layoutBuild
	var rec layoutRecord
	if !cull {
		lr.rec = &rec
		defer func() { lr.rec = nil }()
		// The shapings remembered are those of this layout only, so that
		// its record holds every glyph range they were shaped with.
		lr.shapes = shapeMemo{}
	}
	var shaped []*shapedSymbol
	lastTile, lastIn := [3]int{}, false
	var fc expr.EvalContext // the filter's
	i := -1
	for _, run := range runs {
		for k := range run {
			i++
			f := &run[k]
			if cull {
				if i == 0 || f.Tile != lastTile {
					lastTile, lastIn = f.Tile, s.tileInView(f.Tile)
				}
				if !lastIn {
					continue
				}
			}
			if lr.Filter != nil {
				fc = expr.EvalContext{Zoom: lz, Feature: f.Expr}
				if !lr.Keeps(&fc) {
					continue
				}
			}
			var anchors []orb.Point
			n0 := len(b.points)
			if placement == "point" {
				b.points = s.anchors(f, b.points)
				if len(b.points) == n0 {
					continue
				}
				anchors = b.points[n0:len(b.points):len(b.points)]
			}
			c := b.ctxs.new()
			c.Zoom, c.Feature = lz, f.Expr
			if ss := s.shapeSymbol(ctx, lr, &b, f, c, anchors, cull); ss != nil {
				ss.order = i
				ss.anchors = anchors
				shaped = append(shaped, ss)
			} else {
				b.points = b.points[:n0] // free for the next feature
				b.ctxs.free(c)
			}
		}
	}
	if placement == "line" {
		shaped = mergeLines(shaped)
	}
	tl := &tileLayout{syms: make([]shapedSymbol, len(shaped))}
	for k, ss := range shaped {
		tl.syms[k] = *ss
	}
	if cull {
		return tl
	}
	// The kept layout holds its contexts and anchors in blocks of their
	// own size, not the slabs'.
	ctxs := make([]expr.EvalContext, len(tl.syms))
	npts := 0
	for k := range tl.syms {
		ctxs[k] = *tl.syms[k].c
		tl.syms[k].c = &ctxs[k]
		npts += len(tl.syms[k].anchors)
	}
	if npts > 0 {
		pts := make([]orb.Point, 0, npts)
		for k := range tl.syms {
			ss := &tl.syms[k]
			if ss.anchors != nil {
				n0 := len(pts)
				pts = append(pts, ss.anchors...)
				ss.anchors = pts[n0:len(pts):len(pts)]
			}
		}
	}
	if placement != "point" {
		s.keepSpots(lr, tl, lz, placement)
	}
	for rg := range rec.glyphs {
		tl.glyphs = append(tl.glyphs, rangeHash{rg, lr.hashes.get(ctx, rg)})
	}
	for name, ic := range rec.icons {
		tl.icons = append(tl.icons, iconUse{name, ic})
	}
	tl.size = tl.estimate()
	return tl
}

// keepSpots finds the anchors along the lines of a tile's symbols, when
// the view does not change them, and keeps them in the layout.
func (s *Pass) keepSpots(lr *symLayer, tl *tileLayout, lz float64, placement string) {
	center := placement == "line-center"
	for k := range tl.syms {
		if s.spotsOfView(lr, &tl.syms[k], lz, center) {
			return
		}
	}
	var repeats repeatFilter
	for k := range tl.syms {
		ss := &tl.syms[k]
		ss.spots = s.keptSpots(lr, ss, center, placement, lz, &repeats)
	}
	tl.spotsKept = true
}

// spotsOfView reports whether the anchors along a symbol's lines depend on
// the view beyond its layout zoom: those of GeoJSON, cut into the view's
// tiles; those of a vector tile of a lower zoom, sliced into the tiles in
// view; those whose room is measured with an icon fitted to a text of the
// view's zoom's size.
func (s *Pass) spotsOfView(lr *symLayer, ss *shapedSymbol, lz float64, center bool) bool {
	f := ss.f
	if f.Tile[2] < 0 || (ss.ic != nil && ss.fit != nil) {
		return true
	}
	if center || f.Kind == "Polygon" {
		return false
	}
	z, ok := scene.SliceZoom(lz, f.Tile[2])
	return ok && z-f.Tile[2] <= maxSliceLevels
}

// keptSpots returns a symbol's anchors along its lines, those of a text
// that repeats another too closely left out.
func (s *Pass) keptSpots(lr *symLayer, ss *shapedSymbol, center bool, placement string, lz float64, repeats *repeatFilter) []lineSpot {
	spots := s.lineSpots(lr, ss, center)
	txt := ss.labelText()
	if placement != "line" || txt == "" {
		return spots
	}
	kept := spots[:0]
	for _, sp := range spots {
		repeat := lr.num(pSymbolSpacing, ss.c, 250) * frameOf(sp.tileID, lz).perPixel / 2
		if !repeats.tooClose(sp.tileID, txt, sp.tile, repeat) {
			kept = append(kept, sp)
		}
	}
	return kept
}

// estimate returns an estimate of a layout's bytes: its symbols, their
// contexts, texts, shapings, lines and anchors (shapings shared by
// several symbols counted for each).
func (tl *tileLayout) estimate() int64 {
	const (
		symBytes     = int64(unsafe.Sizeof(shapedSymbol{}))
		ctxBytes     = int64(unsafe.Sizeof(expr.EvalContext{}))
		sectionBytes = int64(unsafe.Sizeof(text.Section{}))
		imageBytes   = int64(unsafe.Sizeof(text.Image{}))
		glyphBytes   = int64(unsafe.Sizeof(text.Glyph{}))
		shapingBytes = int64(unsafe.Sizeof(text.Shaping{}))
		colorBytes   = int64(unsafe.Sizeof(raster.Color{})) + 8
		pointBytes   = int64(unsafe.Sizeof(orb.Point{}))
		spotBytes    = int64(unsafe.Sizeof(lineSpot{}))
		fitBytes     = int64(unsafe.Sizeof(iconFit{}))
		sliceBytes   = 24
	)
	n := int64(unsafe.Sizeof(*tl)) + int64(len(tl.syms))*(symBytes+ctxBytes)
	for k := range tl.syms {
		ss := &tl.syms[k]
		for _, sec := range ss.sections {
			n += sectionBytes + int64(len(sec.Text)+len(sec.FontStack))
			if sec.Image != nil {
				n += imageBytes + int64(len(sec.Image.Name))
			}
		}
		n += int64(len(ss.colors)) * colorBytes
		n += int64(len(ss.sh.Glyphs)) * glyphBytes
		for _, v := range ss.variants {
			n += shapingBytes + int64(len(v.Glyphs))*glyphBytes
		}
		if ss.steep != nil {
			n += shapingBytes + int64(len(ss.steep.Glyphs))*glyphBytes
		}
		if ss.fit != nil {
			n += fitBytes
		}
		for _, l := range ss.lines {
			n += int64(len(l))*pointBytes + sliceBytes
		}
		n += int64(len(ss.anchors)) * pointBytes
		var last []orb.Point
		for _, sp := range ss.spots {
			n += spotBytes
			if !sameLine(sp.line, last) {
				n += int64(len(sp.line))*pointBytes + sliceBytes
				last = sp.line
			}
		}
	}
	for _, g := range tl.glyphs {
		n += int64(unsafe.Sizeof(g)) + int64(len(g.rg.stack))
	}
	for _, u := range tl.icons {
		n += int64(unsafe.Sizeof(u)) + int64(len(u.name))
	}
	return n
}

// sameLine reports whether a and b are the same line (not a copy).
func sameLine(a, b []orb.Point) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// viewSymbol returns a render's copy of a symbol's layout, its paint
// context, text and icon sizes at the view's zoom, or nil when its point
// symbol cannot reach the view. base is the order of the layout's first
// feature in the layer.
func (s *Pass) viewSymbol(lr *symLayer, tmpl *shapedSymbol, base int) *shapedSymbol {
	pc := tmpl.pc
	if pc == nil {
		pc = lr.newContext(s.View.Zoom, tmpl.f.Expr)
		if tmpl.anchors != nil && !s.reaches(lr, tmpl.sections, tmpl.c, pc, tmpl.ic, tmpl.anchors) {
			lr.ctxs.free(pc)
			return nil
		}
	}
	ss := lr.shaped.new()
	*ss = *tmpl
	ss.order += base
	ss.pc = pc
	if len(ss.sections) > 0 {
		ss.fs = lr.num(pTextSize, ss.pc, 16) / text.OneEm
	}
	if ss.ic != nil {
		ss.iconSize = lr.num(pIconSize, ss.pc, 1)
		if fit := ss.fit; fit != nil {
			ss.iconLeft, ss.iconTop, ss.iconRight, ss.iconBottom = iconFrame(fit.mode, fit.pad, fit.off, ss.sh, ss.fs, fit.dw, fit.dh)
		}
	}
	return ss
}

// iconFit is how icon-text-fit sizes a symbol's icon to its text.
type iconFit struct {
	mode   string // width, height or both
	pad    [4]float64
	off    [2]float64
	dw, dh float64 // the icon's size, CSS pixels
}
