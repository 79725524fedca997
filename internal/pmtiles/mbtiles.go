package pmtiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// WriterOptionsFromMBTiles derives writer settings from the metadata table of
// an MBTiles file, for conversions: the tile type from "format", bounds and
// center from "bounds" and "center", and the metadata JSON from every other
// key (the object in "json", holding vector_layers, is merged at the top
// level). Zoom levels are taken from the tiles. Without a known "format",
// TileType and TileCompression stay unknown so the Writer detects them from
// the first tile; with one, TileCompression is gzip for vector tiles and
// none otherwise (use SniffCompression on a tile when unsure).
func WriterOptionsFromMBTiles(md map[string]string) (WriterOptions, error) {
	var o WriterOptions
	switch strings.ToLower(strings.TrimSpace(md["format"])) {
	case "pbf", "mvt":
		o.TileType, o.TileCompression = TileTypeMVT, CompressionGzip
	case "png":
		o.TileType, o.TileCompression = TileTypePNG, CompressionNone
	case "jpg", "jpeg":
		o.TileType, o.TileCompression = TileTypeJPEG, CompressionNone
	case "webp":
		o.TileType, o.TileCompression = TileTypeWebP, CompressionNone
	case "avif":
		o.TileType, o.TileCompression = TileTypeAVIF, CompressionNone
	default:
		o.TileType, o.TileCompression = TileTypeUnknown, CompressionUnknown
	}
	if b, ok := parseFloats(md["bounds"], 4); ok && b[0] < b[2] && b[1] < b[3] {
		o.Bounds = [4]float64{b[0], b[1], b[2], b[3]}
		if c, ok := parseFloats(md["center"], 3); ok {
			o.CenterLon, o.CenterLat, o.CenterZoom = c[0], c[1], int(c[2])
		} else if c, ok := parseFloats(md["center"], 2); ok {
			o.CenterLon, o.CenterLat = c[0], c[1]
		}
	}
	out := map[string]any{}
	if js := strings.TrimSpace(md["json"]); js != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(js), &extra); err != nil {
			return o, fmt.Errorf("pmtiles: MBTiles metadata key \"json\" is not a JSON object: %w", err)
		}
		maps.Copy(out, extra)
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		switch k {
		case "json", "bounds", "center", "minzoom", "maxzoom":
			continue
		}
		out[k] = md[k]
	}
	b, err := json.Marshal(out)
	if err != nil {
		return o, fmt.Errorf("pmtiles: encode metadata: %w", err)
	}
	o.Metadata = b
	return o, nil
}

func parseFloats(s string, n int) ([]float64, bool) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, false
	}
	v := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, false
		}
		v[i] = f
	}
	return v, true
}

// SniffCompression reports the compression a tile's bytes start with: gzip
// (magic 1f 8b), zstd (magic 28 b5 2f fd) or none.
func SniffCompression(tile []byte) Compression {
	switch {
	case bytes.HasPrefix(tile, []byte{0x1f, 0x8b}):
		return CompressionGzip
	case bytes.HasPrefix(tile, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return CompressionZstd
	}
	return CompressionNone
}

// SniffTileType guesses the tile type from a tile's first bytes: the PNG,
// JPEG, WebP and AVIF signatures, and for vector tiles a gzip stream or a
// protobuf starting with a layer (tag 0x1a).
func SniffTileType(tile []byte) TileType {
	switch {
	case bytes.HasPrefix(tile, []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}):
		return TileTypePNG
	case bytes.HasPrefix(tile, []byte{0xff, 0xd8, 0xff}):
		return TileTypeJPEG
	case len(tile) >= 12 && string(tile[:4]) == "RIFF" && string(tile[8:12]) == "WEBP":
		return TileTypeWebP
	case len(tile) >= 12 && string(tile[4:8]) == "ftyp" && (string(tile[8:12]) == "avif" || string(tile[8:12]) == "avis"):
		return TileTypeAVIF
	case bytes.HasPrefix(tile, []byte{0x1f, 0x8b}), len(tile) > 0 && tile[0] == 0x1a:
		return TileTypeMVT
	}
	return TileTypeUnknown
}
