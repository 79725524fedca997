// Package mapimage makes a map's images: raster tiles, static maps and WMS
// GetMap pictures, drawn by the renderer from the map's style with the
// server's own tilesets, and kept in a byte-bounded cache.
//
// It knows nothing of HTTP: handlers parse a request (internal/staticmap,
// internal/ogc), call a Service method and write the Image it returns. Every
// render goes through one bounded queue (internal/renderqueue): identical
// concurrent requests render once, a full queue answers ErrBusy at once, a
// render is cut at its deadline and cancelled when its callers have gone.
package mapimage
