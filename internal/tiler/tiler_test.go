package tiler

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// expectedPixel computes the tile and the position inside it of a
// longitude/latitude with the textbook slippy-map formula (asinh(tan)),
// independent of Project.
func expectedPixel(lon, lat float64, z int, extent float64) (tx, ty int, px, py float64) {
	n := math.Exp2(float64(z))
	fx := (lon + 180) / 360 * n
	r := lat * math.Pi / 180
	fy := (1 - math.Asinh(math.Tan(r))/math.Pi) / 2 * n
	tx, ty = int(math.Floor(fx)), int(math.Floor(fy))
	return tx, ty, (fx - float64(tx)) * extent, (fy - float64(ty)) * extent
}

func decodeTile(t testing.TB, data []byte) *mvt.Tile {
	t.Helper()
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	tile, err := mvt.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return tile
}

type decodedFeature struct {
	props map[string]any
	id    uint64
	geom  mvt.Geometry
}

func features(t testing.TB, sink *MemorySink, z, x, y int, layer string) []decodedFeature {
	t.Helper()
	data, ok := sink.Get(z, x, y)
	if !ok {
		return nil
	}
	l := decodeTile(t, data).Layer(layer)
	if l == nil {
		return nil
	}
	var out []decodedFeature
	for i := 0; i < l.Len(); i++ {
		f, err := l.Feature(i)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Properties()
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.Geometry()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decodedFeature{p, f.ID, g})
	}
	return out
}

func build(t testing.TB, layers []Layer, opts Options) (*Result, *MemorySink) {
	t.Helper()
	sink := NewMemorySink()
	res, err := Build(context.Background(), layers, opts, sink)
	if err != nil {
		t.Fatal(err)
	}
	return res, sink
}

func testOptions(minZ, maxZ int) Options {
	o := DefaultOptions()
	o.MinZoom, o.MaxZoom = minZ, maxZ
	o.Logger = slog.New(slog.DiscardHandler)
	return o
}

func TestProject(t *testing.T) {
	for _, c := range [][2]float64{{0, 0}, {-180, 85}, {179.9, -60}, {13.4, 52.5}} {
		x, y := Project(c[0], c[1])
		_, _, px, py := expectedPixel(c[0], c[1], 0, 1)
		if math.Abs(x-px) > 1e-12 || math.Abs(y-py) > 1e-12 {
			t.Errorf("Project(%v) = %v,%v want %v,%v", c, x, y, px, py)
		}
		lon, lat := Unproject(x, y)
		if math.Abs(lon-c[0]) > 1e-9 || math.Abs(lat-c[1]) > 1e-9 {
			t.Errorf("Unproject(Project(%v)) = %v,%v", c, lon, lat)
		}
	}
	if _, y := Project(0, 90); y != 0 && math.Abs(y) > 1e-12 {
		t.Errorf("latitude 90 not clamped to the top edge: %v", y)
	}
	if _, y := Project(0, -89); math.Abs(y-1) > 1e-12 {
		t.Errorf("latitude -89 not clamped to the bottom edge: %v", y)
	}
}

