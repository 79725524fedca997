package symbols

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/render/text"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// layoutLayer lays out a layer's symbols and returns them in GL's
// placement order, with the layer's placement switches.
func (s *Pass) layoutLayer(ctx context.Context, lr *symLayer, feats scene.Runs) ([]*symbol, symbolLayout) {
	lz := &expr.EvalContext{Zoom: math.Floor(s.View.Zoom)}
	sl := symbolLayout{
		textOverlap:         lr.overlap(textPart, lz),
		iconOverlap:         lr.overlap(iconPart, lz),
		textIgnorePlacement: lr.boolean(pTextIgnorePlacement, lz, false),
		iconIgnorePlacement: lr.boolean(pIconIgnorePlacement, lz, false),
		textOptional:        lr.boolean(pTextOptional, lz, false),
		iconOptional:        lr.boolean(pIconOptional, lz, false),
		zOrder:              lr.str(pSymbolZOrder, lz, "auto"),
		hasSortKey:          lr.hasLayout(pSymbolSortKey),
	}
	placement := lr.str(pSymbolPlacement, lz, "point")
	var cands []*symbol
	var repeats repeatFilter
	s.tileLayouts(ctx, lr, feats, lz.Zoom, placement, func(tl *tileLayout, base int) {
		for k := range tl.syms {
			ss := s.viewSymbol(lr, &tl.syms[k], base)
			if ss == nil {
				continue
			}
			f := ss.f
			add := func(w orb.Point, along *linePath) {
				a := s.toScreen(w[0], w[1])
				sym := s.layoutSymbol(ctx, lr, ss, a, along)
				if sym != nil && len(ss.variants) > 1 {
					for _, v := range ss.variants[1:] {
						ss.sh = v
						if alt := s.layoutSymbol(ctx, lr, ss, a, along); alt != nil {
							sym.alts = append(sym.alts, alt)
						}
					}
					ss.sh = ss.variants[0]
				}
				if sym != nil {
					sym.order = ss.order
					sym.tile = f.Tile
					if along != nil {
						sym.tile = along.tileID
					}
					sym.ykey = s.tileUnitsY(w, sym.tile)
					sym.world = w
					cands = append(cands, sym)
				}
			}
			if placement == "point" {
				for _, w := range ss.anchors {
					add(w, nil)
				}
				continue
			}
			spots := ss.spots
			if !tl.spotsKept {
				spots = s.keptSpots(lr, ss, placement == "line-center", placement, lz.Zoom, &repeats)
			}
			for _, la := range s.spotPaths(spots) {
				add(la.world, la)
			}
		}
	})
	// GL JS 6 places the symbols of one tile after another: the deepest
	// tiles first, then by column (x) and by row (y), so the top left tile
	// of the view first, whatever the bearing.
	slices.SortStableFunc(cands, func(a, b *symbol) int {
		if c := cmp.Compare(b.tile[2], a.tile[2]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.tile[1], b.tile[1]); c != 0 {
			return c
		}
		return cmp.Compare(a.tile[0], b.tile[0])
	})
	if sl.hasSortKey {
		slices.SortStableFunc(cands, func(a, b *symbol) int { return compareFloats(a.sortKey, b.sortKey) })
	} else if sl.zOrder == "viewport-y" {
		// Symbols lower on screen are drawn on top: they are placed first.
		slices.SortStableFunc(cands, func(a, b *symbol) int {
			if c := compareFloats(math.Round(b.y), math.Round(a.y)); c != 0 {
				return c
			}
			return cmp.Compare(a.order, b.order)
		})
	}
	// GL samples a layer's icons linearly when one of them is drawn at
	// another pixel ratio than the view's.
	for _, sym := range cands {
		if sym.icon != nil && sym.icon.ic.Ratio != s.Frame.Ratio {
			for _, o := range cands {
				if o.icon != nil {
					o.icon.linear = true
				}
			}
			break
		}
	}
	return cands, sl
}

// anchors returns where a feature's symbols go, in world units, for
// point placement: each point, the first vertex of each line, the pole of
// inaccessibility of each polygon. It appends them to out.
func (s *Pass) anchors(f *scene.Feature, out []orb.Point) []orb.Point {
	add := func(p orb.Point) { out = append(out, p) }
	switch f.Kind {
	case "Point":
		for _, part := range f.Parts {
			for _, p := range part {
				add(p)
			}
		}
	case "LineString":
		for _, part := range f.Parts {
			if len(part) > 0 {
				add(part[0])
			}
		}
	case "Polygon":
		// GL looks for the pole to 16 units of the tile's 8192, on the
		// tile's polygons with their buffer, and keeps those in the tile.
		polys, z := f.Polygons, math.Floor(s.View.Zoom)
		var sq *scene.Box
		if f.WholePolygons != nil {
			polys, z = f.WholePolygons, float64(f.Tile[2])
			n := math.Exp2(z)
			sq = &scene.Box{X0: float64(f.Tile[1]) / n, Y0: float64(f.Tile[0]) / n, X1: float64(f.Tile[1]+1) / n, Y1: float64(f.Tile[0]+1) / n}
		}
		// In the tile's units from its corner, as GL computes it.
		n := math.Exp2(z) * symbolExtent
		var ox, oy float64
		if sq != nil {
			ox, oy = float64(f.Tile[1])*symbolExtent, float64(f.Tile[0])*symbolExtent
		}
		for _, poly := range polys {
			tp := make([][]orb.Point, len(poly))
			for i, r := range poly {
				tp[i] = make([]orb.Point, len(r))
				for j, q := range r {
					tp[i][j] = orb.Point{math.Round(q[0]*n) - ox, math.Round(q[1]*n) - oy}
				}
			}
			p, ok := poleOfInaccessibility(tp, 16)
			// GL keeps the anchor in whole tile units (a 16-bit integer
			// vertex attribute, the fraction cut off).
			p = orb.Point{(math.Trunc(p[0]) + ox) / n, (math.Trunc(p[1]) + oy) / n}
			if ok && (sq == nil || (p[0] >= sq.X0 && p[0] < sq.X1 && p[1] >= sq.Y0 && p[1] < sq.Y1)) {
				add(p)
			}
		}
	}
	return out
}

