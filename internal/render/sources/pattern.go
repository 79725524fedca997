package sources

import (
	"context"
	"image"
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

// Patterns gives the patterns the images of the style's sprite
// sheets, read when a layer first asks for one: the sheets the icons read
// (spriteSet), so that a render reads each once, and, on a high-density
// screen where a sprite has no @2x sheet, its plain one.
type Patterns struct {
	ctx   context.Context
	icons *Sprites

	once   sync.Once // loads the sheets on first use, from any goroutine
	sheets []namedSheet
}

// NewPatterns returns the pattern images of one render, read with ctx:
// those of the sheets icons reads, and the plain sheets where a
// high-density screen found no @2x one.
func NewPatterns(ctx context.Context, icons *Sprites) *Patterns {
	return &Patterns{ctx: ctx, icons: icons}
}

// PatternImage is one image of a sheet as a pattern samples it: Rect
// within the canvas sheet.
type PatternImage struct {
	Sheet *raster.Canvas // premultiplied
	Rect  image.Rectangle
	Ratio float64 // the image's pixels a CSS pixel
}

// Image returns the named image, or nil when no sheet has it. When sheets
// name an image alike, the style's last sheet with it wins.
func (s *Patterns) Image(name string) *PatternImage {
	if s == nil {
		return nil
	}
	s.once.Do(s.load)
	if ic := findIcon(s.sheets, name); ic != nil {
		return &ic.Pattern
	}
	return nil
}

// load takes the icons' sheets, and the plain sheet of a sprite whose @2x
// sheet a high-density screen did not find.
func (s *Patterns) load() {
	icons, src := s.icons, s.icons.s
	icons.once.Do(func() { icons.load(s.ctx) })
	for i, sp := range src.Style.Sprites {
		sh := icons.read[i]
		if (sh == nil || sh.pix == nil) && sp.URL != "" && src.View.PixelRatio > 1 {
			var err error
			if sh, err = readSheet(s.ctx, src.Res, src.Log, sp.URL, ""); err != nil {
				src.Log.Warn("render: pattern sprite skipped", "url", sp.URL, "err", err)
			}
		}
		if sh != nil && sh.pix != nil {
			s.sheets = append(s.sheets, namedSheet{spritePrefix(sp.ID), sh})
		}
	}
}
