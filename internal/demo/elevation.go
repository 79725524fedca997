package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tesseramaps/tessera/internal/elevation"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mbtiles"
)

// ElevationPackage is the Debian package holding ETOPO5 (NOAA, public
// domain): etopo5.cdf, global land and sea-floor elevations at 5
// arc-minutes, NetCDF classic, 4320x2161 float32 metres.
const ElevationPackage = "ferret-datasets"

// etopoFile is ETOPO5 inside the package.
const etopoFile = "usr/share/ferret-vis/data/etopo5.cdf"

// ElevationDir is the folder of elevation models inside the data folder
// (the server loads every model there), and ElevationModel the global one.
const (
	ElevationDir   = "elevation"
	ElevationModel = "etopo5.nc"
)

// installElevation copies ETOPO5 into DataDir/elevation after checking that
// it loads as a grid.
func (b *builder) installElevation(ctx context.Context) error {
	root, err := b.debian(ctx, ElevationPackage)
	if err != nil {
		return err
	}
	src := filepath.Join(root, filepath.FromSlash(etopoFile))
	g, err := elevation.LoadNetCDF(src)
	if err != nil {
		return err
	}
	dir := filepath.Join(b.opts.DataDir, ElevationDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("elevation: %w", err)
	}
	if err := linkOrCopy(ctx, src, filepath.Join(dir, ElevationModel), 1<<30); err != nil {
		return fmt.Errorf("elevation: %w", err)
	}
	b.log.Info("demo: elevation model installed", "source", ElevationPackage, "width", g.W, "height", g.H)
	return b.writeTerrain(ctx, elevation.NewModel(g))
}

// TerrainTileset is the file name of the terrain tileset inside
// DataDir/tiles: ETOPO5 as Terrarium-encoded PNG tiles, zooms 0 to
// TerrainMaxZoom, for map styles' raster-dem sources
// ({"type": "raster-dem", "url": "/tiles/terrain/tiles.json", "encoding": "terrarium"}).
const TerrainTileset = "terrain.mbtiles"

// TerrainMaxZoom is the terrain tileset's highest zoom: at z4 a 256-pixel
// tile's pixel is about 9.8 km at the equator, ETOPO5's own spacing (maps
// overzoom beyond it).
const TerrainMaxZoom = 4

const terrainAttribution = `<a href="https://www.ngdc.noaa.gov/mgg/global/etopo5.HTML" target="_blank">ETOPO5, NOAA</a> (public domain)`

// writeTerrain writes DataDir/tiles/terrain.mbtiles under a temporary name
// and renames it when complete.
func (b *builder) writeTerrain(ctx context.Context, m *elevation.Model) error {
	start := time.Now()
	dir := filepath.Join(b.opts.DataDir, "tiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("terrain: %w", err)
	}
	final := filepath.Join(dir, TerrainTileset)
	tmp := filepath.Join(dir, "."+TerrainTileset+".tmp-"+strconv.Itoa(os.Getpid()))
	_ = os.Remove(tmp)
	w, err := mbtiles.Create(tmp)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			if w != nil {
				w.Close()
			}
			_ = os.Remove(tmp)
		}
	}()
	var buf bytes.Buffer
	tiles := 0
	for z := 0; z <= TerrainMaxZoom; z++ {
		for x := 0; x < 1<<z; x++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			for y := 0; y < 1<<z; y++ {
				buf.Reset()
				if err := imageenc.EncodePNG(&buf, m.TerrainTile(z, x, y, 256)); err != nil {
					return fmt.Errorf("terrain tile %d/%d/%d: %w", z, x, y, err)
				}
				if err := w.PutTile(ctx, z, x, y, buf.Bytes()); err != nil {
					return err
				}
				tiles++
			}
		}
	}
	err = w.SetMetadata(ctx, map[string]string{
		"name":        "Terrain (ETOPO5)",
		"description": "ETOPO5 global land and sea-floor elevations (5 arc-minutes) as Terrarium-encoded PNG tiles: metres = R*256 + G + B/256 - 32768; use as a raster-dem source with encoding terrarium.",
		"attribution": terrainAttribution,
		"format":      "png",
		"type":        "baselayer",
		"version":     "1",
		"encoding":    "terrarium",
		"minzoom":     "0",
		"maxzoom":     strconv.Itoa(TerrainMaxZoom),
		"bounds":      "-180,-85.05113,180,85.05113",
		"center":      "0,20,2",
	})
	if err != nil {
		return err
	}
	err = w.Close()
	w = nil
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	ok = true
	b.log.Info("demo: terrain tileset written", "path", final, "tiles", tiles, "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// linkOrCopy puts src at dst: a hard link when both are on one file
// system (the cache usually sits inside the data folder), else a copy of
// at most maxBytes bytes.
func linkOrCopy(ctx context.Context, src, dst string, maxBytes int64) error {
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".link-"+strconv.Itoa(os.Getpid()))
	_ = os.Remove(tmp)
	if err := os.Link(src, tmp); err == nil {
		if err := os.Rename(tmp, dst); err != nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("rename %s: %w", tmp, err)
		}
		return nil
	}
	return copyFile(ctx, src, dst, maxBytes)
}