// shapedSymbol is a feature's text and icon laid out about their anchor,
// before they are put on screen.
type shapedSymbol struct {
	f        *scene.Feature    // in the layer's features
	c, pc    *expr.EvalContext // layout (tile zoom) and paint (view zoom)
	sections []text.Section
	sh       text.Shaping  // no glyphs: no text
	fs       float64       // text-size / 24
	ic       *sources.Icon // nil: no icon
	iconSize float64
	// the icon's box about the anchor, CSS pixels before icon-size
	iconLeft, iconTop, iconRight, iconBottom float64
	// fit is how icon-text-fit sizes the icon to the text (nil: it does
	// not), at the view's zoom.
	fit   *iconFit
	order int // of the feature in its layer (in its tile's, kept)
	// lines are the feature's lines joined with those of features of the
	// same text that continue them (symbol-placement line), unclipped.
	lines [][]orb.Point
	// anchors are where point placement puts the symbol, world units.
	anchors []orb.Point
	// variants are the shapings for each text-variable-anchor, tried in
	// order at placement.
	variants []text.Shaping
	// steep is the vertical alternative of a label along a line, drawn
	// where the line runs steeper than 45 degrees (nil: none).
	steep *text.Shaping
	// colors are the format sections' text-color overrides, by tag.
	colors []*raster.Color
	// spots are the anchors along the lines, when kept (see tileLayout).
	spots []lineSpot
}

// shapeSymbol shapes a feature's text and finds its icon, all at the
// layout zoom (c's): the sizes at the view's zoom are viewSymbol's. With
// cull and anchors (point placement), a symbol too far off the view to
// reach it is not shaped, and its paint context is set.
func (s *Pass) shapeSymbol(ctx context.Context, lr *symLayer, b *layoutBuild, f *scene.Feature, c *expr.EvalContext, anchors []orb.Point, cull bool) *shapedSymbol {
	var pc *expr.EvalContext
	if cull {
		pc = lr.newContext(s.View.Zoom, f.Expr)
	}
	ss := b.shaped.new()
	ss.f, ss.c, ss.pc = f, c, pc
	// drop gives back what the layout of a feature it does not keep took.
	drop := func() *shapedSymbol {
		b.shaped.free(ss)
		if pc != nil {
			lr.ctxs.free(pc)
		}
		return nil
	}
	placement := lr.str(pSymbolPlacement, c, "point")
	ss.sections, ss.colors = s.textSections(ctx, lr, c)
	var ic *sources.Icon
	if name := s.iconName(lr, c); name != "" {
		ic = s.layoutIcon(ctx, lr, name)
	}
	if len(ss.sections) == 0 && ic == nil {
		return drop()
	}
	if cull && anchors != nil && !s.reaches(lr, ss.sections, c, pc, ic, anchors) {
		return drop()
	}
	if len(ss.sections) > 0 {
		// GL shapes images at text-size of the tile's zoom, and breaks
		// lines counting them at text-size one zoom above.
		var imageScale, breakImageScale float64
		for _, sec := range ss.sections {
			if sec.Image == nil {
				continue
			}
			if ts := lr.num(pTextSize, c, 16); ts > 0 {
				imageScale = text.OneEm / ts
			}
			if ts := lr.num(pTextSize, &expr.EvalContext{Zoom: c.Zoom + 1, Feature: c.Feature}, 16); ts > 0 {
				breakImageScale = text.OneEm / ts
			}
			break
		}
		vertical, lineVertical := false, false
		lookup := lr.shapeLookup(ctx, s.Glyphs)
		// A rotated label under a variable anchor is shaped about its
		// centre and put at its point by its turned box, as GL does.
		rotated := math.Mod(lr.num(pTextRotate, c, 0), 360) != 0
		var triedBuf [4]anchorChoice
		fixed, tried := labelChoices(lr, c, placement == "point", s.alongLine(lr, c, textPart), triedBuf[:0])
		shape := func(choice anchorChoice, variable bool) text.Shaping {
			centred := variable && rotated
			hAlign, vAlign := text.AnchorAlign(choice.anchor)
			if centred {
				hAlign, vAlign = text.AnchorAlign("center")
			}
			o := text.Options{
				LineHeight: lr.num(pTextLineHeight, c, 1.2) * text.OneEm,
				Spacing:    lr.num(pTextLetterSpacing, c, 0) * text.OneEm,
				Justify:    text.JustifyOf(lr.str(pTextJustify, c, "center"), choice.anchor),
				HAlign:     hAlign, VAlign: vAlign,
				Vertical: vertical, LineVertical: lineVertical,
				Offset: choice.move,
			}
			if vertical {
				// GL justifies vertical labels to the left (the top of
				// the turned column), whatever text-justify says.
				o.Justify = 0
			}
			if placement == "point" {
				o.MaxWidth = lr.num(pTextMaxWidth, c, 10) * text.OneEm
			}
			o.ImageScale, o.BreakImageScale = imageScale, breakImageScale
			var nudge [2]float64
			if centred {
				nudge, o.Offset = o.Offset, [2]float64{}
			}
			sh := lr.shapes.shape(ss.sections, lookup, o)
			if variable {
				sx, sy := textSide(choice.anchor)
				sh.Anchor = text.VariableAnchor{Away: [2]float64{sx, sy}, Centred: centred, Offset: nudge}
			}
			return sh
		}
		// horizontal are the shapings of horizontal writing: one for each
		// variable anchor, tried in order, or the one of text-anchor.
		var horizontal []text.Shaping
		for _, ch := range tried {
			horizontal = append(horizontal, shape(ch, true))
		}
		if len(horizontal) == 0 {
			horizontal = []text.Shaping{shape(fixed, false)}
		}
		// text-writing-mode: the writing modes tried in order, when the
		// text allows vertical writing (a point label with a character
		// that stands upright, and no images).
		if modes := writingModes(lr, c); placement == "point" && slices.Contains(modes, "vertical") && ss.allowsVertical() {
			vertical = true
			column := shape(fixed, false)
			vertical = false
			for _, m := range modes {
				if m == "vertical" {
					ss.variants = append(ss.variants, column)
				} else {
					ss.variants = append(ss.variants, horizontal...)
				}
			}
		} else {
			ss.variants = horizontal
		}
		// GL shapes a label along a line a second time, vertically, when
		// it keeps upright and has a character that stands upright.
		if s.alongLine(lr, c, textPart) && lr.boolean(pTextKeepUpright, c, true) && ss.allowsVerticalAlong() {
			lineVertical = true
			steep := shape(fixed, false)
			lineVertical = false
			if len(steep.Glyphs) > 0 {
				ss.steep = &steep
			}
		}
		ss.sh = ss.variants[0]
		if len(ss.variants) == 1 {
			ss.variants = nil
		}
	}
	if ic != nil {
		ss.ic = ic
		off := floats2(lr, pIconOffset, c)
		h, v := text.AnchorAlign(lr.str(pIconAnchor, c, "center"))
		dw, dh := float64(ic.W)/ic.Ratio, float64(ic.H)/ic.Ratio
		ss.iconLeft, ss.iconTop = off[0]-dw*h, off[1]-dh*v
		ss.iconRight, ss.iconBottom = ss.iconLeft+dw, ss.iconTop+dh
		// The box fitted to the text is viewSymbol's: the text's size is
		// the view's zoom's.
		if fit := lr.str(pIconTextFit, c, "none"); fit != "none" && len(ss.sh.Glyphs) > 0 {
			ss.fit = &iconFit{mode: fit, pad: iconFitPadding(lr, c), off: off, dw: dw, dh: dh}
		}
	}
	if len(ss.sh.Glyphs) == 0 && ss.ic == nil {
		return drop()
	}
	return ss
}

