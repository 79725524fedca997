package mapimage

import (
	"html"
	"image"
	"image/color"
	"math"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/staticmap"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// overlay draws the paths, markers and attribution of a static map onto a
// rendered picture. Positions come from the static view in CSS pixels and
// are scaled by the pixel ratio.
type overlay struct {
	cv    *raster.Canvas
	mask  *raster.Mask
	view  staticmap.View
	ratio float64
}

func newOverlay(img *image.RGBA, v staticmap.View) *overlay {
	return &overlay{cv: &raster.Canvas{RGBA: img}, mask: raster.NewMask(img.Rect.Dx(), img.Rect.Dy()), view: v, ratio: v.PixelRatio}
}

func rasterColor(c expr.Color) raster.Color { return raster.Color{R: c.R, G: c.G, B: c.B, A: c.A} }

// path draws one path: its fill first (as a polygon), then its stroke with
// round joins and caps.
func (o *overlay) path(p staticmap.Path) {
	pts := o.view.ProjectLine(p.Points)
	line := make([]raster.Point, len(pts))
	for i, q := range pts {
		line[i] = raster.Point{X: q[0] * o.ratio, Y: q[1] * o.ratio}
	}
	if p.Fill != nil && len(line) >= 3 {
		o.mask.Reset()
		o.mask.FillPolygon([][]raster.Point{line})
		o.cv.Composite(o.mask, rasterColor(*p.Fill), 1)
	}
	if p.Width > 0 && len(line) >= 2 {
		o.mask.Reset()
		o.mask.Stroke(line, p.Width*o.ratio, 0, raster.RoundCap)
		o.cv.Composite(o.mask, rasterColor(p.Stroke), 1)
	}
}

// The default marker: a pin of pinWidth x pinHeight CSS pixels whose tip
// is the marker's position.
const (
	pinWidth  = 27.0
	pinHeight = 41.0
)

var (
	pinFill    = raster.Color{R: 0.89, G: 0.27, B: 0.22, A: 1}
	pinOutline = raster.Color{R: 0.6, G: 0.12, B: 0.1, A: 1}
	white      = raster.Color{R: 1, G: 1, B: 1, A: 1}
	textDark   = raster.Color{R: 0.13, G: 0.13, B: 0.13, A: 1}
)

// pinShape returns the outline of the default pin scaled by s with its tip
// at (x, y): a circle of the pin's width on top, joined to the tip by its
// two tangents.
func pinShape(x, y, s float64) []raster.Point {
	r := pinWidth / 2 * s
	cy := y - (pinHeight*s - r) // centre of the head
	// Angle between the vertical and each tangent point, seen from the
	// head's centre.
	a := math.Acos(r / (y - cy))
	out := []raster.Point{{X: x, Y: y}}
	// From the right tangent point over the top to the left one, in screen
	// angles (y down: pi/2 points at the tip).
	from := math.Pi/2 - a
	sweep := 2*math.Pi - 2*a
	const steps = 48
	for i := 0; i <= steps; i++ {
		t := from - float64(i)/steps*sweep
		out = append(out, raster.Point{X: x + r*math.Cos(t), Y: cy + r*math.Sin(t)})
	}
	return out
}

// defaultMarker draws the pin with its tip at (x, y) device pixels, and a
// short text (up to three characters) inside its head.
func (o *overlay) defaultMarker(x, y, scale float64, text string) {
	s := scale * o.ratio
	outline := pinShape(x, y, s)
	o.mask.Reset()
	o.mask.FillPolygon([][]raster.Point{outline})
	o.cv.Composite(o.mask, pinFill, 1)
	o.mask.Reset()
	closed := append(outline, outline[0])
	o.mask.Stroke(closed, 1*s, 0, raster.RoundCap)
	o.cv.Composite(o.mask, pinOutline, 1)
	r := pinWidth / 2 * s
	cy := y - (pinHeight*s - r)
	if text == "" {
		o.mask.Reset()
		o.mask.Disc(raster.Point{X: x, Y: cy}, r*0.38, 1)
		o.cv.Composite(o.mask, white, 1)
		return
	}
	o.text(text, x, cy, 12*s, white, pinOutline, 0.5)
}

// icon draws an icon image (straight or premultiplied alpha) with the
// marker's anchor on (x, y) device pixels, scaled by scale.
func (o *overlay) icon(img image.Image, x, y, scale float64, anchor staticmap.Anchor, iconRatio float64) {
	b := img.Bounds()
	w := float64(b.Dx()) * scale * o.ratio / iconRatio
	h := float64(b.Dy()) * scale * o.ratio / iconRatio
	ax, ay := anchorOffset(anchor, w, h)
	x0, y0 := x-ax, y-ay
	dst := image.Rect(int(math.Round(x0)), int(math.Round(y0)), int(math.Round(x0+w)), int(math.Round(y0+h)))
	clip := dst.Intersect(o.cv.Rect)
	if !o.cv.Budget.SpendArea(clip.Min.X, clip.Min.Y, clip.Max.X, clip.Max.Y, raster.CostTexture) {
		return
	}
	drawScaled(o.cv.RGBA, dst, img)
}

// anchorOffset is the anchor's position inside a w x h icon.
func anchorOffset(a staticmap.Anchor, w, h float64) (float64, float64) {
	x, y := w/2, h/2
	s := string(a)
	if strings.Contains(s, "left") {
		x = 0
	}
	if strings.Contains(s, "right") {
		x = w
	}
	if strings.HasPrefix(s, "top") {
		y = 0
	}
	if strings.HasPrefix(s, "bottom") {
		y = h
	}
	return x, y
}

// drawScaled draws src over dst's rectangle r, sampling the nearest source
// pixel of each destination pixel centre (icons are small and scaled by
// whole factors in the common case).
func drawScaled(dst *image.RGBA, r image.Rectangle, src image.Image) {
	sb := src.Bounds()
	if r.Empty() || sb.Empty() {
		return
	}
	clip := r.Intersect(dst.Rect)
	sx := float64(sb.Dx()) / float64(r.Dx())
	sy := float64(sb.Dy()) / float64(r.Dy())
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		py := sb.Min.Y + min(sb.Dy()-1, int((float64(y-r.Min.Y)+0.5)*sy))
		for x := clip.Min.X; x < clip.Max.X; x++ {
			px := sb.Min.X + min(sb.Dx()-1, int((float64(x-r.Min.X)+0.5)*sx))
			c := color.RGBAModel.Convert(src.At(px, py)).(color.RGBA)
			if c.A == 0 {
				continue
			}
			i := dst.PixOffset(x, y)
			p := dst.Pix[i : i+4]
			inv := 255 - uint32(c.A)
			p[0] = uint8(uint32(c.R) + uint32(p[0])*inv/255)
			p[1] = uint8(uint32(c.G) + uint32(p[1])*inv/255)
			p[2] = uint8(uint32(c.B) + uint32(p[2])*inv/255)
			p[3] = uint8(uint32(c.A) + uint32(p[3])*inv/255)
		}
	}
}

