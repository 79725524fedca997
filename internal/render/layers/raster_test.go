package layers

import (
	"testing"

	"github.com/tesseramaps/tessera/internal/render/rendertest"
)

func TestRasterAdjust(t *testing.T) {
	type paint struct{ opacity, hue, bmin, bmax, sat, contrast float64 }
	plain := paint{opacity: 1, bmax: 1}
	with := func(f func(p *paint)) paint { p := plain; f(&p); return p }
	tests := []struct {
		name  string
		paint paint
		in    [4]float64 // premultiplied texel
		want  [4]float64 // premultiplied output
	}{
		{"identity keeps the colour", plain, [4]float64{0.2, 0.4, 0.6, 1}, [4]float64{0.2, 0.4, 0.6, 1}},
		{"identity keeps a premultiplied colour", plain, [4]float64{0.25, 0.1, 0, 0.5}, [4]float64{0.25, 0.1, 0, 0.5}},
		{"transparent stays transparent", with(func(p *paint) { p.bmin = 0.5 }), [4]float64{}, [4]float64{}},
		{"opacity scales all", with(func(p *paint) { p.opacity = 0.5 }), [4]float64{1, 0.5, 0, 1}, [4]float64{0.5, 0.25, 0, 0.5}},
		{"hue 120 turns red to green", with(func(p *paint) { p.hue = 120 }), [4]float64{1, 0, 0, 1}, [4]float64{0, 1, 0, 1}},
		{"hue 240 turns red to blue", with(func(p *paint) { p.hue = 240 }), [4]float64{1, 0, 0, 1}, [4]float64{0, 0, 1, 1}},
		{"hue 360 is no turn", with(func(p *paint) { p.hue = 360 }), [4]float64{0.9, 0.3, 0.1, 1}, [4]float64{0.9, 0.3, 0.1, 1}},
		{"hue keeps grey", with(func(p *paint) { p.hue = 77 }), [4]float64{0.4, 0.4, 0.4, 1}, [4]float64{0.4, 0.4, 0.4, 1}},
		{"saturation -1 is grey", with(func(p *paint) { p.sat = -1 }), [4]float64{0.9, 0.3, 0, 1}, [4]float64{0.4, 0.4, 0.4, 1}},
		{"saturation -0.5 halves the way to grey", with(func(p *paint) { p.sat = -0.5 }), [4]float64{0.9, 0.3, 0, 1}, [4]float64{0.65, 0.35, 0.2, 1}},
		// Factor 1 - 1/(1.001 - 0.5) = -0.996: nearly twice as far from grey.
		{"saturation 0.5 moves away from grey", with(func(p *paint) { p.sat = 0.5 }), [4]float64{0.5, 0.4, 0.3, 1}, [4]float64{0.5996, 0.4, 0.2004, 1}},
		{"contrast -1 is mid grey", with(func(p *paint) { p.contrast = -1 }), [4]float64{0.9, 0.1, 0.3, 1}, [4]float64{0.5, 0.5, 0.5, 1}},
		{"contrast 0.5 doubles the distance to mid grey", with(func(p *paint) { p.contrast = 0.5 }), [4]float64{0.6, 0.4, 0.5, 1}, [4]float64{0.7, 0.3, 0.5, 1}},
		{"contrast clamps", with(func(p *paint) { p.contrast = 0.9 }), [4]float64{0.9, 0.1, 0.5, 1}, [4]float64{1, 0, 0.5, 1}},
		{"brightness maps black and white to min and max", with(func(p *paint) { p.bmin, p.bmax = 0.2, 0.8 }), [4]float64{0, 1, 0.5, 1}, [4]float64{0.2, 0.8, 0.5, 1}},
		{"brightness on a half-transparent texel", with(func(p *paint) { p.bmin = 0.2 }), [4]float64{0.5, 0, 0, 0.5}, [4]float64{0.5, 0.1, 0.1, 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.paint
			got := newRasterAdjust(p.opacity, p.hue, p.bmin, p.bmax, p.sat, p.contrast).apply(tc.in)
			if !rendertest.Near(got, tc.want, 1e-3) {
				t.Errorf("apply(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
