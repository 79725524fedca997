package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/prerender"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/style"
)

// fileResources reads file:// URLs and plain paths (relative ones from
// the style's folder) for the render verb; with a data directory, every
// other URL goes to the server's resources (its tilesets, and http(s)).
type fileResources struct {
	dir  string
	rest render.Resources // nil: no data directory
}

func (f fileResources) Fetch(ctx context.Context, url string) ([]byte, error) {
	path, ok := strings.CutPrefix(url, "file://")
	if !ok {
		if strings.Contains(url, "://") || strings.HasPrefix(url, "/") {
			if f.rest != nil {
				return f.rest.Fetch(ctx, url)
			}
			return nil, fmt.Errorf("%s: only file:// URLs and relative paths are read without --data", url)
		}
		path = filepath.Join(f.dir, url)
	}
	return os.ReadFile(path)
}

const renderUsage = `usage:
  tessera render --style FILE -o OUT.png [--width W --height H --pixel-ratio R --center lon,lat --zoom Z --bearing B --pitch P]
  tessera render --style FILE --tile z/x/y [--tile-size 512] -o OUT.png
  tessera render --data DIR --map ID [view or --tile options] -o OUT.png
  tessera render --data DIR --map ID --zooms 0-6 [--bbox W,S,E,N] [--tile-size 256] -o OUT.mbtiles|OUT.pmtiles

sources drawn: vector, geojson, raster, raster-dem (mapbox, terrarium, custom encodings), image
layers drawn: background, fill, line, circle, symbol, raster, hillshade (every hillshade-method)`

// cliHugeHeap is the heap put on huge pages for one image: a cold render of
// the dense street view at 512 px allocates about 46 MB, at 1024 px about
// 64 MB. A larger picture takes its further memory in 4 KB pages.
const cliHugeHeap = 64 << 20

// renderCmd draws a style or a map to an image file, or pre-renders a
// map's tiles into a raster tileset. Cancelling ctx (SIGINT, SIGTERM)
// stops the drawing and writes nothing.
func renderCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseRenderFlags(args, stderr)
	if err != nil {
		return err
	}
	log := newLogger(stderr, "warn", "text")
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("render: %w", err)
		}
		defer pprof.StopCPUProfile()
	}

	var svc *mapimage.Service
	var m *catalog.Map
	if f.data != "" {
		cfg, err := config.Load("", f.data, func(string) string { return "" })
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		cfg.Watch, cfg.GeocodingIndex = false, "none"
		// Only the map drawn is read and checked, not every map of the
		// directory.
		cfg.OnlyMaps = []string{f.mapID}
		srv, err := server.New(ctx, cfg, log)
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		defer srv.Close()
		svc = srv.Images()
		if f.mapID != "" {
			var ok bool
			if m, ok = srv.Maps.Get(f.mapID); !ok {
				return fmt.Errorf("render: no map %q in %s", f.mapID, f.data)
			}
			if m.State != catalog.StateOK {
				return fmt.Errorf("render: map %q is not usable: %s", f.mapID, strings.Join(m.Problems, "; "))
			}
		}
	}

	if f.zooms != nil {
		o := prerender.Options{MinZoom: f.zooms[0], MaxZoom: f.zooms[1], Bounds: f.bbox, Size: f.tileSize, Scale: int(f.ratio), Format: f.format}
		bar := newProgressBar(stderr)
		o.Progress = bar.update
		start := time.Now()
		st, err := prerender.Run(ctx, svc, m, f.out, o)
		bar.done()
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stdout, "%s: %d tiles, %d bytes in %.1f s (%.1f tiles/s)\n", f.out, st.Tiles, st.Bytes, secs, float64(st.Tiles)/secs)
		return nil
	}

	var raw []byte
	dir := "."
	if m != nil {
		raw, dir = m.Style, m.Dir
	} else {
		path := strings.TrimPrefix(f.style, "file://")
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		raw, dir = b, filepath.Dir(path)
	}
	// One image is drawn once: a process that exits soon need not collect
	// its garbage at all, unless it nears a memory limit: GOMEMLIMIT, or
	// a share of the memory its cgroup or the system leaves it (see
	// cliMemoryLimit). A pre-rendering run above keeps the defaults.
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(cliMemoryLimit("/"))
	}
	debug.SetGCPercent(-1)
	// Its heap is written once: on huge pages that costs a few dozen page
	// faults rather than some twelve thousand.
	heapOnHugePages(cliHugeHeap)
	// Nor is its memory profiled.
	runtime.MemProfileRate = 0
	// The renderer's property tables are built while the style is read.
	type built struct {
		r   *render.Renderer
		err error
	}
	renderer := make(chan built, 1)
	go func() {
		if svc != nil {
			renderer <- built{r: svc.Renderer()}
			return
		}
		r, err := render.New(log)
		if r != nil {
			// One image: a tile's symbols laid out for another render
			// would never be used, so only those of the view are.
			r.KeepLayouts(false)
		}
		renderer <- built{r, err}
	}()
	st, err := style.Parse(raw)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	// A style file is checked while it is drawn; an invalid one is refused
	// and its picture thrown away. A map's style was checked as the data
	// directory's maps were read.
	invalid := make(chan error, 1)
	if m == nil {
		go func() {
			if errs := style.Validate(st, style.DefaultSpec()); len(errs) > 0 {
				invalid <- fmt.Errorf("render: the style is not valid: %v", errs[0])
				return
			}
			invalid <- nil
		}()
	} else {
		invalid <- nil
	}
	res := fileResources{dir: dir}
	if svc != nil {
		// The server's own tilesets by name (mbtiles://NAME, /tiles/...).
		if st, err = svc.PrepareStyle(raw, f.mapID); err != nil {
			return fmt.Errorf("render: %w", err)
		}
		res.rest = svc.Resources()
	}
	v := render.ViewOf(st, f.width, f.height, f.ratio)
	if f.tile != nil {
		v = mapimage.TileView(f.tile[0], f.tile[1], f.tile[2], cmp.Or(f.tileSize, 512), 1)
		v.PixelRatio = f.ratio
	}
	if f.center != nil {
		v.Center = *f.center
	}
	if f.zoom != nil {
		v.Zoom = *f.zoom
	}
	if f.bearing != nil {
		v.Bearing = *f.bearing
	}
	if f.pitch != nil {
		v.Pitch = *f.pitch
	}
	b := <-renderer
	if b.err != nil {
		return b.err
	}
	img, err := b.r.Render(ctx, st, v, res)
	if verr := <-invalid; verr != nil {
		return verr
	}
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	var buf bytes.Buffer
	// Room for the encoded picture at once: a growing buffer copies what
	// it holds each time, and in a short process every page it writes
	// is a page fault. Memory not written is not touched.
	buf.Grow(len(img.Pix) + 4096)
	if err := imageenc.Encode(&buf, img, imageenc.Options{Format: f.format, Quality: f.quality}); err != nil {
		return err
	}
	// Interrupted while encoding: nothing is written.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("render: %w", context.Cause(ctx))
	}
	if err := os.WriteFile(f.out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	fmt.Fprintf(stdout, "%s: %dx%d\n", f.out, img.Rect.Dx(), img.Rect.Dy())
	return nil
}

// progressBar draws "[#####-----] done/total tiles, rate" on one line of
// a terminal (or a log), at most ten times a second.
type progressBar struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, start: time.Now()}
}

func (p *progressBar) update(done, total int) {
	now := time.Now()
	if done != total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	const width = 30
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	rate := float64(done) / max(now.Sub(p.start).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d tiles, %.0f tiles/s", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, total, rate)
}

func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
