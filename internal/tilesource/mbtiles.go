package tilesource

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// MBTiles is a Source over an MBTiles file.
type MBTiles struct {
	r    *mbtiles.Reader
	info Info
}

// OpenMBTiles opens an MBTiles file and reads its description. Files whose
// metadata lacks a format are sniffed from a stored tile.
func OpenMBTiles(ctx context.Context, path string) (*MBTiles, error) {
	r, err := mbtiles.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	info, err := mbtilesInfo(ctx, r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &MBTiles{r: r, info: info}, nil
}

func mbtilesInfo(ctx context.Context, r *mbtiles.Reader) (Info, error) {
	md, err := r.Metadata(ctx)
	if err != nil {
		return Info{}, err
	}
	var info Info
	tile, err := r.AnyTile(ctx)
	if err != nil {
		return Info{}, err
	}
	if f := md["format"]; f != "" {
		if info.Format, err = ParseFormat(f); err != nil {
			return Info{}, err
		}
	} else {
		if tile == nil {
			return Info{}, fmt.Errorf("no format in the metadata and no tile to tell it from")
		}
		if info.Format, err = Sniff(tile); err != nil {
			return Info{}, fmt.Errorf("no format in the metadata, and %w", err)
		}
	}
	if !info.Format.Vector() && tile != nil {
		info.TileSize = RasterSize(tile)
	}
	info.Name = md["name"]
	info.Description = md["description"]
	info.Attribution = md["attribution"]
	info.Version = md["version"]
	info.Type = md["type"]
	lo, hi, ok, err := r.ZoomRange(ctx)
	if err != nil {
		return Info{}, err
	}
	info.MinZoom, info.MaxZoom = 0, 0
	if ok {
		info.MinZoom, info.MaxZoom = lo, hi
	}
	if v, err := strconv.Atoi(strings.TrimSpace(md["minzoom"])); err == nil && v >= 0 && v <= 30 {
		info.MinZoom = v
	}
	if v, err := strconv.Atoi(strings.TrimSpace(md["maxzoom"])); err == nil && v >= 0 && v <= 30 {
		info.MaxZoom = v
	}
	haveBounds, haveCenter := false, false
	if v, ok := parseFloats(md["bounds"], 4); ok {
		copy(info.Bounds[:], v)
		haveBounds = true
	}
	if v, ok := parseFloats(md["center"], 3); ok {
		copy(info.Center[:], v)
		haveCenter = true
	} else if v, ok := parseFloats(md["center"], 2); ok {
		info.Center = [3]float64{v[0], v[1], float64(info.MinZoom)}
		haveCenter = true
	}
	fillDefaults(&info, haveBounds, haveCenter)
	if js := md["json"]; js != "" {
		var doc struct {
			VectorLayers json.RawMessage `json:"vector_layers"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err == nil && len(doc.VectorLayers) > 0 && doc.VectorLayers[0] == '[' {
			info.VectorLayers = doc.VectorLayers
		}
	}
	if info.Format.Vector() && len(info.VectorLayers) == 0 {
		info.VectorLayers = json.RawMessage("[]")
	}
	return info, nil
}

// Info returns the tileset's description.
func (m *MBTiles) Info() Info { return m.info }

// Tile returns the stored bytes of tile z/x/y, or nil when absent.
func (m *MBTiles) Tile(ctx context.Context, z, x, y int) ([]byte, error) {
	return m.r.Tile(ctx, z, x, y)
}

// Close closes the file.
func (m *MBTiles) Close() error { return m.r.Close() }