// reaches reports whether a symbol at one of the anchors may reach the
// collision grid (the view and its margin): a bound of its size from its
// text length (of sections), text size, offsets and icon, not its
// shaping. c and pc are its layout and paint contexts.
func (s *Pass) reaches(lr *symLayer, sections []text.Section, c, pc *expr.EvalContext, ic *sources.Icon, anchors []orb.Point) bool {
	ratio := s.Frame.Ratio
	r := 0.0
	if len(sections) > 0 {
		n, scale := 0, 1.0
		for _, sec := range sections {
			n += len(sec.Text) // bytes: at least the runes
			scale = math.Max(scale, sec.Scale)
			if img := sec.Image; img != nil {
				r += img.Width + img.Height // shown at their size, whatever the text's
			}
		}
		off := floats2(lr, pTextOffset, c)
		tr := floats2(lr, pTextTranslate, pc)
		em := float64(n)*scale + math.Abs(off[0]) + math.Abs(off[1]) + math.Abs(lr.num(pTextRadialOffset, c, 0)) + 2
		r += em*lr.num(pTextSize, pc, 16) + math.Abs(tr[0]) + math.Abs(tr[1])
	}
	if ic != nil {
		off := floats2(lr, pIconOffset, c)
		tr := floats2(lr, pIconTranslate, pc)
		r += (float64(ic.W+ic.H)/ic.Ratio+math.Abs(off[0])+math.Abs(off[1]))*lr.num(pIconSize, pc, 1) + math.Abs(tr[0]) + math.Abs(tr[1])
	}
	m := (r + 100 + 16) * ratio
	for _, w := range anchors {
		p := s.toScreen(w[0], w[1])
		if p.X >= -m && p.X <= s.Frame.W+m && p.Y >= -m && p.Y <= s.Frame.H+m {
			return true
		}
	}
	return false
}

// alongLine reports whether a layer's text or icons follow their line.
func (s *Pass) alongLine(lr *symLayer, c *expr.EvalContext, part symPart) bool {
	return lr.str(pSymbolPlacement, c, "point") != "point" && lr.alignment(part.rotationAlignment, c) == "map"
}

