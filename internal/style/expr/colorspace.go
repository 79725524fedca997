package expr

import "math"

// The perceptual color spaces of interpolate-lab and interpolate-hcl:
// CIE 1976 L*a*b* over CIE XYZ, with sRGB colors brought to XYZ through
// the sRGB transfer function and primaries, and its polar form
// (hue, chroma, lightness). Built from the CIE and sRGB definitions:
//
//	XYZ:    linear sRGB times the matrix whose columns are the primaries'
//	        XYZ, scaled so that (1, 1, 1) lands on the reference white;
//	L*a*b*: f(t) = cbrt(t) above (6/29)^3, else t/(3 (6/29)^2) + 4/29,
//	        on X/Xw, Y/Yw, Z/Zw; L = 116 f(Y) - 16, a = 500 (f(X) - f(Y)),
//	        b = 200 (f(Y) - f(Z)).
//
// The reference white is D50, sRGB's D65 white adapted to it with the
// Bradford transform (the ICC profile connection space), as the GL
// renderers do: this is what their test outputs match.

// vec3 is a column vector; mat3 a 3x3 matrix in rows.
type (
	vec3 [3]float64
	mat3 [3]vec3
)

func (m mat3) apply(v vec3) vec3 {
	var out vec3
	for i, row := range m {
		out[i] = row[0]*v[0] + row[1]*v[1] + row[2]*v[2]
	}
	return out
}

