//go:build ignore

// gen writes the DEM tiles of the hillshade reference pictures: a block of
// 4 x 4 zoom-11 tiles (128 x 128 pixels, Terrarium encoding, whole metres)
// around the corner of tile 11/1066/725, holding forty round hills and a
// ridge; and image.png, the picture of the image source's reference (a
// checkerboard over colour ramps). Run from this folder: go run gen.go
package main

import (
	"fmt"
	"image"
	"image/png"
	"log"
	"math"
	"os"
)

const (
	z         = 11
	dim       = 128
	col, row  = 1066, 725 // the tile whose top left corner is the view's centre
	baseLevel = 400.0
)

// elevation returns the ground's height in metres at global pixel X, Y of
// the block (0, 0 at the top left of tile col-2, row-2).
func elevation(X, Y float64) float64 {
	hill := func(cx, cy, h, sigma float64) float64 {
		d2 := (X-cx)*(X-cx) + (Y-cy)*(Y-cy)
		return h * math.Exp(-d2/(2*sigma*sigma))
	}
	e := baseLevel
	// Forty hills of a fixed pseudo-random draw.
	seed := uint32(12345)
	next := func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8) / (1 << 24)
	}
	for i := 0; i < 40; i++ {
		cx, cy := 64+384*next(), 64+384*next()
		e += hill(cx, cy, 300+1200*next(), 6+18*next())
	}
	// A ridge running from south-west to north-east.
	d := (X + Y - 560) / math.Sqrt2
	e += 800 * math.Exp(-d*d/(2*14*14)) * (0.6 + 0.4*math.Sin(X/17))
	return e
}

func main() {
	pic := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			o := pic.PixOffset(x, y)
			v := uint8(0)
			if (x/8+y/8)%2 == 0 {
				v = 255
			}
			pic.Pix[o], pic.Pix[o+1], pic.Pix[o+2], pic.Pix[o+3] = uint8(x*4), uint8(y*5), v, 255
		}
	}
	write("image.png", pic)
	for ty := row - 2; ty <= row+1; ty++ {
		for tx := col - 2; tx <= col+1; tx++ {
			img := image.NewNRGBA(image.Rect(0, 0, dim, dim))
			for y := 0; y < dim; y++ {
				for x := 0; x < dim; x++ {
					X := float64((tx-col+2)*dim + x)
					Y := float64((ty-row+2)*dim + y)
					v := int(math.Round(elevation(X, Y))) + 32768
					o := img.PixOffset(x, y)
					img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(v>>8), uint8(v), 0, 255
				}
			}
			write(fmt.Sprintf("tiles/%d-%d-%d.png", z, tx, ty), img)
		}
	}
}

func write(name string, img image.Image) {
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
