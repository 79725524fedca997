package prerender

import (
	"bytes"
	"context"
	"image/png"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

const squareStyle = `{"version": 8,
  "sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-30, -30], [30, -30], [30, 30], [-30, 30], [-30, -30]]]}}},
  "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#00f"}},
    {"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "#f00"}}]}`

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want int
	}{
		{Options{MinZoom: 0, MaxZoom: 6}, 5461},
		{Options{MinZoom: 2, MaxZoom: 2}, 16},
		{Options{MinZoom: 1, MaxZoom: 2, Bounds: [4]float64{1, 1, 10, 10}}, 2},
	} {
		if got := Count(tt.o); got != tt.want {
			t.Errorf("%+v: %d tiles, want %d", tt.o, got, tt.want)
		}
	}
}

func TestRun(t *testing.T) {
	svc, err := mapimage.New(nil, mapimage.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	m := squareMap()
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"out.mbtiles", "out.pmtiles"} {
		out := filepath.Join(dir, name)
		calls := 0
		st, err := Run(ctx, svc, m, out, Options{MinZoom: 0, MaxZoom: 2, Progress: func(done, total int) {
			calls++
			if done != calls || total != 21 {
				t.Errorf("progress %d/%d at call %d", done, total, calls)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Tiles != 21 || calls != 21 {
			t.Errorf("%s: %d tiles, %d progress calls", name, st.Tiles, calls)
		}
		src, err := tilesource.OpenFile(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		info := src.Info()
		if info.Format != tilesource.PNG || info.MinZoom != 0 || info.MaxZoom != 2 || info.TileSize != 256 {
			t.Errorf("%s: info %+v", name, info)
		}
		// The centre tile of zoom 1's north-east quarter touches the square:
		// tile 1/1/0 is red at its bottom-left corner, blue at its top right.
		data, err := src.Tile(ctx, 1, 1, 0)
		if err != nil || data == nil {
			t.Fatalf("%s: tile 1/1/0: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if r, _, b, _ := img.At(5, 250).RGBA(); r>>8 != 255 || b>>8 != 0 {
			t.Errorf("%s: bottom-left of 1/1/0 is %v, want red", name, img.At(5, 250))
		}
		if r, _, b, _ := img.At(250, 5).RGBA(); r>>8 != 0 || b>>8 != 255 {
			t.Errorf("%s: top-right of 1/1/0 is %v, want blue", name, img.At(250, 5))
		}
		src.Close()
	}
	for _, bad := range []Options{
		{MinZoom: 3, MaxZoom: 1},
		{MinZoom: 0, MaxZoom: 30},
		{MaxZoom: 1, Size: 300},
		{MaxZoom: 1, Bounds: [4]float64{10, 0, 5, 5}},
	} {
		if _, err := Run(ctx, svc, m, filepath.Join(dir, "bad.mbtiles"), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := Run(ctx, svc, m, filepath.Join(dir, "out.zip"), Options{}); err == nil {
		t.Error("a .zip output accepted")
	}
	// Cancelled: an error, and no file left.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	out := filepath.Join(dir, "cancelled.mbtiles")
	if _, err := Run(cctx, svc, m, out, Options{MaxZoom: 4}); err == nil {
		t.Error("a cancelled run succeeded")
	}
	if _, err := tilesource.OpenFile(ctx, out); err == nil {
		t.Error("a cancelled run left its file")
	}
}
