package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/tesseramaps/tessera/internal/geojson"
	"github.com/tesseramaps/tessera/internal/mbtiles"
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
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %v", ErrInvalid, err)
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
// every directory for PMTiles.
func CheckTileset(ctx context.Context, path string, k kind) error {
	switch k {
	case kindMBTiles:
		r, err := mbtiles.Open(ctx, path)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		err = r.Check(ctx)
		r.Close()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		src, err := tilesource.OpenFileAs(ctx, path, ".mbtiles")
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		return src.Close()
	case kindPMTiles:
		src, err := tilesource.OpenPMTiles(ctx, path, tilesource.PMTilesOptions{})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		defer src.Close()
		if err := src.Check(ctx); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		return nil
	}
	return fmt.Errorf("%w: not a tileset file", ErrInvalid)
}
