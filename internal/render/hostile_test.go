package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tesseramaps/tessera/internal/fixtures"
	"github.com/tesseramaps/tessera/internal/render/rendertest"
	"github.com/tesseramaps/tessera/internal/style"
)

// hostileResources serves the hostile styles of testdata/hostile: local://
// from testdata/layers (sprite, glyphs), and hostile:// GeoJSON made on
// demand, so that the fixtures stay small: hostile://lines (n zigzag lines
// of v vertices), hostile://points (n points) and hostile://squares (n
// small squares), spread over span degrees around lon, lat, the same for
// the same query; hostile://bomb a PNG declaring w x h pixels (pngBomb),
// or as a sprite's index (bomb.json) one icon.
// Made once, kept for every render (hostileMade): a server's resources
// come from a cache too.
type hostileResources struct{}

var hostileMade sync.Map // URL -> []byte

func (hostileResources) Fetch(ctx context.Context, raw string) ([]byte, error) {
	if b, ok := hostileMade.Load(raw); ok {
		return b.([]byte), nil
	}
	b, err := makeHostile(ctx, raw)
	if err == nil {
		hostileMade.Store(raw, b)
	}
	return b, err
}

// makeHostile reads or makes the resource of a hostile:// or local:// URL,
// stopping when ctx ends, as a resource fetched over a network would.
func makeHostile(ctx context.Context, raw string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(raw, "local://"); ok {
		return os.ReadFile(filepath.Join("testdata", "layers", filepath.FromSlash(rest)))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "hostile" {
		return nil, fmt.Errorf("no such resource: %s", raw)
	}
	q := u.Query()
	num := func(k string, def float64) float64 {
		if v, err := strconv.ParseFloat(q.Get(k), 64); err == nil {
			return v
		}
		return def
	}
	lon, lat, span := num("lon", 0), num("lat", 0), num("span", 1)
	n, v := int(num("n", 10)), int(num("v", 10))
	rng := rand.New(rand.NewPCG(uint64(n), uint64(v)))
	at := func() [2]float64 {
		return [2]float64{lon + (rng.Float64()-0.5)*span, lat + (rng.Float64()-0.5)*span/2}
	}
	if host, ok := strings.CutPrefix(u.Host, "bomb"); ok {
		// A picture declaring w x h pixels in a few hundred bytes (a
		// raster or DEM tile, an image, a sprite sheet), or a sprite
		// index naming an icon in it.
		if strings.HasSuffix(host, ".json") {
			return []byte(`{"icon": {"x": 0, "y": 0, "width": 16, "height": 16, "pixelRatio": 1}}`), nil
		}
		return rendertest.PNGBomb(int(num("w", 1)), int(num("h", 1))), nil
	}
	var feats []map[string]any
	geometry := func(kind string, coords any) {
		feats = append(feats, map[string]any{"type": "Feature", "properties": map[string]any{"n": len(feats)},
			"geometry": map[string]any{"type": kind, "coordinates": coords}})
	}
	for i := range n {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch u.Host {
		case "lines":
			line := [][2]float64{at()}
			for range v - 1 {
				p := line[len(line)-1]
				line = append(line, [2]float64{p[0] + (rng.Float64()-0.5)*span/10, p[1] + (rng.Float64()-0.5)*span/20})
			}
			geometry("LineString", line)
		case "points":
			geometry("Point", at())
		case "squares":
			p, d := at(), span/100
			geometry("Polygon", [][][2]float64{{p, {p[0] + d, p[1]}, {p[0] + d, p[1] + d}, {p[0], p[1] + d}, p}})
		default:
			return nil, fmt.Errorf("no such resource: %s", raw)
		}
	}
	return json.Marshal(map[string]any{"type": "FeatureCollection", "features": feats})
}

// hostileStyles reads the styles of testdata/hostile.
func hostileStyles(t testing.TB) map[string]*style.Style {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "hostile", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no hostile styles: %v", err)
	}
	out := map[string]*style.Style{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st, err := style.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if errs := style.Validate(st, style.DefaultSpec()); len(errs) > 0 {
			t.Fatalf("%s: the style is not valid: %v", p, errs[0])
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = st
		// The generated data made before any render: its making is the
		// test's, not the render's.
		for _, src := range st.SourceByKey {
			if data, ok := src.Raw.Get("data"); ok {
				if u, ok := data.(string); ok {
					if _, err := (hostileResources{}).Fetch(context.Background(), u); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	return out
}

// Bounds a hostile render must keep: it returns within cancelGrace of its
// context's end, and allocates at most hostileAlloc bytes (its canvases,
// masks and buffers: a 1024x1024 picture's are some 30 MB).
const (
	cancelGrace  = time.Second
	hostileAlloc = 512 << 20
)

// hostileRender renders st in v under ctx and checks what a render of a
// hostile style must do: end with a picture, with ErrWorkBound or with the
// context's error, nothing else; allocate less than hostileAlloc; and when
// ctx ends, return within cancelGrace of it. It returns the error.
func hostileRender(t *testing.T, r *Renderer, ctx context.Context, st *style.Style, v View, onto ...Output) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var img *image.RGBA
	var err error
	if len(onto) > 0 {
		img, err = r.RenderOnto(ctx, st, v, hostileResources{}, onto[0])
	} else {
		img, err = r.Render(ctx, st, v, hostileResources{})
	}
	returned := time.Now()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MB", alloc>>20)
	if alloc > hostileAlloc {
		t.Errorf("the render allocated %d MB, more than %d", alloc>>20, hostileAlloc>>20)
	}
	switch {
	case err == nil && img == nil:
		t.Errorf("no picture and no error")
	case err != nil && !errors.Is(err, ErrWorkBound) && ctx.Err() == nil:
		t.Errorf("the render failed: %v", err)
	}
	if ctx.Err() != nil {
		// The moment the context ended: its deadline, or when it was
		// cancelled (recorded by cancelAfter).
		end, ok := ctx.Deadline()
		if c, cancelled := ctx.Value(cancelledAtKey{}).(*time.Time); cancelled && !c.IsZero() && (!ok || c.Before(end)) {
			end = *c
		}
		if late := returned.Sub(end); late > cancelGrace {
			t.Errorf("the render returned %v after its context ended (%v)", late, ctx.Err())
		}
	}
	return err
}

// cancelledAtKey keys, in a context made by cancelAfter, the time it was
// cancelled.
type cancelledAtKey struct{}

// cancelAfter returns a context cancelled after d, which records when.
func cancelAfter(d time.Duration) (context.Context, context.CancelFunc) {
	at := new(time.Time)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), cancelledAtKey{}, at))
	timer := time.AfterFunc(d, func() {
		*at = time.Now()
		cancel()
	})
	return ctx, func() {
		timer.Stop()
		cancel()
	}
}

// TestHostileStyles draws the hostile styles of testdata/hostile (lines,
// circles, heatmaps, labels and extrusions that cover a 1024x1024 picture
// thousands of times over): each ends within a second of its deadline or
// of its cancellation, and none allocates past its bound; unhindered, each
// ends with a picture or ErrWorkBound.
func TestHostileStyles(t *testing.T) {
	r := newRenderer(t)
	for name, st := range hostileStyles(t) {
		t.Run(name, func(t *testing.T) {
			v := ViewOf(st, 512, 512, 2)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := hostileRender(t, r, ctx, st, v)
			cancel()
			t.Logf("deadline of 1 s: %v", err)
			ctx, cancel = cancelAfter(100 * time.Millisecond)
			err = hostileRender(t, r, ctx, st, v)
			cancel()
			t.Logf("cancelled after 0.1 s: %v", err)
		})
	}
}

// TestHostileStylesOnto draws the hostile styles as EPSG:4326 GetMaps of
// their views' areas (RenderOnto: symbols drawn on the output, the rest
// warped), under a deadline of a second and cancelled after 0.1 s: the
// same bounds of time and memory as Render's.
func TestHostileStylesOnto(t *testing.T) {
	r := newRenderer(t)
	for name, st := range hostileStyles(t) {
		t.Run(name, func(t *testing.T) {
			v, out := geographic(t, ViewOf(st, 512, 512, 2))
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := hostileRender(t, r, ctx, st, v, out)
			cancel()
			t.Logf("deadline of 1 s: %v", err)
			ctx, cancel = cancelAfter(100 * time.Millisecond)
			err = hostileRender(t, r, ctx, st, v, out)
			cancel()
			t.Logf("cancelled after 0.1 s: %v", err)
		})
	}
}

// TestHostileStylesBounded draws the hostile styles without a deadline:
// the work bound alone ends each, with a picture or ErrWorkBound, and the
// styles that ask for the most drawing are refused.
func TestHostileStylesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("draws each hostile style to its work bound")
	}
	r := newRenderer(t)
	refused := map[string]bool{"line-pattern-wide": true, "circle-huge": true, "heatmap-radius": true, "text-huge": true}
	for name, st := range hostileStyles(t) {
		t.Run(name, func(t *testing.T) {
			cpu := fixtures.ProcessCPU()
			err := hostileRender(t, r, context.Background(), st, ViewOf(st, 256, 256, 2))
			t.Logf("%v of CPU: %v", fixtures.ProcessCPU()-cpu, err)
			if refused[name] && !errors.Is(err, ErrWorkBound) {
				t.Errorf("got %v, want ErrWorkBound", err)
			}
		})
	}
}

