package imageenc

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"strings"
	"sync"

	"github.com/gen2brain/webp"

	"github.com/tesseramaps/tessera/internal/basisu"
)

// Format is an output image format.
type Format string

// The formats.
const (
	PNG  Format = "png"
	JPEG Format = "jpg"
	WebP Format = "webp"
	// Basis is KTX 2.0 with Basis Universal ETC1S supercompression, a GPU
	// texture format (raster map tiles only).
	Basis Format = "basis"
)

// ParseFormat reads a format name as used in URLs and flags: png, jpg (or
// jpeg), webp and basis, in any case. Where basis is not served (static
// maps), the caller refuses it.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "png":
		return PNG, nil
	case "jpg", "jpeg":
		return JPEG, nil
	case "webp":
		return WebP, nil
	case "basis":
		return Basis, nil
	}
	return "", fmt.Errorf("unknown image format %q (use png, jpg, webp or basis)", s)
}

// MediaType returns the format's media type.
func (f Format) MediaType() string {
	switch f {
	case JPEG:
		return "image/jpeg"
	case WebP:
		return "image/webp"
	case Basis:
		return basisu.MediaType
	}
	return "image/png"
}

// DefaultQuality is the quality of lossy formats when none is given.
const DefaultQuality = 90

// Options control an encoding.
type Options struct {
	// Format is the output format; empty means PNG.
	Format Format
	// Quality of lossy output, 1 to 100 (0 means DefaultQuality). For WebP,
	// 100 means lossless.
	Quality int
	// Lossless asks WebP for lossless output.
	Lossless bool
	// Background is the colour JPEG output is flattened over (JPEG has no
	// alpha). The zero value means white.
	Background color.Color
}

// Encode writes img to w in the format of opt.
func Encode(w io.Writer, img image.Image, opt Options) error {
	q := opt.Quality
	if q <= 0 {
		q = DefaultQuality
	}
	if q > 100 {
		q = 100
	}
	switch opt.Format {
	case "", PNG:
		return EncodePNG(w, img)
	case JPEG:
		bg := opt.Background
		if bg == nil {
			bg = color.White
		}
		if err := jpeg.Encode(w, flatten(img, bg), &jpeg.Options{Quality: q}); err != nil {
			return fmt.Errorf("encode jpeg: %w", err)
		}
		return nil
	case WebP:
		o := webp.Options{Quality: q, Lossless: opt.Lossless || q == 100, Method: 2}
		if err := webp.Encode(w, straight(img), o); err != nil {
			return fmt.Errorf("encode webp: %w", err)
		}
		return nil
	case Basis:
		if err := basisu.Encode(w, img, basisu.Options{}); err != nil {
			return fmt.Errorf("encode basis: %w", err)
		}
		return nil
	}
	return fmt.Errorf("unknown image format %q", opt.Format)
}

var warmOnce sync.Once

// Warm prepares the WebP encoder (compiling its WebAssembly module takes a
// few hundred milliseconds), so that the first WebP request does not pay for
// it. It is safe to call more than once.
func Warm() {
	warmOnce.Do(webp.Init)
}

// flatten draws img over an opaque background and returns an opaque RGBA
// image.
func flatten(img image.Image, bg color.Color) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, image.NewUniform(bg), image.Point{}, draw.Src)
	draw.Draw(out, b, img, b.Min, draw.Over)
	return out
}

// straight returns img with straight (not premultiplied) alpha, converting
// only when it has to.
func straight(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.NRGBA:
		return m
	case *image.RGBA:
		if opaque(m) {
			return m
		}
		out := image.NewNRGBA(m.Bounds())
		unpremultiplyRows(out.Pix, out.Stride, m.Pix, m.Stride, m.Bounds().Dx(), m.Bounds().Dy())
		return out
	}
	b := img.Bounds()
	out := image.NewNRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

// opaque reports whether every pixel of m has alpha 255.
func opaque(m *image.RGBA) bool {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	for y := 0; y < h; y++ {
		row := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 255 {
				return false
			}
		}
	}
	return true
}

// opaqueRun returns the end of the run of opaque pixels (alpha 255) of
// the RGBA row s that starts at byte i.
func opaqueRun(s []byte, i int) int {
	const alphas = 0xff000000ff000000
	for i+8 <= len(s) && binary.LittleEndian.Uint64(s[i:])&alphas == alphas {
		i += 8
	}
	if i+4 <= len(s) && s[i+3] == 255 {
		i += 4
	}
	return i
}

// unpremultiplyRows converts premultiplied RGBA rows to straight alpha,
// rounding to the nearest value.
func unpremultiplyRows(dst []byte, dstStride int, src []byte, srcStride, w, h int) {
	for y := 0; y < h; y++ {
		s := src[y*srcStride : y*srcStride+4*w]
		d := dst[y*dstStride : y*dstStride+4*w]
		for i := 0; i < len(s); i += 4 {
			// A run of opaque pixels (most of a map) is copied as it is,
			// found two pixels at a time.
			if j := opaqueRun(s, i); j > i {
				copy(d[i:j], s[i:j])
				if i = j; i == len(s) {
					break
				}
			}
			a := uint32(s[i+3])
			switch a {
			case 0:
				d[i], d[i+1], d[i+2], d[i+3] = 0, 0, 0, 0
			case 255:
				d[i], d[i+1], d[i+2], d[i+3] = s[i], s[i+1], s[i+2], 255
			default:
				d[i] = byte(min(255, (uint32(s[i])*255+a/2)/a))
				d[i+1] = byte(min(255, (uint32(s[i+1])*255+a/2)/a))
				d[i+2] = byte(min(255, (uint32(s[i+2])*255+a/2)/a))
				d[i+3] = byte(a)
			}
		}
	}
}
