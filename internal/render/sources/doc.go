// Package sources reads what a style's sources give one render: vector
// tiles (decoded, and kept between renders in a DecodedCache), GeoJSON
// (clustered and simplified as GL does), raster, raster-dem and image
// sources as textures, and the glyphs and sprite sheets of the symbols
// and patterns. Everything goes through Resources, so the same code reads
// the server's tilesets, files and test fixtures.
//
// Features come out as scene.Feature in world coordinates, in runs by
// tile (scene.Runs); the layers and symbols rooms draw them.
package sources
