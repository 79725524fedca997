package elevation

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/netcdf"
)

// testGrid is 4 columns (lon 0..3) by 3 rows (lat 10, 11, 12): value =
// 100*row + col.
func testGrid() *Grid {
	g := &Grid{W: 4, H: 3, X0: 0, DX: 1, Y0: 10, DY: 1, Data: make([]float32, 12)}
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			g.Data[r*4+c] = float32(100*r + c)
		}
	}
	return g
}

func TestSample(t *testing.T) {
	g := testGrid()
	wrap := testGrid()
	wrap.DX, wrap.Period = 90, 4 // columns at 0, 90, 180, 270; 270 joins 0
	hole := testGrid()
	hole.NoData, hole.HasNoData = 102, true
	cases := []struct {
		name     string
		g        *Grid
		lon, lat float64
		want     float64
		ok       bool
	}{
		{"node", g, 2, 11, 102, true},
		{"corner", g, 3, 12, 203, true},
		{"first node", g, 0, 10, 0, true},
		{"between columns", g, 1.25, 10, 1.25, true},
		{"between rows", g, 1, 10.5, 51, true},
		{"inside a cell", g, 2.5, 11.5, 152.5, true},
		{"west of the grid", g, -0.1, 11, 0, false},
		{"north of the grid", g, 1, 12.01, 0, false},
		{"wrap east gap", wrap, 315, 10, 1.5, true},
		{"wrap negative longitude", wrap, -45, 11, 101.5, true},
		{"wrap past 360", wrap, 360 + 90, 12, 201, true},
		{"missing node weighed", hole, 2.5, 11, 0, false},
		{"missing node unweighed", hole, 3, 11, 103, true},
		{"NaN", g, math.NaN(), 11, 0, false},
	}
	for _, c := range cases {
		v, ok := c.g.Sample(c.lon, c.lat)
		if ok != c.ok || (ok && math.Abs(v-c.want) > 1e-9) {
			t.Errorf("%s: Sample(%g, %g) = %g, %v; want %g, %v", c.name, c.lon, c.lat, v, ok, c.want, c.ok)
		}
	}
}

func TestModelPrecedence(t *testing.T) {
	base := &Grid{Name: "base", W: 2, H: 2, X0: -180, DX: 359.99, Y0: -90, DY: 180, Data: []float32{1, 1, 1, 1}}
	fine := &Grid{Name: "fine", W: 3, H: 3, X0: 5, DX: 0.5, Y0: 45, DY: 0.5,
		Data: []float32{10, 10, 10, 10, 10, -1, 10, 10, 10}, NoData: -1, HasNoData: true}
	m := NewModel(base, fine)
	if m.Grids[0] != fine {
		t.Fatalf("finest grid not first: %s", m.Grids[0].Name)
	}
	for _, c := range []struct {
		lon, lat float64
		want     string
	}{{5.2, 45.2, "fine"}, {6, 45, "fine"}, {5.7, 45.7, "base"}, {4.9, 45, "base"}, {100, 0, "base"}} {
		_, g, ok := m.At(c.lon, c.lat)
		if !ok || g.Name != c.want {
			t.Errorf("At(%g, %g) from %v, want %s", c.lon, c.lat, g, c.want)
		}
	}
}

func TestParseLocations(t *testing.T) {
	many := strings.TrimSuffix(strings.Repeat("1,2;", 50), ";")
	cases := []struct {
		in   string
		n    int
		fail string
	}{
		{"8.5,47.3", 1, ""},
		{"-179.999,-85;179.999,85", 2, ""},
		{many, 50, ""},
		{many + ";1,2", 0, "at most 50"},
		{"180,0", 0, "out of bounds"},
		{"-180,0", 0, "out of bounds"},
		{"0,85.0001", 0, "out of bounds"},
		{"0,-86", 0, "out of bounds"},
		{"", 0, "no locations"},
		{"1,2,3", 0, "not lng,lat"},
		{"1", 0, "not lng,lat"},
		{"1,2;", 0, "not lng,lat"},
		{"a,2", 0, "not two numbers"},
		{"NaN,2", 0, "not two numbers"},
		{"Inf,2", 0, "not two numbers"},
		{"0x1p3,2", 0, "not two numbers"},
		{"1e1,2", 1, ""},
	}
	for _, c := range cases {
		pts, err := ParseLocations(c.in)
		if c.fail != "" {
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("ParseLocations(%.40q): err %v, want %q", c.in, err, c.fail)
			}
			continue
		}
		if err != nil || len(pts) != c.n {
			t.Errorf("ParseLocations(%.40q) = %d points, %v; want %d", c.in, len(pts), err, c.n)
		}
	}
	for in, want := range map[string]Unit{"meters": Meters, "feet": Feet} {
		if u, err := ParseUnit(in); err != nil || u != want {
			t.Errorf("ParseUnit(%q) = %v, %v", in, u, err)
		}
	}
	for _, in := range []string{"metres", "ft", "FEET", ""} {
		if _, err := ParseUnit(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseUnit(%q): err %v, want ErrInvalid", in, err)
		}
	}
}

func TestQueryUnits(t *testing.T) {
	m := NewModel(testGrid())
	got, err := m.Query([]Point{{2.5, 11.5}, {1, 10}}, Feet)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != [3]float64{2.5, 11.5, math.Round(152.5/0.3048*10) / 10} || got[1][2] != 3.3 {
		t.Errorf("feet: %v", got)
	}
	if _, err := m.Query([]Point{{50, 50}}, Meters); !errors.Is(err, ErrNoData) {
		t.Errorf("outside every grid: err %v, want ErrNoData", err)
	}
}

