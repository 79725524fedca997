package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tesseramaps/tessera/internal/elevation"
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
