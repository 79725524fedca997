package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"strings"
	"sync"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Patterns (background-pattern, fill-pattern, line-pattern) are images of
// the style's sprite sheets.

// spriteSource loads the style's sprite sheets once, when a layer first
// asks for an image.
type spriteSource struct {
	ctx   context.Context
	st    *style.Style
	res   Resources
	ratio float64 // device pixels a CSS pixel

	once sync.Once               // loads the sheets on first use, from any goroutine
	img  map[string]*spriteImage // by name ("id:name" for sheets other than "default")
	err  error
}

// spriteImage is one image of a sheet.
type spriteImage struct {
	sheet *raster.Canvas // premultiplied
	rect  image.Rectangle
	ratio float64 // the image's pixels a CSS pixel
}

// spriteEntry is an image's entry in a sheet's JSON index.
type spriteEntry struct {
	X, Y, Width, Height int
	PixelRatio          float64 `json:"pixelRatio"`
}

// image returns the named image, or nil when no sheet has it.
func (s *spriteSource) image(name string) *spriteImage {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		s.img = map[string]*spriteImage{}
		for _, sp := range s.st.Sprites {
			prefix := ""
			if sp.ID != "default" {
				prefix = sp.ID + ":"
			}
			if err := s.load(sp.URL, prefix); err != nil {
				s.err = err
			}
		}
	})
	return s.img[name]
}

// spriteURL returns the URL of a sheet's file: the sheet URL with the
// suffix ("@2x" and ".json" or ".png") before any query.
func spriteURL(base, suffix string) string {
	if i := strings.IndexByte(base, '?'); i >= 0 {
		return base[:i] + suffix + base[i:]
	}
	return base + suffix
}

// load reads one sheet (the @2x one on high-density screens, falling back
// to the plain one).
func (s *spriteSource) load(url, prefix string) error {
	scales := []string{""}
	if s.ratio > 1 {
		scales = []string{"@2x", ""}
	}
	var err error
	for _, sc := range scales {
		if err = s.loadScale(url, sc, prefix); err == nil {
			return nil
		}
	}
	return err
}

func (s *spriteSource) loadScale(url, scale, prefix string) error {
	index, err := s.res.Fetch(s.ctx, spriteURL(url, scale+".json"))
	if err != nil {
		return fmt.Errorf("sprite index: %w", err)
	}
	pngData, err := s.res.Fetch(s.ctx, spriteURL(url, scale+".png"))
	if err != nil {
		return fmt.Errorf("sprite image: %w", err)
	}
	var entries map[string]spriteEntry
	if err := json.Unmarshal(index, &entries); err != nil {
		return fmt.Errorf("sprite index %s: %w", url, err)
	}
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return fmt.Errorf("sprite image %s: %w", url, err)
	}
	// GL uploads the sheet premultiplied, which image.RGBA is.
	sheet := raster.NewCanvas(img.Bounds().Dx(), img.Bounds().Dy())
	draw.Draw(sheet.RGBA, sheet.Rect, img, img.Bounds().Min, draw.Src)
	for name, e := range entries {
		r := image.Rect(e.X, e.Y, e.X+e.Width, e.Y+e.Height)
		if e.Width <= 0 || e.Height <= 0 || !r.In(sheet.Rect) {
			continue
		}
		ratio := e.PixelRatio
		if ratio <= 0 {
			ratio = 1
		}
		s.img[prefix+name] = &spriteImage{sheet: sheet, rect: r, ratio: ratio}
	}
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