func TestPointPlacement(t *testing.T) {
	pts := []struct {
		name     string
		lon, lat float64
	}{
		{"berlin", 13.405, 52.52},
		{"sydney", 151.2093, -33.8688},
		{"lima", -77.0428, -12.0464},
		{"reykjavik", -21.9426, 64.1466},
	}
	var feats []Feature
	for i, p := range pts {
		feats = append(feats, Feature{ID: uint64(i + 1), Geometry: orb.Point{p.lon, p.lat}, Properties: map[string]any{"name": p.name}})
	}
	for _, gz := range []bool{true, false} {
		opts := testOptions(0, 10)
		opts.Gzip = gz
		res, sink := build(t, []Layer{{Name: "places", Features: feats}}, opts)
		for z := 0; z <= 10; z++ {
			for i, p := range pts {
				tx, ty, px, py := expectedPixel(p.lon, p.lat, z, 4096)
				var found *decodedFeature
				for _, f := range features(t, sink, z, tx, ty, "places") {
					if f.id == uint64(i+1) {
						found = &f
					}
				}
				if found == nil {
					t.Fatalf("gzip=%v z%d: %s not in tile %d/%d", gz, z, p.name, tx, ty)
				}
				if found.props["name"] != p.name || len(found.geom.Points) != 1 {
					t.Fatalf("z%d: %s: wrong feature %+v", z, p.name, found)
				}
				got := found.geom.Points[0]
				if math.Abs(float64(got.X)-px) > 0.5001 || math.Abs(float64(got.Y)-py) > 0.5001 {
					t.Errorf("z%d: %s at %v, want (%.2f, %.2f)", z, p.name, got, px, py)
				}
			}
		}
		// Each point is in its own tile plus the neighbours whose buffer
		// (64 units) reaches it.
		for _, zs := range res.Zooms {
			want := int64(0)
			n := 1 << zs.Zoom
			for _, p := range pts {
				tx, ty, px, py := expectedPixel(p.lon, p.lat, zs.Zoom, 4096)
				cx, cy := 1, 1
				if px <= 64 && tx > 0 {
					cx++
				}
				if px >= 4096-64 && tx < n-1 {
					cx++
				}
				if py <= 64 && ty > 0 {
					cy++
				}
				if py >= 4096-64 && ty < n-1 {
					cy++
				}
				want += int64(cx * cy)
			}
			if zs.Features != want {
				t.Errorf("z%d: %d features written, want %d", zs.Zoom, zs.Features, want)
			}
		}
		if res.Tiles != int64(sink.Len()) {
			t.Errorf("result counts %d tiles, sink has %d", res.Tiles, sink.Len())
		}
	}
}

func TestPointInBuffer(t *testing.T) {
	// A point just east of the z1 tile boundary at longitude 0 lies within
	// the 64-unit buffer of the western tile: it must appear in both, and
	// in the western one beyond its right edge.
	lon := 360.0 / 4096 * 10 // 10 units east of x = 2048 at z0, 20 units at z1
	_, sink := build(t, []Layer{{Name: "p", Features: []Feature{{Geometry: orb.Point{lon, 10}}}}}, testOptions(1, 1))
	east := features(t, sink, 1, 1, 0, "p")
	west := features(t, sink, 1, 0, 0, "p")
	if len(east) != 1 || len(west) != 1 {
		t.Fatalf("east %d west %d features, want 1 and 1", len(east), len(west))
	}
	if x := east[0].geom.Points[0].X; x != 20 {
		t.Errorf("east x = %d, want 20", x)
	}
	if x := west[0].geom.Points[0].X; x != 4096+20 {
		t.Errorf("west x = %d, want %d", x, 4096+20)
	}
	if sink.Len() != 2 {
		t.Errorf("%d tiles written, want 2 (only tiles with features)", sink.Len())
	}
}

func lonLatBox(w, s, e, n float64) orb.Polygon {
	return orb.Polygon{{{w, s}, {e, s}, {e, n}, {w, n}, {w, s}}}
}

func TestPolygonZ0(t *testing.T) {
	pg := lonLatBox(-90, -45, 90, 45)
	pg = append(pg, orb.Ring{{-10, -10}, {-10, 10}, {10, 10}, {10, -10}, {-10, -10}})
	_, sink := build(t, []Layer{{Name: "a", Features: []Feature{{Geometry: pg}}}}, testOptions(0, 0))
	fs := features(t, sink, 0, 0, 0, "a")
	if len(fs) != 1 || len(fs[0].geom.Polygons) != 1 || len(fs[0].geom.Polygons[0]) != 2 {
		t.Fatalf("want one polygon with one hole, got %+v", fs)
	}
	ext := fs[0].geom.Polygons[0][0]
	minX, minY, maxX, maxY := bbox(ext)
	_, _, _, wantTop := expectedPixel(0, 45, 0, 4096)
	_, _, _, wantBottom := expectedPixel(0, -45, 0, 4096)
	if minX != 1024 || maxX != 3072 || math.Abs(float64(minY)-wantTop) > 0.5 || math.Abs(float64(maxY)-wantBottom) > 0.5 {
		t.Errorf("exterior covers x %d..%d y %d..%d, want 1024..3072, %.1f..%.1f", minX, maxX, minY, maxY, wantTop, wantBottom)
	}
	if mvt.RingArea(ext) <= 0 || mvt.RingArea(fs[0].geom.Polygons[0][1]) >= 0 {
		t.Error("exterior must have positive area and the hole negative (tile coordinates, y down)")
	}
}

