// Package spritesheet decodes a style's sprite sheet (a PNG image) and cuts
// its icons out as premultiplied RGBA, the form a GL atlas holds them in.
//
// A render draws a few dozen of a sheet's hundreds of icons, so the sheet
// keeps its decoded pixels as the PNG stores them and converts an icon only
// when it is cut. The common sheets (8-bit grey, grey and alpha, RGB, RGBA
// or palette, not interlaced) are decoded here: inflated into one buffer,
// and unfiltered in place a row at a time when a cut first needs it. Any
// other sheet is decoded by image/png, and so is any input this decoder
// does not accept as it is, so that a sheet's pixels and errors are
// image/png's.
package spritesheet

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
)

// Sheet is a decoded sprite sheet. It is not modified once decoded and is
// safe for concurrent use.
type Sheet struct {
	w, h int
	raw  *rawImage   // the decoded rows, when this package decoded them
	img  image.Image // else image/png's image
}

// MaxSize bounds the side of a sprite sheet, in pixels: 64 MB of pixels
// at most once decoded. A style's sheets are some hundreds of pixels a
// side (a thousand or two on high-density screens); a PNG of a few
// kilobytes may declare 20000x20000.
const MaxSize = 4096

// Decode decodes a PNG sprite sheet, after checking from its header that
// it is at most MaxSize pixels a side.
func Decode(data []byte) (*Sheet, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width > MaxSize || cfg.Height > MaxSize {
		return nil, fmt.Errorf("%dx%d sprite sheet larger than %d pixels a side", cfg.Width, cfg.Height, MaxSize)
	}
	if raw, ok := decodeRaw(data); ok {
		return &Sheet{w: raw.w, h: raw.h, raw: raw}, nil
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	return &Sheet{w: b.Dx(), h: b.Dy(), img: img}, nil
}

// Bounds returns the sheet's rectangle: (0, 0) to its size.
func (s *Sheet) Bounds() image.Rectangle { return image.Rect(0, 0, s.w, s.h) }

// Size is the memory the sheet holds, in bytes (for bounding a cache).
func (s *Sheet) Size() int64 {
	if s.raw != nil {
		return int64(len(s.raw.pix)) + 256*4
	}
	return int64(s.w) * int64(s.h) * 4
}

// Cut writes the sheet's pixels in r (which must lie within Bounds) to
// pix, r's size in RGBA rows with no gap, as premultiplied colour, exactly
// as image/draw converts image/png's image to *image.RGBA with draw.Src.
func (s *Sheet) Cut(pix []uint8, r image.Rectangle) {
	if s.raw != nil {
		s.raw.cut(pix, r)
		return
	}
	w := r.Dx()
	r = r.Add(s.img.Bounds().Min)
	if src, ok := s.img.(*image.NRGBA); ok {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			o := src.PixOffset(r.Min.X, y)
			premultiplyRow(pix[(y-r.Min.Y)*4*w:(y-r.Min.Y+1)*4*w], src.Pix[o:o+4*w])
		}
		return
	}
	dst := &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, r.Dy())}
	draw.Draw(dst, dst.Rect, s.img, r.Min, draw.Src)
}

// premultiplyRow writes the non-premultiplied RGBA pixels of src to dst
// (of the same length) premultiplied, rounding as image/draw does
// from *image.NRGBA to *image.RGBA.
func premultiplyRow(dst, src []uint8) {
	dst = dst[:len(src)]
	for i := 0; i+4 <= len(src); i += 4 {
		s, d := src[i:i+4:i+4], dst[i:i+4:i+4]
		switch s[3] {
		case 0:
			d[0], d[1], d[2], d[3] = 0, 0, 0, 0
		case 0xff: // opaque: premultiplying keeps the colour
			copy(d, s)
		default:
			d[0], d[1], d[2], d[3] = premul(s[0], s[3]), premul(s[1], s[3]), premul(s[2], s[3]), s[3]
		}
	}
}

// premul is colour channel c times alpha a as image/draw computes it: in
// 16 bits, truncated.
func premul(c, a uint8) uint8 {
	return uint8(uint32(c) * (uint32(a) * 0x101) / 0xff >> 8)
}
