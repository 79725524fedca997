package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/geoip/geoiptest"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mbtiles"
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
		"/elevation/1,2.json?unit=yards", "/elevation/1,2.json?unit=feet&unit=meters", "/elevation/1,2.json?unit=",
		"/elevation/1,2.json?units=feet",
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
	checkError(t, e.do("GET", "/geolocation/ip.json", nil), 404)
}

func TestServicesNeedKeys(t *testing.T) {
	e := geolocationEnv(t, func(c *config.Config) {
		c.APIKeys = config.APIKeysRequired
		c.GeolocationLocalAddress = "62.4.1.2"
	})
	checkError(t, e.do("GET", "/elevation/1,2.json", nil), 403)
	checkError(t, e.do("GET", "/geolocation/ip.json", nil), 403)
	tok := e.serviceToken("keys")
	k := decodeJSON[accountKey](t, e.account("POST", "/api_keys", tok, nil).body)
	for _, path := range []string{"/elevation/1,2.json?key=", "/geolocation/ip.json?key="} {
		if r := e.do("GET", path+k.Token, nil); r.status != 200 {
			t.Errorf("%s with a key: %d %s", path, r.status, r.body)
		}
	}
}

// geolocationEnv is a server with the test IP databases (geoiptest), a
// global elevation model, a geocoding index with two towns named
// Springfield (near Zurich and near Paris) and the given settings.
func geolocationEnv(t *testing.T, mutate func(*config.Config)) *testEnv {
	return newEnv(t, func(c *config.Config) {
		c.UsageFlushInterval = time.Hour
		writeElevation(t, c.DataDir)
		geoiptest.Write(t, filepath.Join(c.DataDir, GeolocationDir), geoiptest.Records, geoiptest.Tables())
		ds := &sources.Dataset{
			Countries: []sources.Country{
				{Alpha2: "CH", Alpha3: "CHE", Numeric: 756, Name: "Switzerland", Names: map[string][]string{"en": {"Switzerland"}},
					Geometry: orb.Polygon{{{6, 45.8}, {10.5, 45.8}, {10.5, 47.8}, {6, 47.8}, {6, 45.8}}}},
				{Alpha2: "FR", Alpha3: "FRA", Numeric: 250, Name: "France", Names: map[string][]string{"en": {"France"}},
					Geometry: orb.Polygon{{{-5, 42}, {5.9, 42}, {5.9, 51}, {-5, 51}, {-5, 42}}}},
			},
			Places: []sources.Place{
				{GeonameID: 201, Name: "Springfield", ASCIIName: "Springfield", Lat: 47.4, Lon: 8.6, FeatureClass: "P", FeatureCode: "PPL", Country: "CH", Population: 1000},
				{GeonameID: 202, Name: "Springfield", ASCIIName: "Springfield", Lat: 48.9, Lon: 2.4, FeatureClass: "P", FeatureCode: "PPL", Country: "FR", Population: 1000},
			},
			Attribution: []string{"Test data"},
		}
		out := filepath.Join(c.DataDir, GeocodingIndex)
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := geocode.WriteDataset(context.Background(), ds, out); err != nil {
			t.Fatal(err)
		}
		if mutate != nil {
			mutate(c)
		}
	})
}

// specGeolocationFields are the fields of spec 002's IP geolocation result
// (elevation only when asked).
var specGeolocationFields = strings.Fields("country country_code country_bounds country_languages continent continent_code eu city latitude longitude postal region region_code timezone")