func bbox(r []mvt.XY) (minX, minY, maxX, maxY int32) {
	minX, minY, maxX, maxY = math.MaxInt32, math.MaxInt32, math.MinInt32, math.MinInt32
	for _, p := range r {
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	return
}

// circle returns a polygon approximating a circle of radius r degrees.
func circle(lon, lat, r float64, n int) orb.Polygon {
	ring := make(orb.Ring, 0, n+1)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / float64(n)
		ring = append(ring, orb.Point{lon + r*math.Cos(a), lat + r*math.Sin(a)})
	}
	return orb.Polygon{append(ring, ring[0])}
}

func TestClippingPolygons(t *testing.T) {
	const maxZ = 5
	opts := testOptions(0, maxZ)
	_, sink := build(t, []Layer{{Name: "c", Features: []Feature{{Geometry: circle(10, 20, 30, 2000)}}}}, opts)
	inner := 0
	for _, id := range sink.Tiles() {
		fs := features(t, sink, id.Z, id.X, id.Y, "c")
		if len(fs) != 1 {
			t.Fatalf("tile %v: %d features", id, len(fs))
		}
		for _, poly := range fs[0].geom.Polygons {
			for _, ring := range poly {
				if ring[0] != ring[len(ring)-1] || len(ring) < 4 {
					t.Fatalf("tile %v: open or short ring", id)
				}
				for _, p := range ring {
					if p.X < -64 || p.X > 4096+64 || p.Y < -64 || p.Y > 4096+64 {
						t.Fatalf("tile %v: %v outside the buffer", id, p)
					}
				}
				if mvt.RingArea(poly[0]) <= 0 {
					t.Fatalf("tile %v: exterior with non-positive area", id)
				}
			}
		}
		// A tile whose buffered square lies entirely inside the circle
		// must be covered by one square of (4096+128)^2.
		n := math.Exp2(float64(id.Z))
		inside := true
		for _, c := range [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			lon, lat := Unproject((float64(id.X)+c[0]*1.04-0.02)/n, (float64(id.Y)+c[1]*1.04-0.02)/n)
			if math.Hypot(lon-10, lat-20) > 29.5 {
				inside = false
			}
		}
		if inside {
			inner++
			if len(fs[0].geom.Polygons) != 1 {
				t.Fatalf("inner tile %v: %d polygons", id, len(fs[0].geom.Polygons))
			}
			if a := mvt.RingArea(fs[0].geom.Polygons[0][0]); a != 2*4224*4224 {
				t.Errorf("inner tile %v: doubled area %d, want %d", id, a, 2*4224*4224)
			}
		}
	}
	if inner < 10 {
		t.Errorf("only %d tiles fully inside the circle", inner)
	}
	// The tiles written at maxZ are exactly those the circle's bounding
	// box (plus buffer) touches, minus the corners outside the circle:
	// check every tile that contains the circle's center region.
	tx, ty, _, _ := expectedPixel(10, 20, maxZ, 4096)
	if _, ok := sink.Get(maxZ, tx, ty); !ok {
		t.Errorf("tile %d/%d/%d with the circle's center missing", maxZ, tx, ty)
	}
	farX, farY, _, _ := expectedPixel(-100, -60, maxZ, 4096)
	if _, ok := sink.Get(maxZ, farX, farY); ok {
		t.Errorf("tile far from the circle was written")
	}
}

