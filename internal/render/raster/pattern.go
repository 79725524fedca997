package raster

import (
	"image"
	"math"
)

// Pattern is an image repeated over the plane, as GL's fill and
// background patterns are: the texel under a device pixel's centre (x+.5,
// y+.5) is at (X0 + x*XX + y*YX, Y0 + x*XY + y*YY), in texels from the
// image's corner, wrapped in both directions, sampled bilinearly.
type Pattern struct {
	Img    *Canvas
	Rect   image.Rectangle // the image within Img
	X0, Y0 float64
	XX, XY float64 // texels per device pixel to the right
	YX, YY float64 // texels per device pixel down
	// Tilt, when not nil, is the camera that sees the map: the mapping
	// above is of the untilted map's pixels.
	Tilt *Tilt
}

// at returns the premultiplied colour (0..255) at texel position u, v.
func (p *Pattern) at(u, v float64) (r, g, b, a float64) {
	return p.Img.bilinearWrap(u, v, p.Rect)
}

// FillPattern blends the pattern with opacity over the whole canvas.
func (cv *Canvas) FillPattern(p *Pattern, opacity float64) {
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	for y := 0; y < h; y++ {
		if !cv.Budget.Spend(w * CostTexture) {
			return
		}
		for x := 0; x < w; x++ {
			cv.blendPattern(p, x, y, opacity)
		}
	}
}

// CompositePattern blends the pattern with opacity over the canvas where
// the mask covers it, each pixel at its coverage.
func (cv *Canvas) CompositePattern(m *Mask, p *Pattern, opacity float64) {
	if m.y0 >= m.y1 {
		return
	}
	if !m.dense {
		if !cv.Budget.Spend(len(m.list) * CostTexture) {
			return
		}
		for _, i := range m.list {
			if v := float64(m.Cov[i]); v > 0 {
				cv.blendPattern(p, int(i)%m.W, int(i)/m.W, opacity*v)
			}
		}
		return
	}
	for y := m.y0; y < m.y1; y++ {
		if !cv.Budget.Spend((m.x1 - m.x0) * CostTexture) {
			return
		}
		row := m.Cov[y*m.W : (y+1)*m.W]
		for x := m.x0; x < m.x1; x++ {
			if v := float64(row[x]); v > 0 {
				cv.blendPattern(p, x, y, opacity*v)
			}
		}
	}
}

func (cv *Canvas) blendPattern(p *Pattern, x, y int, k float64) {
	fx, fy := float64(x), float64(y)
	if p.Tilt != nil {
		q := p.Tilt.Unproject(Point{fx + 0.5, fy + 0.5})
		fx, fy = q.X-0.5, q.Y-0.5
	}
	r, g, b, a := p.at(p.X0+fx*p.XX+fy*p.YX, p.Y0+fx*p.XY+fy*p.YY)
	if a <= 0 && r <= 0 && g <= 0 && b <= 0 {
		return
	}
	o := cv.PixOffset(x, y)
	blend(cv.Pix[o:o+4], r*k, g*k, b*k, a*k)
}

// bilinearPadded samples the canvas at u, v texels from the corner of a
// padded image (rect, with a one-texel border repeating its opposite
// edges, as GL's atlas pads patterns; texel centres at .5); components in
// 0..255.
func (cv *Canvas) bilinearPadded(u, v float64, rect image.Rectangle) (r, g, b, a float64) {
	return cv.bilinear(u, v, rect, func(i, n int) int {
		i = max(-1, min(n, i))
		return (i + n) % n
	})
}

// bilinearWrap samples the canvas at u, v texels from rect's corner
// (texel centres at .5), wrapping in both directions; components in
// 0..255.
func (cv *Canvas) bilinearWrap(u, v float64, rect image.Rectangle) (r, g, b, a float64) {
	return cv.bilinear(u, v, rect, func(i, n int) int { return (i%n + n) % n })
}

// bilinear samples the canvas at u, v texels from rect's corner, index
// mapping a texel index outside 0..n-1 into the image.
func (cv *Canvas) bilinear(u, v float64, rect image.Rectangle, index func(i, n int) int) (r, g, b, a float64) {
	w, h := rect.Dx(), rect.Dy()
	if w <= 0 || h <= 0 {
		return 0, 0, 0, 0
	}
	u -= 0.5
	v -= 0.5
	u0, v0 := math.Floor(u), math.Floor(v)
	fu, fv := u-u0, v-v0
	iu, iv := int(u0), int(v0)
	var acc [4]float64
	wxs, wys := [2]float64{1 - fu, fu}, [2]float64{1 - fv, fv}
	for j, wy := range wys {
		if wy == 0 {
			continue
		}
		py := index(iv+j, h)
		for i, wx := range wxs {
			if wx == 0 {
				continue
			}
			o := cv.PixOffset(rect.Min.X+index(iu+i, w), rect.Min.Y+py)
			k := wx * wy
			acc[0] += k * float64(cv.Pix[o])
			acc[1] += k * float64(cv.Pix[o+1])
			acc[2] += k * float64(cv.Pix[o+2])
			acc[3] += k * float64(cv.Pix[o+3])
		}
	}
	return acc[0], acc[1], acc[2], acc[3]
}
