package demo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
)

// WorldMap is the id of the demo map: its files are DataDir/maps/WorldMap.
const WorldMap = "world"

// Files of a map folder.
const (
	// MapStyleFile is the map's GL style.
	MapStyleFile = "style.json"
	// MapIconsDir holds the SVG icons the server packs into the map's sprite.
	MapIconsDir = "icons"
)

// mapData holds the demo map: mapdata/style.json and mapdata/icons/*.svg,
// drawn for Tessera.
//
//go:embed mapdata/style.json mapdata/icons/*.svg
var mapData embed.FS

// WorldStyle returns the GL style of the demo map as written to
// DataDir/maps/world/style.json.
func WorldStyle() []byte {
	b, err := mapData.ReadFile("mapdata/style.json")
	if err != nil {
		panic("demo: embedded style missing: " + err.Error()) // the embed directive guarantees it
	}
	return b
}

// worldIcons returns the embedded icons by file name (capital.svg, ...).
func worldIcons() (map[string][]byte, error) {
	ents, err := fs.ReadDir(mapData, "mapdata/icons")
	if err != nil {
		return nil, err
	}
	icons := map[string][]byte{}
	for _, e := range ents {
		b, err := mapData.ReadFile(path.Join("mapdata/icons", e.Name()))
		if err != nil {
			return nil, err
		}
		icons[e.Name()] = b
	}
	return icons, nil
}

// writeWorldMap writes the demo map: DataDir/maps/world/style.json and its
// icons. The icons folder is replaced as a whole, so icons dropped from the
// demo do not linger in the sprite.
func (b *builder) writeWorldMap(ctx context.Context) error {
	style := WorldStyle()
	if !json.Valid(style) {
		return fmt.Errorf("embedded style is not JSON")
	}
	icons, err := worldIcons()
	if err != nil {
		return fmt.Errorf("icons: %w", err)
	}
	dir := filepath.Join(b.opts.DataDir, "maps", WorldMap)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := replaceIcons(filepath.Join(dir, MapIconsDir), icons); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, MapStyleFile), style); err != nil {
		return err
	}
	b.log.Info("demo: map written", "dir", dir, "icons", len(icons))
	return nil
}

// SpriteSet is the named icon set the demo adds (DataDir/sprites/places,
// served at /sprites/places/sprite{scale}.{format}): the place icons of the
// world map, for pages that draw places on maps of their own.
const SpriteSet = "places"

// writeSpriteSet writes the demo's named icon set.
func (b *builder) writeSpriteSet(ctx context.Context) error {
	icons, err := worldIcons()
	if err != nil {
		return fmt.Errorf("icons: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Join(b.opts.DataDir, "sprites")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return replaceIcons(filepath.Join(dir, SpriteSet), icons)
}

// replaceIcons replaces the folder dir as a whole by the icons (file name
// to bytes), so that icons dropped from the demo do not linger.
func replaceIcons(dir string, icons map[string][]byte) error {
	tmp := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	for name, data := range icons {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			_ = os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames it.
func writeFileAtomic(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}