func TestGeolocation(t *testing.T) {
	e := geolocationEnv(t, func(c *config.Config) {
		c.GeolocationLocalAddress = "81.6.40.1" // the test database's Zurich
		c.TrustedProxies = []string{"127.0.0.1", "::1"}
	})
	r := e.do("GET", "/geolocation/ip.json", nil)
	if r.status != 200 || r.header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("geolocation: %d %s %v", r.status, r.body, r.header)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &fields); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(specGeolocationFields))
	if !slices.Equal(keys, want) {
		t.Errorf("fields %v, want %v", keys, want)
	}
	got := string(r.body)
	wantJSON := `{"country":"Switzerland","country_code":"CH","country_bounds":[5.95,45.82,10.49,47.81],"country_languages":["de","fr","it","rm"],"continent":"Europe","continent_code":"EU","eu":false,"city":"Zurich","latitude":47.37,"longitude":8.54,"postal":"","region":"Zurich","region_code":"ZH","timezone":"Europe/Zurich"}`
	if strings.TrimSpace(got) != wantJSON {
		t.Errorf("body\n%s\nwant\n%s", got, wantJSON)
	}
	// With elevation: the model's value at the place (10*lon + lat).
	r = e.do("GET", "/geolocation/ip.json?elevation=true", nil)
	var withElev struct {
		Elevation *float64 `json:"elevation"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &withElev) != nil || withElev.Elevation == nil || math.Abs(*withElev.Elevation-(85.4+47.37)) > 0.051 {
		t.Errorf("elevation=true: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/geolocation/ip.json?elevation=false", nil); r.status != 200 || strings.Contains(string(r.body), "elevation") {
		t.Errorf("elevation=false: %d %s", r.status, r.body)
	}
	for _, q := range []string{"?elevation=yes", "?elevation=1", "?elevation=true&elevation=true", "?elevation=", "?elev=true"} {
		checkError(t, e.do("GET", "/geolocation/ip.json"+q, nil), 400)
	}
	// Behind the trusted proxy: the first untrusted X-Forwarded-For entry
	// from the right, whatever the client wrote further left.
	r = e.do("GET", "/geolocation/ip.json", nil, "X-Forwarded-For", "81.6.40.1, 62.4.1.2")
	if r.status != 200 || !strings.Contains(string(r.body), `"city":"Paris"`) || !strings.Contains(string(r.body), `"eu":true`) || !strings.Contains(string(r.body), `"postal":"75001"`) {
		t.Errorf("forwarded for Paris: %d %s", r.status, r.body)
	}
	r = e.do("GET", "/geolocation/ip.json", nil, "X-Forwarded-For", "2a02:1210:1::5")
	if r.status != 200 || !strings.Contains(string(r.body), `"city":"Geneva"`) {
		t.Errorf("forwarded for an IPv6 address: %d %s", r.status, r.body)
	}
	// An address the database does not know: 404 with a message.
	checkError(t, e.do("GET", "/geolocation/ip.json", nil, "X-Forwarded-For", "9.9.9.9"), 404)

	// Geocoding: proximity=ip prefers the Springfield near the caller.
	first := func(headers ...string) string {
		r := e.do("GET", "/geocoding/springfield.json?proximity=ip&worldview=auto", nil, headers...)
		var res struct {
			Features []struct {
				Center [2]float64 `json:"center"`
			} `json:"features"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &res) != nil || len(res.Features) != 2 {
			t.Fatalf("geocoding: %d %s", r.status, r.body)
		}
		return fmt.Sprint(res.Features[0].Center)
	}
	if got := first(); got != "[8.6 47.4]" {
		t.Errorf("proximity=ip from Zurich: first %s", got)
	}
	if got := first("X-Forwarded-For", "62.4.1.2"); got != "[2.4 48.9]" {
		t.Errorf("proximity=ip from Paris: first %s", got)
	}

	e.flushUsage()
	if got := e.usageSums(store.ByService)["request/geolocation"]; got != 5 {
		t.Errorf("geolocation requests counted %d, want 5 (answered ones)", got)
	}
}

func TestGeolocationUntrustedAndLocal(t *testing.T) {
	// No trusted proxy: X-Forwarded-For is the client's word and ignored.
	e := geolocationEnv(t, func(c *config.Config) { c.GeolocationLocalAddress = "81.6.40.1" })
	r := e.do("GET", "/geolocation/ip.json", nil, "X-Forwarded-For", "62.4.1.2")
	if r.status != 200 || !strings.Contains(string(r.body), `"city":"Zurich"`) {
		t.Errorf("untrusted X-Forwarded-For: %d %s", r.status, r.body)
	}
	// Without the local address a loopback caller is unknown.
	e = geolocationEnv(t, nil)
	r = e.do("GET", "/geolocation/ip.json", nil)
	checkError(t, r, 404)
	if !strings.Contains(string(r.body), "geolocation_local_address") {
		t.Errorf("404 without a hint: %s", r.body)
	}
	// Geocoding still answers, without a bias.
	if r := e.do("GET", "/geocoding/springfield.json?proximity=ip&worldview=auto", nil); r.status != 200 {
		t.Errorf("geocoding with an unknown caller: %d %s", r.status, r.body)
	}
}

