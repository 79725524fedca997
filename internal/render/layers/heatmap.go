package layers

import (
	"math"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// GL's heatmap, step by step:
//
//   - every point adds a Gaussian kernel, weight * intensity *
//     exp(-4.5 (d/radius)²) / sqrt(2π), into a density buffer of half
//     floats a quarter of the image's size in each direction; the kernel
//     is drawn on a square of the map, cut where it falls under 1/4080;
//   - the buffer is sampled bilinearly at each pixel, and the density
//     looks up a 256-entry colour ramp (heatmap-color evaluated at
//     heatmap-density i/255, stored as 8-bit colours, premultiplied),
//     itself sampled linearly;
//   - the colour, times heatmap-opacity, is blended over the map.
const (
	// GaussCoef is 1/sqrt(2π), the peak of the heatmap's Gaussian kernel.
	GaussCoef = 0.3989422804014327
	// kernelZero is the kernel value below which GL cuts it off.
	kernelZero = 1.0 / 255.0 / 16.0
	// heatmapDownscale is how much smaller the density buffer is.
	heatmapDownscale = 4
	// rampSize is the number of entries of the colour ramp.
	rampSize = 256
)

// densityBuffer is GL's quarter-size half-float density texture.
type densityBuffer struct {
	w, h   int
	sx, sy float64 // device pixels per texel
	v      []float32
}

func newDensityBuffer(w, h int) *densityBuffer {
	tw, th := max(1, w/heatmapDownscale), max(1, h/heatmapDownscale)
	return &densityBuffer{w: tw, h: th, sx: float64(w) / float64(tw), sy: float64(h) / float64(th), v: make([]float32, tw*th)}
}

// kernel adds one point's kernel: centre c (plane device pixels), radius
// r (device pixels), peak = weight * intensity / sqrt(2π), its texels
// spent from budget.
func (d *densityBuffer) kernel(c raster.Point, r, peak float64, tilt *raster.Tilt, budget *raster.Budget) {
	if !(peak > kernelZero) || !(r > 0) {
		return
	}
	// The square's half side, in units of the radius, where the kernel
	// falls to kernelZero.
	s := math.Sqrt(-2*math.Log(kernelZero/peak)) / 3
	half := s * r
	// The texels whose centres the square (seen by the camera) covers.
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, k := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		q := raster.Point{X: c.X + k[0]*half, Y: c.Y + k[1]*half}
		if tilt != nil {
			var w float64
			q, w = tilt.Project(q)
			if w <= 0 {
				return // behind the camera
			}
		}
		x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
	}
	i0, i1 := max(0, int(math.Ceil(x0/d.sx-0.5))), min(d.w-1, int(math.Floor(x1/d.sx-0.5)))
	j0, j1 := max(0, int(math.Ceil(y0/d.sy-0.5))), min(d.h-1, int(math.Floor(y1/d.sy-0.5)))
	if !budget.SpendArea(i0, j0, i1+1, j1+1, 2) {
		return
	}
	inv := 1 / (r * r)
	for j := j0; j <= j1; j++ {
		if j&15 == 0 && budget.Stopped() {
			return
		}
		for i := i0; i <= i1; i++ {
			q := raster.Point{X: (float64(i) + 0.5) * d.sx, Y: (float64(j) + 0.5) * d.sy}
			if tilt != nil {
				q = tilt.Unproject(q)
			}
			dx, dy := q.X-c.X, q.Y-c.Y
			if math.Abs(dx) > half || math.Abs(dy) > half {
				continue
			}
			v := peak * math.Exp(-4.5*(dx*dx+dy*dy)*inv)
			p := &d.v[j*d.w+i]
			*p = toHalf(*p + toHalf(float32(v)))
		}
	}
}

// at samples the buffer bilinearly (edges clamped) at device pixel x, y.
func (d *densityBuffer) at(x, y int) float64 {
	u := (float64(x)+0.5)/d.sx - 0.5
	v := (float64(y)+0.5)/d.sy - 0.5
	iu, iv := math.Floor(u), math.Floor(v)
	fu, fv := u-iu, v-iv
	i0, j0 := clampInt(int(iu), d.w), clampInt(int(iv), d.h)
	i1, j1 := clampInt(int(iu)+1, d.w), clampInt(int(iv)+1, d.h)
	a, b := float64(d.v[j0*d.w+i0]), float64(d.v[j0*d.w+i1])
	c, e := float64(d.v[j1*d.w+i0]), float64(d.v[j1*d.w+i1])
	return (a*(1-fu)+b*fu)*(1-fv) + (c*(1-fu)+e*fu)*fv
}

func clampInt(i, n int) int { return max(0, min(i, n-1)) }

