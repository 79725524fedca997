package demo

import (
	"sort"
	"testing"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// rasterLayer fills an n×n grid with the polygons of a tile layer, each
// feature by the even-odd rule along scanlines through pixel centres; it
// returns how many features cover each pixel.
func rasterLayer(t *testing.T, tile *mvt.Tile, name string, n int) []int {
	t.Helper()
	cover := make([]int, n*n)
	l := tile.Layer(name)
	if l == nil {
		return cover
	}
	scale := float64(l.Extent) / float64(n)
	for i := 0; i < l.Len(); i++ {
		f, err := l.Feature(i)
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.Geometry()
		if err != nil {
			t.Fatal(err)
		}
		for row := 0; row < n; row++ {
			y := (float64(row) + 0.5) * scale
			var xs []float64
			for _, poly := range g.Polygons {
				for _, ring := range poly {
					for k := 0; k < len(ring); k++ {
						a, b := ring[k], ring[(k+1)%len(ring)]
						ay, by := float64(a.Y), float64(b.Y)
						if (ay > y) != (by > y) {
							xs = append(xs, float64(a.X)+(y-ay)*float64(b.X-a.X)/(by-ay))
						}
					}
				}
			}
			sort.Float64s(xs)
			for k := 0; k+1 < len(xs); k += 2 {
				for col := 0; col < n; col++ {
					x := (float64(col) + 0.5) * scale
					if x >= xs[k] && x < xs[k+1] {
						cover[row*n+col]++
					}
				}
			}
		}
	}
	return cover
}

// checkLandWaterComplement checks that water and land tile the plane: the
// share of pixels covered by both or by neither stays below maxBad.
func checkLandWaterComplement(t *testing.T, tile *mvt.Tile, what string, maxBad float64) {
	t.Helper()
	const n = 256
	land := rasterLayer(t, tile, LayerLand, n)
	water := rasterLayer(t, tile, LayerWater, n)
	bad, landPx := 0, 0
	for i := range land {
		if land[i] > 0 {
			landPx++
		}
		if (land[i] > 0) == (water[i] > 0) {
			bad++
		}
	}
	share := float64(bad) / float64(n*n)
	t.Logf("%s: land %.1f%%, pixels with both or neither %.2f%%", what, 100*float64(landPx)/float64(n*n), 100*share)
	if share > maxBad {
		t.Errorf("%s: %.2f%% of pixels are both land and water or neither (max %.2f%%)", what, 100*share, 100*maxBad)
	}
}
