package server

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/netcdf"
	"github.com/tesseramaps/tessera/internal/store"
)

// writeElevation writes a global 1-degree NetCDF elevation model into the
// data directory: elevation = 10*lon + lat (longitudes 0..359).
func writeElevation(t *testing.T, dataDir string) {
	t.Helper()
	const w, h = 360, 181
	lons, lats := make([]float32, w), make([]float32, h)
	vals := make([]float32, w*h)
	for i := range lons {
		lons[i] = float32(i)
	}
	for j := range lats {
		lats[j] = float32(j - 90)
		for i := range lons {
			vals[j*w+i] = 10*lons[i] + lats[j]
		}
	}
	dir := filepath.Join(dataDir, ElevationDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "world.nc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = netcdf.Encode(f, []netcdf.Dim{{Name: "lon", Len: w}, {Name: "lat", Len: h}}, nil, []netcdf.VarData{
		{Name: "lon", Dims: []string{"lon"}, Values: lons},
		{Name: "lat", Dims: []string{"lat"}, Values: lats},
		{Name: "z", Dims: []string{"lat", "lon"}, Values: vals},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestElevation(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.UsageFlushInterval = time.Hour
		writeElevation(t, c.DataDir)
	})
	r := e.do("GET", "/elevation/8.5,47.25;-10.5,-20;179.5,0.json", nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("elevation: %d %s", r.status, r.body)
	}
	var got [][]float64
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("%s: %v", r.body, err)
	}
	want := [][]float64{{8.5, 47.25, 85 + 47.25}, {-10.5, -20, 3495 - 20}, {179.5, 0, 1795}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(got[i][j]-want[i][j]) > 0.051 {
				t.Errorf("location %d: %v, want %v", i, got[i], want[i])
			}
		}
	}
	feet := e.do("GET", "/elevation/8.5,47.25.json?unit=feet", nil)
	var gf [][]float64
	if feet.status != 200 || json.Unmarshal(feet.body, &gf) != nil || len(gf) != 1 || math.Abs(gf[0][2]-132.25/0.3048) > 0.051 {
		t.Errorf("feet: %d %s", feet.status, feet.body)
	}
	many := strings.TrimSuffix(strings.Repeat("1,2;", 50), ";")
	if r := e.do("GET", "/elevation/"+many+".json", nil); r.status != 200 {
		t.Errorf("50 locations: %d %s", r.status, r.body)
	}
	for _, path := range []string{
		"/elevation/180,0.json", "/elevation/0,85.5.json", "/elevation/0,-90.json",
		"/elevation/" + many + ";1,2.json", "/elevation/a,b.json", "/elevation/1,2,3.json",
		"/elevation/1,2.json?unit=yards", "/elevation/1,2.json?unit=feet&unit=meters",
	} {
		r := e.do("GET", path, nil)
		checkError(t, r, 400)
	}
	if r := e.do("GET", "/elevation/1,2", nil); r.status != 404 {
		t.Errorf("without .json: %d", r.status)
	}
	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/elevation"]; got != 3 {
		t.Errorf("elevation requests counted %d, want 3 (answered ones only)", got)
	}
}

func TestServicesNotSetUp(t *testing.T) {
	e := newEnv(t, nil)
	checkError(t, e.do("GET", "/elevation/1,2.json", nil), 404)
}

func TestServicesNeedKeys(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.APIKeys = config.APIKeysRequired
		writeElevation(t, c.DataDir)
	})
	checkError(t, e.do("GET", "/elevation/1,2.json", nil), 403)
	tok := e.serviceToken("keys")
	k := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, nil).body)
	if r := e.do("GET", "/elevation/1,2.json?key="+k.Token, nil); r.status != 200 {
		t.Errorf("with a key: %d %s", r.status, r.body)
	}
}
