package rastertile

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
	"testing"

	_ "golang.org/x/image/webp" // decodes the WebP tiles

	"github.com/tesseramaps/tessera/internal/geotiff"
	"github.com/tesseramaps/tessera/internal/imageenc"
)

type memWriter struct {
	mu    sync.Mutex
	tiles map[[3]int][]byte
}

func (m *memWriter) PutTile(_ context.Context, z, x, y int, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tiles == nil {
		m.tiles = map[[3]int][]byte{}
	}
	m.tiles[[3]int{z, x, y}] = data
	return nil
}

// blocks makes an image of 4x4-pixel blocks of distinct colours.
func blocks(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x / 4 * 17), uint8(y / 4 * 29), uint8((x/4 + y/4) * 5), 255})
		}
	}
	return img
}

// sourcePixel finds, by the test's own arithmetic, the source pixel under
// the centre of tile pixel (px, py) of z/x/y; ok is false outside the image
// or too close to a pixel border to tell.
func sourcePixel(g geotiff.Georef, w, h, z, x, y, px, py int) (col, row int, ok bool) {
	n := math.Exp2(float64(z))
	u := (float64(x) + (float64(px)+0.5)/256) / n // 0..1 west to east
	v := (float64(y) + (float64(py)+0.5)/256) / n // 0..1 north to south
	var sx, sy float64
	if g.EPSG == geotiff.EPSG4326 {
		sx = u*360 - 180
		sy = math.Atan(math.Sinh(math.Pi*(1-2*v))) * 180 / math.Pi
	} else {
		half := math.Pi * 6378137
		sx = (2*u - 1) * half
		sy = (1 - 2*v) * half
	}
	fc, fr := (sx-g.OriginX)/g.ScaleX, (g.OriginY-sy)/g.ScaleY
	if fc < 0 || fr < 0 || fc >= float64(w) || fr >= float64(h) {
		return 0, 0, false
	}
	if math.Abs(fc-math.Round(fc)) < 1e-6 || math.Abs(fr-math.Round(fr)) < 1e-6 {
		return 0, 0, false
	}
	return int(fc), int(fr), true
}

// buildCase is a picture's placement and the zooms it should get.
type buildCase struct {
	g                geotiff.Georef
	w, h             int
	wantMin, wantMax int
}

func TestBuildMatchesSource(t *testing.T) {
	for _, tc := range []buildCase{
		// 0.01 degree pixels: zoom 8 tiles have 360/2^16 = 0.0055 degree pixels.
		{geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 8.3, OriginY: 47.6, ScaleX: 0.01, ScaleY: 0.01}, 300, 200, 7, 8},
		// Exactly zoom 10's resolution and grid: one source pixel per tile pixel.
		{geotiff.Georef{EPSG: geotiff.EPSG3857, OriginX: -20037508.342789244 + 512*156543.03392804097/1024, OriginY: 20037508.342789244 - 300*156543.03392804097/1024, ScaleX: 156543.03392804097 / 1024, ScaleY: 156543.03392804097 / 1024}, 512, 256, 9, 10},
	} {
		for _, format := range []imageenc.Format{imageenc.PNG, imageenc.WebP} {
			testBuild(t, tc, format)
		}
	}
}

