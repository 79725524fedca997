package ogc

import (
	"bytes"
	"database/sql"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tesseramaps/tessera/internal/fixtures"

	_ "modernc.org/sqlite"
)

// sharedDir returns ../shared beside the repository, skipping the test when
// it is absent.
func sharedDir(t *testing.T) string {
	t.Helper()
	return fixtures.Dir(t)
}

// TestGDALFetchesTilesThroughWMTS serves the raster tiles of a fixture
// MBTiles file, lets GDAL read the whole world at zoom 1 through our WMTS
// capabilities (ResourceURL template, matrix set, limits) and compares the
// image GDAL assembles with the four tiles stitched here.
func TestGDALFetchesTilesThroughWMTS(t *testing.T) {
	fixture := filepath.Join(sharedDir(t), "fixtures", "mbtileserver", "testdata", "geography-class-png.mbtiles")
	if _, err := os.Stat(fixture); err != nil {
		t.Skipf("shared fixture absent: %v", err)
	}
	translate := requireTool(t, "gdal_translate")
	db, err := sql.Open("sqlite", "file:"+fixture+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tile := func(z, x, y int) ([]byte, error) {
		var b []byte
		err := db.QueryRowContext(t.Context(), "SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?", z, x, (1<<z)-1-y).Scan(&b)
		return b, err
	}
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("key") != "abc" {
			http.Error(w, "missing key", http.StatusForbidden)
			return
		}
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/tiles/geo/"), "/")
		if len(parts) != 3 || !strings.HasSuffix(parts[2], ".png") {
			http.NotFound(w, r)
			return
		}
		z, e1 := strconv.Atoi(parts[0])
		x, e2 := strconv.Atoi(parts[1])
		y, e3 := strconv.Atoi(strings.TrimSuffix(parts[2], ".png"))
		if e1 != nil || e2 != nil || e3 != nil {
			http.NotFound(w, r)
			return
		}
		b, err := tile(z, x, y)
		if errors.Is(err, sql.ErrNoRows) {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		served.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(b)
	}))
	defer srv.Close()

	e := mustEndpoint(t, srv.URL, "key=abc")
	doc, err := TileSetWMTS(TileSet{ID: "geo", Format: "png", MaxZoom: 1}, e, WMTSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caps := filepath.Join(dir, "caps.xml")
	if err := os.WriteFile(caps, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "world.png")
	cmd := exec.CommandContext(t.Context(), translate, "-q", "-of", "PNG", "-b", "1", "-b", "2", "-b", "3", "WMTS:"+caps, out)
	cmd.Env = append(os.Environ(), "GDAL_HTTP_TIMEOUT=20", "CPL_VSIL_CURL_USE_CACHE=NO", "GDAL_DISABLE_READDIR_ON_OPEN=YES", "NO_PROXY=127.0.0.1",
		"GDAL_ENABLE_WMS_CACHE=NO", "GDAL_DEFAULT_WMS_CACHE_PATH="+filepath.Join(t.TempDir(), "gdalwmscache"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v\n%s", err, b)
	}
	if served.Load() < 4 {
		t.Errorf("GDAL fetched %d tiles, want 4", served.Load())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// stitch the four zoom-1 tiles: column x, row y (y=0 at the north)
	want := image.NewRGBA(image.Rect(0, 0, 512, 512))
	for x := 0; x < 2; x++ {
		for y := 0; y < 2; y++ {
			b, err := tile(1, x, y)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			draw.Draw(want, image.Rect(x*256, y*256, x*256+256, y*256+256), img, image.Point{}, draw.Src)
		}
	}
	if got.Bounds().Dx() != 512 || got.Bounds().Dy() != 512 {
		t.Fatalf("GDAL image is %v, want 512x512", got.Bounds())
	}
	var diff, n float64
	for y := 0; y < 512; y += 2 {
		for x := 0; x < 512; x += 2 {
			r1, g1, b1, _ := got.At(x, y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			diff += absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2)
			n += 3
		}
	}
	if mean := diff / n / 257; mean > 2 {
		t.Errorf("GDAL mosaic differs from the stitched tiles: mean |diff| %.2f per channel", mean)
	}
}

func absDiff(a, b uint32) float64 {
	if a > b {
		return float64(a - b)
	}
	return float64(b - a)
}
