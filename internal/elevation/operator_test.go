package elevation

import (
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// TestOperatorGeoTIFF: an operator's finer model, a GeoTIFF made by GDAL
// (gdal_translate to unsigned 16-bit with a nodata value), takes precedence
// over the global model where it has values; its nodes agree with
// gdallocationinfo; where it has holes or ends, the global model answers.
func TestOperatorGeoTIFF(t *testing.T) {
	translate := fixtures.Tool(t, "gdal_translate")
	locinfo := fixtures.Tool(t, "gdallocationinfo")
	dir := t.TempDir()
	// The global model: 1-degree grid of 1 m everywhere.
	writeNetCDF(t, filepath.Join(dir, "world.nc"), 360, 181, func(lon, lat float64) float32 { return 1 })
	// The finer model: 0.01 degree over 8..9E, 47..48N, 500 + 100*lon' +
	// 1000*lat' (primes: offsets inside the box), with a hole (0 = nodata)
	// where lon' < 0.2 and lat' < 0.2.
	src := t.TempDir()

	nc := filepath.Join(src, "fine.nc")
	writeBox(t, nc)
	tif := filepath.Join(dir, "fine.tif")
	if out, err := exec.Command(translate, "-q", "-ot", "UInt16", "-a_srs", "EPSG:4326", "-a_nodata", "0", nc, tif).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, out)
	}
	m, err := Open(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grids) != 2 || m.Grids[0].Name != "fine.tif" {
		t.Fatalf("grids: %v", m.Grids)
	}
	fine := m.Grids[0]
	for _, c := range []struct{ lon, lat float64 }{{8.5, 47.5}, {8.3, 47.91}, {8.99, 47.25}, {8.25, 47.3}} {
		// Nodes: the same value as GDAL's.
		col := math.Round((c.lon - fine.X0) / fine.DX)
		row := math.Round((c.lat - fine.Y0) / fine.DY)
		lon, lat := fine.X0+col*fine.DX, fine.Y0+row*fine.DY
		out, err := exec.Command(locinfo, "-valonly", "-geoloc", tif, strconv.FormatFloat(lon, 'f', 10, 64), strconv.FormatFloat(lat, 'f', 10, 64)).Output()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		got, g, ok := m.At(lon, lat)
		if !ok || g != fine || got != want {
			t.Errorf("node %g,%g: %g from %s, GDAL %g", lon, lat, got, g.Name, want)
		}
	}
	// The hole and the outside: the global model.
	for _, c := range []struct{ lon, lat float64 }{{8.1, 47.1}, {7.5, 47.5}, {9.5, 47.5}, {8.5, 48.5}} {
		got, g, ok := m.At(c.lon, c.lat)
		if !ok || g == fine || got != 1 {
			t.Errorf("%g,%g: %g from %s, want 1 from the global model", c.lon, c.lat, got, g.Name)
		}
	}
}

// writeBox writes the finer test model as NetCDF (latitude rows north to
// south, as rasters are).
func writeBox(t *testing.T, path string) {
	t.Helper()
	const n = 101
	lons := make([]float32, n)
	lats := make([]float32, n)
	vals := make([]float32, n*n)
	for i := range n {
		lons[i] = float32(8 + float64(i)*0.01)
		lats[i] = float32(48 - float64(i)*0.01)
	}
	for j := range n {
		for i := range n {
			dx, dy := float64(i)*0.01, 1-float64(j)*0.01
			v := 500 + 100*dx + 1000*dy
			if dx < 0.2 && dy < 0.2 {
				v = 0
			}
			vals[j*n+i] = float32(math.Round(v))
		}
	}
	writeGrid(t, path, lons, lats, vals)
}

