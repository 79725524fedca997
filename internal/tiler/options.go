package tiler

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// Sink receives the tiles of a build. Build serialises its calls: PutTile is
// never called concurrently, but may be called from different goroutines.
// Tile addresses use the XYZ scheme (y = 0 at the north edge).
type Sink interface {
	PutTile(ctx context.Context, z, x, y int, data []byte) error
}

// MaxZoomLimit is the highest zoom Build accepts.
const MaxZoomLimit = 22

// Options control a build. Start from DefaultOptions.
type Options struct {
	// MinZoom and MaxZoom bound the zooms written (0..MaxZoomLimit).
	MinZoom, MaxZoom int
	// Extent is the tile extent (0 means mvt.DefaultExtent, 4096).
	Extent uint32
	// Buffer is the clipping buffer around each tile in extent units.
	Buffer int
	// Simplify is the Douglas-Peucker tolerance in pixels of a 256-pixel
	// tile; 0 disables simplification.
	Simplify float64
	// TinyPixels drops, at zooms below MaxZoom, polygons and lines whose
	// bounding box is smaller than this many pixels (of a 256-pixel tile)
	// in both directions; polygon holes and parts below it are dropped too.
	// 0 keeps everything.
	TinyPixels float64
	// PointSpacing thins point features at zooms below MaxZoom: a
	// single-point feature is dropped when an earlier point feature of the
	// same layer (in input order) already fell in the same grid cell of
	// this many pixels (of a 256-pixel tile). Put important points first.
	// 0 keeps every point.
	PointSpacing float64
	// Gzip compresses every tile with gzip.
	Gzip bool
	// Workers is the number of goroutines (0 means runtime.NumCPU()).
	Workers int
	// Logger receives progress logs (nil means slog.Default()).
	Logger *slog.Logger
}

// DefaultOptions returns the options for an MBTiles tileset at zooms 0..14:
// extent 4096, buffer 64, simplification 0.2 pixel, features below one
// pixel and points closer than one pixel to an earlier one dropped at lower
// zooms, gzip-compressed tiles.
func DefaultOptions() Options {
	return Options{
		MinZoom:      0,
		MaxZoom:      14,
		Extent:       mvt.DefaultExtent,
		Buffer:       64,
		Simplify:     0.2,
		TinyPixels:   1,
		PointSpacing: 1,
		Gzip:         true,
	}
}

func (o *Options) validate() error {
	if o.MinZoom < 0 || o.MaxZoom > MaxZoomLimit || o.MinZoom > o.MaxZoom {
		return fmt.Errorf("tiler: invalid zoom range %d..%d (allowed 0..%d)", o.MinZoom, o.MaxZoom, MaxZoomLimit)
	}
	if o.Extent == 0 {
		o.Extent = mvt.DefaultExtent
	}
	if o.Extent > 1<<16 {
		return fmt.Errorf("tiler: extent %d too large", o.Extent)
	}
	if o.Buffer < 0 || o.Buffer > int(o.Extent) {
		return fmt.Errorf("tiler: buffer %d outside 0..%d", o.Buffer, o.Extent)
	}
	if o.Simplify < 0 || o.TinyPixels < 0 || o.PointSpacing < 0 {
		return fmt.Errorf("tiler: negative simplification or tiny-feature threshold")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Result describes a finished build: what TileJSON and MBTiles metadata need.
type Result struct {
	MinZoom int `json:"minzoom"`
	MaxZoom int `json:"maxzoom"`
	// Bounds is [west, south, east, north] in degrees (latitudes clamped to
	// the Web Mercator range).
	Bounds [4]float64 `json:"bounds"`
	// Center is [longitude, latitude, zoom].
	Center       [3]float64    `json:"center"`
	VectorLayers []VectorLayer `json:"vector_layers"`
	TileStats    TileStats     `json:"tilestats"`
	// Tiles is the number of tiles written.
	Tiles int64 `json:"tiles"`
	// Zooms has per-zoom counts, index = zoom - MinZoom.
	Zooms []ZoomStats `json:"zooms"`
}

// VectorLayer is one entry of the TileJSON vector_layers array.
type VectorLayer struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	MinZoom     int    `json:"minzoom"`
	MaxZoom     int    `json:"maxzoom"`
	// Fields maps attribute names to "String", "Number", "Boolean" or
	// "Mixed".
	Fields map[string]string `json:"fields"`
}

// TileStats is a summary of the input in the format of mapbox-geostats.
type TileStats struct {
	LayerCount int          `json:"layerCount"`
	Layers     []LayerStats `json:"layers"`
}

// LayerStats summarises one layer.
type LayerStats struct {
	Layer string `json:"layer"`
	Count int    `json:"count"`
	// Geometry is "Point", "LineString", "Polygon" or "Mixed" (or "" for
	// an empty layer).
	Geometry       string           `json:"geometry"`
	AttributeCount int              `json:"attributeCount"`
	Attributes     []AttributeStats `json:"attributes"`
}

// AttributeStats summarises one attribute of a layer.
type AttributeStats struct {
	Attribute string `json:"attribute"`
	Count     int    `json:"count"`
	// Type is "string", "number", "boolean" or "mixed".
	Type string `json:"type"`
	// Values holds up to MaxStatsValues distinct values.
	Values []any    `json:"values"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
}

// MaxStatsValues is the number of distinct values kept per attribute.
const MaxStatsValues = 100

// ZoomStats counts what was written at one zoom.
type ZoomStats struct {
	Zoom     int   `json:"zoom"`
	Tiles    int64 `json:"tiles"`
	Features int64 `json:"features"`
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
}

// MetadataJSON returns the value of the MBTiles metadata row "json":
// {"vector_layers": [...], "tilestats": {...}}.
func (r *Result) MetadataJSON() ([]byte, error) {
	return json.Marshal(struct {
		VectorLayers []VectorLayer `json:"vector_layers"`
		TileStats    TileStats     `json:"tilestats"`
	}{r.VectorLayers, r.TileStats})
}
