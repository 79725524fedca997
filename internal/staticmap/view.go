package staticmap

import (
	"math"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geo"
)

// TileSize is the size of the tile pyramid static map zooms refer to.
const TileSize = 512

// View is the viewport of a static image: the center and zoom (on the
// 512-pixel pyramid) of an image of Width x Height CSS pixels drawn at
// PixelRatio device pixels per CSS pixel.
type View struct {
	Center     orb.Point
	Zoom       float64
	Width      int
	Height     int
	PixelRatio float64
}

// View computes the request's viewport. Bounds and auto-fitted images fit
// their extent inside the image less the padding on every side, at most at
// maxZoom (the zoom of a single point fitted alone).
func (r *Request) View(maxZoom float64) View {
	v := View{Width: r.Width, Height: r.Height, PixelRatio: float64(r.Scale)}
	switch r.Mode {
	case Center:
		v.Center, v.Zoom = r.Center, r.Zoom
		return v
	case Bounds:
		v.Center, v.Zoom = fit(r.Bounds.Min[0], r.Bounds.Min[1], r.Bounds.Max[0], r.Bounds.Max[1], r.Width, r.Height, r.Padding, maxZoom)
		return v
	}
	w, s, e, n := r.extent()
	v.Center, v.Zoom = fit(w, s, e, n, r.Width, r.Height, r.Padding, maxZoom)
	return v
}

// extent returns the bounds of every path and marker. Longitudes of
// shortest paths may run past ±180; a path or marker set that is narrower
// when seen across the antimeridian is fitted that way.
func (r *Request) extent() (w, s, e, n float64) {
	var lons []float64
	s, n = math.Inf(1), math.Inf(-1)
	add := func(p orb.Point) {
		lons = append(lons, p[0])
		s, n = math.Min(s, p[1]), math.Max(n, p[1])
	}
	for _, p := range r.Paths {
		for _, pt := range p.Points {
			add(pt)
		}
	}
	for _, m := range r.Markers {
		add(m.Point)
	}
	w, e = math.Inf(1), math.Inf(-1)
	for _, x := range lons {
		w, e = math.Min(w, x), math.Max(e, x)
	}
	if e-w > 180 && e <= 180 && w >= -180 {
		// The points may sit on both sides of the antimeridian: the extent
		// going east from the westmost eastern point may be narrower.
		we, ee := math.Inf(1), math.Inf(-1)
		for _, x := range lons {
			if x < 0 {
				x += 360
			}
			we, ee = math.Min(we, x), math.Max(ee, x)
		}
		if ee-we < e-w {
			w, e = we, ee
		}
	}
	return w, s, e, n
}

// fit returns the center and zoom that show w, s, e, n (e may exceed 180)
// inside width x height less padding on each side.
func fit(w, s, e, n float64, width, height int, padding, maxZoom float64) (orb.Point, float64) {
	x0, y0 := geo.LonLatToWorld(w, n)
	x1, y1 := geo.LonLatToWorld(e, s)
	cx, cy := (x0+x1)/2, (y0+y1)/2
	lon, lat := geo.WorldToLonLat(cx, cy)
	if lon > 180 {
		lon -= 360
	}
	availW := float64(width) * (1 - 2*padding)
	availH := float64(height) * (1 - 2*padding)
	zoom := maxZoom
	if dx := x1 - x0; dx > 0 {
		zoom = math.Min(zoom, math.Log2(availW/(dx*TileSize)))
	}
	if dy := y1 - y0; dy > 0 {
		zoom = math.Min(zoom, math.Log2(availH/(dy*TileSize)))
	}
	return orb.Point{lon, lat}, math.Max(0, zoom)
}

// WorldSize is the width of the world in CSS pixels at the view's zoom.
func (v View) WorldSize() float64 { return TileSize * math.Exp2(v.Zoom) }

// Project returns the position of p in the image, in CSS pixels from the
// top-left corner, using the copy of the world nearest the center.
func (v View) Project(p orb.Point) (x, y float64) {
	cx, cy := geo.LonLatToWorld(v.Center[0], v.Center[1])
	px, py := geo.LonLatToWorld(p[0], p[1])
	px -= math.Round(px - cx)
	size := v.WorldSize()
	return (px-cx)*size + float64(v.Width)/2, (py-cy)*size + float64(v.Height)/2
}

// ProjectLine projects a path's points, keeping their longitudes
// continuous (an unwrapped path stays whole) and choosing for the whole
// path the copy of the world that puts its first point nearest the center.
func (v View) ProjectLine(pts []orb.Point) [][2]float64 {
	if len(pts) == 0 {
		return nil
	}
	cx, cy := geo.LonLatToWorld(v.Center[0], v.Center[1])
	size := v.WorldSize()
	fx, _ := geo.LonLatToWorld(pts[0][0], pts[0][1])
	shift := math.Round(fx - cx)
	out := make([][2]float64, len(pts))
	for i, p := range pts {
		px, py := geo.LonLatToWorld(p[0], p[1])
		out[i] = [2]float64{(px-shift-cx)*size + float64(v.Width)/2, (py-cy)*size + float64(v.Height)/2}
	}
	return out
}