// layoutSymbol puts a shaped symbol on screen at anchor a (on the line
// path when along is not nil) and returns it with its collision boxes, or
// nil when nothing of it can be drawn.
func (s *Pass) layoutSymbol(ctx context.Context, lr *symLayer, ss *shapedSymbol, a raster.Point, along *linePath) *symbol {
	ratio := s.Frame.Ratio
	c, pc := ss.c, ss.pc
	sym := lr.syms.new()
	sym.y, sym.sortKey = a.Y, lr.num(pSymbolSortKey, c, 0)
	lineAngle := 0.0
	if along != nil {
		lineAngle = along.angle
	}

	// Under a tilted camera, the anchor's depth sets the labels' scale;
	// labels pitched with the map are laid out on its plane.
	tilt := s.Frame.Tilt
	plane, depth := a, 1.0
	if tilt != nil {
		plane = tilt.Unproject(a)
		_, depth = tilt.Project(plane)
	}
	var planePath *linePath
	onPlane := func(part symPart) bool {
		if tilt == nil || lr.pitchAlignment(part, c) != "map" {
			return false
		}
		if along != nil && planePath == nil {
			planePath = along.onPlane(tilt)
		}
		return true
	}
	// screenBox is a collision box about a point of a label, on screen.
	screenBox := func(p raster.Point, pitched bool, scale, x0, y0, x1, y1, pad, angle float64, tx, ty float64) collisionBox {
		if pitched {
			q, w := tilt.Project(p)
			p, scale = q, scale/w
		}
		return boxAround(p, tx, ty, x0*scale, y0*scale, x1*scale, y1*scale, pad, ratio, angle)
	}

	if sh := ss.sh; len(sh.Glyphs) > 0 {
		fs := ss.fs
		pitched := onPlane(textPart)
		pr := 1.0 // GL's perspective scale of the glyphs
		if tilt != nil {
			pr = perspectiveRatio(depth, pitched)
		}
		tx, ty := symbolTranslate(lr, textPart, pc)
		k := fs * ratio * pr
		var quadTilt *raster.Tilt
		if pitched {
			quadTilt = tilt
		}
		pad := lr.num(pTextPadding, c, 2)
		if along != nil && s.alongLine(lr, c, textPart) {
			sym.text = make([]glyphQuad, 0, len(sh.Glyphs))
			off := floats2(lr, pTextOffset, c)
			path, kp := along, k
			if tilt != nil {
				// GL spaces the glyphs along a line with the inverse of the
				// perspective ratio on the map's plane, with it on screen.
				kp = fs * ratio * perspectiveRatio(depth, false)
				if pitched {
					path, kp = planePath, fs*ratio
				}
			}
			placed, drawn, boxAt, ok := path.placeOriented(sh, ss.steep, kp, off[0]*text.OneEm*kp, off[1]*text.OneEm*kp,
				lr.boolean(pTextKeepUpright, c, true))
			if !ok {
				drawn.Glyphs, boxAt = nil, nil
			}
			// The glyphs drawn may be the vertical alternative's; the
			// boxes follow the label as it reads horizontally.
			boxSh := sh
			sh = drawn
			boxHalf := (boxSh.Bottom - boxSh.Top) / 2 * fs
			for i, g := range sh.Glyphs {
				p := placed[i]
				half := g.Metrics.Advance * g.Scale / 2
				if g.Image != nil {
					if iq, ok := s.imageGlyph(ctx, lr, c, g, p.at, -half, tx, ty, k, p.angle, quadTilt); ok {
						sym.text = append(sym.text, iq)
					}
					continue
				}
				gl, ok := lr.layerGlyph(ctx, s.Glyphs, g.FontStack, g.Rune)
				if !ok {
					continue
				}
				if len(gl.Bitmap) > 0 {
					x := (float64(gl.Left)-rectBuffer)*g.Scale - half
					y := (-float64(gl.Top)-rectBuffer)*g.Scale + g.Y
					angle := p.angle
					if g.Upright {
						// Standing upright along a steep line.
						x, y = uprightCorner(g, x, y)
						angle -= math.Pi / 2
					}
					q := newTexQuad(p.at, tx, ty, x*k, y*k, k*g.Scale, k*g.Scale, angle, int(gl.Width)+2*rectBuffer, int(gl.Height)+2*rectBuffer)
					q.tilt = quadTilt
					sym.text = append(sym.text, glyphQuad{g: gl, q: q, color: ss.color(g.Tag)})
				}
			}
			if tilt != nil && len(boxAt) > 0 {
				// Under a tilted camera the reference lays the boxes in
				// steps of half a box within the label's length on the
				// plane it is laid out on, not one about each glyph.
				side := 2 * (boxHalf + pad) * ratio * pr
				for _, c := range spanBoxCentres(labelSpan(boxAt, boxSh, kp), side) {
					sym.textBoxes = append(sym.textBoxes, screenBox(c, pitched, pr, -boxHalf, -boxHalf, boxHalf, boxHalf, pad, 0, tx, ty))
				}
			} else if len(boxAt) > 0 {
				// GL JS 6 tests a label along a line with circles as tall
				// as its text (ten em units at least) along the line from
				// its first glyph to its last.
				r := (max(10, boxSh.Bottom-boxSh.Top)/2*fs + pad) * ratio
				path := make([]raster.Point, len(boxAt))
				for i, p := range boxAt {
					path[i] = raster.Point{X: p.at.X + tx, Y: p.at.Y + ty}
				}
				for _, c := range lineCircleCentres(path, r) {
					sym.textBoxes = append(sym.textBoxes, circleBox(c.X, c.Y, r))
				}
			}
		} else {
			angle := lr.num(pTextRotate, c, 0) * math.Pi / 180
			if lr.alignment(pTextRotationAlignment, c) == "map" {
				angle += math.Atan2(s.Frame.Sin, s.Frame.Cos)
			}
			at := a
			if pitched {
				at = plane
			}
			// A variable anchor puts the padded box at the point.
			va := sh.Anchor
			tx += va.Away[0] * pad * ratio
			ty += va.Away[1] * pad * ratio
			if va.Centred {
				dx, dy := turnedBoxShift(sh, angle, va.Away)
				tx += (dx + va.Offset[0]) * k
				ty += (dy + va.Offset[1]) * k
			}
			// The glyphs are put on screen once the label is placed (most
			// are not): here only whether one of them draws.
			sym.pending = pendingText{sh: sh, at: at, tx: tx, ty: ty, k: k, angle: angle, tilt: quadTilt}
			sym.textPending = s.drawsText(ctx, lr, sh)
			boxAngle := angle
			if sh.Vertical {
				// GL turns a vertical label's box with it.
				boxAngle += math.Pi / 2
			}
			sym.box[0] = screenBox(at, pitched, pr, sh.Left*fs, sh.Top*fs, sh.Right*fs, sh.Bottom*fs, pad, boxAngle, tx, ty)
			sym.textBoxes = sym.box[:]
		}
		sym.ss, sym.textScale = ss, fs*pr
		sym.hasText = len(sym.text) > 0 || sym.textPending
	}

	if ic := ss.ic; ic != nil {
		pitched := onPlane(iconPart)
		pr := 1.0
		if tilt != nil {
			pr = perspectiveRatio(depth, pitched)
		}
		size := ss.iconSize
		left, top, right, bottom := ss.iconLeft, ss.iconTop, ss.iconRight, ss.iconBottom
		angle := lr.num(pIconRotate, c, 0) * math.Pi / 180
		if lr.alignment(pIconRotationAlignment, c) == "map" {
			if along != nil {
				if pitched {
					lineAngle = planePath.angle
				}
				angle += lineAngle
				// icon-keep-upright turns an icon that would be upside
				// down, as GL does for a single glyph along a line.
				if math.Cos(lineAngle) < 0 && lr.boolean(pIconKeepUpright, c, false) {
					angle += math.Pi
				}
			} else {
				angle += math.Atan2(s.Frame.Sin, s.Frame.Cos)
			}
		}
		tx, ty := symbolTranslate(lr, iconPart, pc)
		k := size * ratio * pr
		kx, ky := k*(right-left)/float64(ic.W), k*(bottom-top)/float64(ic.H)
		at := a
		if pitched {
			at = plane
		}
		// The quad takes in the atlas's empty border texel on each side,
		// which linear sampling blends into the icon's edge.
		q := newTexQuad(at, tx, ty, left*k-kx, top*k-ky, kx, ky, angle, ic.W+2, ic.H+2)
		if pitched {
			q.tilt = tilt
		}
		// GL samples icons linearly when they are SDF, scaled or turned,
		// or drawn in the plane of the map (pitch-aligned to it, or under
		// a tilted camera).
		transformed := s.Frame.Tilt != nil || lr.pitchAlignment(iconPart, c) == "map"
		sym.icon = &iconQuad{ic: ic, q: q,
			linear: ic.SDF || ss.fit != nil || angle != 0 || transformed || lr.iconsLinear()}
		sym.iconOpac = lr.num(pIconOpacity, pc, 1)
		if ic.SDF {
			sym.iconSDF = s.sdfPaint(lr, pc, iconPart, size*pr)
		}
		pad := lr.num(pIconPadding, c, 2)
		boxAngle := lr.num(pIconRotate, c, 0) * math.Pi / 180
		sym.iconBox = screenBox(at, pitched, pr, left*size, top*size, right*size, bottom*size, pad, boxAngle, tx, ty)
		sym.hasIcon = true
	}
	if !sym.hasText && !sym.hasIcon {
		return nil
	}
	return sym
}