// TestWorkOfNormalStyles: the dense street view of the benchmark, at
// the zooms of its tiles and overzoomed, at 1x and 2x, does less than a
// fifth of the work a render may do for each pixel.
func TestWorkOfNormalStyles(t *testing.T) {
	st, res := streetStyle(t)
	r := newRenderer(t)
	var used int64
	var pixels int
	workObserved = func(u int64, px int) { used, pixels = u, px }
	defer func() { workObserved = nil }()
	for _, z := range []float64{14, 15.5, 17} {
		for _, ratio := range []float64{1, 2} {
			v := ViewOf(st, 512, 512, ratio)
			v.Zoom = z
			if _, err := r.Render(context.Background(), st, v, res); err != nil {
				t.Fatalf("z%v@%vx: %v", z, ratio, err)
			}
			perPixel := float64(used) / float64(pixels)
			t.Logf("z%v@%vx: %.2f units of work a pixel", z, ratio, perPixel)
			if perPixel > workPerPixel/5 {
				t.Errorf("z%v@%vx: %.2f units of work a pixel, near the bound of %d", z, ratio, perPixel, workPerPixel)
			}
		}
	}
}

// TestImageBombs: raster, DEM and image sources whose images declare
// 20000x20000 pixels in a few hundred bytes are refused from their
// headers: the render draws without them, allocating what a render of
// its size does, not gigabytes.
func TestImageBombs(t *testing.T) {
	r := newRenderer(t)
	bomb := rendertest.PNGBomb(20000, 20000)
	if len(bomb) > 4096 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	res := funcResources(func(string) ([]byte, error) { return bomb, nil })
	for _, src := range []string{
		`{"type": "raster", "tiles": ["x://{z}/{x}/{y}.png"], "tileSize": 256}`,
		`{"type": "raster-dem", "tiles": ["x://{z}/{x}/{y}.png"], "tileSize": 256}`,
		`{"type": "image", "url": "x://image.png", "coordinates": [[-10, 10], [10, 10], [10, -10], [-10, -10]]}`,
	} {
		layer := "raster"
		if strings.Contains(src, "raster-dem") {
			layer = "hillshade"
		}
		st := parse(t, `{"version": 8, "center": [0, 0], "zoom": 2, "sources": {"s": `+src+`},
			"layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
				{"id": "l", "type": "`+layer+`", "source": "s"}]}`)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := r.Render(context.Background(), st, ViewOf(st, 256, 256, 1), res)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", layer, err)
		}
		if got := img.RGBAAt(128, 128); got != (color.RGBA{255, 255, 255, 255}) {
			t.Errorf("%s: the bomb drew %v", src, got)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("%s: the render allocated %d MB", src, alloc>>20)
		}
	}
}
