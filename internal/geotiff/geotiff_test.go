package geotiff

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 7), uint8(y * 11), uint8(x ^ y), 255})
		}
	}
	return img
}

func encode(t testing.TB, img *image.NRGBA, g Georef) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, img, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, g := range []Georef{
		{EPSG: EPSG4326, OriginX: 6.5, OriginY: 47.25, ScaleX: 0.001, ScaleY: 0.002},
		{EPSG: EPSG3857, OriginX: -20037508.34, OriginY: 20037508.34, ScaleX: 39135.75, ScaleY: 39135.75},
	} {
		img := testImage(37, 23)
		data := encode(t, img, g)
		got, err := Decode(bytes.NewReader(data), int64(len(data)), Limits{})
		if err != nil {
			t.Fatalf("EPSG:%d: %v", g.EPSG, err)
		}
		if got.Width != 37 || got.Height != 23 || got.Georef.EPSG != g.EPSG || got.OriginX != g.OriginX || got.OriginY != g.OriginY || got.ScaleX != g.ScaleX || got.ScaleY != g.ScaleY {
			t.Errorf("EPSG:%d: info %+v, want %+v", g.EPSG, got.Info, g)
		}
		for _, p := range []image.Point{{0, 0}, {36, 22}, {10, 5}} {
			want := img.NRGBAAt(p.X, p.Y)
			if c := color.NRGBAModel.Convert(got.Image.At(p.X, p.Y)).(color.NRGBA); c != want {
				t.Errorf("EPSG:%d: pixel %v = %v, want %v", g.EPSG, p, c, want)
			}
		}
	}
}

// TestGDALReadsAndWrites checks the tags against GDAL: a file made by
// gdal_translate (tie point and scale written by GDAL) reads with the
// bounds GDAL was given, and GDAL reads Encode's output with ours.
func TestGDALReadsAndWrites(t *testing.T) {
	translate := fixtures.Tool(t, "gdal_translate")
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.tif")
	f, err := os.Create(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := tiff.Encode(f, testImage(40, 20), nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		srs                    string
		ulx, uly, lrx, lry     float64
		epsg                   int
		extra                  []string
		wantNoData             bool
		wantScaleX, wantScaleY float64
	}{
		{"EPSG:4326", 5, 48, 7, 47, EPSG4326, nil, false, 0.05, 0.05},
		{"EPSG:3857", 1000000, 6000000, 1400000, 5800000, EPSG3857, []string{"-co", "COMPRESS=DEFLATE", "-co", "TILED=YES", "-a_nodata", "0"}, true, 10000, 10000},
		{"EPSG:4326", -10, 10, 10, 0, EPSG4326, []string{"-co", "COMPRESS=LZW"}, false, 0.5, 0.5},
	} {
		out := filepath.Join(dir, "geo.tif")
		args := append([]string{"-q", "-a_srs", tc.srs, "-a_ullr", ftoa(tc.ulx), ftoa(tc.uly), ftoa(tc.lrx), ftoa(tc.lry)}, tc.extra...)
		args = append(args, plain, out)
		if b, err := exec.Command(translate, args...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate: %v: %s", err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := Decode(bytes.NewReader(data), int64(len(data)), Limits{})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.srs, tc.extra, err)
		}
		if img.Georef.EPSG != tc.epsg || !near(img.OriginX, tc.ulx) || !near(img.OriginY, tc.uly) || !near(img.ScaleX, tc.wantScaleX) || !near(img.ScaleY, tc.wantScaleY) {
			t.Errorf("%s %v: georef %+v", tc.srs, tc.extra, img.Georef)
		}
		if (img.NoData != nil) != tc.wantNoData || (img.NoData != nil && *img.NoData != 0) {
			t.Errorf("%s %v: nodata %v, want present=%v", tc.srs, tc.extra, img.NoData, tc.wantNoData)
		}
		if c := color.NRGBAModel.Convert(img.Image.At(13, 7)).(color.NRGBA); c != (color.NRGBA{13 * 7, 7 * 11, 13 ^ 7, 255}) {
			t.Errorf("%s %v: pixel (13,7) = %v", tc.srs, tc.extra, c)
		}
	}

	// GDAL reads Encode's output with the same placement.
	info := fixtures.Tool(t, "gdalinfo")
	ours := filepath.Join(dir, "ours.tif")
	if err := os.WriteFile(ours, encode(t, testImage(8, 4), Georef{EPSG: EPSG3857, OriginX: 100, OriginY: 400, ScaleX: 25, ScaleY: 50}), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command(info, ours).CombinedOutput()
	if err != nil {
		t.Fatalf("gdalinfo: %v: %s", err, b)
	}
	for _, want := range []string{"Size is 8, 4", `ID["EPSG",3857]`, "Origin = (100.000000000000000,400.000000000000000)", "Pixel Size = (25.000000000000000,-50.000000000000000)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("gdalinfo lacks %q:\n%s", want, b)
		}
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestRefused(t *testing.T) {
	good := encode(t, testImage(4, 4), Georef{EPSG: EPSG4326, OriginX: 0, OriginY: 1, ScaleX: 0.25, ScaleY: 0.25})
	plain := func() []byte {
		var buf bytes.Buffer
		if err := tiff.Encode(&buf, testImage(4, 4), nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	utm := bytes.Clone(good)
	// Rewrite the GeoKey value 4326 to 32632 and the key to ProjectedCSType.
	i := bytes.Index(utm, []byte{0x00, 0x08, 0, 0, 1, 0, 0xe6, 0x10}) // 2048, 0, 1, 4326
	if i < 0 {
		t.Fatal("geokey not found")
	}
	copy(utm[i:], []byte{0x00, 0x0c, 0, 0, 1, 0, 0x78, 0x7f}) // 3072, 0, 1, 32632
	for _, tc := range []struct {
		name string
		data []byte
		lim  Limits
	}{
		{"empty", nil, Limits{}},
		{"png", []byte("\x89PNG\r\n\x1a\n0000000000"), Limits{}},
		{"bigtiff", []byte("II+\x00\x08\x00\x00\x00"), Limits{}},
		{"plain tiff", plain, Limits{}},
		{"utm", utm, Limits{}},
		{"truncated", good[:len(good)-20], Limits{}},
		{"too many pixels", good, Limits{MaxPixels: 15}},
	} {
		_, err := Decode(bytes.NewReader(tc.data), int64(len(tc.data)), tc.lim)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want ErrFormat", tc.name, err)
		}
	}
}

// FuzzDecode feeds damaged GeoTIFFs: every answer is an image whose size
// and placement are sane, or an ErrFormat error; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, testImage(3, 2), Georef{EPSG: EPSG4326, OriginX: 1, OriginY: 2, ScaleX: 0.5, ScaleY: 0.5}))
	f.Add(encode(f, testImage(2, 3), Georef{EPSG: EPSG3857, OriginX: -5, OriginY: 9, ScaleX: 2, ScaleY: 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(bytes.NewReader(data), int64(len(data)), Limits{MaxPixels: 1 << 16})
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		if img.Width*img.Height > 1<<16 || img.ScaleX <= 0 || img.ScaleY <= 0 || (img.EPSG != EPSG4326 && img.EPSG != EPSG3857) {
			t.Fatalf("accepted a bad image: %+v", img.Info)
		}
	})
}
