// Package tileconv copies tilesets between storage formats: an MBTiles file
// to a PMTiles archive, or to a folder of z/x/y files (as a static web
// server would serve them).
package tileconv

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tesseramaps/tessera/internal/mbtiles"
	"github.com/tesseramaps/tessera/internal/pmtiles"
	"github.com/tesseramaps/tessera/internal/tilesource"
)

// Stats counts what a conversion copied.
type Stats struct {
	Tiles int64
	Bytes int64
}

// MBTilesToPMTiles writes the tiles and metadata of an MBTiles file into a
// new PMTiles archive at dst (written aside and renamed by the writer).
func MBTilesToPMTiles(ctx context.Context, src, dst string) (Stats, error) {
	s, err := tilesource.OpenMBTiles(ctx, src)
	if err != nil {
		return Stats{}, err
	}
	defer s.Close()
	info := s.Info()
	r, err := mbtiles.Open(ctx, src)
	if err != nil {
		return Stats{}, err
	}
	defer r.Close()

	opts := pmtiles.WriterOptions{TileCompression: pmtiles.CompressionNone}
	switch info.Format {
	case tilesource.PBF:
		opts.TileType = pmtiles.TileTypeMVT
	case tilesource.PNG:
		opts.TileType = pmtiles.TileTypePNG
	case tilesource.JPG:
		opts.TileType = pmtiles.TileTypeJPEG
	case tilesource.WebP:
		opts.TileType = pmtiles.TileTypeWebP
	}
	if info.Format.Vector() {
		// MBTiles vector tiles are (almost always) gzip-compressed; check
		// one rather than assume.
		if t, err := r.AnyTile(ctx); err == nil && tilesource.IsGzip(t) {
			opts.TileCompression = pmtiles.CompressionGzip
		}
	}
	md := map[string]any{"name": info.Name, "description": info.Description, "attribution": info.Attribution, "version": info.Version}
	if info.Type != "" {
		md["type"] = info.Type
	}
	if len(info.VectorLayers) > 0 {
		md["vector_layers"] = json.RawMessage(info.VectorLayers)
	}
	if opts.Metadata, err = json.Marshal(md); err != nil {
		return Stats{}, fmt.Errorf("encode metadata: %w", err)
	}
	opts.Bounds = info.Bounds
	opts.CenterLon, opts.CenterLat, opts.CenterZoom = info.Center[0], info.Center[1], int(info.Center[2])

	w, err := pmtiles.NewWriter(dst, opts)
	if err != nil {
		return Stats{}, err
	}
	var st Stats
	err = r.Each(ctx, func(c mbtiles.Coord, data []byte) error {
		if len(data) == 0 {
			return nil
		}
		st.Tiles++
		st.Bytes += int64(len(data))
		return w.PutTile(c.Z, c.X, c.Y, data)
	})
	if err != nil {
		w.Abort()
		return st, fmt.Errorf("copy tiles of %s: %w", src, err)
	}
	if err := w.Finish(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// MBTilesToDir writes every tile of an MBTiles file as DIR/z/x/y.EXT with
// its stored bytes (gzip-compressed vector tiles stay compressed), and
// returns the list of relative paths written.
func MBTilesToDir(ctx context.Context, src, dir string) ([]string, Stats, error) {
	s, err := tilesource.OpenMBTiles(ctx, src)
	if err != nil {
		return nil, Stats{}, err
	}
	ext := s.Info().Format.Extensions()[0]
	s.Close()
	r, err := mbtiles.Open(ctx, src)
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Close()
	var paths []string
	var st Stats
	made := map[string]bool{}
	err = r.Each(ctx, func(c mbtiles.Coord, data []byte) error {
		rel := filepath.Join(strconv.Itoa(c.Z), strconv.Itoa(c.X), strconv.Itoa(c.Y)+"."+ext)
		d := filepath.Join(dir, filepath.Dir(rel))
		if !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(rel))
		st.Tiles++
		st.Bytes += int64(len(data))
		return nil
	})
	if err != nil {
		return nil, st, fmt.Errorf("export %s: %w", src, err)
	}
	return paths, st, nil
}
