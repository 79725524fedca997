// Package render draws GL styles (version 8) into images, in pure Go: no
// GPU, no cgo, no JavaScript. A style and a view (center, zoom, size,
// pixel ratio) go in, a premultiplied RGBA image comes out. The style's
// resources (tiles, TileJSON, GeoJSON, images) are read through one interface,
// Resources, so the same engine draws the server's own tilesets, files and
// test fixtures.
//
// This is the engine's first stage: sources (GeoJSON, vector tiles, raster
// Tiles) and the layers background, fill, line, circle and raster, drawn
// the way GL draws them (package raster). Symbols, image sources, patterns,
// pitch and the other layer types come next (see docs/rendering.md for
// what is done).
package render
