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
	alpha := lerp(from.A, to.A, t)
	switch space {
	case spaceLab:
		p, q := toLab(from), toLab(to)
		return fromLab(labColor{lerp(p.l, q.l, t), lerp(p.a, q.a, t), lerp(p.b, q.b, t)}, alpha)
	case spaceHCL:
		return fromLab(mixPolar(toPolar(toLab(from)), toPolar(toLab(to)), t).lab(), alpha)
	}
	return Color{lerp(from.R, to.R, t), lerp(from.G, to.G, t), lerp(from.B, to.B, t), alpha}
}