// toHalf rounds a float32 to the nearest half float (ties to even),
// saturating at the largest one.
func toHalf(f float32) float32 {
	a := math.Abs(float64(f))
	switch {
	case a >= 65504:
		return float32(math.Copysign(65504, float64(f)))
	case a < 1.0/16384:
		// Subnormal halves: steps of 2^-24.
		return float32(math.RoundToEven(float64(f)*(1<<24)) / (1 << 24))
	}
	b := math.Float32bits(f)
	b += 0xfff + (b>>13)&1
	return math.Float32frombits(b &^ 0x1fff)
}

// colorRamp is heatmap-color at 256 densities, premultiplied, 0..1.
type colorRamp [rampSize][4]float64

// newColorRamp evaluates a color-ramp expression over its input, stored
// as GL stores it: straight 8-bit colour, premultiplied when uploaded.
func newColorRamp(e *expr.Expression, zoom float64, set func(c *expr.EvalContext, t float64)) *colorRamp {
	var ramp colorRamp
	c := &expr.EvalContext{Zoom: zoom}
	for i := range ramp {
		set(c, float64(i)/(rampSize-1))
		v := e.EvalOrDefault(c)
		if v.Kind() != expr.KindColor {
			continue
		}
		col := v.Color()
		a := math.Round(col.A * 255)
		if a <= 0 {
			continue
		}
		for k, ch := range [3]float64{col.R, col.G, col.B} {
			s := math.Min(255, math.Round(ch*255))
			ramp[i][k] = math.Round(s*a/255) / 255
		}
		ramp[i][3] = a / 255
	}
	return &ramp
}

// at samples the ramp linearly at t (0..1, clamped at the ends).
func (r *colorRamp) at(t float64) [4]float64 {
	u := t*rampSize - 0.5
	i := math.Floor(u)
	f := u - i
	a, b := r[clampInt(int(i), rampSize)], r[clampInt(int(i)+1, rampSize)]
	return [4]float64{a[0] + (b[0]-a[0])*f, a[1] + (b[1]-a[1])*f, a[2] + (b[2]-a[2])*f, a[3] + (b[3]-a[3])*f}
}

// Heatmap draws a heatmap layer.
func (lr *Painter) Heatmap(feats []scene.Feature) {
	c0 := lr.FeatureContext(nil)
	opacity := lr.Num("heatmap-opacity", c0, 1)
	ramp := lr.Props["heatmap-color"]
	if opacity <= 0 || ramp == nil {
		return
	}
	intensity := lr.Num("heatmap-intensity", c0, 1)
	fr := lr.Frame
	w, h := lr.Canvas.Rect.Dx(), lr.Canvas.Rect.Dy()
	buf := newDensityBuffer(w, h)
	drawn := false
	for _, f := range feats {
		if lr.Canvas.Budget.Stopped() {
			return
		}
		c := lr.FeatureContext(f.Expr)
		if !lr.Keeps(c) {
			continue
		}
		weight := lr.Num("heatmap-weight", c, 1)
		radius := lr.Num("heatmap-radius", c, 30) * fr.Ratio
		for _, part := range vertexParts(f) {
			for _, p := range lr.projectPlane(part, 0, 0) {
				buf.kernel(p, radius, weight*intensity*GaussCoef, fr.Tilt, lr.Canvas.Budget)
				drawn = true
			}
		}
	}
	if !drawn {
		return
	}
	colors := newColorRamp(ramp, lr.Zoom, func(c *expr.EvalContext, t float64) { c.HeatmapDensity = t })
	for y := 0; y < h; y++ {
		if !lr.Canvas.Budget.Spend(w) {
			return
		}
		for x := 0; x < w; x++ {
			col := colors.at(buf.at(x, y))
			if col[3] <= 0 && col[0] <= 0 && col[1] <= 0 && col[2] <= 0 {
				continue
			}
			lr.Canvas.BlendPremul(x, y, col[0]*opacity, col[1]*opacity, col[2]*opacity, col[3]*opacity)
		}
	}
}

// vertexParts returns the points GL's point layers (circle, heatmap) draw
// for a feature: every vertex, of lines and polygon rings too, inside the
// feature's tile square.
func vertexParts(f scene.Feature) [][]orb.Point {
	switch f.Kind {
	case "Point", "LineString":
		return insideTile(f.Parts, f.Clip)
	case "Polygon":
		polys := f.Unclipped
		if polys == nil {
			polys = f.Polygons
		}
		var rings [][]orb.Point
		for _, p := range polys {
			rings = append(rings, p...)
		}
		return insideTile(rings, f.Clip)
	}
	return nil
}
