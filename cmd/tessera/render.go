package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

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

// cliMemoryLimit is the memory a render verb drawing one image may take
// before it collects garbage: a street view at 512x512 takes about 100 MB,
// the largest image (MaxPixels) a few hundred.
const cliMemoryLimit = 1 << 30

// cliHugeHeap is the heap put on huge pages for one image: a cold render of
// the dense street view at 512 px allocates about 46 MB, at 1024 px about
// 64 MB. A larger picture takes its further memory in 4 KB pages.
const cliHugeHeap = 64 << 20

// renderCmd draws a style or a map to an image file, or pre-renders a
// map's tiles into a raster tileset.
func renderCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stylePath := fs.String("style", "", "the style: a file or a file:// URL")
	dataDir := fs.String("data", "", "the server's data directory: its tilesets, maps and sprites")
	mapID := fs.String("map", "", "a map of the data directory (instead of --style)")
	width := fs.Int("width", 512, "image width in CSS pixels")
	height := fs.Int("height", 512, "image height in CSS pixels")
	ratio := fs.Float64("pixel-ratio", 1, "device pixels per CSS pixel")
	center := fs.String("center", "", "lon,lat (default: the style's center)")
	zoom := fs.Float64("zoom", -1, "zoom (default: the style's zoom)")
	bearing := fs.Float64("bearing", 0, "bearing in degrees (default: the style's)")
	pitch := fs.Float64("pitch", 0, "camera tilt in degrees, 0 to 60 (default: the style's)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	tile := fs.String("tile", "", "draw tile z/x/y instead of a view")
	tileSize := fs.Int("tile-size", 0, "tile size in CSS pixels: 256 or 512 (default 512 for --tile, 256 for --zooms)")
	zooms := fs.String("zooms", "", "with --map: pre-render zooms MIN-MAX into OUT.mbtiles or OUT.pmtiles")
	bbox := fs.String("bbox", "", "with --zooms: west,south,east,north (default: the world)")
	format := fs.String("format", "", "png, jpg or webp (default: from the output's extension, or the map's)")
	quality := fs.Int("quality", 0, "quality of jpg and webp, 1-100")
	out := fs.String("o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*stylePath == "") == (*mapID == "") || *out == "" {
		return fmt.Errorf("render: give --style or --map, and -o\n%s", renderUsage)
	}
	if *mapID != "" && *dataDir == "" {
		return fmt.Errorf("render: --map needs --data")
	}
	log := newLogger(stderr, "warn", "text")
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
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
	var srv *server.Server
	if *dataDir != "" {
		cfg, err := config.Load("", *dataDir, func(string) string { return "" })
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		cfg.Watch, cfg.GeocodingIndex = false, "none"
		if srv, err = server.New(ctx, cfg, log); err != nil {
			return fmt.Errorf("render: %w", err)
		}
		defer srv.Close()
		svc = srv.Images()
	}

	if *zooms != "" {
		if *mapID == "" {
			return fmt.Errorf("render: --zooms needs --map")
		}
		m, ok := srv.Maps.Get(*mapID)
		if !ok {
			return fmt.Errorf("render: no map %q in %s", *mapID, *dataDir)
		}
		o := prerender.Options{Size: *tileSize, Scale: int(*ratio)}
		if _, err := fmt.Sscanf(*zooms, "%d-%d", &o.MinZoom, &o.MaxZoom); err != nil {
			if z, err2 := strconv.Atoi(*zooms); err2 == nil {
				o.MinZoom, o.MaxZoom = z, z
			} else {
				return fmt.Errorf("render: --zooms %q is not MIN-MAX", *zooms)
			}
		}
		if *bbox != "" {
			v, err := parseFloats(*bbox, 4)
			if err != nil {
				return fmt.Errorf("render: --bbox: %w", err)
			}
			copy(o.Bounds[:], v)
		}
		if *format != "" {
			f, err := imageenc.ParseFormat(*format)
			if err != nil {
				return fmt.Errorf("render: %w", err)
			}
			o.Format = f
		}
		bar := newProgressBar(stderr)
		o.Progress = bar.update
		start := time.Now()
		st, err := prerender.Run(ctx, svc, m, *out, o)
		bar.done()
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stdout, "%s: %d tiles, %d bytes in %.1f s (%.1f tiles/s)\n", *out, st.Tiles, st.Bytes, secs, float64(st.Tiles)/secs)
		return nil
	}

	var raw []byte
	dir := "."
	if *mapID != "" {
		m, ok := srv.Maps.Get(*mapID)
		if !ok {
			return fmt.Errorf("render: no map %q in %s", *mapID, *dataDir)
		}
		raw, dir = m.Style, m.Dir
	} else {
		path := strings.TrimPrefix(*stylePath, "file://")
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		raw, dir = b, filepath.Dir(path)
	}
	// One image is drawn once: a process that exits soon need not collect
	// its garbage at all, unless it nears a memory limit (GOMEMLIMIT, or
	// cliMemoryLimit). A pre-rendering run above keeps the defaults.
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(cliMemoryLimit)
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
	// The style is checked while it is drawn; an invalid one is refused
	// and its picture thrown away.
	invalid := make(chan error, 1)
	parsed := st // st is replaced below for a map of the data directory
	go func() {
		if errs := style.Validate(parsed, style.DefaultSpec()); len(errs) > 0 {
			invalid <- fmt.Errorf("render: the style is not valid: %v", errs[0])
			return
		}
		invalid <- nil
	}()
	res := fileResources{dir: dir}
	if svc != nil {
		// The server's own tilesets by name (mbtiles://NAME, /tiles/...).
		if st, err = svc.PrepareStyle(raw, *mapID); err != nil {
			return fmt.Errorf("render: %w", err)
		}
		res.rest = svc.Resources()
	}
	v := render.ViewOf(st, *width, *height, *ratio)
	if *tile != "" {
		var z, x, y int
		if _, err := fmt.Sscanf(*tile, "%d/%d/%d", &z, &x, &y); err != nil || z < 0 || z > mapimage.MaxZoom || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
			return fmt.Errorf("render: --tile %q is not a tile z/x/y", *tile)
		}
		size := *tileSize
		if size == 0 {
			size = 512
		}
		if size != 256 && size != 512 {
			return fmt.Errorf("render: --tile-size %d: want 256 or 512", size)
		}
		v = mapimage.TileView(z, x, y, size, 1)
		v.PixelRatio = *ratio
	}
	if *center != "" {
		c, err := parseFloats(*center, 2)
		if err != nil {
			return fmt.Errorf("render: --center %q is not lon,lat", *center)
		}
		v.Center = [2]float64{c[0], c[1]}
	}
	if *zoom >= 0 {
		v.Zoom = *zoom
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "bearing":
			v.Bearing = *bearing
		case "pitch":
			v.Pitch = *pitch
		}
	})
	f := *format
	if f == "" {
		f = strings.TrimPrefix(filepath.Ext(*out), ".")
	}
	enc, err := imageenc.ParseFormat(f)
	if err != nil {
		return fmt.Errorf("render: %w", err)
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
		return err
	}
	var buf bytes.Buffer
	// Room for the encoded picture at once: a growing buffer copies what
	// it holds each time, and in a short process every page it writes
	// is a page fault. Memory not written is not touched.
	buf.Grow(len(img.Pix) + 4096)
	if err := imageenc.Encode(&buf, img, imageenc.Options{Format: enc, Quality: *quality}); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	fmt.Fprintf(stdout, "%s: %dx%d\n", *out, img.Rect.Dx(), img.Rect.Dy())
	return nil
}

// parseFloats reads n comma-separated numbers.
func parseFloats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%q: want %d comma-separated numbers", s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a number", s, p)
		}
		out[i] = v
	}
	return out, nil
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