// pendingText is the layout of a point label's glyphs about the anchor,
// put on screen (pointQuads) only once the label is placed.
type pendingText struct {
	sh        text.Shaping
	at        raster.Point // the anchor, on screen or on the tilted plane
	tx, ty, k float64      // the translation and device pixels per em pixel
	angle     float64
	tilt      *raster.Tilt // the quads' tilt: the label is pitched with the map
}

// drawsText reports whether some glyph of a point label's shaping draws
// (pointQuads makes a quad for it).
func (s *Pass) drawsText(ctx context.Context, lr *symLayer, sh text.Shaping) bool {
	for _, g := range sh.Glyphs {
		if g.Image != nil {
			if s.textImage(ctx, g.Image.Name) != nil {
				return true
			}
			continue
		}
		if gl, ok := lr.layerGlyph(ctx, s.Glyphs, g.FontStack, g.Rune); ok && len(gl.Bitmap) > 0 {
			return true
		}
	}
	return false
}

// finishText completes the text of a placed symbol: the glyph quads of a
// point label, and the paint.
func (s *Pass) finishText(ctx context.Context, lr *symLayer, sym *symbol) {
	if sym.textPending {
		sym.textPending = false
		s.pointQuads(ctx, lr, sym)
	}
	if len(sym.text) > 0 {
		ss := sym.ss
		sym.textSDF = s.sdfPaint(lr, ss.pc, textPart, sym.textScale)
		sym.textSDF.imagesInHalo = imagesInHalo(lr, ss.c, ss.pc)
	}
}

