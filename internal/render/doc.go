// Package render draws GL styles (version 8) into images, in pure Go: no
// GPU, no cgo, no JavaScript. A style and a view (center, zoom, bearing,
// pitch, size, pixel ratio) go in, a premultiplied RGBA image comes out.
// The style's resources (tiles, TileJSON, GeoJSON, glyphs, sprites,
// images) are read through one interface, Resources, so the same engine
// draws the server's own tilesets, files and test fixtures.
//
// This package is the entry: Renderer, View, Render and their limits. It
// orders the layers, splits a render over two canvases and bounds its
// work; the rooms below do the drawing: sources reads what the style's
// sources give, layers draws the layers that are not symbols, symbols
// lays out, places and draws labels and icons, all over scene (what the
// rooms share) and raster (drawing as GL does). See docs/rendering.md.
package render
