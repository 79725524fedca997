package render

import (
	"context"
	"log/slog"
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

func TestHeatmapKernel(t *testing.T) {
	// A point on the centre of texel (5, 5) of a 96x96 image's 24x24
	// buffer, radius 20 device pixels, weight and intensity 1.
	buf := newDensityBuffer(96, 96)
	buf.kernel(raster.Point{X: 22, Y: 22}, 20, gaussCoef, nil, nil)
	tests := []struct {
		i, j int
		want float64
	}{
		{5, 5, gaussCoef},
		{6, 5, gaussCoef * math.Exp(-4.5*16.0/400)},
		{5, 3, gaussCoef * math.Exp(-4.5*64.0/400)},
		{6, 6, gaussCoef * math.Exp(-4.5*32.0/400)},
		{10, 5, gaussCoef * math.Exp(-4.5)},
		// The kernel's square ends 1.28 radii out (where it falls to
		// 1/4080): nothing at 28 pixels.
		{12, 5, 0},
		{5, 12, 0},
	}
	for _, tc := range tests {
		got := float64(buf.v[tc.j*buf.w+tc.i])
		// Half floats keep 11 significant bits.
		if math.Abs(got-tc.want) > tc.want/1024+1e-7 {
			t.Errorf("texel %d,%d: %g, want %g", tc.i, tc.j, got, tc.want)
		}
	}
	// Two points add up.
	buf.kernel(raster.Point{X: 22, Y: 22}, 20, gaussCoef, nil, nil)
	if got := float64(buf.v[5*buf.w+5]); math.Abs(got-2*gaussCoef) > gaussCoef/512 {
		t.Errorf("two kernels: %g, want %g", got, 2*gaussCoef)
	}
}

func TestToHalf(t *testing.T) {
	tests := []struct{ in, want float32 }{
		{1, 1}, {0.1, 0.099975586}, {1 + 1.0/4096, 1}, {1 + 3.0/4096, 1 + 1.0/1024}, {70000, 65504}, {1e-6, 1.0132790e-06},
	}
	for _, tc := range tests {
		if got := toHalf(tc.in); math.Abs(float64(got-tc.want)) > 1e-12 {
			t.Errorf("toHalf(%g) = %.9g, want %.9g", tc.in, got, tc.want)
		}
	}
}

// TestHeatmapLayer draws one point with a ramp from transparent to red:
// each pixel's alpha is the density sampled from the buffer.
func TestHeatmapLayer(t *testing.T) {
	r, err := New(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
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
		return gaussCoef * math.Exp(-4.5*(dx*dx+dy*dy)/100)
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
