package layers

import (
	"math"
	"testing"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
)

// TestCameraGround checks that the extrusion camera sees the ground where
// the flat layers draw it, and that heights rise toward the top of the
// image under pitch.
func TestCameraGround(t *testing.T) {
	v := scene.View{Zoom: 3, Width: 100, Height: 80, PixelRatio: 1, Pitch: 40}
	lr := &Painter{Layer: scene.Layer{Frame: scene.NewFrame(v)}}
	cam := lr.Camera()
	for _, p := range []raster.Point{{X: 10, Y: 10}, {X: 50, Y: 40}, {X: 90, Y: 75}} {
		want, _ := lr.Frame.Tilt.Project(p)
		got, _ := cam.Project(p.X, p.Y, 0)
		if math.Abs(got.X-want.X) > 1e-9 || math.Abs(got.Y-want.Y) > 1e-9 {
			t.Errorf("ground %v: %v, want %v", p, got, want)
		}
		up, _ := cam.Project(p.X, p.Y, 10)
		if up.Y >= got.Y {
			t.Errorf("a raised point %v is not above its foot %v", up, got)
		}
		// The ray through the projected point meets it.
		o, d := cam.ray(up.X, up.Y)
		s := (10 - o[2]) / d[2]
		x, y := o[0]+s*d[0]+cam.cx, o[1]+s*d[1]+cam.cy
		if math.Abs(x-p.X) > 1e-9 || math.Abs(y-p.Y) > 1e-9 {
			t.Errorf("ray through %v meets the roof at %v,%v, want %v", up, x, y, p)
		}
	}
}

// TestWallPatternStart: a ring's walls carry the pattern on from wall to
// wall, and start it again where a wall would run past 2^15 units.
func TestWallPatternStart(t *testing.T) {
	tests := []struct {
		name        string
		along, dist float64
		want        float64
	}{
		{"the first wall", 0, 100, 0},
		{"carried on", 1000, 100, 1000},
		{"ending exactly at the span", 32700, 68, 32700},
		{"running past the span: again from 0", 32700, 69, 0},
		{"one wall longer than the span", 0, 40000, 0},
		{"a long wall after others", 500, 40000, 0},
	}
	for _, tc := range tests {
		if got := wallPatternStart(tc.along, tc.dist); got != tc.want {
			t.Errorf("%s: wallPatternStart(%v, %v) = %v, want %v", tc.name, tc.along, tc.dist, got, tc.want)
		}
	}
}
