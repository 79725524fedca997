package expr

import (
	"fmt"
	"math"

	"github.com/tesseramaps/tessera/internal/csscolor"
)

// Color is an RGBA color with straight (not premultiplied) components in 0..1.
type Color struct {
	R, G, B, A float64
}

// Premultiplied returns [r*a, g*a, b*a, a].
func (c Color) Premultiplied() [4]float64 {
	return [4]float64{c.R * c.A, c.G * c.A, c.B * c.A, c.A}
}

// RGBA255 returns [r, g, b, a] with r, g, b in 0..255 (the to-rgba expression).
func (c Color) RGBA255() [4]float64 {
	if c.A == 0 {
		return [4]float64{}
	}
	return [4]float64{c.R * 255, c.G * 255, c.B * 255, c.A}
}

// String renders the color as "rgba(r,g,b,a)" with r, g, b rounded to 0..255.
func (c Color) String() string {
	v := c.RGBA255()
	return "rgba(" + jsNumber(jsRound(v[0])) + "," + jsNumber(jsRound(v[1])) + "," + jsNumber(jsRound(v[2])) + "," + jsNumber(v[3]) + ")"
}

func jsRound(x float64) float64 { return math.Floor(x + 0.5) }

// ParseColor parses a CSS color as GL styles write them (see
// csscolor.Parse).
func ParseColor(s string) (Color, bool) {
	r, g, b, a, ok := csscolor.Parse(s)
	return Color{r, g, b, a}, ok
}

// validateRGBA returns the reference error for out-of-range rgba components, or "".
func validateRGBA(r, g, b float64, a *float64) string {
	ok := func(x float64) bool { return x >= 0 && x <= 255 }
	if !(ok(r) && ok(g) && ok(b)) {
		return fmt.Sprintf("Invalid rgba value [%s]: 'r', 'g', and 'b' must be between 0 and 255.", rgbaList(r, g, b, a))
	}
	if a != nil && !(*a >= 0 && *a <= 1) {
		return fmt.Sprintf("Invalid rgba value [%s]: 'a' must be between 0 and 1.", rgbaList(r, g, b, a))
	}
	return ""
}

func rgbaList(r, g, b float64, a *float64) string {
	s := jsNumber(r) + ", " + jsNumber(g) + ", " + jsNumber(b)
	if a != nil {
		s += ", " + jsNumber(*a)
	}
	return s
}

// Lab / HCL conversions (CIE L*a*b* with the D50 white point, as d3-color).

const (
	labXn = 0.96422
	labYn = 1.0
	labZn = 0.82521
	labT0 = 4.0 / 29
	labT1 = 6.0 / 29
	labT2 = 3 * labT1 * labT1
	labT3 = labT1 * labT1 * labT1
)

func xyz2lab(t float64) float64 {
	if t > labT3 {
		return math.Cbrt(t)
	}
	return t/labT2 + labT0
}

func lab2xyz(t float64) float64 {
	if t > labT1 {
		return t * t * t
	}
	return labT2 * (t - labT0)
}

func rgb2lin(x float64) float64 {
	if x <= 0.04045 {
		return x / 12.92
	}
	return math.Pow((x+0.055)/1.055, 2.4)
}

func lin2rgb(x float64) float64 {
	if x <= 0.0031308 {
		return 12.92 * x
	}
	return 1.055*math.Pow(x, 1/2.4) - 0.055
}

func (c Color) lab() [4]float64 {
	r, g, b := rgb2lin(c.R), rgb2lin(c.G), rgb2lin(c.B)
	y := xyz2lab((0.2225045*r + 0.7168786*g + 0.0606169*b) / labYn)
	var x, z float64
	if r == g && g == b {
		x, z = y, y
	} else {
		x = xyz2lab((0.4360747*r + 0.3850649*g + 0.1430804*b) / labXn)
		z = xyz2lab((0.0139322*r + 0.0971045*g + 0.7141733*b) / labZn)
	}
	l := 116*y - 16
	if l < 0 {
		l = 0
	}
	return [4]float64{l, 500 * (x - y), 200 * (y - z), c.A}
}

func labToColor(l, a, b, alpha float64) Color {
	y := (l + 16) / 116
	x := y
	if !math.IsNaN(a) {
		x = y + a/500
	}
	z := y
	if !math.IsNaN(b) {
		z = y - b/200
	}
	y = labYn * lab2xyz(y)
	x = labXn * lab2xyz(x)
	z = labZn * lab2xyz(z)
	return Color{
		max(0, min(1, lin2rgb(3.1338561*x-1.6168667*y-0.4906146*z))),
		max(0, min(1, lin2rgb(-0.9787684*x+1.9161415*y+0.0334540*z))),
		max(0, min(1, lin2rgb(0.0719453*x-0.2289914*y+1.4052427*z))),
		alpha,
	}
}

func (c Color) hcl() [4]float64 {
	lab := c.lab()
	ch := math.Sqrt(lab[1]*lab[1] + lab[2]*lab[2])
	h := math.NaN()
	if math.Round(ch*10000) != 0 {
		h = math.Mod(math.Atan2(lab[2], lab[1])*180/math.Pi, 360)
		if h < 0 {
			h += 360
		}
	}
	return [4]float64{h, ch, lab[0], c.A}
}

func lerp(a, b, t float64) float64 { return a + t*(b-a) }

// colorSpace selects the interpolation space.
type colorSpace uint8

const (
	spaceRGB colorSpace = iota
	spaceHCL
	spaceLab
)

// interpolateColor interpolates two colors in the given space (straight alpha).
func interpolateColor(from, to Color, t float64, space colorSpace) Color {
	switch space {
	case spaceLab:
		a, b := from.lab(), to.lab()
		return labToColor(lerp(a[0], b[0], t), lerp(a[1], b[1], t), lerp(a[2], b[2], t), lerp(a[3], b[3], t))
	case spaceHCL:
		a, b := from.hcl(), to.hcl()
		h0, c0, l0 := a[0], a[1], a[2]
		h1, c1, l1 := b[0], b[1], b[2]
		var hue float64
		chroma := math.NaN()
		switch {
		case !math.IsNaN(h0) && !math.IsNaN(h1):
			dh := h1 - h0
			if h1 > h0 && dh > 180 {
				dh -= 360
			} else if h1 < h0 && h0-h1 > 180 {
				dh += 360
			}
			hue = h0 + t*dh
		case !math.IsNaN(h0):
			hue = h0
			if l1 == 1 || l1 == 0 {
				chroma = c0
			}
		case !math.IsNaN(h1):
			hue = h1
			if l0 == 1 || l0 == 0 {
				chroma = c1
			}
		default:
			hue = math.NaN()
		}
		if math.IsNaN(chroma) {
			chroma = lerp(c0, c1, t)
		}
		hr := 0.0
		if !math.IsNaN(hue) {
			hr = hue * math.Pi / 180
		}
		return labToColor(lerp(l0, l1, t), math.Cos(hr)*chroma, math.Sin(hr)*chroma, lerp(a[3], b[3], t))
	}
	return Color{lerp(from.R, to.R, t), lerp(from.G, to.G, t), lerp(from.B, to.B, t), lerp(from.A, to.A, t)}
}
