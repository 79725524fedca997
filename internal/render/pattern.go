package render

import (
	"context"
	"image"
	"math"
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Patterns (background-pattern, fill-pattern, line-pattern) are images of
// the style's sprite sheets.

// spriteSource gives the patterns the images of the style's sprite
// sheets, read when a layer first asks for one: the sheets the icons read
// (spriteSet), so that a render reads each once, and, on a high-density
// screen where a sprite has no @2x sheet, its plain one.
type spriteSource struct {
	ctx   context.Context
	icons *spriteSet

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
	s.once.Do(s.load)
	if ic := findIcon(s.sheets, name); ic != nil {
		return &ic.pattern
	}
	return nil
}

// load takes the icons' sheets, and the plain sheet of a sprite whose @2x
// sheet a high-density screen did not find.
func (s *spriteSource) load() {
	icons, src := s.icons, s.icons.s
	icons.once.Do(func() { icons.load(s.ctx) })
	for i, sp := range src.st.Sprites {
		sh := icons.read[i]
		if (sh == nil || sh.pix == nil) && sp.URL != "" && src.view.PixelRatio > 1 {
			var err error
			if sh, err = readSheet(s.ctx, src.res, src.r.log, sp.URL, ""); err != nil {
				src.r.log.Warn("render: pattern sprite skipped", "url", sp.URL, "err", err)
			}
		}
		if sh != nil && sh.pix != nil {
			s.sheets = append(s.sheets, namedSheet{spritePrefix(sp.ID), sh})
		}
	}
}

// patternImage returns the image a pattern property names, nil for none.
func (lr *painter) patternImage(name string, c *expr.EvalContext) *spriteImage {
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
	return lr.sprites.image(id)
}

// planePattern returns the image repeated over the map as GL's fill and
// background patterns are: anchored to the world's pixels at the zoom's
// floor, each repeat the image's size in CSS pixels there, the whole
// shifted by (dx, dy) device pixels.
func (lr *painter) planePattern(img *spriteImage, dx, dy float64) *raster.Pattern {
	fr := lr.Frame
	// Texels per world unit.
	k := 512 * math.Exp2(math.Floor(lr.Zoom)) * img.ratio
	// A device pixel's centre (x+.5, y+.5), shifted back, to the world:
	// the inverse of frame.toScreen.
	ox, oy := 0.5-dx-fr.W/2, 0.5-dy-fr.H/2
	wx0 := fr.CX + (ox*fr.Cos+oy*fr.Sin)/fr.Scale
	wy0 := fr.CY + (-ox*fr.Sin+oy*fr.Cos)/fr.Scale
	return &raster.Pattern{
		Img: img.sheet, Rect: img.rect,
		X0: wx0 * k, Y0: wy0 * k,
		XX: fr.Cos / fr.Scale * k, XY: -fr.Sin / fr.Scale * k,
		YX: fr.Sin / fr.Scale * k, YY: fr.Cos / fr.Scale * k,
		Tilt: fr.Tilt,
	}
}
