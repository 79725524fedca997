package netcdf

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// sample is a 3x4 grid over lat, lon coordinate variables.
func sample(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	grid := make([]float32, 12)
	for i := range grid {
		grid[i] = float32(i*10) - 5
	}
	err := Encode(&buf, []Dim{{"lat", 3}, {"lon", 4}},
		[]Attr{{Name: "title", Type: Char, Text: "test grid"}},
		[]VarData{
			{Name: "lat", Dims: []string{"lat"}, Attrs: []Attr{{Name: "units", Type: Char, Text: "degrees_north"}}, Values: []float32{-1, 0, 1}},
			{Name: "lon", Dims: []string{"lon"}, Attrs: []Attr{{Name: "units", Type: Char, Text: "degrees_east"}}, Values: []float32{10, 11, 12, 13}},
			{Name: "z", Dims: []string{"lat", "lon"}, Attrs: []Attr{{Name: "_FillValue", Type: Double, Values: []float64{-9999}}}, Values: grid},
		})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || len(f.Dims) != 2 || f.Dims[1] != (Dim{"lon", 4}) {
		t.Fatalf("header: version %d dims %+v", f.Version, f.Dims)
	}
	if a, ok := f.Attr("title"); !ok || a.Text != "test grid" {
		t.Errorf("title attribute %+v %v", a, ok)
	}
	z, ok := f.Var("z")
	if !ok || len(z.Shape) != 2 || z.Shape[0] != 3 || z.Shape[1] != 4 || z.Type != Float {
		t.Fatalf("z: %+v", z)
	}
	if a, ok := z.Attr("_FillValue"); !ok || len(a.Values) != 1 || a.Values[0] != -9999 {
		t.Errorf("_FillValue %+v", a)
	}
	vals, err := f.ReadFloat32(z, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != float32(i*10)-5 {
			t.Errorf("z[%d] = %g, want %g", i, v, float32(i*10)-5)
		}
	}
	if _, err := f.ReadFloat32(z, 11); !errors.Is(err, ErrFormat) {
		t.Errorf("limit of 11 values: err %v, want ErrFormat", err)
	}
}

func TestDamaged(t *testing.T) {
	b := sample(t)
	cases := map[string][]byte{
		"empty":      nil,
		"magic":      append([]byte("CDX\x01"), b[4:]...),
		"hdf5":       append([]byte("\x89HDF"), b[4:]...),
		"truncated":  b[:40],
		"cut data":   b[:len(b)-8],
		"huge count": append(append([]byte{}, b[:12]...), append([]byte{0x7f, 0xff, 0xff, 0xff}, b[16:]...)...),
	}
	for name, data := range cases {
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			// The header may be whole when only data is missing.
			z, ok := f.Var("z")
			if !ok {
				t.Errorf("%s: no error and no variable z", name)
				continue
			}
			_, err = f.ReadFloat32(z, 100)
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want ErrFormat", name, err)
		}
	}
}

// TestGDALReads checks the encoder (and so the reader's idea of the
// format) against GDAL: gdallocationinfo reads the values written.
func TestGDALReads(t *testing.T) {
	gdal := fixtures.Tool(t, "gdallocationinfo")
	path := filepath.Join(t.TempDir(), "grid.nc")
	if err := os.WriteFile(path, sample(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lon, lat float64
		want     float32
	}{{10, -1, -5}, {13, -1, 25}, {11, 0, 45}, {13, 1, 105}} {
		out, err := exec.Command(gdal, "-valonly", "-geoloc", path, strconv.FormatFloat(c.lon, 'f', -1, 64), strconv.FormatFloat(c.lat, 'f', -1, 64)).CombinedOutput()
		if err != nil {
			t.Fatalf("gdallocationinfo: %v: %s", err, out)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil || float32(v) != c.want {
			t.Errorf("GDAL at %g,%g: %q, want %g", c.lon, c.lat, out, c.want)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(sample(f))
	f.Add([]byte("CDF\x02\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		for i := range file.Vars {
			v := &file.Vars[i]
			if _, err := file.ReadFloat32(v, 1<<16); err != nil && !errors.Is(err, ErrFormat) {
				if !strings.Contains(err.Error(), "EOF") {
					t.Fatalf("read %s: %v", v.Name, err)
				}
			}
			// The first slab along each leading dimension count.
			for k := 0; k <= len(v.Shape); k++ {
				if _, err := file.ReadSlab(v, make([]int, k), 1<<16); err != nil && !errors.Is(err, ErrFormat) {
					if !strings.Contains(err.Error(), "EOF") {
						t.Fatalf("slab %d of %s: %v", k, v.Name, err)
					}
				}
			}
			v.Unpacking().Apply([]float64{0, 1, math.NaN()})
		}
	})
}

// TestSlabAndUnpacking: slabs of a grid by its leading index, and CF
// unpacking (scale, offset, fill and missing values).
func TestSlabAndUnpacking(t *testing.T) {
	var buf bytes.Buffer
	vals := make([]float32, 2*3*4)
	for i := range vals {
		vals[i] = float32(i)
	}
	attrs := []Attr{{Name: "scale_factor", Type: Double, Values: []float64{0.5}}, {Name: "add_offset", Type: Double, Values: []float64{10}},
		{Name: "_FillValue", Type: Double, Values: []float64{5}}, {Name: "missing_value", Type: Double, Values: []float64{7}}}
	if err := Encode(&buf, []Dim{{"t", 2}, {"lat", 3}, {"lon", 4}}, nil, []VarData{{Name: "v", Dims: []string{"t", "lat", "lon"}, Attrs: attrs, Values: vals}}); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := f.Var("v")
	s, err := f.ReadSlab(v, []int{1}, 100)
	if err != nil || len(s) != 12 || s[0] != 12 || s[11] != 23 {
		t.Fatalf("slab 1: %v %v", s, err)
	}
	row, err := f.ReadSlab(v, []int{0, 2}, 100)
	if err != nil || len(row) != 4 || row[0] != 8 || row[3] != 11 {
		t.Fatalf("row 0,2: %v %v", row, err)
	}
	if _, err := f.ReadSlab(v, []int{2}, 100); !errors.Is(err, ErrFormat) {
		t.Errorf("index past the dimension: %v", err)
	}
	if _, err := f.ReadSlab(v, nil, 10); !errors.Is(err, ErrFormat) {
		t.Errorf("past the limit: %v", err)
	}
	first, _ := f.ReadSlab(v, []int{0}, 100)
	v.Unpacking().Apply(first)
	for i, x := range first {
		switch i {
		case 5, 7:
			if !math.IsNaN(x) {
				t.Errorf("stored %d (missing) unpacks to %g", i, x)
			}
		default:
			if x != float64(i)*0.5+10 {
				t.Errorf("stored %d unpacks to %g", i, x)
			}
		}
	}
}
