package demo

import (
	"context"
	"log/slog"
	"math"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/tiler"
)

// densify returns the ring with positions at most step degrees apart
// (longitudes unwrapped between neighbours, as d3 writes them back within
// ±180).
func densify(r orb.Ring, step float64) orb.Ring {
	var out orb.Ring
	for i := 0; i+1 < len(r); i++ {
		a, b := r[i], r[i+1]
		dx := b[0] - a[0]
		dx -= 360 * math.Round(dx/360)
		n := int(math.Ceil(math.Max(math.Abs(dx), math.Abs(b[1]-a[1])) / step))
		for k := 0; k < max(n, 1); k++ {
			t := float64(k) / float64(max(n, 1))
			lon := a[0] + t*dx
			lon -= 360 * math.Round(lon/360)
			out = append(out, orb.Point{lon, a[1] + t*(b[1]-a[1])})
		}
	}
	return append(out, out[0])
}

// projectedArea is the area of the polygons in Web Mercator world units
// (the world is 1 by 1), exteriors minus holes.
func projectedArea(ps []orb.Polygon) float64 {
	var sum float64
	for _, p := range ps {
		for i, r := range p {
			var a float64
			for k := 0; k+1 < len(r); k++ {
				x0, y0 := tiler.Project(r[k][0], r[k][1])
				x1, y1 := tiler.Project(r[k+1][0], r[k+1][1])
				a += x0*y1 - x1*y0
			}
			a = math.Abs(a) / 2
			if i > 0 {
				a = -a
			}
			sum += a
		}
	}
	return sum
}

// TestAntimeridianPolygonInTiles cuts a Chukotka-like country (its coast
// crossing the antimeridian three times, a lake near it, in d3's spherical
// form) as the demo does and tiles it: at every zoom the polygons of the
// tiles cover the source's area, and no edge of a tile's polygon is longer
// than half the tile unless it lies on the tile's border (a stray edge from
// a cut at the antimeridian would be).
func TestAntimeridianPolygonInTiles(t *testing.T) {
	exterior := densify(orb.Ring{
		{170, 60}, {-175, 60}, {-175, 62}, {179, 63}, {179, 64}, {-178, 65}, {-178, 68}, {170, 68}, {170, 60},
	}, 1)
	exterior.Reverse() // d3's clockwise exteriors
	lake := densify(orb.Ring{{172, 62}, {172, 64}, {174, 64}, {174, 62}, {172, 62}}, 1)
	ps := worldPolygons(orb.Polygon{exterior, lake})
	if len(ps) < 2 {
		t.Fatalf("cut into %d polygons, want one each side of the antimeridian", len(ps))
	}
	want := projectedArea(ps)

	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = 0, 4
	opts.Buffer, opts.Simplify = 0, 0 // tiles that add up exactly
	opts.Logger = slog.New(slog.DiscardHandler)
	sink := tiler.NewMemorySink()
	feats := []tiler.Feature{{ID: 1, Geometry: orb.MultiPolygon(ps)}}
	if _, err := tiler.Build(context.Background(), []tiler.Layer{{Name: LayerCountries, Features: feats}}, opts, sink); err != nil {
		t.Fatal(err)
	}
	ext := int32(opts.Extent)
	area := map[int]float64{}
	for _, id := range sink.Tiles() {
		data, _ := sink.Get(id.Z, id.X, id.Y)
		l := decodeTile(t, data).Layer(LayerCountries)
		if l == nil {
			continue
		}
		for i := 0; i < l.Len(); i++ {
			f, err := l.Feature(i)
			if err != nil {
				t.Fatal(err)
			}
			g, err := f.Geometry()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range g.Polygons {
				for ri, r := range p {
					a := math.Abs(float64(mvt.RingArea(r))) / 2
					if ri > 0 {
						a = -a
					}
					area[id.Z] += a / float64(ext) / float64(ext) / math.Pow(4, float64(id.Z))
					for k := 0; k+1 < len(r); k++ {
						a, b := r[k], r[k+1]
						onBorder := a.X == b.X && (a.X == 0 || a.X == ext) || a.Y == b.Y && (a.Y == 0 || a.Y == ext)
						if math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y)) > float64(ext)/2 && !onBorder {
							t.Errorf("tile %v: edge %v-%v is longer than half the tile, inside it", id, a, b)
						}
					}
				}
			}
		}
	}
	for z := 0; z <= 4; z++ {
		if d := math.Abs(area[z]-want) / want; d > 0.01 {
			t.Errorf("zoom %d: tiles cover %.6g of the world, the source %.6g (%.1f%% off)", z, area[z], want, 100*d)
		}
	}
}
