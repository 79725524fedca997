// Package tiler cuts vector features into Mapbox Vector Tiles: it projects
// longitude/latitude geometries to Web Mercator, clips them per tile with a
// buffer, simplifies them per zoom and hands the encoded (optionally
// gzip-compressed) tiles to a Sink such as an MBTiles writer.
//
// Build walks the tile pyramid from zoom 0 down: the features of a tile,
// already clipped to it, are clipped into its four children, so each level
// clips the data once; tiles are encoded in parallel. Build's Result holds
// what TileJSON and MBTiles metadata need (zooms, bounds, center,
// vector_layers, tilestats). DefaultZooms picks a zoom range for an upload.
package tiler

import "github.com/paulmach/orb"

// Feature is one input feature in longitude/latitude (WGS 84) coordinates.
type Feature struct {
	// ID is the feature id written into the tiles; 0 means no id.
	ID uint64
	// Geometry is any orb geometry: Point, MultiPoint, LineString,
	// MultiLineString, Polygon, MultiPolygon, Ring, Collection.
	Geometry orb.Geometry
	// Properties are the feature's attributes: string, bool, int, int64,
	// uint64, float64 values (others are written as their JSON text).
	Properties map[string]any
	// MinZoom is the lowest zoom at which the feature appears (0 = from the
	// layer's MinZoom).
	MinZoom int
	// MaxZoom is the highest zoom at which the feature appears (0 = to the
	// layer's MaxZoom).
	MaxZoom int
}

// Layer is one named layer of a vector tileset. Its zoom range works like a
// feature's: MinZoom 0 means from the tileset's MinZoom (Options.MinZoom),
// MaxZoom 0 means to the tileset's MaxZoom. Names must be unique.
type Layer struct {
	Name        string
	Description string
	MinZoom     int
	MaxZoom     int
	Features    []Feature
}
