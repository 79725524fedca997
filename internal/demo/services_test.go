package demo

import (
	"bytes"
	"errors"
	"image/png"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/geoip"
	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// servicesBuilder is a builder over a fresh data folder whose packages come
// from the repository's .cache/opendata (fetched once, as the demo does).
func servicesBuilder(t *testing.T) *builder {
	t.Helper()
	return &builder{opts: Options{DataDir: t.TempDir(), CacheDir: fixtures.OpenDataCache()}, log: discardLogger(), fetched: map[string]string{}}
}

func TestInstallElevation(t *testing.T) {
	fixtures.Debian(t, ElevationPackage) // skips without apt
	b := servicesBuilder(t)
	if err := b.installElevation(t.Context()); err != nil {
		t.Fatal(err)
	}
	m, err := elevation.Open(t.Context(), filepath.Join(b.opts.DataDir, ElevationDir), discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Grids) != 1 || m.Grids[0].W != 4320 {
		t.Fatalf("installed grids: %+v", m.Grids)
	}
	if v, _, ok := m.At(8.54, 47.37); !ok || v < 400 || v > 700 {
		t.Errorf("Zurich: %g m %v", v, ok)
	}
	// The terrain tileset decodes to the model's values.
	checkTerrain(t, filepath.Join(b.opts.DataDir, "tiles", TerrainTileset), m)
	// A second build reuses what is there.
	if err := b.installElevation(t.Context()); err != nil {
		t.Fatalf("again: %v", err)
	}
}

func TestInstallGeolocation(t *testing.T) {
	fixtures.NPM(t, GeoIPSpec) // skips without npm
	fixtures.Debian(t, ISOCodesPackage)
	b := servicesBuilder(t)
	start := time.Now()
	if err := b.installGeolocation(t.Context()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(b.opts.DataDir, GeolocationDir, geoip.TablesFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("geolocation step: %v, tables %d bytes", time.Since(start).Round(time.Millisecond), fi.Size())
	db, err := geoip.Open(filepath.Join(b.opts.DataDir, GeolocationDir))
	if err != nil || db == nil {
		t.Fatalf("open: %v %v", db, err)
	}
	defer db.Close()
	// Addresses of the real database (DB-IP Lite, the release pinned by
	// GeoIPSpec).
	for _, c := range []struct {
		addr                                  string
		country, cc, continent, region, rcode string
		city, tz                              string
		eu                                    bool
		lang                                  string
	}{
		{"81.2.69.160", "United Kingdom", "GB", "Europe", "England", "ENG", "London", "Europe/London", false, "en"},
		{"129.132.1.1", "Switzerland", "CH", "Europe", "Zurich", "ZH", "Zurich", "Europe/Zurich", false, "de"},
		{"8.8.8.8", "United States", "US", "North America", "California", "CA", "Mountain View", "America/Los_Angeles", false, "en"},
		{"133.11.0.1", "Japan", "JP", "Asia", "Tokyo", "13", "Chiyoda City", "Asia/Tokyo", false, "ja"},
		{"1.1.1.1", "Australia", "AU", "Oceania", "New South Wales", "NSW", "Sydney", "Australia/Sydney", false, "en"},
		{"2a02:1210::1", "Switzerland", "CH", "Europe", "Zurich", "ZH", "Zurich", "Europe/Zurich", false, "de"},
	} {
		loc, err := db.Locate(netip.MustParseAddr(c.addr))
		if err != nil {
			t.Errorf("%s: %v", c.addr, err)
			continue
		}
		if loc.Country != c.country || loc.CountryCode != c.cc || loc.Continent != c.continent || loc.Region != c.region ||
			loc.RegionCode != c.rcode || !strings.HasPrefix(loc.City, c.city) || loc.Timezone != c.tz || loc.EU != c.eu ||
			len(loc.CountryLanguages) == 0 || loc.CountryLanguages[0] != c.lang {
			t.Errorf("%s: %+v", c.addr, loc)
		}
		bd := loc.CountryBounds
		if !(bd[0] <= loc.Longitude && loc.Longitude <= bd[2] && bd[1] <= loc.Latitude && loc.Latitude <= bd[3]) {
			t.Errorf("%s: %g,%g outside the country's bounds %v", c.addr, loc.Longitude, loc.Latitude, bd)
		}
	}
	for addr, want := range map[string]struct {
		cc string
		eu bool
	}{"193.5.1.1": {"AZ", false}, "62.4.0.1": {"FR", true}, "2a02:1210::1": {"CH", false}} {
		if loc, err := db.Locate(netip.MustParseAddr(addr)); err != nil || loc.CountryCode != want.cc || loc.EU != want.eu {
			t.Errorf("%s: %+v %v, want %s eu %v", addr, loc, err, want.cc, want.eu)
		}
	}
	for _, a := range []string{"127.0.0.1", "10.1.2.3", "::1", "fe80::1"} {
		if _, err := db.Locate(netip.MustParseAddr(a)); !errors.Is(err, geoip.ErrNotFound) {
			t.Errorf("%s: err %v, want ErrNotFound", a, err)
		}
	}
}

// checkTerrain reads tiles of the terrain tileset and compares their
// decoded pixels with the model at the pixels' centres.
func checkTerrain(t *testing.T, path string, m *elevation.Model) {
	t.Helper()
	src, err := mbtiles.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	md, err := src.Metadata(t.Context())
	if err != nil || md["format"] != "png" || md["encoding"] != "terrarium" || md["maxzoom"] != strconv.Itoa(TerrainMaxZoom) {
		t.Fatalf("terrain metadata %v %v", md, err)
	}
	for _, c := range [][3]int{{0, 0, 0}, {3, 4, 2}, {4, 8, 5}} {
		data, err := src.Tile(t.Context(), c[0], c[1], c[2])
		if err != nil {
			t.Fatalf("tile %v: %v", c, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("tile %v: %v", c, err)
		}
		n := 256 * math.Exp2(float64(c[0]))
		for _, p := range [][2]int{{0, 0}, {128, 77}, {255, 255}} {
			lon := (float64(c[1]*256+p[0])+0.5)/n*360 - 180
			lat := math.Atan(math.Sinh(math.Pi*(1-2*(float64(c[2]*256+p[1])+0.5)/n))) * 180 / math.Pi
			want, _, _ := m.At(lon, lat)
			r, g, b, _ := img.At(p[0], p[1]).RGBA()
			if got := elevation.TerrariumDecode(uint8(r>>8), uint8(g>>8), uint8(b>>8)); got != math.Round(want) {
				t.Errorf("tile %v pixel %v (%.3f,%.3f): %g m, want %g", c, p, lon, lat, got, want)
			}
		}
	}
}
