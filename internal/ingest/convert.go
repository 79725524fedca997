package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/tesseramaps/tessera/internal/geojson"
	"github.com/tesseramaps/tessera/internal/geotiff"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/rastertile"
	"github.com/tesseramaps/tessera/internal/tiler"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// ConvertGeoJSON reads a GeoJSON document and writes it as a vector MBTiles
// tileset at path, with one layer named after name. Zooms are chosen from
// the data (tiler.DefaultZooms); tiles are simplified per zoom, clipped with
// a buffer and gzip-compressed. On error nothing is left at path.
func ConvertGeoJSON(ctx context.Context, r io.Reader, path, name string, log *slog.Logger) error {
	features, err := geojson.Read(ctx, r, geojson.Limits{})
	if err != nil {
		var gerr *geojson.Error
		if errors.As(err, &gerr) || errors.Is(err, geojson.ErrLimit) {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return fmt.Errorf("read the GeoJSON upload: %w", err) // the server's (disk, cancellation)
	}
	if len(features) == 0 {
		return fmt.Errorf("%w: the GeoJSON has no features", ErrInvalid)
	}
	layer := tiler.Layer{Name: LayerName(name), Features: features}
	layers := []tiler.Layer{layer}
	opts := tiler.DefaultOptions()
	opts.MinZoom, opts.MaxZoom = tiler.DefaultZooms(layers)
	opts.Logger = log
	layers[0].MinZoom, layers[0].MaxZoom = opts.MinZoom, opts.MaxZoom
	md := map[string]string{"name": name, "description": "Made by Tessera from " + name + ".geojson", "type": "overlay"}
	if _, err := BuildMBTiles(ctx, layers, opts, path, md); err != nil {
		return err
	}
	return nil
}

// BuildMBTiles runs the tiler over layers into a new vector MBTiles file
// at path and writes its metadata: md plus format, zooms, bounds, center and
// the json row with vector_layers and tilestats. On error nothing is left at
// path.
func BuildMBTiles(ctx context.Context, layers []tiler.Layer, opts tiler.Options, path string, md map[string]string) (*tiler.Result, error) {
	os.Remove(path)
	w, err := mbtiles.Create(path)
	if err != nil {
		return nil, err
	}
	res, err := tiler.Build(ctx, layers, opts, w)
	if err == nil {
		var full map[string]string
		if full, err = metadata(res, md); err == nil {
			err = w.SetMetadata(ctx, full)
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("build %s: %w", path, err)
	}
	return res, nil
}

func metadata(res *tiler.Result, extra map[string]string) (map[string]string, error) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	md := map[string]string{
		"format":  "pbf",
		"minzoom": strconv.Itoa(res.MinZoom),
		"maxzoom": strconv.Itoa(res.MaxZoom),
		"bounds":  strings.Join([]string{f(res.Bounds[0]), f(res.Bounds[1]), f(res.Bounds[2]), f(res.Bounds[3])}, ","),
		"center":  strings.Join([]string{f(res.Center[0]), f(res.Center[1]), f(res.Center[2])}, ","),
		"type":    "overlay",
		"version": "1",
	}
	js, err := res.MetadataJSON()
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	md["json"] = string(js)
	for k, v := range extra {
		md[k] = v
	}
	return md, nil
}

// LayerName makes a vector layer name from a file name: letters, digits
// and '_' kept, others replaced by '_'.
func LayerName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "features"
	}
	return b.String()
}

// CheckTileset checks an uploaded MBTiles or PMTiles file completely
// enough that a truncated or corrupt file is refused: the database's own
// consistency check and its metadata for MBTiles; the header, the size and
// every directory for PMTiles; and a raster tile size the documents can
// describe. What is wrong with the file wraps ErrInvalid; a failure to read
// it (disk, cancellation) does not.
func CheckTileset(ctx context.Context, path string, k kind) error {
	var src tilesource.Source
	switch k {
	case kindMBTiles:
		r, err := mbtiles.Open(ctx, path)
		if err != nil {
			return classify(ctx, err)
		}
		err = r.Check(ctx)
		r.Close()
		if err != nil {
			return classify(ctx, err)
		}
		if src, err = tilesource.OpenFileAs(ctx, path, ".mbtiles"); err != nil {
			return classify(ctx, err)
		}
	case kindPMTiles:
		p, err := tilesource.OpenPMTiles(ctx, path, tilesource.PMTilesOptions{})
		if err != nil {
			return classify(ctx, err)
		}
		if err := p.Check(ctx); err != nil {
			p.Close()
			return classify(ctx, err)
		}
		src = p
	default:
		return fmt.Errorf("%w: not a tileset file", ErrInvalid)
	}
	defer src.Close()
	if err := tilesource.CheckTileSize(src.Info()); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// sqliteServerCodes are SQLite's primary result codes of failures that are
// the machine's, not the file's: busy, locked, out of memory, read-only,
// interrupted, I/O error, disk full, cannot open, protocol.
var sqliteServerCodes = map[int]bool{5: true, 6: true, 7: true, 8: true, 9: true, 10: true, 13: true, 14: true, 15: true}

// classify tells whether an error met while reading an uploaded file is the
// file's fault (wrapped in ErrInvalid) or the server's (returned as is):
// cancellation, file-system errors and SQLite's I/O, memory and locking
// codes are the server's; every other problem is the file's.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return err
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) && sqliteServerCodes[coded.Code()&0xff] {
		return err
	}
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}

// RasterOptions tune ConvertGeoTIFF.
type RasterOptions struct {
	// Format of the tiles: PNG (default) or WebP (lossless).
	Format imageenc.Format
	// MaxPixels bounds the image (geotiff.DefaultMaxPixels when zero).
	MaxPixels int64
	// Progress, when set, is told the fraction of tiles done.
	Progress func(float64)
}

// ConvertGeoTIFF reads the GeoTIFF at path (EPSG:4326 or EPSG:3857) and
// writes it as a raster MBTiles tileset at out, tiled by rastertile. What
// is wrong with the file wraps ErrInvalid. On error nothing is left at out.
func ConvertGeoTIFF(ctx context.Context, path, out, name string, opts RasterOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open upload: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat upload: %w", err)
	}
	img, err := geotiff.Decode(f, st.Size(), geotiff.Limits{MaxPixels: opts.MaxPixels})
	if errors.Is(err, geotiff.ErrFormat) {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err != nil {
		return err
	}
	if opts.Format == "" {
		opts.Format = imageenc.PNG
	}
	os.Remove(out)
	w, err := mbtiles.Create(out)
	if err != nil {
		return err
	}
	ropts := rastertile.Options{Format: opts.Format}
	if opts.Progress != nil {
		ropts.Progress = func(done, total int) { opts.Progress(float64(done) / float64(total)) }
	}
	res, err := rastertile.Build(ctx, img, w, ropts)
	if err == nil {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		b := res.Bounds
		err = w.SetMetadata(ctx, map[string]string{
			"name": name, "description": "Made by Tessera from the GeoTIFF " + name,
			"format": string(opts.Format), "type": "overlay", "version": "1",
			"minzoom": strconv.Itoa(res.MinZoom), "maxzoom": strconv.Itoa(res.MaxZoom),
			"bounds": strings.Join([]string{f(b[0]), f(b[1]), f(b[2]), f(b[3])}, ","),
			"center": strings.Join([]string{f((b[0] + b[2]) / 2), f((b[1] + b[3]) / 2), strconv.Itoa(res.MinZoom)}, ","),
		})
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		if errors.Is(err, rastertile.ErrInput) {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return fmt.Errorf("tile the GeoTIFF: %w", err)
	}
	return nil
}
