package render

import (
	"context"
	"image"
	"path/filepath"
	"testing"
)

// TestUprightAlongLine draws an ideograph along a vertical line and as a
// point label: along the steep line it stands upright, so its ink is the
// point label's, not that turned a quarter turn.
func TestUprightAlongLine(t *testing.T) {
	r := newRenderer(t)
	ink := func(geometry, placement string) *image.Alpha {
		st := parse(t, `{"version": 8, "center": [45, 30], "zoom": 2, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
			"sources": {"p": {"type": "geojson", "data": `+geometry+`}},
			"layers": [{"id": "l", "type": "symbol", "source": "p", "layout": {"text-field": "上", "text-font": ["NotoCJK"],
				"text-size": 32, "symbol-placement": "`+placement+`"}}]}`)
		img, err := r.Render(context.Background(), st, View{Center: [2]float64{45, 30}, Zoom: 2, Width: 200, Height: 200, PixelRatio: 1}, localResources{Root: filepath.Join("testdata", "layers")})
		if err != nil {
			t.Fatal(err)
		}
		box, ok := inkBox(img, 40)
		if !ok {
			t.Fatalf("no %s label drawn", placement)
		}
		minX, minY, maxX, maxY := box.Min.X, box.Min.Y, box.Max.X-1, box.Max.Y-1
		out := image.NewAlpha(image.Rect(0, 0, maxX-minX+1, maxY-minY+1))
		for y := minY; y <= maxY; y++ {
			for x := minX; x <= maxX; x++ {
				if img.RGBAAt(x, y).A > 40 {
					out.Pix[(y-minY)*out.Stride+x-minX] = 255
				}
			}
		}
		return out
	}
	// The line lies inside one tile of the zoom: GL labels each tile's
	// piece of a line crossing a tile border at its middle.
	point := ink(`{"type": "Point", "coordinates": [45, 30]}`, "point")
	along := ink(`{"type": "LineString", "coordinates": [[45, 40], [45, 20]]}`, "line-center")
	turned := image.NewAlpha(image.Rect(0, 0, point.Rect.Dy(), point.Rect.Dx()))
	for y := 0; y < point.Rect.Dy(); y++ {
		for x := 0; x < point.Rect.Dx(); x++ {
			// A quarter turn clockwise, as a glyph lying along the line.
			turned.Pix[x*turned.Stride+point.Rect.Dy()-1-y] = point.Pix[y*point.Stride+x]
		}
	}
	// overlap is the share of the ink of a and b with ink of the other
	// within a pixel (the glyphs lie on different sub-pixel positions).
	overlap := func(a, b *image.Alpha) float64 {
		near := func(m *image.Alpha, x, y int) bool {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if m.AlphaAt(x+dx, y+dy).A > 0 {
						return true
					}
				}
			}
			return false
		}
		matched, total := 0, 0
		for _, pair := range [][2]*image.Alpha{{a, b}, {b, a}} {
			for y := 0; y < pair[0].Rect.Dy(); y++ {
				for x := 0; x < pair[0].Rect.Dx(); x++ {
					if pair[0].AlphaAt(x, y).A > 0 {
						total++
						if near(pair[1], x, y) {
							matched++
						}
					}
				}
			}
		}
		return float64(matched) / float64(total)
	}
	upright, sideways := overlap(along, point), overlap(along, turned)
	if upright < 0.9 || upright <= sideways {
		t.Errorf("the glyph along the vertical line matches the upright glyph by %.2f and the turned one by %.2f, want it upright (over 0.9)", upright, sideways)
	}
}