func (m mat3) times(n mat3) mat3 {
	var out mat3
	for i := range out {
		for j := range out[i] {
			out[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return out
}

// inverse inverts m by its adjugate (m is never singular here).
func (m mat3) inverse() mat3 {
	var adj mat3
	for i := range adj {
		for j := range adj[i] {
			r0, r1 := (j+1)%3, (j+2)%3
			c0, c1 := (i+1)%3, (i+2)%3
			adj[i][j] = m[r0][c0]*m[r1][c1] - m[r0][c1]*m[r1][c0]
		}
	}
	det := m[0][0]*adj[0][0] + m[0][1]*adj[1][0] + m[0][2]*adj[2][0]
	for i := range adj {
		for j := range adj[i] {
			adj[i][j] /= det
		}
	}
	return adj
}

func diag(v vec3) mat3 { return mat3{{v[0], 0, 0}, {0, v[1], 0}, {0, 0, v[2]}} }

// chromaXY is a CIE xy chromaticity; xyz is its color at luminance Y = 1.
type chromaXY struct{ x, y float64 }

func (c chromaXY) xyz() vec3 { return vec3{c.x / c.y, 1, (1 - c.x - c.y) / c.y} }

var (
	// The illuminants' XYZ at Y = 1 (ASTM E308 tables, 2 degree observer).
	whiteD65 = vec3{0.95047, 1, 1.08883}
	whiteD50 = vec3{0.96422, 1, 0.82521}
	// sRGB red, green and blue primaries (IEC 61966-2-1).
	srgbPrimaries = [3]chromaXY{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}}
	// bradford maps XYZ to the cone-like responses the Bradford
	// chromatic adaptation scales.
	bradford = mat3{{0.8951, 0.2664, -0.1614}, {-0.7502, 1.7135, 0.0367}, {0.0389, -0.0685, 1.0296}}
)

// labSpace is the conversion set up once: linear sRGB to XYZ relative to
// the reference white, and back.
var labSpace = newLabSpace(whiteD50)

type labConversion struct {
	toXYZ, fromXYZ mat3
	white          vec3
}

func newLabSpace(white vec3) labConversion {
	var prim mat3 // columns: the primaries' XYZ
	for j, p := range srgbPrimaries {
		col := p.xyz()
		for i := range col {
			prim[i][j] = col[i]
		}
	}
	scale := prim.inverse().apply(whiteD65)
	toD65 := prim.times(diag(scale))
	src, dst := bradford.apply(whiteD65), bradford.apply(white)
	adapt := bradford.inverse().times(diag(vec3{dst[0] / src[0], dst[1] / src[1], dst[2] / src[2]})).times(bradford)
	toXYZ := adapt.times(toD65)
	return labConversion{toXYZ: toXYZ, fromXYZ: toXYZ.inverse(), white: white}
}

// The L*a*b* companding function and its inverse; delta = 6/29.
const labDelta = 6.0 / 29

func labCompand(t float64) float64 {
	if t > labDelta*labDelta*labDelta {
		return math.Cbrt(t)
	}
	return t/(3*labDelta*labDelta) + 4.0/29
}

func labExpand(f float64) float64 {
	if f > labDelta {
		return f * f * f
	}
	return 3 * labDelta * labDelta * (f - 4.0/29)
}

// srgbDecode is the sRGB transfer function's inverse: encoded to linear.
func srgbDecode(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// srgbEncodeSplit is where encoding leaves the linear segment. The sRGB
// standard puts it at 0.0031308; the GL renderers' Lab -> sRGB step uses
// 0.00304 (observed: rgb(10.1, 10.1, 10.1) interpolated in Lab comes back
// as 10.1023), which this keeps for parity.
const srgbEncodeSplit = 0.00304

// srgbEncode is the sRGB transfer function: linear to encoded, clamped to
// the displayable 0..1.
func srgbEncode(v float64) float64 {
	if v > srgbEncodeSplit {
		v = 1.055*math.Pow(v, 1/2.4) - 0.055
	} else {
		v *= 12.92
	}
	return max(0, min(1, v))
}

// labColor is a CIE L*a*b* color (L 0..100).
type labColor struct{ l, a, b float64 }

func toLab(c Color) labColor {
	xyz := labSpace.toXYZ.apply(vec3{srgbDecode(c.R), srgbDecode(c.G), srgbDecode(c.B)})
	fx := labCompand(xyz[0] / labSpace.white[0])
	fy := labCompand(xyz[1] / labSpace.white[1])
	fz := labCompand(xyz[2] / labSpace.white[2])
	return labColor{l: max(0, 116*fy-16), a: 500 * (fx - fy), b: 200 * (fy - fz)}
}

func fromLab(c labColor, alpha float64) Color {
	fy := (c.l + 16) / 116
	xyz := vec3{
		labExpand(fy+c.a/500) * labSpace.white[0],
		labExpand(fy) * labSpace.white[1],
		labExpand(fy-c.b/200) * labSpace.white[2],
	}
	lin := labSpace.fromXYZ.apply(xyz)
	return Color{srgbEncode(lin[0]), srgbEncode(lin[1]), srgbEncode(lin[2]), alpha}
}

// polarLab is L*a*b* in polar form: hue in degrees (0..360) and chroma in
// the a*b* plane. A color with no chroma to 4 decimals has no hue.
type polarLab struct {
	hue, chroma, l float64
	hueless        bool
}

func toPolar(c labColor) polarLab {
	p := polarLab{chroma: math.Hypot(c.a, c.b), l: c.l}
	if math.Round(p.chroma*10000) == 0 {
		p.hueless = true
		return p
	}
	p.hue = math.Atan2(c.b, c.a) * 180 / math.Pi
	if p.hue < 0 {
		p.hue += 360
	}
	return p
}

func (p polarLab) lab() labColor {
	rad := 0.0
	if !p.hueless {
		rad = p.hue * math.Pi / 180
	}
	return labColor{l: p.l, a: p.chroma * math.Cos(rad), b: p.chroma * math.Sin(rad)}
}

// mixPolar interpolates in polar L*a*b*. Hues turn the short way round;
// a hueless end takes the other end's hue, and when that end is also at
// the extreme lightness 0 or 1 it takes the other end's chroma too
// (GL parity).
func mixPolar(p, q polarLab, t float64) polarLab {
	out := polarLab{l: lerp(p.l, q.l, t), chroma: lerp(p.chroma, q.chroma, t)}
	extreme := func(l float64) bool { return l == 0 || l == 1 }
	switch {
	case !p.hueless && !q.hueless:
		turn := q.hue - p.hue
		if turn > 180 {
			turn -= 360
		} else if turn < -180 {
			turn += 360
		}
		out.hue = p.hue + t*turn
	case !p.hueless:
		out.hue = p.hue
		if extreme(q.l) {
			out.chroma = p.chroma
		}
	case !q.hueless:
		out.hue = q.hue
		if extreme(p.l) {
			out.chroma = q.chroma
		}
	default:
		out.hueless = true
	}
	return out
}