// The label font: Go Medium, a sans-serif of the Go project's fonts, built
// into golang.org/x/image.
var (
	fontOnce sync.Once
	labelTTF *opentype.Font
	faces    sync.Map // size in 1/4 pixels -> font.Face
)

func face(size float64) font.Face {
	fontOnce.Do(func() {
		f, err := opentype.Parse(gomedium.TTF)
		if err == nil {
			labelTTF = f
		}
	})
	if labelTTF == nil {
		return nil
	}
	key := int(math.Round(size * 4))
	if f, ok := faces.Load(key); ok {
		return f.(font.Face)
	}
	f, err := opentype.NewFace(labelTTF, &opentype.FaceOptions{Size: float64(key) / 4, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil
	}
	faces.Store(key, f)
	return f
}

// textMask draws s into a coverage mask (alpha only) of its own size, the
// baseline at ascent; it returns the mask and the text's advance.
func textMask(s string, size float64) (*image.Alpha, float64, float64) {
	f := face(size)
	if f == nil {
		return nil, 0, 0
	}
	m := f.Metrics()
	adv := font.MeasureString(f, s)
	w := adv.Ceil() + 2
	h := (m.Ascent + m.Descent).Ceil() + 2
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: f, Dot: fixed.Point26_6{X: fixed.I(1), Y: m.Ascent + fixed.I(1)}}
	// font.Drawer draws with a face that is not safe for concurrent use.
	faceMu.Lock()
	d.DrawString(s)
	faceMu.Unlock()
	return mask, float64(w), float64(h)
}

var faceMu sync.Mutex

// text draws s centred on (cx, cy) device pixels in fill, with a halo of
// halo colour haloWidth (in font sizes) wide.
func (o *overlay) text(s string, cx, cy, size float64, fill, halo raster.Color, haloWidth float64) {
	mask, w, h := textMask(s, size)
	if mask == nil {
		return
	}
	x0 := int(math.Round(cx - w/2))
	y0 := int(math.Round(cy - h/2))
	o.drawTextMask(mask, x0, y0, fill, halo, max(1, haloWidth*size/6))
}

