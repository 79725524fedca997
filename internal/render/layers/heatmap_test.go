package layers

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/raster"
)

func TestHeatmapKernel(t *testing.T) {
	// A point on the centre of texel (5, 5) of a 96x96 image's 24x24
	// buffer, radius 20 device pixels, weight and intensity 1.
	buf := newDensityBuffer(96, 96)
	buf.kernel(raster.Point{X: 22, Y: 22}, 20, GaussCoef, nil, nil)
	tests := []struct {
		i, j int
		want float64
	}{
		{5, 5, GaussCoef},
		{6, 5, GaussCoef * math.Exp(-4.5*16.0/400)},
		{5, 3, GaussCoef * math.Exp(-4.5*64.0/400)},
		{6, 6, GaussCoef * math.Exp(-4.5*32.0/400)},
		{10, 5, GaussCoef * math.Exp(-4.5)},
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
	buf.kernel(raster.Point{X: 22, Y: 22}, 20, GaussCoef, nil, nil)
	if got := float64(buf.v[5*buf.w+5]); math.Abs(got-2*GaussCoef) > GaussCoef/512 {
		t.Errorf("two kernels: %g, want %g", got, 2*GaussCoef)
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
