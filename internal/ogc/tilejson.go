package ogc

import (
	"encoding/json"
	"fmt"
)

// TileJSONVersion is the TileJSON version written. Every field of TileJSON
// 2.2.0 is kept, so 2.x clients read the documents too.
const TileJSONVersion = "3.0.0"

// TileJSONDoc is a TileJSON document. Marshal it with encoding/json.
type TileJSONDoc struct {
	TileJSON     string          `json:"tilejson"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Version      string          `json:"version"`
	Attribution  string          `json:"attribution,omitempty"`
	Scheme       string          `json:"scheme"`
	Tiles        []string        `json:"tiles"`
	MinZoom      int             `json:"minzoom"`
	MaxZoom      int             `json:"maxzoom"`
	Bounds       [4]float64      `json:"bounds"`
	Center       [3]float64      `json:"center"`
	VectorLayers json.RawMessage `json:"vector_layers,omitempty"`
	// Format is the tile file extension (pbf, png, jpg, webp): a common
	// extension of TileJSON read by MapLibre tooling and tile servers.
	Format string `json:"format"`
	// TileSize is the pixel size of raster tiles (read by MapLibre GL).
	TileSize int `json:"tileSize,omitempty"`
}

func (s source) tileJSON(tilePrefix string, tileSize int, e Endpoint) *TileJSONDoc {
	return &TileJSONDoc{
		TileJSON:     TileJSONVersion,
		ID:           s.id,
		Name:         s.title,
		Description:  s.description,
		Version:      s.version,
		Attribution:  s.attribution,
		Scheme:       "xyz",
		Tiles:        []string{e.URL(tilePrefix + "/{z}/{x}/{y}." + s.ext)},
		MinZoom:      s.minZoom,
		MaxZoom:      s.maxZoom,
		Bounds:       s.bounds,
		Center:       s.center,
		VectorLayers: s.vectorLayers,
		Format:       s.ext,
		TileSize:     tileSize,
	}
}

// TileJSON describes a tileset; tiles are at {base}/tiles/{id}/{z}/{x}/{y}.{ext}
// (ext pbf for vector tiles). Vector tilesets always carry vector_layers (an
// empty array when unknown); raster tilesets carry tileSize.
func TileJSON(ts TileSet, e Endpoint) (*TileJSONDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := ts.source()
	if err != nil {
		return nil, err
	}
	return s.tileJSON(s.prefix, s.tileSize, e), nil
}

// MapTileJSON describes the raster tiles of a map. tileSize 512 gives
// {base}/maps/{id}/{z}/{x}/{y}.{ext} (served at /maps/{id}/tiles.json) and
// 256 gives {base}/maps/{id}/256/{z}/{x}/{y}.{ext} (/maps/{id}/256/tiles.json).
func MapTileJSON(m Map, e Endpoint, tileSize int) (*TileJSONDoc, error) {
	if err := e.valid(); err != nil {
		return nil, err
	}
	s, err := m.source()
	if err != nil {
		return nil, err
	}
	switch tileSize {
	case 512:
		return s.tileJSON(s.prefix, 512, e), nil
	case 256:
		return s.tileJSON(s.prefix+"/256", 256, e), nil
	}
	return nil, fmt.Errorf("ogc: map %s: tile size %d, want 256 or 512", m.ID, tileSize)
}
