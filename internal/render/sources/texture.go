package sources

import "math"

// Texture is a tile image as GL holds it: premultiplied RGBA8 texels, with
// the chain of halved copies (mipmaps) GL samples when a tile is drawn
// smaller than its size, built on first need.
type Texture struct {
	W, h int
	pix  []uint8 // premultiplied RGBA, rows of 4*w bytes
	mips []*Texture
}

// newTexture copies w x h premultiplied RGBA pixels, rows stride bytes
// apart.
func newTexture(w, h int, pix []uint8, stride int) *Texture {
	t := &Texture{W: w, h: h, pix: make([]uint8, 4*w*h)}
	for y := 0; y < h; y++ {
		copy(t.pix[4*w*y:4*w*(y+1)], pix[stride*y:stride*y+4*w])
	}
	return t
}

// texel returns the texel at column x and row y, clamped to the edge (GL's
// CLAMP_TO_EDGE), components in 0..1.
func (t *Texture) texel(x, y int) [4]float64 {
	x, y = max(0, min(t.W-1, x)), max(0, min(t.h-1, y))
	o := 4 * (y*t.W + x)
	p := t.pix[o : o+4]
	return [4]float64{float64(p[0]) / 255, float64(p[1]) / 255, float64(p[2]) / 255, float64(p[3]) / 255}
}

// SampleNearest returns the texel under texture coordinates u, v (0..1
// across the texture).
func (t *Texture) SampleNearest(u, v float64) [4]float64 {
	return t.texel(int(math.Floor(u*float64(t.W))), int(math.Floor(v*float64(t.h))))
}

// SampleLinear returns the bilinear mix of the four texels around texture
// coordinates u, v (0..1 across the texture; texel centres at half
// texels), the edge texels repeated beyond the border.
func (t *Texture) SampleLinear(u, v float64) [4]float64 {
	sx, sy := u*float64(t.W)-0.5, v*float64(t.h)-0.5
	fx, fy := math.Floor(sx), math.Floor(sy)
	x, y := int(fx), int(fy)
	ax, ay := sx-fx, sy-fy
	a, b := t.texel(x, y), t.texel(x+1, y)
	c, d := t.texel(x, y+1), t.texel(x+1, y+1)
	var out [4]float64
	for i := range out {
		top := a[i] + (b[i]-a[i])*ax
		bottom := c[i] + (d[i]-c[i])*ax
		out[i] = top + (bottom-top)*ay
	}
	return out
}

// Level returns the mipmap GL samples when each device pixel spans
// texelsPerPixel texels: the full image when magnified, else the level of
// the nearest size (GL's LINEAR_MIPMAP_NEAREST). Only textures whose sides
// are powers of two have mipmaps, as in WebGL 1.
func (t *Texture) Level(texelsPerPixel float64) *Texture {
	lambda := math.Log2(texelsPerPixel)
	if lambda <= 0.5 || !powerOfTwo(t.W) || !powerOfTwo(t.h) {
		return t
	}
	d := int(math.Ceil(lambda+0.5)) - 1
	cur := t
	for i := 0; i < d; i++ {
		if i == len(t.mips) {
			if cur.W == 1 && cur.h == 1 {
				break
			}
			t.mips = append(t.mips, cur.half())
		}
		cur = t.mips[i]
	}
	return cur
}

func powerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// half returns the texture at half its size (a side of 1 stays 1), each
// texel the mean of the texels it replaces.
func (t *Texture) half() *Texture {
	w, h := max(1, t.W/2), max(1, t.h/2)
	out := &Texture{W: w, h: h, pix: make([]uint8, 4*w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for i := 0; i < 4; i++ {
				sum, n := 0, 0
				for _, yy := range []int{2 * y, min(2*y+1, t.h-1)} {
					for _, xx := range []int{2 * x, min(2*x+1, t.W-1)} {
						sum += int(t.pix[4*(yy*t.W+xx)+i])
						n++
					}
				}
				out.pix[4*(y*w+x)+i] = uint8((sum + n/2) / n)
			}
		}
	}
	return out
}
