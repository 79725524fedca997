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

// edt2D replaces grid (squared distances to the nearest seed: 0 on a seed,
// edtInf elsewhere) by the squared Euclidean distance transform. The
// transform is separable: a pass down every column, then along every row,
// each the exact one-dimensional transform of envelope.transform.
func edt2D(grid []float64, w, h int, f, z []float64, v []int, d []float64) {
	env := envelope{apex: v, bound: z}
	line := f
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			line[y] = grid[y*w+x]
		}
		env.transform(line[:h], d[:h])
		for y := 0; y < h; y++ {
			grid[y*w+x] = d[y]
		}
	}
	for y := 0; y < h; y++ {
		row := grid[y*w : (y+1)*w]
		copy(line[:w], row)
		env.transform(line[:w], d[:w])
		copy(row, d[:w])
	}
}

// envelope is the lower envelope of the parabolas y = (q - i)² + cost[i]
// of a sampled cost function (the distance transform of Felzenszwalb and
// Huttenlocher, "Distance Transforms of Sampled Functions", 2012): apex
// holds the sample index of each parabola on the envelope, bound the
// position where each takes over from the one before.
type envelope struct {
	apex  []int
	bound []float64
}

// transform writes into out the squared distance transform of cost:
// out[q] = min over i of (q - i)² + cost[i].
func (e envelope) transform(cost, out []float64) {
	n := len(cost)
	if n == 0 {
		return
	}
	// meet is where the parabolas of samples i and j (i < j) cross.
	meet := func(i, j int) float64 {
		return ((cost[j] + float64(j*j)) - (cost[i] + float64(i*i))) / float64(2*(j-i))
	}
	top := 0 // index of the last parabola on the envelope
	e.apex[0] = 0
	e.bound[0], e.bound[1] = math.Inf(-1), math.Inf(1)
	for j := 1; j < n; j++ {
		x := meet(e.apex[top], j)
		// The new parabola hides the last ones while it takes over at or
		// before the point where they took over (bound[0] is -Inf, so the
		// first parabola always stays).
		for x <= e.bound[top] {
			top--
			x = meet(e.apex[top], j)
		}
		top++
		e.apex[top] = j
		e.bound[top], e.bound[top+1] = x, math.Inf(1)
	}
	k := 0
	for q := 0; q < n; q++ {
		for e.bound[k+1] < float64(q) {
			k++
		}
		i := e.apex[k]
		out[q] = float64((q-i)*(q-i)) + cost[i]
	}
}
