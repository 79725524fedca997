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
