//go:build ignore

// rastergen writes the raster tiles of the raster-pitched reference
// picture: zooms 0 to 2 of a synthetic 256-pixel pyramid (a checkerboard
// of 16 squares a tile over hue ramps, a white frame around each tile),
// so that sampling, mipmaps and tile edges show. Run from this folder:
// go run rastergen.go
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	for z := 0; z <= 2; z++ {
		n := 1 << z
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				if err := write(z, x, y); err != nil {
					log.Fatal(err)
				}
			}
		}
	}
}

func write(z, x, y int) error {
	const size = 256
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	n := float64(int(1) << z)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			// World position of the pixel, 0..1.
			wx := (float64(x) + (float64(px)+0.5)/size) / n
			wy := (float64(y) + (float64(py)+0.5)/size) / n
			hue := math.Mod(wx*360+wy*120, 360)
			r, g, b := hsv(hue, 0.6, 0.9)
			if (px/16+py/16)%2 == 0 {
				r, g, b = r*0.7, g*0.7, b*0.7
			}
			if px < 2 || py < 2 || px >= size-2 || py >= size-2 {
				r, g, b = 1, 1, 1
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r*255 + 0.5), uint8(g*255 + 0.5), uint8(b*255 + 0.5), 255})
		}
	}
	f, err := os.Create(fmt.Sprintf("raster/%d-%d-%d.png", z, x, y))
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

func hsv(h, s, v float64) (r, g, b float64) {
	c := v * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	switch int(hp) {
	case 0:
		r, g, b = c, x, 0
	case 1:
		r, g, b = x, c, 0
	case 2:
		r, g, b = 0, c, x
	case 3:
		r, g, b = 0, x, c
	case 4:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	m := v - c
	return r + m, g + m, b + m
}
