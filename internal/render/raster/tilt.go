package raster

// Tilt is a GL camera's pitch: the flat map (the "plane", in device pixels
// as an untilted camera would draw it) seen from a camera Dist pixels from
// the centre (CX, CY), turned about the horizontal axis through the centre
// by an angle of sine Sin and cosine Cos. Points above the centre recede.
type Tilt struct {
	CX, CY   float64
	Dist     float64
	Sin, Cos float64
}

// Project maps a plane point to the screen, with w, the point's distance
// from the camera over Dist (sizes on the screen shrink by 1/w).
func (t *Tilt) Project(p Point) (Point, float64) {
	x, y := p.X-t.CX, p.Y-t.CY
	w := (t.Dist - y*t.Sin) / t.Dist
	return Point{t.CX + x/w, t.CY + y*t.Cos/w}, w
}

// Unproject maps a screen point back to the plane.
func (t *Tilt) Unproject(q Point) Point {
	sx, sy := q.X-t.CX, q.Y-t.CY
	y := sy * t.Dist / (t.Cos*t.Dist + sy*t.Sin)
	w := (t.Dist - y*t.Sin) / t.Dist
	return Point{t.CX + sx*w, t.CY + y}
}
