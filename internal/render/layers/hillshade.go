package layers

import (
	"math"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/render/sources"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// The hillshade layer, in GL's two steps.
//
// First each DEM tile becomes a slope texture of (dim+2) x (dim+2) texels:
// one texel per DEM pixel plus one of border, each holding the east and
// south derivatives of the elevation by Horn's 3x3 kernel, in metres per
// metre (the pixel's size taken at the equator, for the tile's pixel
// count and zoom), exaggerated below zoom 15 as GL exaggerates them so
// that hills show at small scales. They are stored as GL stores them: in
// eight bits each, as deriv/8 + 128/255 clamped to 0..1.
//
// Then each device pixel samples that texture (bilinear, or nearest with
// `resampling: nearest`) at its place in the tile, divides the derivatives
// by the cosine of its latitude (a Mercator pixel is smaller on the ground
// away from the equator), and turns them into a colour by the layer's
// `hillshade-method`: GL's standard shading (an eased slope mixing the
// shadow and highlight colours by how the slope faces the light, and the
// accent colour on steep ground), or the basic, combined, igor or
// multidirectional models after GDAL's. The colour is premultiplied and
// blended over the map.

// hillshadeLight is a hillshade layer's paint in the form the per-pixel
// step uses. Colours are premultiplied.
type hillshadeLight struct {
	method       string
	exaggeration float64
	accent       [4]float64
	// One entry per light: azimuths (radians clockwise from north on the
	// map, the bearing added for the viewport anchor), altitudes (radians
	// above the horizon), shadow and highlight colours.
	azimuths, altitudes []float64
	shadows, highlights [][4]float64
}

// hillshadeLightOf evaluates a hillshade layer's paint at the view's zoom.
// Lists of directions, altitudes and colours are padded with their last
// entry to the longest; as in GL the multidirectional method lights with
// as many sources as there are highlight colours.
func (lr *Painter) hillshadeLightOf() hillshadeLight {
	c := lr.FeatureContext(nil)
	h := hillshadeLight{
		method:       lr.Str("hillshade-method", c, "standard"),
		exaggeration: lr.Num("hillshade-exaggeration", c, 0.5),
	}
	if col, ok := lr.Color("hillshade-accent-color", c); ok {
		h.accent = premul(col)
	}
	dirs := lr.floats("hillshade-illumination-direction", c, 335)
	alts := lr.floats("hillshade-illumination-altitude", c, 45)
	shadows := lr.colors("hillshade-shadow-color", c, raster.Color{A: 1})
	highlights := lr.colors("hillshade-highlight-color", c, raster.Color{R: 1, G: 1, B: 1, A: 1})
	n := max(len(dirs), len(alts), len(shadows), len(highlights))
	var bearing float64
	if lr.Str("hillshade-illumination-anchor", c, "viewport") == "viewport" {
		// The light keeps its place on the screen: on the map it turns
		// with the bearing.
		bearing = math.Atan2(-lr.Frame.Sin, lr.Frame.Cos)
	}
	for i := 0; i < n; i++ {
		h.azimuths = append(h.azimuths, dirs[min(i, len(dirs)-1)]*math.Pi/180+bearing)
		h.altitudes = append(h.altitudes, alts[min(i, len(alts)-1)]*math.Pi/180)
		h.shadows = append(h.shadows, premul(shadows[min(i, len(shadows)-1)]))
		h.highlights = append(h.highlights, premul(highlights[min(i, len(highlights)-1)]))
	}
	if h.method == "multidirectional" {
		k := len(highlights)
		h.azimuths, h.altitudes, h.shadows, h.highlights = h.azimuths[:k], h.altitudes[:k], h.shadows[:k], h.highlights[:k]
	}
	return h
}

func premul(c raster.Color) [4]float64 {
	return [4]float64{c.R * c.A, c.G * c.A, c.B * c.A, c.A}
}

// floats returns a number or numberArray property as a list of at least
// one number (def when absent).
func (lr *Painter) floats(name string, c *expr.EvalContext, def float64) []float64 {
	v, ok := lr.Eval(name, c)
	if ok {
		if v.Kind() == expr.KindNumber {
			return []float64{v.Num()}
		}
		if f := scene.Numbers(v); len(f) > 0 {
			return f
		}
	}
	return []float64{def}
}

// colors returns a color or colorArray property as a list of at least one
// colour (def when absent).
func (lr *Painter) colors(name string, c *expr.EvalContext, def raster.Color) []raster.Color {
	v, ok := lr.Eval(name, c)
	if ok {
		switch v.Kind() {
		case expr.KindColor:
			col := v.Color()
			return []raster.Color{{R: col.R, G: col.G, B: col.B, A: col.A}}
		case expr.KindColorArray:
			var out []raster.Color
			for _, col := range v.Colors() {
				out = append(out, raster.Color{R: col.R, G: col.G, B: col.B, A: col.A})
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return []raster.Color{def}
}

// The per-pixel step. Each method reduces the ground's derivatives to one
// or two lighting terms (how steep the ground is, which way it faces, how
// squarely the light meets it) and mixes the layer's colours by them
// through the colour helpers below. The numbers marked "parity" are GL's
// own constants, kept so that our pictures match GL's; they come from its
// observed output, not from any derivation of ours.

// premulColor is a premultiplied RGBA colour, 0..1.
type premulColor = [4]float64

// weigh returns c scaled by each k in turn.
func weigh(c premulColor, ks ...float64) premulColor {
	for _, k := range ks {
		for i := range c {
			c[i] *= k
		}
	}
	return c
}

// plus returns the sum of two colours.
func plus(a, b premulColor) premulColor {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// between returns the colour t of the way from a to b.
func between(a, b premulColor, t float64) premulColor {
	for i := range a {
		a[i] += (b[i] - a[i]) * t
	}
	return a
}

// over returns top composited over under.
func over(top, under premulColor) premulColor {
	for i := range top {
		top[i] += under[i] * (1 - top[3])
	}
	return top
}

// downhillAngle returns the angle of the way the ground faces (its
// downhill direction), measured as GL's shader measures it. On flat ground
// it is arbitrary: every method weighs it by the steepness, nought there.
func downhillAngle(dx, dy float64) float64 { return math.Atan2(dy, -dx) }

// halfTurnsFromQuarter returns how far angle a is from a quarter turn, in
// half turns (0..1), the way round being the shorter.
func halfTurnsFromQuarter(a float64) float64 {
	t := a/math.Pi + 0.5 // GLSL's mod(t, 2) below
	return math.Abs(t - 2*math.Floor(t/2) - 1)
}

// sunCosine returns the cosine of the angle between the ground's normal
// and the light travelling towards azimuth at the given altitude.
func sunCosine(dx, dy, azimuth, altitude float64) float64 {
	sinAz, cosAz := math.Sincos(azimuth)
	sinAlt, cosAlt := math.Sincos(altitude)
	return (sinAlt - (dy*cosAz*cosAlt - dx*sinAz*cosAlt)) / math.Sqrt(1+dx*dx+dy*dy)
}

// gdalModel reports whether a hillshade-method is one of the GDAL-style
// models (as opposed to GL's own standard shading).
func gdalModel(method string) bool {
	switch method {
	case "basic", "combined", "igor", "multidirectional":
		return true
	}
	return false
}

// gdalSlopeGain is how much the GDAL-style models magnify the
// derivatives per unit of hillshade-exaggeration (parity: 2).
const gdalSlopeGain = 2

// shade returns the premultiplied colour of ground whose elevation rises
// by dx metres per metre eastwards and dy southwards.
func (h *hillshadeLight) shade(dx, dy float64) premulColor {
	if !gdalModel(h.method) {
		return h.standard(dx, dy)
	}
	k := h.exaggeration * gdalSlopeGain
	dx, dy = dx*k, dy*k
	switch h.method {
	case "basic":
		return h.sunlit(dx, dy, 0, 1)
	case "combined":
		return h.combined(dx, dy)
	case "igor":
		return h.igor(dx, dy)
	}
	// multidirectional: each light's basic shading, weighed equally.
	var out premulColor
	w := 1 / float64(len(h.highlights))
	for i := range h.highlights {
		out = plus(out, h.sunlit(dx, dy, i, w))
	}
	return out
}

// GL's standard shading (parity numbers).
const (
	standardSlopeGain = 0.625 // the derivative's length is scaled by this before its arctangent
	standardEaseBase  = 1.875 // the easing exponential's base is this ...
	standardEaseSlope = 1.75  // ... less this times the exaggeration
	standardUneased   = 0.5   // the exaggeration at which the slope is left as it is
)

// standard is GL's own hillshade. The steepness (an angle, eased by an
// exponential whose base falls with the exaggeration) gives two terms:
// its sine weighs a colour between shadow and highlight (by how the
// ground faces the light), its versine weighs the accent colour beneath.
func (h *hillshadeLight) standard(dx, dy float64) premulColor {
	steep := math.Atan(standardSlopeGain * math.Hypot(dx, dy))
	if h.exaggeration != standardUneased {
		ease := standardEaseBase - h.exaggeration*standardEaseSlope
		steep = (math.Pow(ease, steep) - 1) / (math.Pow(ease, math.Pi/2) - 1) * (math.Pi / 2)
	}
	strength := clamp01(h.exaggeration * 2) // parity: full strength from exaggeration 0.5
	facing := halfTurnsFromQuarter(downhillAngle(dx, dy) + (h.azimuths[0] + math.Pi))
	shaded := weigh(between(h.shadows[0], h.highlights[0], facing), math.Sin(steep)*strength)
	return over(shaded, weigh(h.accent, (1-math.Cos(steep))*strength))
}

// sunlit is light i's basic shading (GDAL's default) weighed by w: the
// cosine of the light's angle to the ground's normal, above one half
// towards the highlight colour, below it towards the shadow colour.
func (h *hillshadeLight) sunlit(dx, dy float64, i int, w float64) premulColor {
	c := clamp01(sunCosine(dx, dy, h.azimuths[i]+math.Pi, h.altitudes[i]))
	if c > 0.5 {
		return weigh(h.highlights[i], 2*c-1, w)
	}
	return weigh(h.shadows[i], 1-2*c, w)
}

// combined weighs the angle between the light and the ground's normal by
// the steepness (GDAL's -combined).
func (h *hillshadeLight) combined(dx, dy float64) premulColor {
	off := math.Acos(sunCosine(dx, dy, h.azimuths[0]+math.Pi, h.altitudes[0]))
	off = math.Max(0, math.Min(math.Pi/2, off))
	steep := math.Atan(math.Hypot(dx, dy)) * 4 / math.Pi / math.Pi // parity: 4/pi^2
	return plus(weigh(h.shadows[0], off, steep), weigh(h.highlights[0], math.Pi/2-off, steep))
}

// igor shades by steepness and facing only, lightly (GDAL's -igor).
func (h *hillshadeLight) igor(dx, dy float64) premulColor {
	steep := math.Atan(math.Hypot(dx, dy)) * 2 / math.Pi
	turned := 1 - halfTurnsFromQuarter(downhillAngle(dx, dy)+h.azimuths[0]+math.Pi)
	return plus(weigh(h.shadows[0], steep, turned), weigh(h.highlights[0], steep, 1-turned))
}

// Hillshade draws a hillshade layer over the DEM tiles of its source.
func (lr *Painter) Hillshade(cover *sources.DEMCover) {
	if cover == nil || len(cover.Tiles) == 0 {
		return
	}
	light := lr.hillshadeLightOf()
	if light.exaggeration == 0 {
		return // GL prepares no slopes then, and draws nothing
	}
	nearest := lr.Str("resampling", lr.FeatureContext(nil), "linear") == "nearest"
	fr := lr.Frame.RasterAligned()
	n := float64(int(1) << cover.Z)
	// The latitudes of each row's top and bottom edges.
	lats := map[int][2]float64{}
	eachTilePixel(lr.Canvas, fr, cover.Z, cover.Tile, func(x, y int, t *sources.DEMTile, tx, ty float64) {
		col, row := math.Floor(tx), math.Floor(ty)
		lat, ok := lats[int(row)]
		if !ok {
			_, top := geo.WorldToLonLat(0, row/n)
			_, bottom := geo.WorldToLonLat(0, (row+1)/n)
			lat = [2]float64{top, bottom}
			lats[int(row)] = lat
		}
		u, v := tx-col, ty-row
		dx, dy := t.SlopesAt(cover.Z).Derivative(u, v, nearest)
		// Slopes are measured with the pixel's size at the equator: on the
		// ground a pixel is smaller by the cosine of its latitude, which GL
		// takes linear in v across the tile.
		k := math.Cos(((lat[0]-lat[1])*(1-v) + lat[1]) * math.Pi / 180)
		p := light.shade(dx/k, dy/k)
		lr.Canvas.BlendPremul(x, y, p[0], p[1], p[2], p[3])
	})
}