func TestLineClipping(t *testing.T) {
	// A zigzag line crossing the z1 boundary at longitude 0 three times.
	line := orb.LineString{{-20, 10}, {20, 10}, {-20, 20}, {20, 20}}
	opts := testOptions(1, 1)
	opts.Simplify = 0
	_, sink := build(t, []Layer{{Name: "l", Features: []Feature{{Geometry: line}}}}, opts)
	east := features(t, sink, 1, 1, 0, "l")
	west := features(t, sink, 1, 0, 0, "l")
	if len(east) != 1 || len(west) != 1 {
		t.Fatalf("east %d west %d features", len(east), len(west))
	}
	// East tile: pieces (0..20 at lat 10) + (20 at 10 → 0 at ~15) joined? The
	// first two segments form one piece inside the east strip, the last one
	// another: 2 lines. West: first segment part, and the middle segment's
	// western part joined with the last segment's start: 2 lines.
	if n := len(east[0].geom.Lines); n != 2 {
		t.Errorf("east tile has %d lines, want 2: %v", n, east[0].geom.Lines)
	}
	if n := len(west[0].geom.Lines); n != 2 {
		t.Errorf("west tile has %d lines, want 2: %v", n, west[0].geom.Lines)
	}
	for _, side := range []struct {
		name string
		fs   []decodedFeature
		lo   int32
		hi   int32
	}{{"east", east, -64, 4096 + 64}, {"west", west, -64, 4096 + 64}} {
		for _, l := range side.fs[0].geom.Lines {
			for _, p := range l {
				if p.X < side.lo || p.X > side.hi {
					t.Errorf("%s: %v outside buffer", side.name, p)
				}
			}
			// Pieces end either at original vertices (±20° lies at 3641 in
			// the west tile and 455 in the east one at z1) or on the
			// buffer edge.
			for _, end := range []mvt.XY{l[0], l[len(l)-1]} {
				switch end.X {
				case -64, 4096 + 64, 3641, 455:
				default:
					t.Errorf("%s: line end %v neither a vertex nor on the buffer edge", side.name, end)
				}
			}
		}
	}
}

func TestZoomRanges(t *testing.T) {
	// Centers of z6 tiles are far from tile edges at zooms 0..6.
	lon1, lat1 := Unproject(40.5/64, 24.5/64)
	lon2, lat2 := Unproject(41.5/64, 22.5/64)
	p1, p2 := orb.Point{lon1, lat1}, orb.Point{lon2, lat2}
	layers := []Layer{
		{Name: "early", MaxZoom: 2, Features: []Feature{
			{Geometry: p1},
			{Geometry: p2, MaxZoom: 1},
		}},
		{Name: "late", MinZoom: 3, Features: []Feature{
			{Geometry: p1},
			{Geometry: p2, MinZoom: 5},
		}},
	}
	res, sink := build(t, layers, testOptions(0, 6))
	want := []int64{2, 2, 1, 1, 1, 2, 2} // features per zoom
	for z, w := range want {
		if got := res.Zooms[z].Features; got != w {
			t.Errorf("z%d: %d features, want %d", z, got, w)
		}
		tx, ty, _, _ := expectedPixel(lon1, lat1, z, 4096)
		early := features(t, sink, z, tx, ty, "early")
		late := features(t, sink, z, tx, ty, "late")
		if (len(early) > 0) != (z <= 2) || (len(late) > 0) != (z >= 3) {
			t.Errorf("z%d: early %d late %d features", z, len(early), len(late))
		}
	}
	vl := res.VectorLayers
	if len(vl) != 2 || vl[0].MinZoom != 0 || vl[0].MaxZoom != 2 || vl[1].MinZoom != 3 || vl[1].MaxZoom != 6 {
		t.Errorf("vector_layers zooms: %+v", vl)
	}
}

// vertexCount sums the vertices of all tiles at zoom z.
func vertexCount(t *testing.T, sink *MemorySink, z int, layer string) int {
	n := 0
	for _, id := range sink.Tiles() {
		if id.Z != z {
			continue
		}
		for _, f := range features(t, sink, id.Z, id.X, id.Y, layer) {
			for _, l := range f.geom.Lines {
				n += len(l)
			}
			for _, p := range f.geom.Polygons {
				for _, r := range p {
					n += len(r)
				}
			}
		}
	}
	return n
}

