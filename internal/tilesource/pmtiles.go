package tilesource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tesseramaps/tessera/internal/pmtiles"
)

// PMTiles is a Source over a PMTiles v3 archive, local or remote.
type PMTiles struct {
	r    *pmtiles.Reader
	info Info
}

// PMTilesOptions configure PMTiles sources: a directory cache shared by all
// archives and the settings of remote (HTTP, S3) sources.
type PMTilesOptions = pmtiles.Options

// OpenPMTilesFile opens a local PMTiles archive.
func OpenPMTilesFile(ctx context.Context, path string) (Source, error) {
	return OpenPMTiles(ctx, path, pmtiles.Options{Cache: sharedDirCache})
}

// sharedDirCache holds the decoded directories of every local archive.
var sharedDirCache = pmtiles.NewDirCache(32 << 20)

// OpenPMTiles opens an archive by location: a path, or an http(s):// or
// s3:// URL (see pmtiles.OpenSource).
func OpenPMTiles(ctx context.Context, location string, opts pmtiles.Options) (*PMTiles, error) {
	src, err := pmtiles.OpenSource(ctx, location, opts.Source)
	if err != nil {
		return nil, err
	}
	return OpenPMTilesSource(ctx, src, location, opts)
}

// OpenPMTilesSource opens the archive in src (the shared storage's S3
// object, for example); desc names it in the errors of its header.
func OpenPMTilesSource(ctx context.Context, src pmtiles.RangeSource, desc string, opts pmtiles.Options) (*PMTiles, error) {
	if opts.Cache == nil {
		opts.Cache = sharedDirCache
	}
	r, err := pmtiles.Open(ctx, src, opts)
	if err != nil {
		src.Close()
		return nil, err
	}
	info, err := pmtilesInfo(ctx, r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", desc, err)
	}
	return &PMTiles{r: r, info: info}, nil
}

func pmtilesInfo(ctx context.Context, r *pmtiles.Reader) (Info, error) {
	h := r.Header()
	var info Info
	switch h.TileType {
	case pmtiles.TileTypeMVT:
		info.Format = PBF
	case pmtiles.TileTypePNG:
		info.Format = PNG
	case pmtiles.TileTypeJPEG:
		info.Format = JPG
	case pmtiles.TileTypeWebP:
		info.Format = WebP
	default:
		return Info{}, fmt.Errorf("tile type %s is not served (pbf, png, jpg, webp are)", h.TileType)
	}
	switch h.TileCompression {
	case pmtiles.CompressionNone, pmtiles.CompressionUnknown:
	case pmtiles.CompressionGzip:
		info.TileCompression = "gzip"
	default:
		return Info{}, fmt.Errorf("tile compression %s is not supported (none and gzip are)", h.TileCompression)
	}
	info.MinZoom, info.MaxZoom = int(h.MinZoom), int(h.MaxZoom)
	info.Bounds = [4]float64{h.MinLon, h.MinLat, h.MaxLon, h.MaxLat}
	info.Center = [3]float64{h.CenterLon, h.CenterLat, float64(h.CenterZoom)}
	haveCenter := !(h.CenterLon == 0 && h.CenterLat == 0 && h.CenterZoom == 0)
	fillDefaults(&info, true, haveCenter)
	md, err := r.Metadata(ctx)
	if err != nil {
		return Info{}, err
	}
	if len(md) > 0 {
		var doc struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			Attribution  string          `json:"attribution"`
			Version      any             `json:"version"`
			Type         string          `json:"type"`
			VectorLayers json.RawMessage `json:"vector_layers"`
		}
		// Metadata is free-form: read what is there and ignore the rest.
		if err := json.Unmarshal(md, &doc); err == nil {
			info.Name, info.Description, info.Attribution, info.Type = doc.Name, doc.Description, doc.Attribution, doc.Type
			if doc.Version != nil {
				info.Version = fmt.Sprint(doc.Version)
			}
			if len(doc.VectorLayers) > 0 && doc.VectorLayers[0] == '[' {
				info.VectorLayers = doc.VectorLayers
			}
		}
	}
	if info.Format.Vector() && len(info.VectorLayers) == 0 {
		info.VectorLayers = json.RawMessage("[]")
	}
	if !info.Format.Vector() {
		info.TileSize = firstTileSize(ctx, r)
	}
	return info, nil
}

// errStop ends a directory walk early.
var errStop = errors.New("stop")

// firstTileSize reads the first tile of the archive to tell the raster
// tile size.
func firstTileSize(ctx context.Context, r *pmtiles.Reader) int {
	size := 0
	r.Walk(ctx, func(e pmtiles.Entry) error {
		if e.RunLength == 0 {
			return nil
		}
		if b, ok, err := r.TileByID(ctx, e.TileID); err == nil && ok {
			size = RasterSize(b)
		}
		return errStop
	})
	return size
}

// Info returns the tileset's description.
func (p *PMTiles) Info() Info { return p.info }

// Tile returns the stored bytes of tile z/x/y, or nil when absent.
func (p *PMTiles) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	b, found, err := p.r.Tile(ctx, z, x, y)
	if err != nil || !found {
		return nil, err
	}
	return b, nil
}

// Close releases the archive.
func (p *PMTiles) Close() error { return p.r.Close() }

// Check reads every directory of the archive and checks that each tile
// lies inside the tile data section.
func (p *PMTiles) Check(ctx context.Context) error {
	h := p.r.Header()
	return p.r.Walk(ctx, func(e pmtiles.Entry) error {
		if e.RunLength > 0 && e.Offset+uint64(e.Length) > h.TileDataLength {
			return fmt.Errorf("tile %d lies outside the tile data", e.TileID)
		}
		return nil
	})
}
