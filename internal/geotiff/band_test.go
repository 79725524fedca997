package geotiff

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// demValue is a test surface: negative and positive, fractional, with
// holes (nodata -9999) in one corner.
func demValue(col, row int) float64 {
	if col < 4 && row < 3 {
		return -9999
	}
	return -812.375 + 41.25*float64(col) - 17.5*float64(row) + 3.0625*float64(col*row%7)
}

// gdalPixels asks gdallocationinfo for the values at pixels (one run, the
// pixels on its standard input).
func gdalPixels(t *testing.T, path string, px [][2]int) []float64 {
	t.Helper()
	var in strings.Builder
	for _, p := range px {
		fmt.Fprintf(&in, "%d %d\n", p[0], p[1])
	}
	cmd := exec.Command(fixtures.Tool(t, "gdallocationinfo"), "-valonly", path)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdallocationinfo %s: %v", path, err)
	}
	f := strings.Fields(string(out))
	if len(f) != len(px) {
		t.Fatalf("gdallocationinfo: %d values for %d pixels: %q", len(f), len(px), out)
	}
	vals := make([]float64, len(f))
	for i, s := range f {
		if vals[i], err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("gdallocationinfo: %q", s)
		}
	}
	return vals
}

// TestDecodeBandAgainstGDAL: single-band GeoTIFFs made by gdal_translate in
// every sample type read, stripped and tiled, uncompressed, LZW and Deflate
// with their predictors, in EPSG:4326 and EPSG:3857, decode to the values
// gdallocationinfo gives at every pixel, with GDAL's nodata value and
// georeferencing.
func TestDecodeBandAgainstGDAL(t *testing.T) {
	translate := fixtures.Tool(t, "gdal_translate")
	dir := t.TempDir()
	const w, h = 37, 23
	src := filepath.Join(dir, "src.asc")
	fixtures.WriteASCIIGrid(t, src, w, h, 8, 46, 0.01, -9999, demValue)
	srcM := filepath.Join(dir, "srcm.asc")
	fixtures.WriteASCIIGrid(t, srcM, w, h, 890000, 5780000, 250, -9999, demValue)
	var px [][2]int
	for y := range h {
		for x := range w {
			px = append(px, [2]int{x, y})
		}
	}
	for i, c := range []struct {
		typ, epsg string
		nodata    string
		co        []string
	}{
		{"Int16", "4326", "-32768", nil},
		{"Int16", "3857", "-32768", []string{"COMPRESS=DEFLATE", "PREDICTOR=2"}},
		{"Int16", "4326", "-9999", []string{"COMPRESS=LZW", "PREDICTOR=2", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"}},
		{"UInt16", "4326", "0", []string{"COMPRESS=LZW"}},
		{"Byte", "4326", "none", []string{"COMPRESS=DEFLATE", "PREDICTOR=2"}},
		{"Int8", "4326", "-100", []string{"PIXELTYPE=SIGNEDBYTE"}},
		{"Int32", "3857", "-9999", []string{"COMPRESS=LZW", "PREDICTOR=2", "BLOCKYSIZE=5"}},
		{"UInt32", "4326", "none", []string{"TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32"}},
		{"Float32", "4326", "-9999", nil},
		{"Float32", "3857", "-9999", []string{"COMPRESS=DEFLATE", "PREDICTOR=3", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"}},
		{"Float32", "4326", "nan", []string{"COMPRESS=LZW", "PREDICTOR=3", "BLOCKYSIZE=4"}},
		{"Float64", "4326", "-9999", []string{"COMPRESS=DEFLATE", "PREDICTOR=3"}},
		{"Float64", "3857", "-9999", []string{"COMPRESS=LZW"}},
	} {
		name := fmt.Sprintf("%d-%s-%s-%s", i, c.typ, c.epsg, strings.Join(c.co, ","))
		out := filepath.Join(dir, fmt.Sprintf("%d.tif", i))
		in := src
		if c.epsg == "3857" {
			in = srcM
		}
		ot := c.typ
		if ot == "Int8" { // GDAL 3.6 writes signed bytes as Byte with PIXELTYPE=SIGNEDBYTE
			ot = "Byte"
		}
		args := []string{"-q", "-ot", ot, "-a_srs", "EPSG:" + c.epsg, "-a_nodata", c.nodata}
		for _, o := range c.co {
			args = append(args, "-co", o)
		}
		if msg, err := exec.Command(translate, append(args, in, out)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: gdal_translate: %v\n%s", name, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		b, err := DecodeBand(bytes.NewReader(data), int64(len(data)), Limits{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b.Type != c.typ || b.Width != w || b.Height != h || strconv.Itoa(b.EPSG) != c.epsg {
			t.Errorf("%s: %s %dx%d EPSG:%d", name, b.Type, b.Width, b.Height, b.EPSG)
		}
		wantX, cell := 8.0, 0.01
		if c.epsg == "3857" {
			wantX, cell = 890000, 250
		}
		if !near(b.OriginX, wantX) || !near(b.ScaleX, cell) || !near(b.ScaleY, cell) {
			t.Errorf("%s: origin %g scale %g %g", name, b.OriginX, b.ScaleX, b.ScaleY)
		}
		switch {
		case c.nodata == "none" && b.NoData != nil:
			t.Errorf("%s: nodata %g, none set", name, *b.NoData)
		case c.nodata == "nan" && (b.NoData == nil || !math.IsNaN(*b.NoData)):
			t.Errorf("%s: nodata %v, want NaN", name, b.NoData)
		case c.nodata != "none" && c.nodata != "nan" && (b.NoData == nil || ftoa(*b.NoData) != c.nodata):
			t.Errorf("%s: nodata %v, want %s", name, b.NoData, c.nodata)
		}
		bad := 0
		for k, want := range gdalPixels(t, out, px) {
			if c.typ == "Int8" {
				// GDAL 3.6 keeps signed bytes as its Byte type and prints
				// the stored byte unsigned; the TIFF says signed.
				want = float64(int8(uint8(want)))
			}
			got := float64(b.Data[k])
			if got == want || math.IsNaN(got) && math.IsNaN(want) {
				continue
			}
			// Float64 samples are held as float32.
			if c.typ == "Float64" && float64(float32(want)) == got {
				continue
			}
			if bad++; bad <= 3 {
				t.Errorf("%s: pixel %v: %g, GDAL %g", name, px[k], got, want)
			}
		}
	}
}

// TestDecodeBandRefuses: multi-band images and unknown compressions are
// refused with ErrFormat.
func TestDecodeBandRefuses(t *testing.T) {
	translate := fixtures.Tool(t, "gdal_translate")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.asc")
	fixtures.WriteASCIIGrid(t, src, 8, 8, 8, 46, 0.01, -9999, demValue)
	for i, args := range [][]string{
		{"-ot", "Float32", "-co", "COMPRESS=PACKBITS"},
		{"-ot", "Int16", "-b", "1", "-b", "1"},
		{"-ot", "CFloat32"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("r%d.tif", i))
		if msg, err := exec.Command(translate, append(append([]string{"-q", "-a_srs", "EPSG:4326"}, args...), src, out)...).CombinedOutput(); err != nil {
			t.Fatalf("gdal_translate %v: %v\n%s", args, err, msg)
		}
		data, _ := os.ReadFile(out)
		if _, err := DecodeBand(bytes.NewReader(data), int64(len(data)), Limits{}); !errors.Is(err, ErrFormat) {
			t.Errorf("%v: %v, want ErrFormat", args, err)
		}
	}
}

// FuzzDecodeBand feeds damaged single-band GeoTIFFs (seeds: two small DEMs
// made by gdal_translate, a tiled Float32 with Deflate and the floating-
// point predictor, an Int16 in EPSG:3857 with LZW and the horizontal
// predictor): every answer is a band of the right size or an ErrFormat
// error; never a panic.
func FuzzDecodeBand(f *testing.F) {
	for _, name := range []string{"dem-float32-deflate-pred3.tif", "dem-int16-lzw-pred2.tif"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeBand(bytes.NewReader(data), int64(len(data)), Limits{MaxPixels: 1 << 16})
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error without ErrFormat: %v", err)
			}
			return
		}
		if len(b.Data) != b.Width*b.Height || b.Width*b.Height > 1<<16 {
			t.Fatalf("%d values for %dx%d", len(b.Data), b.Width, b.Height)
		}
	})
}

// TestDecodeBandSeeds: the fuzz seeds decode to the values they were made
// from (an ASCII grid of 5 x 4 with one hole).
func TestDecodeBandSeeds(t *testing.T) {
	want := []float32{-1.5, 2, 3, -9999, 5, 6, 7.25, -8, 9, 10, 11, 12, 13, 14, 15, -16, 17, 18, 19, 20.5}
	for _, name := range []string{"dem-float32-deflate-pred3.tif", "dem-int16-lzw-pred2.tif"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := DecodeBand(bytes.NewReader(data), int64(len(data)), Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, v := range want {
			if strings.Contains(name, "int16") {
				v = float32(int16(math.Round(float64(v)))) // GDAL rounds to the nearest integer
			}
			if b.Data[i] != v {
				t.Errorf("%s: value %d is %g, want %g", name, i, b.Data[i], v)
			}
		}
		if b.NoData == nil || *b.NoData != -9999 {
			t.Errorf("%s: nodata %v", name, b.NoData)
		}
	}
}
