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

// aspect returns the direction the slope faces, as GL's shader reckons it.
func aspect(dx, dy float64) float64 {
	if dx != 0 {
		return math.Atan2(dy, -dx)
	}
	if dy > 0 {
		return math.Pi / 2
	}
	return -math.Pi / 2
}

// glslMod is GLSL's mod: x - y*floor(x/y).
func glslMod(x, y float64) float64 { return x - y*math.Floor(x/y) }

// shade returns the premultiplied colour of ground whose elevation rises
// by dx metres per metre eastwards and dy southwards.
func (h *hillshadeLight) shade(dx, dy float64) [4]float64 {
	switch h.method {
	case "basic":
		return h.basic(dx, dy)
	case "combined":
		return h.combined(dx, dy)
	case "igor":
		return h.igor(dx, dy)
	case "multidirectional":
		return h.multidirectional(dx, dy)
	}
	return h.standard(dx, dy)
}

// standard is GL's own hillshade: the slope eased by an exponential of
// base 1.875 - 1.75*exaggeration, the accent colour by its cosine, the
// mix of shadow and highlight (by how squarely the slope faces the light)
// by its sine.
func (h *hillshadeLight) standard(dx, dy float64) [4]float64 {
	azimuth := h.azimuths[0] + math.Pi
	slope := math.Atan(0.625 * math.Hypot(dx, dy))
	intensity := h.exaggeration
	if intensity != 0.5 {
		base := 1.875 - intensity*1.75
		slope = (math.Pow(base, slope) - 1) / (math.Pow(base, math.Pi/2) - 1) * (math.Pi / 2)
	}
	weight := clamp01(intensity * 2)
	accent := (1 - math.Cos(slope)) * weight
	facing := math.Abs(glslMod((aspect(dx, dy)+azimuth)/math.Pi+0.5, 2) - 1)
	amount := math.Sin(slope) * weight
	var shade, out [4]float64
	for i := range shade {
		shade[i] = (h.shadows[0][i] + (h.highlights[0][i]-h.shadows[0][i])*facing) * amount
	}
	for i := range out {
		out[i] = h.accent[i]*accent*(1-shade[3]) + shade[i]
	}
	return out
}

// lambert returns the cosine of the angle between the light of the given
// azimuth (the direction the light travels towards, as GL's shader takes
// it) and altitude and the ground's normal.
func lambert(dx, dy, azimuth, altitude float64) float64 {
	sinAz, cosAz := math.Sincos(azimuth)
	sinAlt, cosAlt := math.Sincos(altitude)
	return (sinAlt - (dy*cosAz*cosAlt - dx*sinAz*cosAlt)) / math.Sqrt(1+dx*dx+dy*dy)
}

// lit maps a lambert value to the highlight colour above one half and to
// the shadow colour below it, scaled by weight.
func lit(cang float64, shadow, highlight [4]float64, weight float64) [4]float64 {
	s := clamp01(cang)
	var out [4]float64
	for i := range out {
		if s > 0.5 {
			out[i] = highlight[i] * (2*s - 1) * weight
		} else {
			out[i] = shadow[i] * (1 - 2*s) * weight
		}
	}
	return out
}

// basic is the cosine of the angle between the light and the ground's
// normal (GDAL's default), the derivatives scaled by twice the
// exaggeration.
func (h *hillshadeLight) basic(dx, dy float64) [4]float64 {
	k := h.exaggeration * 2
	dx, dy = dx*k, dy*k
	return lit(lambert(dx, dy, h.azimuths[0]+math.Pi, h.altitudes[0]), h.shadows[0], h.highlights[0], 1)
}

// multidirectional is the mean of the basic shading of each light.
func (h *hillshadeLight) multidirectional(dx, dy float64) [4]float64 {
	k := h.exaggeration * 2
	dx, dy = dx*k, dy*k
	var out [4]float64
	n := float64(len(h.highlights))
	for i := range h.highlights {
		c := lit(lambert(dx, dy, h.azimuths[i]+math.Pi, h.altitudes[i]), h.shadows[i], h.highlights[i], 1/n)
		for j := range out {
			out[j] += c[j]
		}
	}
	return out
}

// combined weighs the angle to the light by the slope (GDAL's -combined).
func (h *hillshadeLight) combined(dx, dy float64) [4]float64 {
	k := h.exaggeration * 2
	dx, dy = dx*k, dy*k
	cang := math.Acos(lambert(dx, dy, h.azimuths[0]+math.Pi, h.altitudes[0]))
	cang = math.Max(0, math.Min(math.Pi/2, cang))
	steep := math.Atan(math.Hypot(dx, dy)) * 4 / math.Pi / math.Pi
	var out [4]float64
	for i := range out {
		out[i] = h.shadows[0][i]*cang*steep + h.highlights[0][i]*(math.Pi/2-cang)*steep
	}
	return out
}

// igor shades by slope and aspect only, lightly (GDAL's -igor).
func (h *hillshadeLight) igor(dx, dy float64) [4]float64 {
	k := h.exaggeration * 2
	dx, dy = dx*k, dy*k
	steep := math.Atan(math.Hypot(dx, dy)) * 2 / math.Pi
	facing := 1 - math.Abs(glslMod((aspect(dx, dy)+h.azimuths[0]+math.Pi)/math.Pi+0.5, 2)-1)
	var out [4]float64
	for i := range out {
		out[i] = h.shadows[0][i]*steep*facing + h.highlights[0][i]*steep*(1-facing)
	}
	return out
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