// TestOperatorDEMTypes: signed, floating-point and web mercator models, made
// by gdal_translate from one surface with negative depths, fractions and a
// hole: at their nodes the service gives gdallocationinfo's values (Float64
// samples as float32), between nodes the bilinear mix of GDAL's four node
// values, and in the hole (nodata) the global model answers.
func TestOperatorDEMTypes(t *testing.T) {
	translate := fixtures.Tool(t, "gdal_translate")
	locinfo := fixtures.Tool(t, "gdallocationinfo")
	src := t.TempDir()
	// depth is a sea floor sloping from -812 m, rising past 0, with a hole
	// (nodata -9999) in the north-west corner.
	depth := func(col, row int) float64 {
		if col < 4 && row < 3 {
			return -9999
		}
		return -812.375 + 41.25*float64(col) - 17.5*float64(row) + 3.0625*float64(col*row%7)
	}
	const w, h = 41, 29
	fixtures.WriteASCIIGrid(t, filepath.Join(src, "deg.asc"), w, h, 8, 46, 0.01, -9999, depth)
	fixtures.WriteASCIIGrid(t, filepath.Join(src, "merc.asc"), w, h, 890000, 5780000, 250, -9999, depth)
	for _, c := range []struct {
		typ, epsg, nodata string
		co                []string
	}{
		{"Int16", "4326", "-9999", []string{"COMPRESS=DEFLATE", "PREDICTOR=2"}},
		{"Float32", "4326", "-9999", []string{"COMPRESS=LZW", "PREDICTOR=3", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"}},
		{"Float64", "4326", "-9999", nil},
		{"Int16", "3857", "-9999", nil},
		{"Float32", "3857", "-9999", []string{"COMPRESS=DEFLATE"}},
	} {
		name := c.typ + " EPSG:" + c.epsg
		dir := t.TempDir()
		writeNetCDF(t, filepath.Join(dir, "world.nc"), 360, 181, func(lon, lat float64) float32 { return 1 })
		in := filepath.Join(src, "deg.asc")
		if c.epsg == "3857" {
			in = filepath.Join(src, "merc.asc")
		}
		tif := filepath.Join(dir, "dem.tif")
		args := []string{"-q", "-ot", c.typ, "-a_srs", "EPSG:" + c.epsg, "-a_nodata", c.nodata}
		for _, o := range c.co {
			args = append(args, "-co", o)
		}
		if out, err := exec.Command(translate, append(args, in, tif)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: gdal_translate: %v\n%s", name, err, out)
		}
		m, err := Open(t.Context(), dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(m.Grids) != 2 || m.Grids[0].Name != "dem.tif" {
			t.Fatalf("%s: grids %v", name, m.Grids)
		}
		dem := m.Grids[0]
		// GDAL's value at a node (col, row), asked at the node's longitude
		// and latitude.
		node := func(col, row int) (lon, lat, v float64) {
			x, y := dem.X0+float64(col)*dem.DX, dem.Y0+float64(row)*dem.DY
			lon, lat = x, y
			if dem.Mercator {
				lon, lat = fromMercator(x, y)
			}
			out, err := exec.Command(locinfo, "-valonly", "-wgs84", tif, strconv.FormatFloat(lon, 'f', 12, 64), strconv.FormatFloat(lat, 'f', 12, 64)).Output()
			if err != nil {
				t.Fatalf("%s: gdallocationinfo: %v", name, err)
			}
			v, _ = strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if c.typ == "Float64" {
				v = float64(float32(v))
			}
			return lon, lat, v
		}
		negative := false
		for _, p := range [][2]int{{4, 0}, {10, 5}, {40, 28}, {0, 28}, {20, 14}, {33, 3}} {
			lon, lat, want := node(p[0], p[1])
			got, g, ok := m.At(lon, lat)
			if !ok || g != dem || math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: node %v (%g, %g): %g from %s, GDAL %g", name, p, lon, lat, got, gridName(g), want)
			}
			negative = negative || want < 0
		}
		if !negative {
			t.Errorf("%s: no negative depth among the nodes checked", name)
		}
		// Between nodes: bilinear in the grid's own coordinates.
		lon0, lat0, a := node(20, 10)
		lon1, lat1, b := node(21, 10)
		_, _, cc := node(20, 11)
		_, _, d := node(21, 11)
		fx, fy := 0.25, 0.75
		x, y := dem.X0+(20+fx)*dem.DX, dem.Y0+(10+fy)*dem.DY
		lon, lat := x, y
		if dem.Mercator {
			lon, lat = fromMercator(x, y)
		}
		want := (a*(1-fx)+b*fx)*(1-fy) + (cc*(1-fx)+d*fx)*fy
		if got, g, ok := m.At(lon, lat); !ok || g != dem || math.Abs(got-want) > 1e-3 {
			t.Errorf("%s: between nodes (%g, %g): %g, bilinear of GDAL's nodes %g (%g,%g..%g,%g)", name, lon, lat, got, want, lon0, lat0, lon1, lat1)
		}
		// The hole: GDAL says nodata, the global model answers.
		lon, lat, v := node(1, 1)
		if got, g, ok := m.At(lon, lat); !ok || g == dem || got != 1 || v != -9999 {
			t.Errorf("%s: in the hole (GDAL %g): %g from %s, want 1 from the global model", name, v, got, gridName(g))
		}
	}
}

func gridName(g *Grid) string {
	if g == nil {
		return "no grid"
	}
	return g.Name
}