func TestSimplificationMonotonic(t *testing.T) {
	// A wiggly coastline-like line with 20000 vertices.
	r := rand.New(rand.NewPCG(1, 2))
	line := make(orb.LineString, 20000)
	lat := 0.0
	for i := range line {
		lat += r.Float64()*0.02 - 0.01
		line[i] = orb.Point{-50 + 100*float64(i)/float64(len(line)), lat}
	}
	_, sink := build(t, []Layer{{Name: "l", Features: []Feature{{Geometry: line}}}}, testOptions(0, 8))
	prev := math.MaxInt
	for z := 8; z >= 0; z-- {
		n := vertexCount(t, sink, z, "l")
		if n == 0 || n > prev {
			t.Errorf("z%d: %d vertices (z%d had %d): want a positive count not above the next zoom's", z, n, z+1, prev)
		}
		prev = n
	}
	if z0 := vertexCount(t, sink, 0, "l"); z0 > 2000 {
		t.Errorf("z0 keeps %d of 20000 vertices", z0)
	}
}

func TestTinyFeaturesDropped(t *testing.T) {
	small := lonLatBox(10, 10, 10.001, 10.001) // ~110 m
	big := lonLatBox(20, 20, 22, 22)
	layers := []Layer{{Name: "a", Features: []Feature{{ID: 1, Geometry: small}, {ID: 2, Geometry: big}}}}
	res, sink := build(t, layers, testOptions(0, 12))
	// At zoom z, 0.001° spans 0.001/360*256*2^z pixels, at least one pixel
	// from z11 on; below that the small box is dropped, but never at the
	// maximum zoom.
	for z := 0; z <= 12; z++ {
		tx, ty, _, _ := expectedPixel(10.0005, 10.0005, z, 4096)
		found := false
		for _, f := range features(t, sink, z, tx, ty, "a") {
			if f.id == 1 {
				found = true
			}
		}
		if want := z >= 11; found != want {
			t.Errorf("z%d: small box present = %v, want %v", z, found, want)
		}
		bx, by, _, _ := expectedPixel(21, 21, z, 4096)
		if fs := features(t, sink, z, bx, by, "a"); len(fs) == 0 {
			t.Errorf("z%d: big box missing", z)
		}
	}
	if res.TileStats.Layers[0].Count != 2 {
		t.Errorf("tilestats count %d", res.TileStats.Layers[0].Count)
	}
}

func TestPointSpacing(t *testing.T) {
	// 100 points within 0.01° of each other: one pixel at z0 is 1.4°, so
	// below the maximum zoom only the first survives; at the maximum zoom
	// (z12: 0.01° is 28 pixels) all are kept.
	var fs []Feature
	for i := 0; i < 100; i++ {
		fs = append(fs, Feature{ID: uint64(i + 1), Geometry: orb.Point{30 + float64(i%10)*0.001, 30 + float64(i/10)*0.001}})
	}
	for _, spacing := range []float64{0, 1} {
		opts := testOptions(0, 12)
		opts.PointSpacing = spacing
		res, sink := build(t, []Layer{{Name: "p", Features: fs}}, opts)
		tx, ty, _, _ := expectedPixel(30, 30, 0, 4096)
		z0 := features(t, sink, 0, tx, ty, "p")
		want := 100
		if spacing > 0 {
			want = 1
		}
		if len(z0) != want || z0[0].id != 1 {
			t.Errorf("spacing %v: z0 has %d points (first id %d), want %d starting with id 1", spacing, len(z0), z0[0].id, want)
		}
		if got := res.Zooms[12].Features; got != 100 {
			t.Errorf("spacing %v: z12 has %d points, want 100", spacing, got)
		}
	}
}

