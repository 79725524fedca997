package sprite

import (
	"image"
	"math"
)

// SDF parameters, as used by MapLibre/Mapbox tooling for recolourable icons: a 3 px buffer
// around the icon, distances encoded over an 8 px radius, and the shape's edge at alpha
// 255×(1-0.25) ≈ 191. All pixel values scale with the bitmap's pixel ratio.
const (
	sdfBuffer = 3
	sdfRadius = 8
	sdfCutoff = 0.25
)

const edtInf = 1e20

// sdfIcon converts the alpha channel of img into a signed distance field. The result is
// buffer pixels larger on each side, white, with the distance encoded in alpha:
// alpha = ⌊255 - 255·(d/radius + cutoff)⌋, d being the signed distance to the shape's edge in
// pixels (negative inside).
func sdfIcon(img *image.NRGBA, buffer int, radius, cutoff float64) *image.NRGBA {
	b := img.Bounds()
	w, h := b.Dx()+2*buffer, b.Dy()+2*buffer
	outer := make([]float64, w*h)
	inner := make([]float64, w*h)
	for i := range outer {
		outer[i] = edtInf
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			a := float64(img.Pix[img.PixOffset(b.Min.X+x, b.Min.Y+y)+3]) / 255
			i := (y+buffer)*w + x + buffer
			switch {
			case a >= 1:
				outer[i], inner[i] = 0, edtInf
			case a <= 0:
				outer[i], inner[i] = edtInf, 0
			default:
				// Anti-aliased edge pixels: sub-pixel distance estimated from coverage.
				o := math.Max(0, 0.5-a)
				n := math.Max(0, a-0.5)
				outer[i], inner[i] = o*o, n*n
			}
		}
	}
	n := max(w, h)
	f := make([]float64, n)
	z := make([]float64, n+1)
	v := make([]int, n)
	d := make([]float64, n)
	edt2D(outer, w, h, f, z, v, d)
	edt2D(inner, w, h, f, z, v, d)
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range outer {
		dist := math.Sqrt(outer[i]) - math.Sqrt(inner[i])
		// Truncated like the reference implementation (spreet/sdf_glyph_renderer).
		a := math.Floor(255 - 255*(dist/radius+cutoff))
		if a < 0 {
			a = 0
		} else if a > 255 {
			a = 255
		}
		o := out.Pix[i*4 : i*4+4]
		o[0], o[1], o[2], o[3] = 255, 255, 255, uint8(a)
	}
	return out
}

// edt2D replaces grid (squared distances seeds) by the squared Euclidean distance transform,
// separably: columns then rows.
func edt2D(grid []float64, w, h int, f, z []float64, v []int, d []float64) {
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			f[y] = grid[y*w+x]
		}
		edt1D(f[:h], z, v, d[:h])
		for y := 0; y < h; y++ {
			grid[y*w+x] = d[y]
		}
	}
	for y := 0; y < h; y++ {
		copy(f[:w], grid[y*w:(y+1)*w])
		edt1D(f[:w], z, v, d[:w])
		copy(grid[y*w:(y+1)*w], d[:w])
	}
}

// edt1D computes the 1D squared distance transform of sampled function f into d
// (lower envelope of parabolas, Felzenszwalb & Huttenlocher 2012).
func edt1D(f []float64, z []float64, v []int, d []float64) {
	n := len(f)
	k := 0
	v[0] = 0
	z[0] = math.Inf(-1)
	z[1] = math.Inf(1)
	for q := 1; q < n; q++ {
		var s float64
		for {
			r := v[k]
			s = ((f[q] + float64(q*q)) - (f[r] + float64(r*r))) / float64(2*(q-r))
			if s <= z[k] {
				k-- // z[0] is -Inf, so k never goes below 0
				continue
			}
			break
		}
		k++
		v[k] = q
		z[k] = s
		z[k+1] = math.Inf(1)
	}
	k = 0
	for q := 0; q < n; q++ {
		for z[k+1] < float64(q) {
			k++
		}
		r := v[k]
		d[q] = float64((q-r)*(q-r)) + f[r]
	}
}