// testBuild tiles a picture of blocks in one format and compares every
// 7th pixel of every tile with the source.
func testBuild(t *testing.T, tc buildCase, format imageenc.Format) {
	src := blocks(tc.w, tc.h)
	img := &geotiff.Image{Info: geotiff.Info{Width: tc.w, Height: tc.h, Georef: tc.g}, Image: src}
	var mw memWriter
	var last int
	res, err := Build(context.Background(), img, &mw, Options{Format: format, Progress: func(done, total int) {
		if done == total {
			last = total
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.MinZoom != tc.wantMin || res.MaxZoom != tc.wantMax {
		t.Errorf("EPSG:%d: zooms %d..%d, want %d..%d", tc.g.EPSG, res.MinZoom, res.MaxZoom, tc.wantMin, tc.wantMax)
	}
	if res.Tiles != len(mw.tiles) || last == 0 {
		t.Errorf("EPSG:%d: %d tiles reported, %d written, progress total %d", tc.g.EPSG, res.Tiles, len(mw.tiles), last)
	}
	checked, outside := 0, 0
	for k, data := range mw.tiles {
		tile, kind, err := image.Decode(bytes.NewReader(data))
		if err != nil || kind != string(format) {
			t.Fatalf("tile %v: %s, %v", k, kind, err)
		}
		for py := 0; py < 256; py += 7 {
			for px := 0; px < 256; px += 7 {
				got := color.NRGBAModel.Convert(tile.At(px, py)).(color.NRGBA)
				col, row, ok := sourcePixel(tc.g, tc.w, tc.h, k[0], k[1], k[2], px, py)
				if !ok {
					if got.A == 0 {
						outside++
					}
					continue
				}
				if want := src.NRGBAAt(col, row); got != want {
					t.Fatalf("%s EPSG:%d tile %v pixel (%d,%d) = %v, want source (%d,%d) %v", format, tc.g.EPSG, k, px, py, got, col, row, want)
				}
				checked++
			}
		}
	}
	if checked < 1000 || outside == 0 {
		t.Errorf("%s EPSG:%d: only %d pixels checked, %d transparent outside", format, tc.g.EPSG, checked, outside)
	}
}

func TestNoDataTransparent(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range src.Pix {
		src.Pix[i] = uint8(i % 200)
	}
	for y := 0; y < 32; y++ { // the top half is no-data
		for x := 0; x < 64; x++ {
			src.SetGray(x, y, color.Gray{255})
		}
	}
	nd := 255.0
	g := geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 0, OriginY: 1, ScaleX: 1.0 / 64, ScaleY: 1.0 / 64, NoData: &nd}
	var mw memWriter
	if _, err := Build(context.Background(), &geotiff.Image{Info: geotiff.Info{Width: 64, Height: 64, Georef: g}, Image: src}, &mw, Options{}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, data := range mw.tiles {
		tile, _ := png.Decode(bytes.NewReader(data))
		b := tile.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(tile.At(x, y)).(color.NRGBA)
				if c.A != 0 && c.R == 255 {
					t.Fatalf("a no-data pixel is visible: %v", c)
				}
				if c.A != 0 {
					seen++
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no visible pixel")
	}
}

func TestRefusesOutsideWorld(t *testing.T) {
	src := blocks(8, 8)
	for _, g := range []geotiff.Georef{
		{EPSG: geotiff.EPSG4326, OriginX: 200, OriginY: 10, ScaleX: 1, ScaleY: 1},
		{EPSG: geotiff.EPSG4326, OriginX: 0, OriginY: 89.9, ScaleX: 0.01, ScaleY: 0.01},
	} {
		_, err := Build(context.Background(), &geotiff.Image{Info: geotiff.Info{Width: 8, Height: 8, Georef: g}, Image: src}, &memWriter{}, Options{})
		if !errors.Is(err, ErrInput) {
			t.Errorf("%+v: error %v, want ErrInput", g, err)
		}
	}
	_, err := Build(context.Background(), &geotiff.Image{Info: geotiff.Info{Width: 8, Height: 8, Georef: geotiff.Georef{EPSG: geotiff.EPSG4326, OriginX: 0, OriginY: 1, ScaleX: 1, ScaleY: 1}}, Image: src}, &memWriter{}, Options{MaxTiles: 1})
	if !errors.Is(err, ErrInput) {
		t.Errorf("tile limit: %v", err)
	}
}

// BenchmarkBuild tiles a 2048x2048 EPSG:3857 picture (zooms 8..11, 119
// tiles) into memory as PNG; tiles/s is reported.
func BenchmarkBuild(b *testing.B) {
	res := 2 * math.Pi * 6378137 / (256 << 11)
	g := geotiff.Georef{EPSG: geotiff.EPSG3857, OriginX: 1000 * res, OriginY: 5000 * res, ScaleX: res, ScaleY: res}
	img := &geotiff.Image{Info: geotiff.Info{Width: 2048, Height: 2048, Georef: g}, Image: blocks(2048, 2048)}
	b.ResetTimer()
	tiles := 0
	for i := 0; i < b.N; i++ {
		r, err := Build(context.Background(), img, &memWriter{}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		tiles += r.Tiles
	}
	b.ReportMetric(float64(tiles)/b.Elapsed().Seconds(), "tiles/s")
}
