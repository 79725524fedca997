package render

import (
	"context"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/layers"
)

// TestHeatmapLayer draws one point with a ramp from transparent to red:
// each pixel's alpha is the density sampled from the buffer.
func TestHeatmapLayer(t *testing.T) {
	r := newRenderer(t)
	st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 2,
		"sources": {"g": {"type": "geojson", "data": {"type": "Feature", "properties": {"w": 2},
			"geometry": {"type": "Point", "coordinates": [0, 0]}}}},
		"layers": [{"id": "h", "type": "heatmap", "source": "g", "paint": {
			"heatmap-radius": 10, "heatmap-weight": ["get", "w"], "heatmap-intensity": 0.5, "heatmap-opacity": 0.8,
			"heatmap-color": ["interpolate", ["linear"], ["heatmap-density"], 0, "rgba(255, 0, 0, 0)", 1, "rgba(255, 0, 0, 1)"]}}]}`)
	img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), mapResources{})
	if err != nil {
		t.Fatal(err)
	}
	// The point sits at (32, 32) of the plane; the buffer's texel (i, j)
	// is centred at (4i+2, 4j+2).
	kernel := func(i, j int) float64 {
		dx, dy := float64(4*i+2)-32, float64(4*j+2)-32
		if math.Abs(dx) > 12.8 || math.Abs(dy) > 12.8 {
			return 0
		}
		return layers.GaussCoef * math.Exp(-4.5*(dx*dx+dy*dy)/100)
	}
	for _, p := range [][2]int{{32, 32}, {30, 33}, {37, 32}, {32, 40}, {20, 20}, {5, 5}} {
		u, v := (float64(p[0])+0.5)/4-0.5, (float64(p[1])+0.5)/4-0.5
		i, j := int(math.Floor(u)), int(math.Floor(v))
		fu, fv := u-float64(i), v-float64(j)
		d := (kernel(i, j)*(1-fu)+kernel(i+1, j)*fu)*(1-fv) + (kernel(i, j+1)*(1-fu)+kernel(i+1, j+1)*fu)*fv
		want := math.Min(1, d) * 0.8 * 255
		got := float64(img.Pix[img.PixOffset(p[0], p[1])+3])
		if math.Abs(got-want) > 1.5 {
			t.Errorf("pixel %v: alpha %v, want %.1f (density %.3f)", p, got, want, d)
		}
		if got > 0 && img.Pix[img.PixOffset(p[0], p[1])] != uint8(got) {
			t.Errorf("pixel %v: red %v and alpha %v differ for an opaque red ramp", p, img.Pix[img.PixOffset(p[0], p[1])], got)
		}
	}
}
