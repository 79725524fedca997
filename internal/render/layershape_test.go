package render

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
)

// TestLayerShape: the stats a render scales from a tile's kept shape are
// those of measuring its features at the render's scale: polygons' boxes
// count up to the image's area.
func TestLayerShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var feats []scene.Feature
	for range 200 {
		n := 2 + rng.IntN(6)
		pts := make([]orb.Point, n)
		for i := range pts {
			pts[i] = orb.Point{rng.Float64() * 0.001, rng.Float64() * 0.001}
		}
		if rng.IntN(2) == 0 {
			feats = append(feats, scene.Feature{Parts: [][]orb.Point{pts}})
		} else {
			feats = append(feats, scene.Feature{Polygons: [][][]orb.Point{{pts}}})
		}
	}
	sh := sources.ShapeOf(scene.Runs{feats[:120], feats[120:]})
	for _, tc := range []struct {
		scale  float64
		pixels int
	}{{512 * 1024, 512 * 512}, {512 * 4096, 512 * 512}, {512 * 65536, 256 * 256}, {1, 100}} {
		var want featureStats
		for _, f := range feats {
			want.features++
			rings := f.Parts
			if f.Polygons != nil {
				rings = f.Polygons[0]
			}
			for _, ring := range rings {
				want.vertices += float64(len(ring))
				x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
				for i, p := range ring {
					x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
					if i > 0 {
						want.length += math.Hypot(p[0]-ring[i-1][0], p[1]-ring[i-1][1]) * tc.scale
					}
				}
				if f.Polygons != nil {
					want.area += math.Min((x1-x0)*(y1-y0)*tc.scale*tc.scale, float64(tc.pixels))
				}
			}
		}
		var got featureStats
		got.add(sh, tc.scale, tc.pixels)
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
		if got.features != want.features || got.vertices != want.vertices || !near(got.length, want.length) || !near(got.area, want.area) {
			t.Errorf("scale %v, %d pixels: %+v, want %+v", tc.scale, tc.pixels, got, want)
		}
	}
}
