package pyramid

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // registered for image.Decode
	"image/png"
	"io"

	_ "golang.org/x/image/tiff" // registered for image.Decode
)

// MaxWholePixels bounds the pictures read whole (JPEG, TIFF and interlaced
// PNG, whose decoders hold the picture): 40 million pixels (about
// 6300 x 6300), at most 8 bytes a pixel decoded (16-bit TIFF) and 4 more
// converted, within the memory a server spares for an upload.
const MaxWholePixels = 40_000_000

// ErrTooLarge is wrapped when a picture read whole has more pixels than
// MaxWholePixels.
var ErrTooLarge = fmt.Errorf("%w: too many pixels", ErrFormat)

// Open reads a picture's header and returns its rows: PNG streamed row by
// row (up to MaxSide a side and MaxPixels), JPEG, TIFF and interlaced PNG decoded whole
// within MaxWholePixels.
func Open(r io.ReadSeeker) (Rows, string, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(8)
	if bytes.Equal(head, pngSignature) {
		rows, err := NewPNGRows(br)
		if err == nil {
			return rows, "png", nil
		}
		if !errors.Is(err, ErrInterlaced) {
			return nil, "", err
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, "", fmt.Errorf("rewind the picture: %w", err)
		}
		br = bufio.NewReader(r)
	}
	cfg, format, err := image.DecodeConfig(br)
	if err != nil {
		return nil, "", fmt.Errorf("%w: not a PNG, JPEG or TIFF picture: %v", ErrFormat, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxWholePixels {
		return nil, "", fmt.Errorf("%w: a %s of %dx%d pixels: %s pictures are read whole, up to %d pixels (PNG of any size is read row by row)",
			ErrTooLarge, format, cfg.Width, cfg.Height, format, MaxWholePixels)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, "", fmt.Errorf("rewind the picture: %w", err)
	}
	var img image.Image
	if format == "png" {
		img, err = png.Decode(bufio.NewReader(r))
	} else {
		img, _, err = image.Decode(bufio.NewReader(r))
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", ErrFormat, format, err)
	}
	return ImageRows(img), format, nil
}

// ImageRows gives the rows of a picture held in memory.
func ImageRows(img image.Image) Rows { return &imageRows{img: img} }

type imageRows struct {
	img image.Image
	y   int
	tmp *image.NRGBA
}

func (r *imageRows) Size() (int, int) { b := r.img.Bounds(); return b.Dx(), b.Dy() }

func (r *imageRows) Next(dst []byte) error {
	b := r.img.Bounds()
	if r.y >= b.Dy() {
		return io.EOF
	}
	w := b.Dx()
	if n, ok := r.img.(*image.NRGBA); ok {
		o := n.PixOffset(b.Min.X, b.Min.Y+r.y)
		copy(dst, n.Pix[o:o+4*w])
	} else {
		if r.tmp == nil {
			r.tmp = image.NewNRGBA(image.Rect(0, 0, w, 1))
		}
		draw.Draw(r.tmp, r.tmp.Bounds(), r.img, image.Pt(b.Min.X, b.Min.Y+r.y), draw.Src)
		copy(dst, r.tmp.Pix[:4*w])
	}
	r.y++
	return nil
}