// rectBuffer is the texels about a glyph's bitmap in its quad: the SDF's
// 3-pixel border and the atlas's 1-pixel padding.
const rectBuffer = 4

// pointQuads puts the glyphs of a point label on screen.
func (s *Pass) pointQuads(ctx context.Context, lr *symLayer, sym *symbol) {
	ss, c := sym.ss, sym.ss.c
	p := &sym.pending
	sh, at, tx, ty, k, angle, quadTilt := p.sh, p.at, p.tx, p.ty, p.k, p.angle, p.tilt
	sym.text = make([]glyphQuad, 0, len(sh.Glyphs))
	for _, g := range sh.Glyphs {
		if g.Image != nil {
			if iq, ok := s.imageGlyph(ctx, lr, c, g, at, g.X, tx, ty, k, angle, quadTilt); ok {
				sym.text = append(sym.text, iq)
			}
			continue
		}
		gl, ok := lr.layerGlyph(ctx, s.Glyphs, g.FontStack, g.Rune)
		if !ok || len(gl.Bitmap) == 0 {
			continue
		}
		x := (float64(gl.Left)-rectBuffer)*g.Scale + g.X
		y := (-float64(gl.Top)-rectBuffer)*g.Scale + g.Y
		glyphAngle := angle
		switch {
		case g.Upright:
			// Upright in the turned column: unturned, moved.
			dx, dy := g.VerticalShift()
			x = (float64(gl.Left)-rectBuffer)*g.Scale - g.Metrics.Advance*g.Scale/2 + dx
			y = (-float64(gl.Top)-rectBuffer)*g.Scale + dy
		case sh.Vertical:
			// Lying along the column, turned with the label.
			glyphAngle += math.Pi / 2
		}
		q := newTexQuad(at, tx, ty, x*k, y*k, k*g.Scale, k*g.Scale, glyphAngle, int(gl.Width)+2*rectBuffer, int(gl.Height)+2*rectBuffer)
		q.tilt = quadTilt
		sym.text = append(sym.text, glyphQuad{g: gl, q: q, color: ss.color(g.Tag)})
	}
}

// color returns the text-color of a format section (by its tag), or nil.
func (ss *shapedSymbol) color(tag int) *raster.Color {
	if tag < len(ss.colors) {
		return ss.colors[tag]
	}
	return nil
}

// textImage returns the sprite's image of a label's image section, nil
// when the sprite has none it can draw.
func (s *Pass) textImage(ctx context.Context, name string) *sources.Icon {
	ic := s.Sprite.Icon(ctx, name)
	if ic == nil || ic.Ratio <= 0 || ic.W <= 0 || ic.H <= 0 {
		return nil
	}
	return ic
}

// imageGlyph returns the quad of an image inside a label, placed as GL
// places it: its advance starts x em pixels from the anchor p (before
// turning by angle), its atlas rectangle (the image and a texel of padding
// on each side, at the image's pixel ratio) starts a padding texel before
// the advance and 3*scale - a texel below the glyph's y, so that the image
// begins one em pixel (times its scale) after the advance's start, and
// 3 * its scale below y. k is device pixels per em pixel. ok is false when
// the sprite has no such image.
func (s *Pass) imageGlyph(ctx context.Context, lr *symLayer, c *expr.EvalContext, g text.Glyph, p raster.Point, x, tx, ty, k, angle float64, tilt *raster.Tilt) (glyphQuad, bool) {
	ic := s.textImage(ctx, g.Image.Name)
	if ic == nil {
		return glyphQuad{}, false
	}
	pad := 1 / ic.Ratio // the atlas's padding texel, in image CSS pixels
	x0 := (1-pad)*g.Scale + x
	y0 := (3-pad)*g.Scale + g.Y
	t := k * g.Scale / ic.Ratio // device pixels per texel
	q := newTexQuad(p, tx, ty, x0*k, y0*k, t, t, angle, ic.W+2, ic.H+2)
	q.tilt = tilt
	// GL samples the images of a text linearly only when the text is
	// pitched with the map, the camera tilted, or text-size changes with
	// the zoom; nearest otherwise, turned or not.
	ts := lr.prop(pTextSize)
	linear := s.Frame.Tilt != nil || lr.pitchAlignment(textPart, c) == "map" || (ts != nil && !ts.IsZoomConstant())
	return glyphQuad{ic: ic, linear: linear, q: q}, true
}

// imagesInHalo reports whether the images inside a layer's labels are
// drawn in the halo pass too: GL draws a text with a halo in one pass
// unless its glyphs may overlap (halo width over 1 or not constant, or
// negative letter spacing); then a halo pass comes first, and an image,
// which that shader draws the same in both, is drawn twice.
func imagesInHalo(lr *symLayer, c, pc *expr.EvalContext) bool {
	hw := lr.prop(pTextHaloWidth)
	if hw == nil {
		return false // no halo
	}
	width := math.Inf(1)
	if hw.IsFeatureConstant() {
		width = lr.num(pTextHaloWidth, pc, 0)
	}
	if width == 0 {
		return false
	}
	spacing := 0.0
	if ls := lr.prop(pTextLetterSpacing); ls != nil && ls.IsFeatureConstant() {
		spacing = lr.num(pTextLetterSpacing, c, 0)
	}
	return width > 1 || spacing < 0
}

// alignment resolves a *-rotation-alignment for point placement.
func (lr *symLayer) alignment(p symProp, c *expr.EvalContext) string {
	a := lr.str(p, c, "auto")
	if a == "auto" {
		if lr.str(pSymbolPlacement, c, "point") == "point" {
			return "viewport"
		}
		return "map"
	}
	return a
}

