// Package prerender renders a map's raster tiles for a range of zooms and
// a bounding box into a tileset file: MBTiles or PMTiles, chosen by the
// output's extension. Tiles render in parallel through the map image
// service; the file is written by one goroutine.
package prerender

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/catalog"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/pmtiles"
)

// Options say which tiles to render and how.
type Options struct {
	MinZoom, MaxZoom int
	// Bounds is west, south, east, north in degrees (the world when zero).
	Bounds [4]float64
	// Size is the tile size in pixels: 256 or 512 (0: 256, what raster
	// tileset clients expect).
	Size int
	// Scale is 1 or 2 (0: 1).
	Scale int
	// Format of the tiles (empty: the map's).
	Format imageenc.Format
	// Workers render at once (0: one per core).
	Workers int
	// Progress, when set, is called after each tile with the count done
	// and the total (from one goroutine at a time).
	Progress func(done, total int)
}

// Stats report a finished run.
type Stats struct {
	Tiles int
	Bytes int64
}

// Count returns how many tiles the options cover.
func Count(o Options) int {
	o = withDefaults(o)
	n := 0
	for z := o.MinZoom; z <= o.MaxZoom; z++ {
		x0, x1, y0, y1 := geo.TileRange(o.Bounds[0], o.Bounds[1], o.Bounds[2], o.Bounds[3], z)
		n += (x1 - x0 + 1) * (y1 - y0 + 1)
	}
	return n
}