// drawTextMask composites a text mask at (x0, y0): the halo (the mask
// dilated by radius) first, then the text.
func (o *overlay) drawTextMask(mask *image.Alpha, x0, y0 int, fill, halo raster.Color, radius float64) {
	if halo.A > 0 && radius > 0 {
		o.compositeAlpha(dilate(mask, radius), x0, y0, halo)
	}
	o.compositeAlpha(mask, x0, y0, fill)
}

// compositeAlpha blends colour c through an alpha mask placed at (x0, y0).
func (o *overlay) compositeAlpha(mask *image.Alpha, x0, y0 int, c raster.Color) {
	o.mask.Reset()
	b := mask.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if a := mask.AlphaAt(x, y).A; a > 0 {
				o.mask.Raise(x0+x, y0+y, float32(a)/255)
			}
		}
	}
	o.cv.Composite(o.mask, c, 1)
}

// dilate grows a mask by radius pixels (the maximum over a disc).
func dilate(m *image.Alpha, radius float64) *image.Alpha {
	r := int(math.Ceil(radius))
	b := m.Bounds()
	out := image.NewAlpha(image.Rect(b.Min.X-r, b.Min.Y-r, b.Max.X+r, b.Max.Y+r))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			a := m.AlphaAt(x, y).A
			if a == 0 {
				continue
			}
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					d := math.Hypot(float64(dx), float64(dy))
					if d > radius+0.5 {
						continue
					}
					v := float64(a)
					if d > radius-0.5 {
						v *= radius + 0.5 - d
					}
					if p := out.AlphaAt(x+dx, y+dy).A; uint8(v) > p {
						out.SetAlpha(x+dx, y+dy, color.Alpha{A: uint8(v)})
					}
				}
			}
		}
	}
	return out
}

// label draws a marker's longer text beside its icon: left-aligned at
// (x, cy), dark with a white halo.
func (o *overlay) label(s string, x, cy float64) {
	size := 12 * o.ratio
	mask, _, h := textMask(s, size)
	if mask == nil {
		return
	}
	o.drawTextMask(mask, int(math.Round(x)), int(math.Round(cy-h/2)), textDark, white, 1.5*o.ratio)
}

// attribution draws the text in a corner on a translucent white box.
func (o *overlay) attribution(text string, corner staticmap.Corner) {
	if text == "" || corner == staticmap.NoAttribution {
		return
	}
	size := 10 * o.ratio
	mask, w, h := textMask(text, size)
	if mask == nil {
		return
	}
	pad := 3 * o.ratio
	W, H := float64(o.cv.Rect.Dx()), float64(o.cv.Rect.Dy())
	bw, bh := w+2*pad, h+pad
	x, y := W-bw, H-bh
	switch corner {
	case staticmap.BottomLeft:
		x = 0
	case staticmap.TopLeft:
		x, y = 0, 0
	case staticmap.TopRight:
		y = 0
	}
	o.mask.Reset()
	o.mask.FillPolygon([][]raster.Point{{{X: x, Y: y}, {X: x + bw, Y: y}, {X: x + bw, Y: y + bh}, {X: x, Y: y + bh}}})
	o.cv.Composite(o.mask, raster.Color{R: 1, G: 1, B: 1, A: 0.75}, 1)
	o.drawTextMask(mask, int(math.Round(x+pad)), int(math.Round(y+pad/2)), raster.Color{R: 0.2, G: 0.2, B: 0.2, A: 1}, raster.Color{}, 0)
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plainText turns an attribution (often HTML with links) into plain text.
func plainText(s string) string {
	s = html.UnescapeString(tags.ReplaceAllString(s, ""))
	return strings.Join(strings.Fields(s), " ")
}

// attribution gathers the attribution of a style's sources: their own
// "attribution", else their tileset's, each once, in source order.
func (s *Service) attribution(st *style.Style) string {
	var parts []string
	seen := map[string]bool{}
	for _, src := range st.Sources {
		text := ""
		if v, ok := src.Raw.Get("attribution"); ok {
			text, _ = v.(string)
		}
		if text == "" && s.cat != nil {
			if name, ok := strings.CutPrefix(src.URL, "/tiles/"); ok {
				name, _, _ = strings.Cut(name, "/")
				if e, ok := s.cat.Get(name); ok {
					text = e.Info.Attribution
				}
			}
		}
		if text = plainText(text); text != "" && !seen[text] {
			seen[text] = true
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, " | ")
}
