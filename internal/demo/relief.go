package demo

import (
	"context"
	"io"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/pyramid"
)

// ReliefImage is the id of the demo's image (/images/relief/): the
// elevation model drawn as a colour relief, one pixel per grid node
// (4320 x 2160 for ETOPO5), north up, cut into a pixel pyramid by the same
// code as an uploaded picture.
const ReliefImage = "relief"

// writeReliefImage draws the installed elevation model as the demo image.
func (b *builder) writeReliefImage(ctx context.Context) error {
	g, err := elevation.LoadNetCDF(filepath.Join(b.opts.DataDir, ElevationDir, ElevationModel))
	if err != nil {
		return err
	}
	out := filepath.Join(b.opts.DataDir, "images", ReliefImage+".mbtiles")
	info, err := pyramid.WriteMBTiles(ctx, &reliefRows{g: g}, out, ReliefImage, pyramid.Meta{
		Description: "World relief: ETOPO5 elevations (5 arc-minute grid) as a colour relief, one pixel per grid node, north up",
		Attribution: "ETOPO5, NOAA National Geophysical Data Center (via Debian ferret-datasets)",
	}, pyramid.Options{})
	if err != nil {
		return err
	}
	b.log.Info("demo: relief image written", "width", info.Width, "height", info.Height, "tiles", info.Tiles)
	return nil
}

// reliefRows yields a grid's rows north first as colours.
type reliefRows struct {
	g *elevation.Grid
	y int
}

func (r *reliefRows) Size() (int, int) { return r.g.W, r.g.H }

func (r *reliefRows) Next(dst []byte) error {
	if r.y >= r.g.H {
		return io.EOF
	}
	row := r.y
	if r.g.DY > 0 { // stored south to north
		row = r.g.H - 1 - r.y
	}
	for col := 0; col < r.g.W; col++ {
		v, ok := r.g.Node(col, row)
		c := reliefColour(v)
		if !ok {
			c = [4]byte{}
		}
		copy(dst[4*col:], c[:])
	}
	r.y++
	return nil
}

// reliefStops are the colour ramp of the relief: elevation in metres and
// colour, interpolated linearly between stops.
var reliefStops = []struct {
	m   float64
	rgb [3]float64
}{
	{-8000, [3]float64{8, 20, 70}}, {-3000, [3]float64{30, 70, 150}}, {-200, [3]float64{90, 150, 210}}, {0, [3]float64{150, 200, 235}},
	{1, [3]float64{70, 130, 70}}, {500, [3]float64{150, 170, 90}}, {1500, [3]float64{190, 160, 100}}, {3000, [3]float64{150, 110, 80}},
	{5000, [3]float64{240, 240, 240}},
}

// reliefColour is the ramp's colour at v metres.
func reliefColour(v float64) [4]byte {
	s := reliefStops
	if v <= s[0].m {
		return [4]byte{byte(s[0].rgb[0]), byte(s[0].rgb[1]), byte(s[0].rgb[2]), 255}
	}
	for i := 1; i < len(s); i++ {
		if v <= s[i].m {
			t := (v - s[i-1].m) / (s[i].m - s[i-1].m)
			var c [4]byte
			for k := 0; k < 3; k++ {
				c[k] = byte(s[i-1].rgb[k] + t*(s[i].rgb[k]-s[i-1].rgb[k]) + 0.5)
			}
			c[3] = 255
			return c
		}
	}
	l := s[len(s)-1].rgb
	return [4]byte{byte(l[0]), byte(l[1]), byte(l[2]), 255}
}
