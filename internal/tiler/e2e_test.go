package tiler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"

	"github.com/tesseramaps/tessera/internal/geojson"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/tiler"
)

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	return fixtures.Dir(t)
}

func readGeoJSON(t *testing.T, path string) []tiler.Feature {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	feats, err := geojson.Read(context.Background(), f, geojson.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return feats
}

func tileLayer(t *testing.T, sink *tiler.MemorySink, z, x, y int, name string) *mvt.Layer {
	t.Helper()
	data, ok := sink.Get(z, x, y)
	if !ok {
		t.Fatalf("tile %d/%d/%d missing", z, x, y)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	tile, err := mvt.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	l := tile.Layer(name)
	if l == nil {
		t.Fatalf("tile %d/%d/%d has no layer %q", z, x, y, name)
	}
	return l
}

// TestGeoJSONToTiles reads martin's clip fixture (a multipolygon with a
// hole and an island, and a polygon) and the versatiles places fixture with
// the geojson reader, tiles them with the default options and checks the
// decoded z0 tile.
func TestGeoJSONToTiles(t *testing.T) {
	shared := sharedDir(t)
	clip := readGeoJSON(t, filepath.Join(shared, "fixtures/martin/tests/fixtures/geojson/clip.geojson"))
	places := readGeoJSON(t, filepath.Join(shared, "fixtures/versatiles/testdata/places.geojson"))
	layers := []tiler.Layer{{Name: "clip", Features: clip}, {Name: "places", Features: places}}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = tiler.DefaultZooms(layers)
	opts.Logger = slog.New(slog.DiscardHandler)
	if opts.MaxZoom < 3 || opts.MaxZoom > 14 {
		t.Fatalf("default max zoom %d", opts.MaxZoom)
	}
	sink := tiler.NewMemorySink()
	res, err := tiler.Build(context.Background(), layers, opts, sink)
	if err != nil {
		t.Fatal(err)
	}
	if res.VectorLayers[0].Fields["kind"] != "String" || res.VectorLayers[0].Fields["id"] != "Number" {
		t.Errorf("clip fields %v", res.VectorLayers[0].Fields)
	}
	if b := res.Bounds; b[0] != -60 || b[1] != -60 || b[2] != 170 || b[3] != 60 {
		t.Errorf("bounds %v", b)
	}

	l := tileLayer(t, sink, 0, 0, 0, "clip")
	if l.Len() != 2 {
		t.Fatalf("z0 clip layer has %d features", l.Len())
	}
	for i := 0; i < l.Len(); i++ {
		f, _ := l.Feature(i)
		props, _ := f.Properties()
		g, err := f.Geometry()
		if err != nil {
			t.Fatal(err)
		}
		switch props["kind"] {
		case "multipolygon-with-hole":
			if len(g.Polygons) != 2 || len(g.Polygons[0]) != 2 || len(g.Polygons[1]) != 1 {
				t.Errorf("multipolygon decoded as %d polygons", len(g.Polygons))
			}
			// The outer square spans longitudes -60..60: x from
			// (120/360)*4096 to (240/360)*4096.
			minX, maxX := int32(math.MaxInt32), int32(math.MinInt32)
			for _, p := range g.Polygons[0][0] {
				minX, maxX = min(minX, p.X), max(maxX, p.X)
			}
			if minX != 1365 || maxX != 2731 {
				t.Errorf("outer square x %d..%d, want 1365..2731", minX, maxX)
			}
		case "polygon-northeast":
			if len(g.Polygons) != 1 {
				t.Errorf("polygon decoded as %d polygons", len(g.Polygons))
			}
		default:
			t.Errorf("unexpected feature %v", props)
		}
	}

	// Berlin (13.405, 52.52) at the maximum zoom.
	z := opts.MaxZoom
	n := math.Exp2(float64(z))
	fx := (13.405 + 180) / 360 * n
	lat := 52.52 * math.Pi / 180
	fy := (1 - math.Asinh(math.Tan(lat))/math.Pi) / 2 * n
	pl := tileLayer(t, sink, z, int(fx), int(fy), "places")
	found := false
	for i := 0; i < pl.Len(); i++ {
		f, _ := pl.Feature(i)
		props, _ := f.Properties()
		if props["name"] != "Berlin" {
			continue
		}
		found = true
		g, _ := f.Geometry()
		px, py := (fx-math.Floor(fx))*4096, (fy-math.Floor(fy))*4096
		if p := g.Points[0]; math.Abs(float64(p.X)-px) > 0.5001 || math.Abs(float64(p.Y)-py) > 0.5001 || f.ID != 1 {
			t.Errorf("Berlin at %v id %d, want (%.1f, %.1f) id 1", p, f.ID, px, py)
		}
	}
	if !found {
		t.Error("Berlin not found at the maximum zoom")
	}
}