// pitchAlignment resolves text-pitch-alignment or icon-pitch-alignment
// (kind "text" or "icon"): auto follows the rotation alignment.
func (lr *symLayer) pitchAlignment(part symPart, c *expr.EvalContext) string {
	if a := lr.str(part.pitchAlignment, c, "auto"); a != "auto" {
		return a
	}
	return lr.alignment(part.rotationAlignment, c)
}

// sdfPaint evaluates the paint of an SDF text or icon (kind "text" or
// "icon").
func (s *Pass) sdfPaint(lr *symLayer, c *expr.EvalContext, part symPart, fontScale float64) sdfPaint {
	p := sdfPaint{fontScale: fontScale, opacity: lr.num(part.opacity, c, 1)}
	p.color, _ = lr.color(part.color, c)
	p.halo, _ = lr.color(part.haloColor, c)
	p.haloWidth = lr.num(part.haloWidth, c, 0)
	p.haloBlur = lr.num(part.haloBlur, c, 0)
	return p
}

// iconName evaluates icon-image.
func (s *Pass) iconName(lr *symLayer, c *expr.EvalContext) string {
	e := lr.prop(pIconImage)
	if e == nil {
		return ""
	}
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
	if lr.tokenized(pIconImage) {
		name = expr.ResolveTokens(c.Feature, name)
	}
	return name
}

// tokenized reports whether a layout property is given as a plain value
// (string or legacy function), whose "{name}" tokens are resolved.
func tokenized(l *style.Layer, name string) bool {
	if l.Layout == nil {
		return false
	}
	raw, ok := l.Layout.Get(name)
	if !ok {
		return false
	}
	_, isExpr := raw.([]any)
	return !isExpr
}

// maxLabelRunes bounds the code points of one label.
const maxLabelRunes = 1024

// textSections evaluates text-field (with text-transform and text-font)
// into shaping sections, with the text-color of each format section (by
// its tag; nil where it has none). A format section's image (and a
// text-field that is an image) becomes an image section sized from the
// style's sprite, the sheet the icons use at the view's pixel ratio; an
// image the sprite lacks is kept with no size (GL still counts it in the
// line's scale, and draws nothing for it).
func (s *Pass) textSections(ctx context.Context, lr *symLayer, c *expr.EvalContext) ([]text.Section, []*raster.Color) {
	e := lr.prop(pTextField)
	if e == nil {
		return nil, nil
	}
	font := lr.fontStack(c)
	transform := lr.str(pTextTransform, c, "none")
	tokens := lr.tokenized(pTextField)
	apply := func(t string) string {
		if tokens {
			t = expr.ResolveTokens(c.Feature, t)
		}
		switch transform {
		case "uppercase":
			t = strings.ToUpper(t)
		case "lowercase":
			t = strings.ToLower(t)
		}
		return t
	}
	image := func(name string) *text.Image {
		img := &text.Image{Name: name}
		if ic := s.layoutIcon(ctx, lr, name); ic != nil && ic.Ratio > 0 {
			img.Width, img.Height = float64(ic.W)/ic.Ratio, float64(ic.H)/ic.Ratio
		}
		return img
	}
	v := e.EvalOrDefault(c)
	var out []text.Section
	var colors []*raster.Color
	switch v.Kind() {
	case expr.KindFormatted:
		f := v.FormattedText()
		if f == nil {
			return nil, nil
		}
		out = make([]text.Section, 0, len(f.Sections))
		for i, sec := range f.Sections {
			if sec.TextColor != nil {
				if colors == nil {
					colors = make([]*raster.Color, len(f.Sections))
				}
				colors[i] = &raster.Color{R: sec.TextColor.R, G: sec.TextColor.G, B: sec.TextColor.B, A: sec.TextColor.A}
			}
			var va *float64
			if sec.VerticalAlign != nil {
				a := text.VAlignOf(*sec.VerticalAlign)
				va = &a
			}
			if sec.Image != nil {
				if sec.Image.Name != "" {
					out = append(out, text.Section{Image: image(sec.Image.Name), VAlign: va, Tag: i})
				}
				continue
			}
			ts := text.Section{Text: apply(sec.Text), FontStack: font, VAlign: va, Tag: i}
			if sec.FontStack != nil {
				ts.FontStack = *sec.FontStack
			}
			if sec.Scale != nil {
				ts.Scale = *sec.Scale
			}
			out = append(out, ts)
		}
	case expr.KindResolvedImage:
		if im := v.Image(); im != nil && im.Name != "" {
			out = []text.Section{{Image: image(im.Name)}}
		}
	case expr.KindString:
		out = []text.Section{{Text: apply(v.Str()), FontStack: font}}
	case expr.KindNumber, expr.KindBoolean:
		out = []text.Section{{Text: apply(v.String()), FontStack: font}}
	}
	empty, size := true, 0
	for i := range out {
		if out[i].Text != "" || out[i].Image != nil {
			empty = false
		}
		size += len(out[i].Text)
	}
	if size > maxLabelRunes {
		// Line breaking is quadratic in the break points: bound a label
		// (of more bytes than the bound, else it has fewer runes too).
		budget := maxLabelRunes
		for i := range out {
			if n := utf8.RuneCountInString(out[i].Text); n > budget {
				r := []rune(out[i].Text)
				out[i].Text = string(r[:budget])
				budget = 0
			} else {
				budget -= n
			}
		}
	}
	if empty {
		return nil, nil
	}
	return out, colors
}

