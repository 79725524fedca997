package svg

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/draw"
	_ "image/jpeg" // decoders for embedded images
	_ "image/png"
	"math"
	"net/url"
	"strings"
)

// maxEmbeddedPixels bounds the size of a decoded embedded image.
const maxEmbeddedPixels = 2048 * 2048

// decodeDataURI decodes an embedded raster image (data:image/png or image/jpeg). Other
// references are never fetched.
func decodeDataURI(href string) (*image.NRGBA, bool) {
	href = strings.TrimSpace(href)
	if !strings.HasPrefix(strings.ToLower(href), "data:") {
		return nil, false
	}
	meta, payload, ok := strings.Cut(href[5:], ",")
	if !ok {
		return nil, false
	}
	var data []byte
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, payload)
		var err error
		data, err = base64.StdEncoding.DecodeString(clean)
		if err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "=")); err != nil {
				return nil, false
			}
		}
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			return nil, false
		}
		data = []byte(s)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxEmbeddedPixels {
		return nil, false
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out, true
}

// imagePainter samples an image bilinearly through the inverse of its placement transform.
type imagePainter struct {
	inv     matrix
	img     *image.NRGBA
	opacity float32
}

func (p *imagePainter) texel(x, y int) [4]float32 {
	b := p.img.Bounds()
	x = clampInt(x, 0, b.Dx()-1)
	y = clampInt(y, 0, b.Dy()-1)
	o := p.img.PixOffset(x, y)
	a := float32(p.img.Pix[o+3]) / 255
	return [4]float32{float32(p.img.Pix[o]) / 255 * a, float32(p.img.Pix[o+1]) / 255 * a, float32(p.img.Pix[o+2]) / 255 * a, a}
}

func (p *imagePainter) at(x, y int) [4]float32 {
	q := p.inv.apply(point{float64(x) + 0.5, float64(y) + 0.5})
	fx, fy := q.x-0.5, q.y-0.5
	x0, y0 := math.Floor(fx), math.Floor(fy)
	tx, ty := float32(fx-x0), float32(fy-y0)
	ix, iy := int(x0), int(y0)
	a, b := p.texel(ix, iy), p.texel(ix+1, iy)
	c, d := p.texel(ix, iy+1), p.texel(ix+1, iy+1)
	var out [4]float32
	for i := range out {
		top := a[i] + (b[i]-a[i])*tx
		bot := c[i] + (d[i]-c[i])*tx
		out[i] = (top + (bot-top)*ty) * p.opacity
	}
	return out
}

// drawImage renders an <image> element with an embedded raster image.
func (r *renderer) drawImage(n *node, ctm matrix, st computed) {
	if !st.visible {
		return
	}
	if r.images == nil {
		r.images = map[*node]*image.NRGBA{}
	}
	img, seen := r.images[n]
	if !seen {
		var ok bool
		img, ok = decodeDataURI(n.attr("href"))
		if ok {
			// Decoding costs about as much as compositing that many pixels a few times.
			r.ras.work += 4 * int64(img.Bounds().Dx()*img.Bounds().Dy())
		} else {
			img = nil
		}
		r.images[n] = img // decoded once even when reused through <use>
	}
	if img == nil || !r.check() {
		return
	}
	iw, ih := float64(img.Bounds().Dx()), float64(img.Bounds().Dy())
	x, _ := parseLength(n.attr("x"), r.vpW)
	y, _ := parseLength(n.attr("y"), r.vpH)
	w, okw := parseLength(n.attr("width"), r.vpW)
	h, okh := parseLength(n.attr("height"), r.vpH)
	switch {
	case !okw && !okh:
		w, h = iw, ih
	case !okw:
		w = h * iw / ih
	case !okh:
		h = w * ih / iw
	}
	if !(w > 0 && h > 0) {
		return
	}
	place := ctm.mul(viewBoxTransform([4]float64{0, 0, iw, ih}, parseAspect(n.attr("preserveAspectRatio")), x, y, w, h))
	inv, ok := place.inverse()
	if !ok {
		return
	}
	// Coverage: the viewport rectangle intersected with the placed image.
	a := parseAspect(n.attr("preserveAspectRatio"))
	x0, y0, x1, y1 := x, y, x+w, y+h
	if !a.slice {
		m := viewBoxTransform([4]float64{0, 0, iw, ih}, a, x, y, w, h)
		p0, p1 := m.apply(point{0, 0}), m.apply(point{iw, ih})
		x0, y0 = math.Max(x0, p0.x), math.Max(y0, p0.y)
		x1, y1 = math.Min(x1, p1.x), math.Min(y1, p1.y)
	}
	r.ras.reset()
	r.ras.addPolygon([]point{ctm.apply(point{x0, y0}), ctm.apply(point{x1, y0}), ctm.apply(point{x1, y1}), ctm.apply(point{x0, y1})})
	if !r.check() {
		return
	}
	r.composite(r.ras.coverage(false), &imagePainter{inv: inv, img: img, opacity: 1})
}