func TestCoveredPolygonDropped(t *testing.T) {
	// A world polygon with a large hole: tiles entirely inside the hole
	// get nothing, tiles across its edge get the polygon.
	world := orb.Polygon{{{-180, -85}, {180, -85}, {180, 85}, {-180, 85}, {-180, -85}}, {{-100, -60}, {100, -60}, {100, 60}, {-100, 60}, {-100, -60}}}
	_, sink := build(t, []Layer{{Name: "w", Features: []Feature{{Geometry: world}}}}, testOptions(3, 3))
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			w, n := Unproject(float64(x)/8-0.01, float64(y)/8-0.01)
			e, s := Unproject(float64(x+1)/8+0.01, float64(y+1)/8+0.01)
			inHole := w > -100 && e < 100 && s > -60 && n < 60
			_, ok := sink.Get(3, x, y)
			if ok == inHole {
				t.Errorf("tile 3/%d/%d: written %v, inside the hole %v", x, y, ok, inHole)
			}
		}
	}
}

func TestAntimeridian(t *testing.T) {
	// An island split at 180° into two polygons.
	mp := orb.MultiPolygon{lonLatBox(177, -18, 180, -16), lonLatBox(-180, -18, -179, -16)}
	_, sink := build(t, []Layer{{Name: "a", Features: []Feature{{Geometry: mp}}}}, testOptions(1, 1))
	east := features(t, sink, 1, 1, 1, "a")
	west := features(t, sink, 1, 0, 1, "a")
	if len(east) != 1 || len(west) != 1 {
		t.Fatalf("east %d west %d", len(east), len(west))
	}
	// Each side holds only its own part, hugging the world edge.
	eMinX, _, eMaxX, _ := bbox(east[0].geom.Polygons[0][0])
	wMinX, _, wMaxX, _ := bbox(west[0].geom.Polygons[0][0])
	if len(east[0].geom.Polygons) != 1 || eMaxX != 4096 || eMinX < 4000 {
		t.Errorf("east part spans x %d..%d", eMinX, eMaxX)
	}
	if len(west[0].geom.Polygons) != 1 || wMinX != 0 || wMaxX > 100 {
		t.Errorf("west part spans x %d..%d", wMinX, wMaxX)
	}
}

