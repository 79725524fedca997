package render

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"testing"
)

// TestCutIcon holds cutIcon to image/draw's conversion of the sheet to
// premultiplied RGBA, for every kind of pixel and sheet.
func TestCutIcon(t *testing.T) {
	// An NRGBA sheet with every alpha (and the colours that round
	// differently at each), offset from the origin.
	nrgba := image.NewNRGBA(image.Rect(3, 5, 3+256, 5+6))
	for y := 0; y < 6; y++ {
		for x := 0; x < 256; x++ {
			nrgba.SetNRGBA(3+x, 5+y, color.NRGBA{uint8(255 - x), uint8(x * 7), uint8(y * 51), uint8(x)})
		}
	}
	pal := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.NRGBA{10, 20, 30, 128}, color.NRGBA{200, 100, 0, 255}, color.Transparent})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 3)
	}
	gray := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 4)
	}
	tests := []struct {
		name string
		img  image.Image
		r    image.Rectangle
	}{
		{"nrgba, whole", nrgba, nrgba.Rect},
		{"nrgba, inner icon", nrgba, image.Rect(40, 6, 90, 10)},
		{"nrgba, one pixel", nrgba, image.Rect(258, 10, 259, 11)},
		{"paletted", pal, image.Rect(1, 2, 7, 8)},
		{"gray", gray, image.Rect(0, 0, 5, 3)},
	}
	for _, tc := range tests {
		sheet := image.NewRGBA(tc.img.Bounds())
		draw.Draw(sheet, sheet.Rect, tc.img, tc.img.Bounds().Min, draw.Src)
		w, h := tc.r.Dx(), tc.r.Dy()
		want := make([]uint8, 0, w*h*4)
		for y := tc.r.Min.Y; y < tc.r.Max.Y; y++ {
			o := sheet.PixOffset(tc.r.Min.X, y)
			want = append(want, sheet.Pix[o:o+4*w]...)
		}
		got := make([]uint8, w*h*4)
		cutIcon(got, tc.img, tc.r)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the icon's pixels differ from image/draw's", tc.name)
		}
	}
}