// writeNetCDF writes a grid as ETOPO-like NetCDF: latitudes south to
// north, longitudes 0..360 minus a column, a missing_value.
func writeNetCDF(t *testing.T, path string, w, h int, f func(lon, lat float64) float32) {
	t.Helper()
	lons := make([]float32, w)
	lats := make([]float32, h)
	for i := range lons {
		lons[i] = float32(float64(i) * 360 / float64(w))
	}
	for j := range lats {
		lats[j] = float32(-90 + float64(j)*180/float64(h-1))
	}
	vals := make([]float32, w*h)
	for j := range lats {
		for i := range lons {
			vals[j*w+i] = f(float64(lons[i]), float64(lats[j]))
		}
	}
	writeGrid(t, path, lons, lats, vals)
}

// writeGrid writes a NetCDF grid over X (degrees_east) and Y
// (degrees_north) coordinate variables, with a missing_value.
func writeGrid(t *testing.T, path string, lons, lats, vals []float32) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	err = netcdf.Encode(fh, []netcdf.Dim{{Name: "X", Len: len(lons)}, {Name: "Y", Len: len(lats)}}, nil, []netcdf.VarData{
		{Name: "X", Dims: []string{"X"}, Attrs: []netcdf.Attr{{Name: "units", Type: netcdf.Char, Text: "degrees_east"}}, Values: lons},
		{Name: "Y", Dims: []string{"Y"}, Attrs: []netcdf.Attr{{Name: "units", Type: netcdf.Char, Text: "degrees_north"}}, Values: lats},
		{Name: "Z", Dims: []string{"Y", "X"}, Attrs: []netcdf.Attr{{Name: "missing_value", Type: netcdf.Double, Values: []float64{-1e34}}}, Values: vals},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLoadNetCDF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "world.nc")
	writeNetCDF(t, path, 36, 19, func(lon, lat float64) float32 { return float32(lon + 1000*lat) })
	m, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grids) != 1 || m.Grids[0].Period != 36 {
		t.Fatalf("grids %+v", m.Grids)
	}
	for _, c := range []struct{ lon, lat, want float64 }{
		{10, 0, 10}, {-10, 10, 350 + 10000}, {175, -90, 175 - 90000}, {355, 20, 20000 + (350+0)/2.0},
	} {
		v, _, ok := m.At(c.lon, c.lat)
		if !ok || math.Abs(v-c.want) > 1e-2 {
			t.Errorf("At(%g, %g) = %g, %v; want %g", c.lon, c.lat, v, ok, c.want)
		}
	}
	// A damaged file is an error naming it.
	if err := os.WriteFile(filepath.Join(dir, "bad.cdf"), []byte("CDF\x01junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), dir, nil); err == nil || !strings.Contains(err.Error(), "bad.cdf") {
		t.Errorf("damaged model: err %v", err)
	}
	// No folder: no grids.
	if m, err := Open(t.Context(), filepath.Join(dir, "none"), nil); err != nil || len(m.Grids) != 0 {
		t.Errorf("absent folder: %v, %v", m, err)
	}
}

func TestTerrarium(t *testing.T) {
	for _, h := range []float64{0, 1, -1, 8848.5, -10994.25, 0.5, 123.00390625} {
		r, g, b := TerrariumEncode(h)
		if got := TerrariumDecode(r, g, b); math.Abs(got-h) > 1.0/256 {
			t.Errorf("%g: encoded %d,%d,%d decodes to %g", h, r, g, b, got)
		}
	}
	// A global grid of 10*lon + lat: the tile's pixels decode to the grid's
	// values at their centres.
	g := &Grid{W: 360, H: 181, X0: -180, DX: 1, Y0: -90, DY: 1, Period: 360, Data: make([]float32, 360*181)}
	for r := 0; r < g.H; r++ {
		for c := 0; c < g.W; c++ {
			g.Data[r*g.W+c] = float32(10*(c-180) + (r - 90))
		}
	}
	m := NewModel(g)
	img := m.TerrainTile(2, 1, 1, 64)
	for _, p := range [][2]int{{0, 0}, {31, 17}, {63, 63}} {
		n := 64.0 * 4
		lon := (float64(64+p[0])+0.5)/n*360 - 180
		lat := math.Atan(math.Sinh(math.Pi*(1-2*(float64(64+p[1])+0.5)/n))) * 180 / math.Pi
		want, _, _ := m.At(lon, lat)
		c := img.NRGBAAt(p[0], p[1])
		if got := TerrariumDecode(c.R, c.G, c.B); got != math.Round(want) || c.A != 255 {
			t.Errorf("pixel %v (%g,%g): %g, want %g", p, lon, lat, got, want)
		}
	}
}

func BenchmarkTerrainTile(b *testing.B) {
	g, _ := etopo(b)
	m := NewModel(g)
	for i := range b.N {
		m.TerrainTile(4, i%16, 5, 256)
	}
}

func FuzzParseLocations(f *testing.F) {
	for _, s := range []string{"8.5,47.3", "1,2;3,4", "-179.9,85", "1e1,2", "a,b", ";;", "1,2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := ParseLocations(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if len(pts) == 0 || len(pts) > MaxLocations {
			t.Fatalf("%q: %d points", s, len(pts))
		}
		for _, p := range pts {
			if !(p.Lon > -180 && p.Lon < 180 && p.Lat >= -MaxLat && p.Lat <= MaxLat) {
				t.Fatalf("%q: point %v out of bounds accepted", s, p)
			}
		}
	})
}