func TestResultMetadata(t *testing.T) {
	layers := []Layer{{Name: "pois", Description: "points of interest", Features: []Feature{
		{Geometry: orb.Point{-10, -20}, Properties: map[string]any{"name": "a", "rank": int64(1), "open": true, "mixed": "x"}},
		{Geometry: orb.Point{30, 40}, Properties: map[string]any{"name": "b", "rank": 2.5, "open": false, "mixed": int64(3)}},
	}}, {Name: "roads", Features: []Feature{{Geometry: orb.LineString{{0, 0}, {1, 1}}}}}}
	res, _ := build(t, layers, testOptions(0, 6))
	if res.Bounds != [4]float64{-10, -20, 30, 40} {
		t.Errorf("bounds %v", res.Bounds)
	}
	if res.Center[2] < 0 || res.Center[2] > 6 || res.Center[0] != 10 {
		t.Errorf("center %v", res.Center)
	}
	want := map[string]string{"name": "String", "rank": "Number", "open": "Boolean", "mixed": "Mixed"}
	if vl := res.VectorLayers[0]; vl.ID != "pois" || vl.Description != "points of interest" || len(vl.Fields) != 4 {
		t.Fatalf("vector layer %+v", vl)
	}
	for k, v := range want {
		if res.VectorLayers[0].Fields[k] != v {
			t.Errorf("field %s: %q, want %q", k, res.VectorLayers[0].Fields[k], v)
		}
	}
	ts := res.TileStats
	if ts.LayerCount != 2 || ts.Layers[0].Count != 2 || ts.Layers[0].Geometry != "Point" || ts.Layers[1].Geometry != "LineString" {
		t.Errorf("tilestats %+v", ts)
	}
	for _, a := range ts.Layers[0].Attributes {
		if a.Attribute == "rank" && (a.Min == nil || *a.Min != 1 || *a.Max != 2.5 || len(a.Values) != 2) {
			t.Errorf("rank stats %+v", a)
		}
	}
	raw, err := res.MetadataJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		VectorLayers []map[string]any `json:"vector_layers"`
		TileStats    map[string]any   `json:"tilestats"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.VectorLayers) != 2 || doc.VectorLayers[0]["id"] != "pois" || doc.TileStats["layerCount"] != 2.0 {
		t.Errorf("metadata json %s (%v)", raw, err)
	}
}

type failSink struct{ n int }

func (f *failSink) PutTile(ctx context.Context, z, x, y int, data []byte) error {
	f.n++
	if f.n == 3 {
		return errors.New("disk full")
	}
	return nil
}

func TestBuildErrors(t *testing.T) {
	pt := []Feature{{Geometry: orb.Point{0, 0}}}
	tests := []struct {
		name   string
		layers []Layer
		opts   func(*Options)
	}{
		{"bad zooms", []Layer{{Name: "a", Features: pt}}, func(o *Options) { o.MinZoom, o.MaxZoom = 5, 2 }},
		{"zoom too high", []Layer{{Name: "a", Features: pt}}, func(o *Options) { o.MaxZoom = 30 }},
		{"negative buffer", []Layer{{Name: "a", Features: pt}}, func(o *Options) { o.Buffer = -1 }},
		{"no name", []Layer{{Features: pt}}, func(*Options) {}},
		{"duplicate names", []Layer{{Name: "a"}, {Name: "a"}}, func(*Options) {}},
		{"NaN", []Layer{{Name: "a", Features: []Feature{{Geometry: orb.LineString{{0, 0}, {math.NaN(), 1}}}}}}, func(*Options) {}},
	}
	for _, tc := range tests {
		o := testOptions(0, 3)
		tc.opts(&o)
		if _, err := Build(context.Background(), tc.layers, o, NewMemorySink()); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	fs := &failSink{}
	_, err := Build(context.Background(), []Layer{{Name: "a", Features: []Feature{{Geometry: circle(0, 0, 40, 100)}}}}, testOptions(0, 4), fs)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("disk full")) {
		t.Errorf("sink error not returned: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, []Layer{{Name: "a", Features: pt}}, testOptions(0, 3), NewMemorySink()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build: %v", err)
	}
}

func TestDefaultZooms(t *testing.T) {
	grid := func(n int, step float64) []Feature {
		var fs []Feature
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				fs = append(fs, Feature{Geometry: orb.Point{float64(i) * step, float64(j) * step}})
			}
		}
		return fs
	}
	tests := []struct {
		name     string
		features []Feature
		lo, hi   int
	}{
		{"empty", nil, 0, 0},
		{"single point", []Feature{{Geometry: orb.Point{1, 2}}}, 14, 14},
		// 1° spacing is resolved from z1 on, but the 19° extent fits one z4
		// tile and the extent rule adds two zooms.
		{"1 degree grid", grid(20, 1), 5, 7},
		// 0.001° spacing (~110 m) needs ~z11; the 0.02° extent rule gives z16 → cap.
		{"dense grid", grid(20, 0.001), 14, 14},
		// Country-sized polygons with 1° vertex spacing: low zoom.
		{"coarse polygons", []Feature{{Geometry: circle(0, 0, 20, 120)}, {Geometry: circle(60, 0, 25, 150)}}, 1, 4},
		// A building next to a country-sized polygon: the building asks for
		// z14, but the polygon's bounding box (40° by 40°, 0.111 x 0.219
		// world units) covers more than 2^20 tiles from z13 on.
		{"building and huge polygon", []Feature{{Geometry: circle(90, 55, 20, 400)}, {Geometry: lonLatBox(8.5, 47.3, 8.5002, 47.3002)}}, 12, 12},
		// Building-sized polygons: high zoom.
		{"buildings", []Feature{{Geometry: lonLatBox(8.5, 47.3, 8.5002, 47.3002)}, {Geometry: lonLatBox(8.51, 47.31, 8.5102, 47.3102)}}, 13, 14},
	}
	for _, tc := range tests {
		minZ, maxZ := DefaultZooms([]Layer{{Name: "a", Features: tc.features}})
		if minZ != 0 || maxZ < tc.lo || maxZ > tc.hi {
			t.Errorf("%s: zooms %d..%d, want max in %d..%d", tc.name, minZ, maxZ, tc.lo, tc.hi)
		}
	}
}
