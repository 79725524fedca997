package layers

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

// TestHillshadeShade checks the colour of each method against its
// formula for ground of known slope and aspect.
func TestHillshadeShade(t *testing.T) {
	red, blue := [4]float64{1, 0, 0, 1}, [4]float64{0, 0, 1, 1}
	light := func(method string, exaggeration, dirDeg, altDeg float64) hillshadeLight {
		return hillshadeLight{method: method, exaggeration: exaggeration,
			accent:   [4]float64{0, 0.5, 0, 0.5},
			azimuths: []float64{dirDeg * math.Pi / 180}, altitudes: []float64{altDeg * math.Pi / 180},
			shadows: [][4]float64{blue}, highlights: [][4]float64{red}}
	}
	scale := func(c [4]float64, k float64) [4]float64 { return [4]float64{c[0] * k, c[1] * k, c[2] * k, c[3] * k} }
	sum := func(a, b [4]float64) [4]float64 {
		return [4]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}
	}
	// standard at exaggeration 0.5: the slope is atan(0.625 |d|) uneased,
	// the shade its sine, the accent 1 - its cosine under the shade.
	standard := func(d, facing float64) [4]float64 {
		s := math.Atan(0.625 * d)
		shade := scale(sum(scale(blue, 1-facing), scale(red, facing)), math.Sin(s))
		return sum(shade, scale([4]float64{0, 0.5, 0, 0.5}, (1-math.Cos(s))*(1-shade[3])))
	}
	// The lambert term of ground rising east by d under a light from the
	// west (270°) at altitude alt: the normal is (-d, 0, 1)/√(1+d²), the
	// light (-cos alt, 0, sin alt).
	lambertWest := func(d, alt float64) float64 {
		a := alt * math.Pi / 180
		// Ground turned from the light takes none of it.
		return math.Max(0, (d*math.Cos(a)+math.Sin(a))/math.Sqrt(1+d*d))
	}
	tests := []struct {
		name   string
		light  hillshadeLight
		dx, dy float64
		want   [4]float64
	}{
		{"standard: flat ground is not shaded", light("standard", 0.5, 335, 45), 0, 0, [4]float64{}},
		{"standard: facing the light is the highlight", light("standard", 0.5, 270, 45), 1.2, 0, standard(1.2, 1)},
		{"standard: facing away is the shadow", light("standard", 0.5, 90, 45), 1.2, 0, standard(1.2, 0)},
		{"standard: across the light is half and half", light("standard", 0.5, 0, 45), 1.2, 0, standard(1.2, 0.5)},
		{"standard: facing north under a northern light", light("standard", 0.5, 0, 45), 0, 0.7, standard(0.7, 1)},
		{"standard: exaggeration 0 shades nothing", light("standard", 0, 270, 45), 3, 1, [4]float64{}},
		{"standard: exaggeration 1 eases the slope", light("standard", 1, 270, 45), 1.2, 0, func() [4]float64 {
			base := 1.875 - 1.75
			s := (math.Pow(base, math.Atan(0.75)) - 1) / (math.Pow(base, math.Pi/2) - 1) * math.Pi / 2
			shade := scale(red, math.Sin(s))
			return sum(shade, scale([4]float64{0, 0.5, 0, 0.5}, (1-math.Cos(s))*(1-shade[3])))
		}()},
		{"basic: flat ground under a 45° light", light("basic", 0.5, 270, 45), 0, 0, scale(red, 2*math.Sin(math.Pi/4)-1)},
		{"basic: facing the light", light("basic", 0.5, 270, 30), 0.8, 0, scale(red, 2*lambertWest(0.8, 30)-1)},
		{"basic: facing away is the shadow", light("basic", 0.5, 270, 30), -2, 0, scale(blue, 1-2*lambertWest(-2, 30))},
		{"basic: exaggeration doubles the slope at 1", light("basic", 1, 270, 30), 0.4, 0, scale(red, 2*lambertWest(0.8, 30)-1)},
		{"combined: flat ground is not shaded", light("combined", 0.5, 270, 45), 0, 0, [4]float64{}},
		{"combined: facing the light", light("combined", 0.5, 270, 30), 0.8, 0, func() [4]float64 {
			c := math.Acos(lambertWest(0.8, 30))
			k := math.Atan(0.8) * 4 / math.Pi / math.Pi
			return sum(scale(blue, c*k), scale(red, (math.Pi/2-c)*k))
		}()},
		{"igor: flat ground is not shaded", light("igor", 0.5, 270, 45), 0, 0, [4]float64{}},
		{"igor: facing the light is highlight by steepness", light("igor", 0.5, 270, 45), 1, 0, scale(red, 0.5)},
		{"igor: facing away is shadow by steepness", light("igor", 0.5, 270, 45), -1, 0, scale(blue, 0.5)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.light.shade(tc.dx, tc.dy)
			if !rendertest.Near(got, tc.want, 1e-9) {
				t.Errorf("shade(%v, %v) = %v, want %v", tc.dx, tc.dy, got, tc.want)
			}
		})
	}
	// multidirectional: the mean of the basic shading of each light.
	m := hillshadeLight{method: "multidirectional", exaggeration: 0.5,
		azimuths: []float64{270 * math.Pi / 180, 90 * math.Pi / 180}, altitudes: []float64{math.Pi / 6, math.Pi / 6},
		shadows: [][4]float64{blue, blue}, highlights: [][4]float64{red, red}}
	want := sum(scale(red, (2*lambertWest(0.8, 30)-1)/2), scale(blue, (1-2*lambertWest(-0.8, 30))/2))
	if got := m.shade(0.8, 0); !rendertest.Near(got, want, 1e-9) {
		t.Errorf("multidirectional = %v, want %v", got, want)
	}
}
