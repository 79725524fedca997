package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/weather"
)

// weatherCmd runs the weather verbs: "tessera weather ingest FILE...".
func weatherCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "ingest" {
		return fmt.Errorf("weather: usage: tessera weather ingest [--data DIR] [--last N] FILE.grib2|FILE.nc...")
	}
	fs := flag.NewFlagSet("weather ingest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data directory (default ./data, or TESSERA_DATA_DIR)")
	last := fs.Int("last", 0, "NetCDF files: ingest only each variable's last N times (0: all)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("weather ingest: name one or more GRIB2 or NetCDF classic files (the files of one model run)")
	}
	if *last < 0 {
		return fmt.Errorf("weather ingest: --last %d: give 0 (all times) or more", *last)
	}
	cfg, err := config.Load("", *dataDir, os.Getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	res, err := weather.Ingest(ctx, fs.Args(), weather.IngestOptions{DataDir: cfg.DataDir, Logger: log, Last: *last})
	if err != nil {
		return err
	}
	for _, id := range res.Tilesets {
		fmt.Fprintf(stdout, "tileset %s\n", id)
	}
	fmt.Fprintf(stdout, "%d variables, %d tilesets, %d tiles; %d messages or variables skipped\n", len(res.Variables), len(res.Tilesets), res.Tiles, len(res.Skipped))
	return nil
}
