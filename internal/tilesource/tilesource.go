// Package tilesource reads tiles: one interface (metadata, tile by z/x/y)
// with the MBTiles and PMTiles formats behind it, local or remote.
package tilesource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // tile size of JPEG tiles
	_ "image/png"  // tile size of PNG tiles
	"strconv"
	"strings"

	_ "golang.org/x/image/webp" // tile size of WebP tiles
)

// Format is the kind of data in a tileset's tiles.
type Format string

// The tile formats Tessera serves.
const (
	PBF  Format = "pbf"  // Mapbox Vector Tiles
	PNG  Format = "png"  // raster
	JPG  Format = "jpg"  // raster
	WebP Format = "webp" // raster
)

// Vector reports whether tiles of this format are vector tiles.
func (f Format) Vector() bool { return f == PBF }

// MediaType is the Content-Type of a tile of this format.
func (f Format) MediaType() string {
	switch f {
	case PBF:
		return "application/vnd.mapbox-vector-tile"
	case PNG:
		return "image/png"
	case JPG:
		return "image/jpeg"
	case WebP:
		return "image/webp"
	}
	return "application/octet-stream"
}

// Extensions lists the file extensions that clients may put on a tile URL
// of this format; the first one is the one Tessera writes into documents.
func (f Format) Extensions() []string {
	switch f {
	case PBF:
		return []string{"pbf", "mvt"}
	case PNG:
		return []string{"png"}
	case JPG:
		return []string{"jpg", "jpeg"}
	case WebP:
		return []string{"webp"}
	}
	return nil
}

// AcceptsExtension reports whether ext (without its dot) names this format;
// the empty extension is always accepted.
func (f Format) AcceptsExtension(ext string) bool {
	if ext == "" {
		return true
	}
	for _, e := range f.Extensions() {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// ParseFormat reads a format name as MBTiles metadata writes it.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pbf", "mvt", "application/x-protobuf", "application/vnd.mapbox-vector-tile":
		return PBF, nil
	case "png", "image/png":
		return PNG, nil
	case "jpg", "jpeg", "image/jpeg":
		return JPG, nil
	case "webp", "image/webp":
		return WebP, nil
	}
	return "", fmt.Errorf("unknown tile format %q", s)
}

// Sniff tells the format of tile bytes from their first bytes. Gzip or zlib
// data is taken as a compressed vector tile.
func Sniff(b []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, nil
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return JPG, nil
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return WebP, nil
	case IsGzip(b):
		return PBF, nil
	}
	return "", errors.New("tile data is neither gzip, PNG, JPEG nor WebP")
}

// IsGzip reports whether b starts with the gzip magic number.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// Info describes a tileset, from its file's metadata.
type Info struct {
	Format      Format
	Name        string
	Description string
	Attribution string
	Version     string
	// Type is "overlay" or "baselayer" when the file says.
	Type    string
	MinZoom int
	MaxZoom int
	// Bounds is [west, south, east, north] in degrees.
	Bounds [4]float64
	// Center is [longitude, latitude, zoom].
	Center [3]float64
	// VectorLayers is the vector_layers JSON array of a vector tileset.
	VectorLayers json.RawMessage
	// TileSize is the pixel size of raster tiles (256 or 512), told from a
	// stored tile; 0 for vector tilesets or when unknown.
	TileSize int
	// TileCompression is "gzip" when the file says its tiles are
	// gzip-compressed (PMTiles); MBTiles tiles are checked one by one.
	TileCompression string
}

// Source reads one tileset. Implementations are safe for concurrent use.
type Source interface {
	// Info returns the tileset's description.
	Info() Info
	// Tile returns the stored bytes of tile z/x/y (XYZ scheme), or nil
	// when the tileset has no such tile.
	Tile(ctx context.Context, z, x, y int) ([]byte, error)
	// Close releases the source.
	Close() error
}

// WorldBounds is the extent of the Web Mercator tile grid in degrees.
var WorldBounds = [4]float64{-180, -85.05112877980659, 180, 85.05112877980659}

// parseFloats reads n comma-separated numbers.
func parseFloats(s string, n int) ([]float64, bool) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, false
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// fillDefaults completes an Info: missing bounds become the world, a
// missing center the middle of the bounds at a zoom near the minimum.
func fillDefaults(in *Info, haveBounds, haveCenter bool) {
	if in.MaxZoom < in.MinZoom {
		in.MinZoom, in.MaxZoom = in.MaxZoom, in.MinZoom
	}
	b := in.Bounds
	if !haveBounds || !(b[0] >= -180 && b[2] <= 180 && b[1] >= -90 && b[3] <= 90 && b[0] < b[2] && b[1] < b[3]) {
		in.Bounds = WorldBounds
	}
	if !haveCenter {
		z := float64(in.MinZoom)
		if in.MaxZoom > in.MinZoom {
			z = float64(min(in.MinZoom+2, in.MaxZoom))
		}
		in.Center = [3]float64{(in.Bounds[0] + in.Bounds[2]) / 2, (in.Bounds[1] + in.Bounds[3]) / 2, z}
	}
}

// RasterSize returns the pixel width of a raster tile (PNG, JPEG or WebP),
// or 0 when it cannot be told.
func RasterSize(b []byte) int {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width <= 0 {
		return 0
	}
	return cfg.Width
}

// ErrTileSize is wrapped by CheckTileSize's refusals.
var ErrTileSize = errors.New("unsupported raster tile size")

// CheckTileSize refuses raster tiles of a size the tileset documents cannot
// describe: TileJSON, WMTS and OGC API - Tiles describe the Web Mercator
// grid with tiles of 256 or 512 pixels. Vector tiles and raster tiles of
// unknown size pass.
func CheckTileSize(info Info) error {
	if info.Format.Vector() || info.TileSize == 0 || info.TileSize == 256 || info.TileSize == 512 {
		return nil
	}
	return fmt.Errorf("%w: raster tiles of %d pixels (only 256- and 512-pixel tiles can be served: the TileJSON, WMTS and OGC API documents describe the Web Mercator grid with those sizes)", ErrTileSize, info.TileSize)
}
