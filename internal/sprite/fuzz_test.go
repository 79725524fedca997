package sprite

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// FuzzRenderIcon feeds arbitrary bytes as an icon (SVG or PNG, 1x or @2x) through rendering
// and SDF generation: bad input must be an error, never a panic.
func FuzzRenderIcon(f *testing.F) {
	f.Add(svgSquare(8, "#f00"), false, uint8(1))
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 2"><circle r="1" cx="1" cy="1"/></svg>`), true, uint8(2))
	img := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	img.SetNRGBA(2, 1, color.NRGBA{1, 2, 3, 200})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), true, uint8(1))
	f.Add(buf.Bytes(), false, uint8(6))
	opts := Options{MaxIconSize: 64, MaxFileBytes: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte, sdf bool, ratio uint8) {
		o := opts
		o.SDF = sdf
		o.PixelRatio = int(ratio%2) + 1
		o = o.withDefaults()
		ic := Icon{Name: "x", Data: data}
		if ratio >= 4 {
			ic = Icon{Name: "x", Data2x: data}
		}
		r, err := renderIcon(context.Background(), ic, o)
		if err != nil {
			return
		}
		b := r.img.Bounds()
		if b.Dx() <= 0 || b.Dy() <= 0 || b.Dx() > 3*64*2 || b.Dy() > 3*64*2 {
			t.Fatalf("icon size %v", b)
		}
	})
}
