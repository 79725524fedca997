package render

import (
	"context"
	"image"
	"log/slog"
	"math"
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Patterns (background-pattern, fill-pattern, line-pattern) are images of
// the style's sprite sheets.

// spriteSource gives the patterns the images of the style's sprite
// sheets, which it reads when a layer first asks for one: the sheets of
// the icons, decoded once for both (readSheet). On high-density screens it
// takes a sheet's @2x version, or, where there is none, the plain one.
type spriteSource struct {
	ctx   context.Context
	st    *style.Style
	res   Resources
	log   *slog.Logger
	ratio float64 // device pixels a CSS pixel

	once   sync.Once // loads the sheets on first use, from any goroutine
	sheets []namedSheet
}

// spriteImage is one image of a sheet as a pattern samples it: rect
// within the canvas sheet.
type spriteImage struct {
	sheet *raster.Canvas // premultiplied
	rect  image.Rectangle
	ratio float64 // the image's pixels a CSS pixel
}

// image returns the named image, or nil when no sheet has it. When sheets
// name an image alike, the style's last sheet with it wins.
func (s *spriteSource) image(name string) *spriteImage {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		for _, sp := range s.st.Sprites {
			if sp.URL == "" {
				continue
			}
			if sh := s.load(sp.URL); sh != nil {
				s.sheets = append(s.sheets, namedSheet{spritePrefix(sp.ID), sh})
			}
		}
	})
	if ic := findIcon(s.sheets, name); ic != nil {
		return &ic.pattern
	}
	return nil
}

// load reads one sheet (the @2x one on high-density screens, falling back
// to the plain one).
func (s *spriteSource) load(url string) *sheet {
	scales := []string{""}
	if s.ratio > 1 {
		scales = []string{"@2x", ""}
	}
	var err error
	for _, sc := range scales {
		var sh *sheet
		if sh, err = readSheet(s.ctx, s.res, s.log, url, sc); sh != nil && sh.pix != nil {
			return sh
		}
	}
	s.log.Warn("render: pattern sprite skipped", "url", url, "err", err)
	return nil
}

// patternImage returns the image a pattern property names, nil for none.
func (lr *layerRender) patternImage(name string, c *expr.EvalContext) *spriteImage {
	e := lr.props[name]
	if e == nil || lr.l.Paint == nil || !lr.l.Paint.Has(name) {
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
	return lr.sprites.image(id)
}

// planePattern returns the image repeated over the map as GL's fill and
// background patterns are: anchored to the world's pixels at the zoom's
// floor, each repeat the image's size in CSS pixels there, the whole
// shifted by (dx, dy) device pixels.
func (lr *layerRender) planePattern(img *spriteImage, dx, dy float64) *raster.Pattern {
	fr := lr.fr
	// Texels per world unit.
	k := 512 * math.Exp2(math.Floor(lr.zoom)) * img.ratio
	// A device pixel's centre (x+.5, y+.5), shifted back, to the world:
	// the inverse of frame.toScreen.
	ox, oy := 0.5-dx-fr.w/2, 0.5-dy-fr.h/2
	wx0 := fr.cx + (ox*fr.cos+oy*fr.sin)/fr.scale
	wy0 := fr.cy + (-ox*fr.sin+oy*fr.cos)/fr.scale
	return &raster.Pattern{
		Img: img.sheet, Rect: img.rect,
		X0: wx0 * k, Y0: wy0 * k,
		XX: fr.cos / fr.scale * k, XY: -fr.sin / fr.scale * k,
		YX: fr.sin / fr.scale * k, YY: fr.cos / fr.scale * k,
		Tilt: fr.tilt,
	}
}