// TestTerrainInAStyle: a map style uses a Terrarium terrain tileset made
// by the elevation package (as tessera demo makes DATA/tiles/terrain) as a
// raster-dem source; the server's renderer shades its hill in a static map.
func TestTerrainInAStyle(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		// A round hill of 3,000 m at 8.5E 47N on a flat plain, 0.05 degree
		// grid.
		g := &elevation.Grid{W: 201, H: 201, X0: 3.5, DX: 0.05, Y0: 42, DY: 0.05, Data: make([]float32, 201*201)}
		for r := 0; r < g.H; r++ {
			for col := 0; col < g.W; col++ {
				d := math.Hypot(float64(col-100), float64(r-100)) * 0.05 / 0.3
				g.Data[r*g.W+col] = float32(3000 * math.Exp(-d*d))
			}
		}
		m := elevation.NewModel(g)
		w, err := mbtiles.Create(filepath.Join(c.DataDir, TilesDir, "terrain.mbtiles"))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		// The tiles around the hill (4..13E, 44..50N) are enough.
		for z := 0; z <= 6; z++ {
			n := float64(int(1) << z)
			tileY := func(lat float64) int {
				return int(n * (1 - math.Log(math.Tan(lat*math.Pi/180)+1/math.Cos(lat*math.Pi/180))/math.Pi) / 2)
			}
			for x := int(n * (4 + 180) / 360); x <= int(n*(13+180)/360); x++ {
				for y := tileY(50); y <= tileY(44); y++ {
					var buf bytes.Buffer
					if err := imageenc.EncodePNG(&buf, m.TerrainTile(z, x, y, 256)); err != nil {
						t.Fatal(err)
					}
					if err := w.PutTile(ctx, z, x, y, buf.Bytes()); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if err := w.SetMetadata(ctx, map[string]string{"name": "terrain", "format": "png", "minzoom": "0", "maxzoom": "6"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		style := `{"version": 8, "sources": {"terrain": {"type": "raster-dem", "url": "/tiles/terrain/tiles.json", "encoding": "terrarium", "tileSize": 256}},
			"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
			{"id": "hills", "type": "hillshade", "source": "terrain", "paint": {"hillshade-shadow-color": "#000000", "hillshade-highlight-color": "#ffffff"}}]}`
		os.MkdirAll(filepath.Join(c.DataDir, MapsDir, "relief"), 0o755)
		if err := os.WriteFile(filepath.Join(c.DataDir, MapsDir, "relief", "style.json"), []byte(style), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r := e.do("GET", "/maps/relief/static/8.5,47,6/256x256.png", nil)
	if r.status != 200 {
		t.Fatalf("static map: %d %s", r.status, r.body)
	}
	img, err := png.Decode(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	lum := func(x, y int) int {
		rr, gg, bb, _ := img.At(x, y).RGBA()
		return int(rr+gg+bb) / 3 >> 8
	}
	// The flat plain far from the hill is one even tone; the hill's slopes
	// facing away from the light (hillshade's default: from the north-west)
	// are darker than those facing it.
	plain := lum(30, 30)
	if d := lum(226, 226) - plain; d < -3 || d > 3 {
		t.Errorf("plain corners differ: %d and %d", plain, lum(226, 226))
	}
	nw, se := lum(128-12, 128-12), lum(128+12, 128+12)
	if se >= nw-20 {
		t.Errorf("no shading: north-west slope %d, south-east slope %d, plain %d", nw, se, plain)
	}
	t.Logf("hillshade: plain %d, north-west slope %d, south-east slope %d", plain, nw, se)
}
