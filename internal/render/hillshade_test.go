package render

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/render/sources"
)

// funcResources serves what a function makes of each URL.
type funcResources func(url string) ([]byte, error)

func (f funcResources) Fetch(_ context.Context, url string) ([]byte, error) { return f(url) }

// planeDEM serves mapbox-encoded DEM tiles of dim pixels at zoom z of one
// plane: the elevation rises by ax metres a pixel eastwards and ay
// southwards from 1000 m at the top left corner of tile (col0, row0).
// Tiles for which keep returns false are missing.
func planeDEM(t testing.TB, z, dim, col0, row0 int, ax, ay float64, keep func(x, y int) bool) funcResources {
	return planeDEMEncoded(t, "mapbox", z, dim, col0, row0, ax, ay, keep)
}

// planeDEMEncoded is planeDEM in another encoding.
func planeDEMEncoded(t testing.TB, enc string, z, dim, col0, row0 int, ax, ay float64, keep func(x, y int) bool) funcResources {
	return func(url string) ([]byte, error) {
		var tz, tx, ty int
		if _, err := fmt.Sscanf(url, "d/%d/%d/%d", &tz, &tx, &ty); err != nil || tz != z {
			return nil, fmt.Errorf("no tile %s", url)
		}
		if keep != nil && !keep(tx, ty) {
			return nil, fmt.Errorf("no tile %s", url)
		}
		return rendertest.DEMPNG(t, enc, dim, func(x, y int) float64 {
			return 1000 + ax*float64((tx-col0)*dim+x) + ay*float64((ty-row0)*dim+y)
		}), nil
	}
}

// hillshadeStyle is a one-layer hillshade style over the planeDEM tiles
// (512 CSS pixels each, dim pixels of DEM).
func hillshadeStyle(t testing.TB, lon, lat, zoom, bearing float64, paint string) string {
	return hillshadePitched(t, lon, lat, zoom, bearing, 0, paint)
}

func hillshadePitched(t testing.TB, lon, lat, zoom, bearing, pitch float64, paint string) string {
	return fmt.Sprintf(`{"version": 8, "center": [%g, %g], "zoom": %g, "bearing": %g, "pitch": %g,
		"sources": {"d": {"type": "raster-dem", "tiles": ["d/{z}/{x}/{y}"], "tileSize": 512, "maxzoom": 12}},
		"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
			{"id": "h", "type": "hillshade", "source": "d", "paint": {%s}}]}`, lon, lat, zoom, bearing, pitch, paint)
}

