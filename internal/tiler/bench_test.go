package tiler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/paulmach/orb"
)

// syntheticWorld returns country-like polygons (noisy blobs, some with
// holes and islands) totalling about vertices positions, and points with
// name and population attributes.
func syntheticWorld(countries, vertices, points int) []Layer {
	r := rand.New(rand.NewPCG(7, 11))
	per := vertices / countries
	var cs []Feature
	for i := 0; i < countries; i++ {
		lon := r.Float64()*340 - 170
		lat := r.Float64()*130 - 55
		rad := 0.2 + 12*math.Pow(r.Float64(), 3)
		ring := make(orb.Ring, 0, per+1)
		phase := r.Float64() * 10
		for j := 0; j < per; j++ {
			a := 2 * math.Pi * float64(j) / float64(per)
			rr := rad * (1 + 0.25*math.Sin(7*a+phase) + 0.1*math.Sin(31*a) + 0.02*r.Float64())
			x := math.Max(-180, math.Min(180, lon+rr*math.Cos(a)))
			y := math.Max(-85, math.Min(85, lat+rr*math.Sin(a)))
			ring = append(ring, orb.Point{x, y})
		}
		ring = append(ring, ring[0])
		pg := orb.Polygon{ring}
		if i%5 == 0 { // a lake
			pg = append(pg, circle(lon, lat, rad/5, 40)[0])
		}
		var g orb.Geometry = pg
		if i%3 == 0 { // an island
			g = orb.MultiPolygon{pg, circle(math.Min(179, lon+rad*1.6), lat, rad/8, 60)}
		}
		cs = append(cs, Feature{ID: uint64(i + 1), Geometry: g, Properties: map[string]any{
			"name": fmt.Sprintf("Country %d", i), "iso": fmt.Sprintf("C%03d", i), "pop": int64(r.IntN(100_000_000)),
		}})
	}
	var ps []Feature
	for i := 0; i < points; i++ {
		pop := int64(1000 * math.Exp(r.ExpFloat64()*2))
		minZ := 8 - int(math.Min(8, math.Log10(float64(pop))))
		ps = append(ps, Feature{ID: uint64(i + 1), MinZoom: minZ, Geometry: orb.Point{r.Float64()*360 - 180, r.Float64()*140 - 60},
			Properties: map[string]any{"name": fmt.Sprintf("Place %d", i), "population": pop}})
	}
	return []Layer{
		{Name: "countries", Features: cs},
		{Name: "places", Features: ps},
	}
}

// countingSink counts tiles and bytes, discarding the data.
type countingSink struct{ tiles, bytes atomic.Int64 }

func (c *countingSink) PutTile(ctx context.Context, z, x, y int, data []byte) error {
	c.tiles.Add(1)
	c.bytes.Add(int64(len(data)))
	return nil
}

// TestSyntheticWorld builds a small world and checks every tile decodes and
// that the per-zoom statistics agree with the tiles received.
func TestSyntheticWorld(t *testing.T) {
	layers := syntheticWorld(40, 20000, 5000)
	res, sink := build(t, layers, testOptions(0, 6))
	perZoom := map[int]int64{}
	feats := map[int]int64{}
	for _, id := range sink.Tiles() {
		data, _ := sink.Get(id.Z, id.X, id.Y)
		perZoom[id.Z]++
		for _, l := range decodeTile(t, data).Layers {
			feats[id.Z] += int64(l.Len())
		}
	}
	for _, zs := range res.Zooms {
		if zs.Tiles != perZoom[zs.Zoom] || zs.Features != feats[zs.Zoom] {
			t.Errorf("z%d: stats %d tiles %d features, sink %d tiles %d features", zs.Zoom, zs.Tiles, zs.Features, perZoom[zs.Zoom], feats[zs.Zoom])
		}
	}
	if res.Zooms[0].Tiles != 1 || res.Zooms[6].Tiles < 100 {
		t.Errorf("unexpected tile counts %+v", res.Zooms)
	}
}

func BenchmarkBuildWorld(b *testing.B) {
	layers := syntheticWorld(250, 550_000, 200_000)
	opts := DefaultOptions()
	opts.MaxZoom = 8
	for b.Loop() {
		sink := &countingSink{}
		res, err := Build(context.Background(), layers, opts, sink)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Tiles), "tiles")
		b.ReportMetric(float64(sink.bytes.Load())/1e6, "MB")
	}
}

// BenchmarkBuildWorldDensePoints is BenchmarkBuildWorld with every point
// present from zoom 0 (no feature zoom ranges).
func BenchmarkBuildWorldDensePoints(b *testing.B) {
	layers := syntheticWorld(250, 550_000, 200_000)
	for i := range layers[1].Features {
		layers[1].Features[i].MinZoom = 0
	}
	opts := DefaultOptions()
	opts.MaxZoom = 8
	for b.Loop() {
		sink := &countingSink{}
		res, err := Build(context.Background(), layers, opts, sink)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Tiles), "tiles")
		b.ReportMetric(float64(res.Zooms[0].MaxBytes)/1e6, "z0MB")
	}
}