func withDefaults(o Options) Options {
	if o.Bounds == ([4]float64{}) {
		o.Bounds = [4]float64{-180, -85.0511287798066, 180, 85.0511287798066}
	}
	if o.Size == 0 {
		o.Size = 256
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// check refuses options that cannot make a tileset.
func check(o Options) error {
	switch {
	case o.MinZoom < 0 || o.MaxZoom > mapimage.MaxZoom || o.MinZoom > o.MaxZoom:
		return fmt.Errorf("zooms %d-%d: want 0 <= min <= max <= %d", o.MinZoom, o.MaxZoom, mapimage.MaxZoom)
	case o.Size != 256 && o.Size != 512:
		return fmt.Errorf("tile size %d: want 256 or 512", o.Size)
	case o.Scale != 1 && o.Scale != 2:
		return fmt.Errorf("scale %d: want 1 or 2", o.Scale)
	}
	b := o.Bounds
	if !(b[0] >= -180 && b[2] <= 180 && b[1] >= -90 && b[3] <= 90 && b[0] < b[2] && b[1] < b[3]) {
		return fmt.Errorf("bounds %v: want west,south,east,north within the world, west < east, south < north", b)
	}
	return nil
}

// sink is where tiles go: an MBTiles or a PMTiles writer.
type sink interface {
	put(ctx context.Context, z, x, y int, data []byte) error
	finish(ctx context.Context) error
	abort()
}

// mbtilesSink writes an MBTiles file under a temporary name beside the
// output (hidden, marked .tmp-: see catalog.IsTemporary) and renames it
// over the output once complete, as the PMTiles writer does: a run that
// is killed leaves no half-made tileset at the output path, and a server
// watching the folder never lists the file while it is written.
type mbtilesSink struct {
	w    *mbtiles.Writer
	tmp  string // the file being written
	path string // the output
	meta map[string]string
}

func newMBTilesSink(out string, meta map[string]string) (*mbtilesSink, error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	f.Close()
	// An empty file is an empty SQLite database: Create makes its tables.
	w, err := mbtiles.Create(tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return &mbtilesSink{w: w, tmp: tmp, path: out, meta: meta}, nil
}

func (s *mbtilesSink) put(ctx context.Context, z, x, y int, data []byte) error {
	return s.w.PutTile(ctx, z, x, y, data)
}

func (s *mbtilesSink) finish(ctx context.Context) error {
	if err := s.w.SetMetadata(ctx, s.meta); err != nil {
		return err
	}
	if err := s.w.Close(); err != nil {
		return err
	}
	if err := syncFile(s.tmp); err != nil {
		return err
	}
	if err := os.Chmod(s.tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(s.tmp, s.path)
}

// abort drops the temporary file (finish may have closed the writer
// already: a second Close is harmless).
func (s *mbtilesSink) abort() { s.w.Close(); os.Remove(s.tmp) }

// syncFile flushes a written file to disk before it is renamed into place.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

type pmtilesSink struct{ w *pmtiles.Writer }

func (s *pmtilesSink) put(_ context.Context, z, x, y int, data []byte) error {
	return s.w.PutTile(z, x, y, data)
}
func (s *pmtilesSink) finish(ctx context.Context) error { return s.w.Finish(ctx) }
func (s *pmtilesSink) abort()                           { s.w.Abort() }

// Run renders the map's tiles into out (.mbtiles or .pmtiles). The file is
// written beside out under a temporary name and renamed to out when
// complete: on failure, cancellation or a crash nothing new is left at out
// (a file already there stays until replaced).
func Run(ctx context.Context, svc *mapimage.Service, m *catalog.Map, out string, o Options) (Stats, error) {
	o = withDefaults(o)
	if o.Format == "" {
		o.Format = mapimage.Formats(m)[0]
	}
	if err := check(o); err != nil {
		return Stats{}, fmt.Errorf("prerender: %w", err)
	}
	meta := map[string]string{
		"name": m.Title, "format": string(o.Format), "type": "baselayer",
		"minzoom": fmt.Sprint(o.MinZoom), "maxzoom": fmt.Sprint(o.MaxZoom),
		"bounds":      fmt.Sprintf("%g,%g,%g,%g", o.Bounds[0], o.Bounds[1], o.Bounds[2], o.Bounds[3]),
		"description": fmt.Sprintf("map %s rendered by Tessera (%d px tiles)", m.ID, o.Size*o.Scale),
	}
	if o.Format == imageenc.JPEG {
		meta["format"] = "jpg"
	}
	var sk sink
	switch strings.ToLower(filepath.Ext(out)) {
	case ".mbtiles":
		// A new file replaces an old one only once complete.
		mb, err := newMBTilesSink(out, meta)
		if err != nil {
			return Stats{}, fmt.Errorf("prerender: %w", err)
		}
		sk = mb
	case ".pmtiles":
		md, _ := json.Marshal(meta)
		w, err := pmtiles.NewWriter(out, pmtiles.WriterOptions{Metadata: md, Bounds: o.Bounds, CenterZoom: o.MinZoom,
			CenterLon: (o.Bounds[0] + o.Bounds[2]) / 2, CenterLat: (o.Bounds[1] + o.Bounds[3]) / 2})
		if err != nil {
			return Stats{}, fmt.Errorf("prerender: %w", err)
		}
		sk = &pmtilesSink{w: w}
	default:
		return Stats{}, fmt.Errorf("prerender: output %s: the extension must be .mbtiles or .pmtiles", out)
	}
	st, err := render(ctx, svc, m, sk, o)
	if err != nil {
		sk.abort()
		return Stats{}, err
	}
	if err := sk.finish(ctx); err != nil {
		sk.abort()
		return Stats{}, fmt.Errorf("prerender: write %s: %w", out, err)
	}
	return st, nil
}

type job struct{ z, x, y int }

type result struct {
	job
	data []byte
	err  error
}

// render fans the tiles out to workers and writes their results. It returns
// as soon as ctx is cancelled or a tile fails, without waiting for the tiles
// still being drawn.
func render(ctx context.Context, svc *mapimage.Service, m *catalog.Map, sk sink, o Options) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job)
	results := make(chan result, o.Workers)
	go func() {
		defer close(jobs)
		for z := o.MinZoom; z <= o.MaxZoom; z++ {
			x0, x1, y0, y1 := geo.TileRange(o.Bounds[0], o.Bounds[1], o.Bounds[2], o.Bounds[3], z)
			for x := x0; x <= x1; x++ {
				for y := y0; y <= y1; y++ {
					select {
					case jobs <- job{z, x, y}:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if failed.Load() {
					continue
				}
				img, err := svc.Tile(ctx, mapimage.TileRequest{Map: m, Z: j.z, X: j.x, Y: j.y, Size: o.Size, Scale: o.Scale, Format: o.Format})
				if err != nil {
					failed.Store(true)
				}
				select {
				case results <- result{job: j, data: img.Data, err: err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	total := Count(o)
	var st Stats
	for {
		var r result
		var more bool
		select {
		case r, more = <-results:
		case <-ctx.Done():
			// Interrupted: the run ends now, its file is dropped; the
			// tiles still being drawn end on their own (the workers
			// send nothing more).
			return st, fmt.Errorf("prerender: %w", ctx.Err())
		}
		if !more {
			return st, nil
		}
		if r.err != nil {
			return st, fmt.Errorf("prerender: tile %d/%d/%d: %w", r.z, r.x, r.y, r.err)
		}
		if err := sk.put(ctx, r.z, r.x, r.y, r.data); err != nil {
			return st, fmt.Errorf("prerender: write tile %d/%d/%d: %w", r.z, r.x, r.y, err)
		}
		st.Tiles++
		st.Bytes += int64(len(r.data))
		if o.Progress != nil {
			o.Progress(st.Tiles, total)
		}
	}
}