// TestRenderHillshade draws planes and checks the colour against GL's
// standard formula, with the light anchored to the map or the viewport.
func TestRenderHillshade(t *testing.T) {
	r := newRenderer(t)
	const dim, z = 64, 12
	n := 1 << z
	// The d a plane rising by a metres a pixel gives at zoom 12, 64
	// pixels: Horn's kernel sums 8a.
	deriv := func(a float64) float64 { return 8 * a / sources.SlopeDivisor(dim, z) }
	paint := `"hillshade-shadow-color": "blue", "hillshade-highlight-color": "red", "hillshade-accent-color": "rgba(0,0,0,0)"`
	// The standard shade over white: (1-f)*blue + f*red times the sine of
	// the slope, blended over the background.
	over := func(d, facing float64) [4]float64 {
		s := math.Sin(math.Atan(0.625 * d))
		a := s
		return [4]float64{facing*s + (1 - a), 1 - a, (1-facing)*s + (1 - a), 1}
	}
	// A tile row near 60°N: the ground under a pixel is half as wide as at
	// the equator, the slopes twice as steep.
	_, wy := geo.LonLatToWorld(0, 60)
	row60 := int(math.Floor(wy * float64(n)))
	_, lat60 := geo.WorldToLonLat(0, float64(row60)/float64(n))
	tests := []struct {
		name       string
		lat        float64
		row0       int
		bearing    float64
		pitch      float64
		paint      string
		ax, ay     float64
		wantFacing float64
		d          float64 // the slope's derivative the colour follows
	}{
		{"flat ground draws nothing", 0, n / 2, 0, 0, `"hillshade-illumination-direction": 270`, 0, 0, -1, 0},
		{"facing the light from the west", 0, n / 2, 0, 0, `"hillshade-illumination-direction": 270, "hillshade-illumination-anchor": "map"`, 100, 0, 1, deriv(100)},
		{"facing away from it", 0, n / 2, 0, 0, `"hillshade-illumination-direction": 90`, 100, 0, 0, deriv(100)},
		{"facing north under the default light (335°)", 0, n / 2, 0, 0, ``, 0, 100, math.Abs(math.Mod(335.0/180+1.5+0.5, 2) - 1), deriv(100)},
		{"map anchor ignores the bearing", 0, n / 2, 90, 0, `"hillshade-illumination-direction": 270, "hillshade-illumination-anchor": "map"`, 100, 0, 1, deriv(100)},
		{"viewport anchor turns the light with the bearing: from the north on the map", 0, n / 2, 90, 0, `"hillshade-illumination-direction": 270`, 100, 0, 0.5, deriv(100)},
		{"viewport anchor: ground facing north gets the highlight", 0, n / 2, 90, 0, `"hillshade-illumination-direction": 270`, 0, 100, 1, deriv(100)},
		{"a tilted camera sees the same shade", 0, n / 2, 0, 50, `"hillshade-illumination-direction": 270`, 100, 0, 1, deriv(100)},
		{"latitude 60 doubles the slope", lat60, row60, 0, 0, `"hillshade-illumination-direction": 270`, 50, 0, 1, deriv(50) / math.Cos(lat60*math.Pi/180)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := parse(t, hillshadePitched(t, 0, tc.lat, z, tc.bearing, tc.pitch, paint+prefixComma(tc.paint)))
			res := planeDEM(t, z, dim, n/2-1, tc.row0-1, tc.ax, tc.ay, nil)
			img, err := r.Render(context.Background(), st, ViewOf(st, 64, 64, 1), res)
			if err != nil {
				t.Fatal(err)
			}
			want := [4]float64{1, 1, 1, 1}
			if tc.wantFacing >= 0 {
				want = over(tc.d, tc.wantFacing)
			}
			for _, p := range [][2]int{{10, 10}, {50, 20}, {33, 60}} {
				o := img.PixOffset(p[0], p[1])
				got := [4]float64{float64(img.Pix[o]) / 255, float64(img.Pix[o+1]) / 255, float64(img.Pix[o+2]) / 255, float64(img.Pix[o+3]) / 255}
				// The slopes are stored in eight bits (1/32 of d a step):
				// a few levels of colour.
				if !near(got, want, 4.0/255) {
					t.Errorf("pixel %v = %v, want %v", p, got, want)
				}
			}
		})
	}
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

