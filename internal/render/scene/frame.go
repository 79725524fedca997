package scene

import (
	"math"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/raster"
)

// View is what to draw: the map around Center at Zoom (on the 512-pixel
// tile pyramid, as GL styles count zooms), Width x Height CSS pixels drawn
// at PixelRatio device pixels each.
type View struct {
	Center     [2]float64 // longitude, latitude
	Zoom       float64
	Bearing    float64 // degrees clockwise
	Pitch      float64 // degrees of camera tilt, 0 to maxPitch
	Width      int
	Height     int
	PixelRatio float64
	// LabelMargin (CSS pixels) widens the data read for labels beyond the
	// view, and LabelGrid (CSS pixels, on the world's pixel grid) names the
	// tile edges that labels must agree across: the labels crossing them
	// are placed first, in an order of their own, so that neighbouring
	// tiles rendered apart draw them alike. Both 0 (as in GL) by default.
	LabelMargin float64
	LabelGrid   float64
}

// MaxPitch is the steepest camera tilt, in degrees, as GL limits it.
const MaxPitch = 60

// Frame maps world coordinates (the unit Web Mercator square) to device
// pixels of the image.
type Frame struct {
	CX, CY   float64 // center, world units
	Scale    float64 // device pixels per world unit
	W, H     float64 // image size, device pixels
	Sin, Cos float64 // of the bearing
	Zoom     float64
	Ratio    float64
	// Tilt is the camera's pitch, nil when it looks straight down.
	Tilt *raster.Tilt
}

// NewFrame returns the frame of view v.
func NewFrame(v View) Frame {
	cx, cy := geo.LonLatToWorld(v.Center[0], v.Center[1])
	s, c := math.Sincos(-v.Bearing * math.Pi / 180)
	f := Frame{CX: cx, CY: cy, Scale: 512 * math.Exp2(v.Zoom) * v.PixelRatio,
		W: float64(v.Width) * v.PixelRatio, H: float64(v.Height) * v.PixelRatio, Sin: s, Cos: c, Zoom: v.Zoom, Ratio: v.PixelRatio}
	if p := math.Min(v.Pitch, MaxPitch) * math.Pi / 180; p > 0 {
		// GL's camera sees 36.87 degrees vertically: it stands 1.5
		// heights from the centre.
		sp, cp := math.Sincos(p)
		f.Tilt = &raster.Tilt{CX: f.W / 2, CY: f.H / 2, Dist: 1.5 * f.H, Sin: sp, Cos: cp}
	}
	return f
}

// ToScreen maps a world position to device pixels.
func (f Frame) ToScreen(wx, wy float64) raster.Point {
	q := f.ToPlane(wx, wy)
	if f.Tilt != nil {
		q, _ = f.Tilt.Project(q)
	}
	return q
}

// ToPlane maps a world position to device pixels of the untilted map.
func (f Frame) ToPlane(wx, wy float64) raster.Point {
	dx, dy := (wx-f.CX)*f.Scale, (wy-f.CY)*f.Scale
	return raster.Point{X: dx*f.Cos - dy*f.Sin + f.W/2, Y: dx*f.Sin + dy*f.Cos + f.H/2}
}

// ViewBox returns a world box around everything the view shows: the
// circle around the image's diagonal, or with a tilted camera the box of
// the ground under the image's corners.
func (f Frame) ViewBox() (x0, y0, x1, y1 float64) {
	if f.Tilt != nil {
		return f.WorldBounds()
	}
	half := math.Hypot(f.W, f.H) / 2 / f.Scale
	return f.CX - half, f.CY - half, f.CX + half, f.CY + half
}

// WorldAt returns the world position under the centre of device pixel x,
// y, through the camera's tilt.
func (f Frame) WorldAt(x, y int) (float64, float64) {
	sx, sy := float64(x)+0.5, float64(y)+0.5
	if f.Tilt != nil {
		p := f.Tilt.Unproject(raster.Point{X: sx, Y: sy})
		sx, sy = p.X, p.Y
	}
	return f.ToWorld(sx, sy)
}

// RasterAligned returns the frame GL draws raster tiles with: the view's
// center moved by less than a pixel so that tile pixels fall on device
// pixels (at a bearing that is a multiple of 90 degrees). GL rounds the
// center to whole CSS pixels of the world, less half a pixel along a side
// of odd length, the shift turned with the map and kept within half a
// pixel.
func (f Frame) RasterAligned() Frame {
	world := f.Scale / f.Ratio // world size in CSS pixels
	x, y := f.CX*world, f.CY*world
	w, h := math.Round(f.W/f.Ratio), math.Round(f.H/f.Ratio)
	xShift, yShift := math.Mod(w, 2)/2, math.Mod(h, 2)/2
	dx := x - JSRound(x) + f.Cos*xShift + f.Sin*yShift
	dy := y - JSRound(y) + f.Cos*yShift + f.Sin*xShift
	if dx > 0.5 {
		dx--
	}
	if dy > 0.5 {
		dy--
	}
	f.CX, f.CY = (x-dx)/world, (y-dy)/world
	return f
}

// JSRound rounds as JavaScript's Math.round does: halves up.
func JSRound(v float64) float64 { return math.Floor(v + 0.5) }

// ToWorld maps a device pixel position back to world coordinates: the
// inverse of toScreen.
func (f Frame) ToWorld(sx, sy float64) (float64, float64) {
	ex, ey := sx-f.W/2, sy-f.H/2
	dx, dy := ex*f.Cos+ey*f.Sin, -ex*f.Sin+ey*f.Cos
	return f.CX + dx/f.Scale, f.CY + dy/f.Scale
}

// WorldBounds returns the world box that holds the whole image.
func (f Frame) WorldBounds() (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{0, 0}, {f.W, 0}, {0, f.H}, {f.W, f.H}} {
		if f.Tilt != nil {
			p := f.Tilt.Unproject(raster.Point{X: c[0], Y: c[1]})
			c = [2]float64{p.X, p.Y}
		}
		x, y := f.ToWorld(c[0], c[1])
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	return x0, y0, x1, y1
}