// fontStack evaluates text-font into a font stack (the names joined by
// commas), once per zoom when it does not depend on the feature.
func (lr *symLayer) fontStack(c *expr.EvalContext) string {
	pe := lr.entry(pTextFont)
	if pe.featConst && lr.fontSet && lr.fontZoom == c.Zoom {
		return lr.font
	}
	font := "Open Sans Regular,Arial Unicode MS Regular"
	var tmp expr.Value
	if fv := lr.at(pTextFont, c, &tmp); fv != nil {
		var names []string
		for _, it := range fv.Items() {
			if it.Kind() == expr.KindString {
				names = append(names, it.Str())
			}
		}
		if len(names) > 0 {
			font = strings.Join(names, ",")
		}
	}
	if pe.featConst {
		lr.font, lr.fontZoom, lr.fontSet = font, c.Zoom, true
	}
	return font
}

// floats2 evaluates a two-number property, [0, 0] when absent.
func floats2(lr *symLayer, p symProp, c *expr.EvalContext) [2]float64 {
	var tmp expr.Value
	v := lr.at(p, c, &tmp)
	if v == nil {
		return [2]float64{}
	}
	f := v.Floats()
	if len(f) != 2 {
		items := v.Items()
		if len(items) != 2 {
			return [2]float64{}
		}
		return [2]float64{items[0].Num(), items[1].Num()}
	}
	return [2]float64{f[0], f[1]}
}

// symbolTranslate returns text-translate or icon-translate in device
// pixels, turned with the map when anchored to it.
func symbolTranslate(lr *symLayer, part symPart, c *expr.EvalContext) (float64, float64) {
	v := floats2(lr, part.translate, c)
	dx, dy := v[0]*lr.Frame.Ratio, v[1]*lr.Frame.Ratio
	if lr.str(part.translateAnchor, c, "map") == "map" {
		return dx*lr.Frame.Cos - dy*lr.Frame.Sin, dx*lr.Frame.Sin + dy*lr.Frame.Cos
	}
	return dx, dy
}

// iconFitPadding evaluates icon-text-fit-padding: top, right, bottom, left.
func iconFitPadding(lr *symLayer, c *expr.EvalContext) [4]float64 {
	var tmp expr.Value
	v := lr.at(pIconTextFitPadding, c, &tmp)
	if v == nil {
		return [4]float64{}
	}
	f := v.Floats()
	if len(f) == 0 {
		for _, it := range v.Items() {
			f = append(f, it.Num())
		}
	}
	if len(f) != 4 {
		return [4]float64{}
	}
	return [4]float64{f[0], f[1], f[2], f[3]}
}

// iconFrame returns the icon box (CSS pixels about the anchor) that
// icon-text-fit gives around the shaped text (scaled by fs); a side not
// fitted keeps the icon's own size (dw by dh), centred on the text.
func iconFrame(fit string, pad [4]float64, off [2]float64, sh text.Shaping, fs, dw, dh float64) (left, top, right, bottom float64) {
	// pad is top, right, bottom, left as in the style.
	left, right = fitAxis(sh.Left*fs, sh.Right*fs, pad[3], pad[1], dw, off[0], fit == "width" || fit == "both")
	top, bottom = fitAxis(sh.Top*fs, sh.Bottom*fs, pad[0], pad[2], dh, off[1], fit == "height" || fit == "both")
	return left, top, right, bottom
}

// fitAxis returns the icon's extent along one axis: the text's extent
// [lo, hi] widened by padLo and padHi when stretch holds, otherwise the
// icon's own length centred on the text; shift moves both ends.
func fitAxis(lo, hi, padLo, padHi, own, shift float64, stretch bool) (float64, float64) {
	if stretch {
		return shift + lo - padLo, shift + hi + padHi
	}
	start := shift + (lo+hi-own)/2
	return start, start + own
}

// writingModes evaluates text-writing-mode: the modes ("horizontal",
// "vertical") in the order they are tried, each once.
func writingModes(lr *symLayer, c *expr.EvalContext) []string {
	if !lr.hasLayout(pTextWritingMode) {
		return nil
	}
	var tmp expr.Value
	v := lr.at(pTextWritingMode, c, &tmp)
	if v == nil {
		return nil
	}
	var out []string
	for _, it := range v.Items() {
		if it.Kind() == expr.KindString && (it.Str() == "horizontal" || it.Str() == "vertical") && !slices.Contains(out, it.Str()) {
			out = append(out, it.Str())
		}
	}
	return out
}

// allowsVertical reports whether a symbol's text may be written
// vertically: GL writes a label vertically when a character of it stands
// upright. Labels with images are left horizontal here.
func (ss *shapedSymbol) allowsVertical() bool {
	upright := false
	for _, sec := range ss.sections {
		if sec.Image != nil {
			return false
		}
		upright = upright || text.AllowsVerticalWriting(sec.Text)
	}
	return upright
}

// variableAnchors evaluates text-variable-anchor.
func variableAnchors(lr *symLayer, c *expr.EvalContext) []string {
	var tmp expr.Value
	v := lr.at(pTextVariableAnchor, c, &tmp)
	if v == nil {
		return nil
	}
	var out []string
	for _, it := range v.Items() {
		if it.Kind() == expr.KindString {
			out = append(out, it.Str())
		}
	}
	return out
}