// TestHillshadeSeam draws one plane over four tiles meeting at the
// view's centre: with borders filled from the neighbours, every pixel has
// the same slope and colour; with a neighbour missing, the edge of the
// tile left alone shades differently (the test can fail).
func TestHillshadeSeam(t *testing.T) {
	r := newRenderer(t)
	const dim, z = 32, 12
	n := 1 << z
	st := parse(t, hillshadeStyle(t, 0, 0, z, 0, `"hillshade-illumination-direction": 300, "hillshade-exaggeration": 0.8`))
	render := func(keep func(x, y int) bool) *image.RGBA {
		img, err := r.Render(context.Background(), st, ViewOf(st, 128, 128, 1), planeDEM(t, z, dim, n/2-1, n/2-1, 60, -45, keep))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	img := render(nil)
	first := [4]uint8(img.Pix[0:4])
	if first == [4]uint8{255, 255, 255, 255} {
		t.Fatal("nothing drawn")
	}
	for y := 0; y < 128; y++ {
		for x := 0; x < 128; x++ {
			o := img.PixOffset(x, y)
			if p := [4]uint8(img.Pix[o : o+4]); !nearBytes(p, first, 1) {
				t.Fatalf("pixel %d,%d = %v, the plane elsewhere %v: a seam", x, y, p, first)
			}
		}
	}
	// Without the north-east tile, the north-west one's eastern edge sees
	// a flat border.
	alone := render(func(x, y int) bool { return !(x == n/2 && y == n/2-1) })
	o := alone.PixOffset(63, 20)
	if p := [4]uint8(alone.Pix[o : o+4]); nearBytes(p, first, 1) {
		t.Errorf("edge pixel %v without its neighbour shades as the plane: the seam test cannot fail", p)
	}
}

func nearBytes(a, b [4]uint8, tol int) bool {
	for i := range a {
		if d := int(a[i]) - int(b[i]); d > tol || d < -tol {
			return false
		}
	}
	return true
}

// TestDEMSourceTiles checks which DEM tiles a source shows: from a
// TileJSON (with its encoding), none below minzoom or outside bounds, and
// the maxzoom tiles scaled up past maxzoom, shading as the tiles of the
// zoom itself would.
func TestDEMSourceTiles(t *testing.T) {
	r := newRenderer(t)
	const dim, z = 64, 12
	n := 1 << z
	plane := planeDEMEncoded(t, "terrarium", z, dim, n/2-1, n/2-1, 100, 0, nil)
	tests := []struct {
		name    string
		source  string
		zoom    float64
		drawn   bool
		fetched string // a tile the render must read
	}{
		{"TileJSON with its encoding", `{"type": "raster-dem", "url": "tj", "tileSize": 512}`, 12, true, "d/12/2047/2047"},
		{"below minzoom", `{"type": "raster-dem", "url": "tj", "tileSize": 512, "minzoom": 13}`, 12, false, ""},
		{"outside bounds", `{"type": "raster-dem", "url": "tj", "tileSize": 512, "bounds": [10, 10, 20, 20]}`, 12, false, ""},
		{"overzoomed", `{"type": "raster-dem", "url": "tj", "tileSize": 512}`, 14.3, true, "d/12/2047/2047"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fetched := map[string]bool{}
			res := funcResources(func(url string) ([]byte, error) {
				fetched[url] = true
				if url == "tj" {
					return []byte(`{"tiles": ["d/{z}/{x}/{y}"], "maxzoom": 12, "encoding": "terrarium"}`), nil
				}
				return plane(url)
			})
			st := parse(t, fmt.Sprintf(`{"version": 8, "center": [0, 0], "zoom": %g,
				"sources": {"d": %s},
				"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
					{"id": "h", "type": "hillshade", "source": "d", "paint": {"hillshade-illumination-direction": 270,
						"hillshade-shadow-color": "blue", "hillshade-highlight-color": "red", "hillshade-accent-color": "rgba(0,0,0,0)"}}]}`, tc.zoom, tc.source))
			img, err := r.Render(context.Background(), st, ViewOf(st, 32, 32, 1), res)
			if err != nil {
				t.Fatal(err)
			}
			o := img.PixOffset(8, 8)
			got := [4]float64{float64(img.Pix[o]) / 255, float64(img.Pix[o+1]) / 255, float64(img.Pix[o+2]) / 255, 1}
			want := [4]float64{1, 1, 1, 1}
			if tc.drawn {
				// The highlight times the sine of the slope over white.
				s := math.Sin(math.Atan(0.625 * 8 * 100 / sources.SlopeDivisor(dim, z)))
				want = [4]float64{1, 1 - s, 1 - s, 1}
			}
			if !near(got, want, 4.0/255) {
				t.Errorf("pixel = %v, want %v", got, want)
			}
			if tc.fetched != "" && !fetched[tc.fetched] {
				t.Errorf("tile %s not read (read %v)", tc.fetched, fetched)
			}
			for url := range fetched {
				if url != "tj" && !strings.HasPrefix(url, "d/12/") {
					t.Errorf("read %s, past the source's maxzoom", url)
				}
			}
		})
	}
}
