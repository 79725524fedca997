package raster

import "testing"

// BenchmarkLineTriangle draws the two triangles of a road-like segment, 6
// pixels wide and 60 long, at an angle, over a background.
func BenchmarkLineTriangle(b *testing.B) {
	cv := NewCanvas(128, 128)
	cv.Fill(Color{0.9, 0.9, 0.85, 1}, 1)
	quad := [2][3]LineVertex{
		{{X: 10, Y: 20, NY: -1}, {X: 70, Y: 45, NY: -1}, {X: 8, Y: 26, NY: 1}},
		{{X: 70, Y: 45, NY: -1}, {X: 68, Y: 51, NY: 1}, {X: 8, Y: 26, NY: 1}},
	}
	for _, tc := range []struct {
		name  string
		paint LinePaint
	}{
		{"opaque", LinePaint{Outset: 3.5, Blur2: 1, Color: Color{1, 1, 1, 1}, Opacity: 1}},
		{"translucent", LinePaint{Outset: 3.5, Blur2: 1, Color: Color{0.5, 0.2, 0.1, 1}, Opacity: 0.6}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				for i := range quad {
					cv.LineTriangle(&quad[i], nil, &tc.paint)
				}
			}
		})
	}
}
