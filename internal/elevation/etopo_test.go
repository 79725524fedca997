package elevation

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"
)

// etopo loads ETOPO5 from Debian's ferret-datasets (fetched into the
// repository's .cache/opendata, as the demo does).
func etopo(t testing.TB) (*Grid, string) {
	t.Helper()
	root := fixtures.Debian(t, "ferret-datasets")
	path := filepath.Join(root, "usr", "share", "ferret-vis", "data", "etopo5.cdf")
	etopoOnce.Do(func() { etopoGrid, etopoErr = LoadNetCDF(path) })
	if etopoErr != nil {
		t.Fatal(etopoErr)
	}
	return etopoGrid, path
}

// The grid is loaded once for the tests of the package.
var (
	etopoOnce sync.Once
	etopoGrid *Grid
	etopoErr  error
)

// gdalValues asks gdallocationinfo for the values at points given in the
// file's coordinates (longitudes 0..360), all in one run.
func gdalValues(t *testing.T, gdal, path string, pts [][2]float64) []float64 {
	t.Helper()
	var in bytes.Buffer
	for _, p := range pts {
		fmt.Fprintf(&in, "%.10f %.10f\n", p[0], p[1])
	}
	cmd := exec.Command(gdal, "-valonly", "-geoloc", path)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gdallocationinfo: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(pts) {
		t.Fatalf("gdallocationinfo gave %d values for %d points", len(lines), len(pts))
	}
	vals := make([]float64, len(lines))
	for i, l := range lines {
		if vals[i], err = strconv.ParseFloat(l, 64); err != nil {
			t.Fatalf("gdallocationinfo value %q: %v", l, err)
		}
	}
	return vals
}

// TestETOPOAgainstGDAL samples ETOPO5 at grid nodes (where bilinear
// sampling gives the node's value) and between them (the bilinear mix of
// the four nodes GDAL reads around the point), and compares with
// gdallocationinfo on the same file.
func TestETOPOAgainstGDAL(t *testing.T) {
	gdal := fixtures.Tool(t, "gdallocationinfo")
	g, path := etopo(t)
	if g.W != 4320 || g.H != 2161 || g.Period == 0 {
		t.Fatalf("ETOPO5 grid %dx%d period %g", g.W, g.H, g.Period)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Nodes: at the node's own coordinates.
	var nodes [][2]float64
	var ours []float64
	for range 400 {
		c, r := rng.IntN(g.W), rng.IntN(g.H)
		lon, lat := g.X0+float64(c)*g.DX, g.Y0+float64(r)*g.DY
		v, ok := g.Sample(lon, lat)
		if !ok {
			t.Fatalf("no value at node %d,%d", c, r)
		}
		nodes = append(nodes, [2]float64{lon, lat})
		ours = append(ours, v)
	}
	for i, want := range gdalValues(t, gdal, path, nodes) {
		if ours[i] != want {
			t.Errorf("node %v: ours %g, GDAL %g", nodes[i], ours[i], want)
		}
	}
	// Between nodes: the four surrounding nodes from GDAL, mixed by the
	// point's position in its cell (longitudes below the last column).
	var corners [][2]float64
	type query struct{ lon, lat, tu, tv float64 }
	var qs []query
	for range 300 {
		u := rng.Float64() * float64(g.W-1)
		v := 1 + rng.Float64()*float64(g.H-3)
		c, r := math.Floor(u), math.Floor(v)
		qs = append(qs, query{g.X0 + u*g.DX, g.Y0 + v*g.DY, u - c, v - r})
		for _, d := range [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			corners = append(corners, [2]float64{g.X0 + (c+d[0])*g.DX, g.Y0 + (r+d[1])*g.DY})
		}
	}
	cv := gdalValues(t, gdal, path, corners)
	worst := 0.0
	for i, q := range qs {
		k := cv[4*i : 4*i+4]
		want := k[0]*(1-q.tu)*(1-q.tv) + k[1]*q.tu*(1-q.tv) + k[2]*(1-q.tu)*q.tv + k[3]*q.tu*q.tv
		// Queried as a service would be: longitudes in -180..180.
		lon := q.lon
		if lon >= 180 {
			lon -= 360
		}
		got, ok := g.Sample(lon, q.lat)
		if !ok || math.Abs(got-want) > 0.01 {
			t.Errorf("%g,%g: ours %g %v, GDAL bilinear %g", lon, q.lat, got, ok, want)
		}
		worst = max(worst, math.Abs(got-want))
	}
	t.Logf("ETOPO5: %d nodes equal to GDAL's; %d points between nodes, largest difference %.2g m", len(nodes), len(qs), worst)
}

// TestETOPOPlaces checks a few well-known places against ETOPO5's
// smoothed values (5 arc-minute cells: peaks are lower, coasts blurred).
func TestETOPOPlaces(t *testing.T) {
	g, _ := etopo(t)
	m := NewModel(g)
	for _, c := range []struct {
		name     string
		lon, lat float64
		lo, hi   float64
	}{
		{"Denver", -104.99, 39.74, 1500, 1900},
		{"Zurich", 8.54, 47.37, 400, 700},
		{"Lake Titicaca", -69.4, -15.9, 3500, 4200},
		{"Dead Sea shore", 35.5, 31.5, -500, 500},
		{"Challenger Deep area", 142.2, 11.35, -11000, -7000},
		{"Mid Atlantic", -30, 0, -6000, -2000},
		{"Antimeridian Fiji", 179.99, -17, -6000, 1500},
	} {
		v, _, ok := m.At(c.lon, c.lat)
		if !ok || v < c.lo || v > c.hi {
			t.Errorf("%s (%g,%g): %g m, want %g..%g", c.name, c.lon, c.lat, v, c.lo, c.hi)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	g, _ := etopo(b)
	m := NewModel(g)
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([]Point, 4096)
	for i := range pts {
		pts[i] = Point{rng.Float64()*359.9 - 179.95, rng.Float64()*170 - 85}
	}
	b.ResetTimer()
	for i := range b.N {
		p := pts[i%len(pts)]
		m.At(p.Lon, p.Lat)
	}
}
