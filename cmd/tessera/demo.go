package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/demo"
	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "data", "data directory to build the demo world into")
	cacheDir := fs.String("cache", "", "folder for fetched packages (default DATA/cache)")
	maxZoom := fs.Int("max-zoom", demo.DefaultMaxZoom, "highest zoom of the world tileset")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	servicesOnly := fs.Bool("services-only", false, "fetch and install only the services' data (elevation, IP geolocation), not the world")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := noArgs("demo", fs); err != nil {
		return err
	}
	if err := checkLogLevel("demo", *logLevel); err != nil {
		return err
	}
	// demo.Build refuses zooms beyond what its tiler makes; 0 would mean
	// its default there.
	if *maxZoom < 1 {
		return fmt.Errorf("demo: --max-zoom %d: want 1 or more", *maxZoom)
	}
	log := newLogger(stderr, *logLevel, "text")
	start := time.Now()
	if err := demo.Build(ctx, demo.Options{DataDir: *dataDir, CacheDir: *cacheDir, MaxZoom: *maxZoom, Logger: log, StepsAfter: 1, ServicesOnly: *servicesOnly}); err != nil {
		return err
	}
	// The demo's dataset (small): also with --services-only, which make run
	// uses to complete an older data directory.
	cache := *cacheDir
	if cache == "" {
		cache = filepath.Join(*dataDir, "cache")
	}
	if err := demoDataset(ctx, *dataDir, cache, log); err != nil {
		return fmt.Errorf("demo: dataset: %w", err)
	}
	if *servicesOnly {
		fmt.Fprintf(stdout, "The services' data is in %s\n", *dataDir)
		return nil
	}
	// The demo world's geocoding index, from the same open data.
	index := filepath.Join(*dataDir, server.GeocodingIndex)
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	n := demo.StepCount + 1
	demo.Step(log, "geocoding index", n, n, demo.GeocodingShare)
	t0 := time.Now()
	if err := geocode.Build(ctx, geocode.BuildOptions{CacheDir: cache, Out: index, Logger: log}); err != nil {
		return fmt.Errorf("demo: geocoding index: %w", err)
	}
	log.Info("demo: step done", "step", "geocoding index", "elapsed", time.Since(t0).Round(time.Millisecond))
	log.Info("demo: all done", "data", *dataDir, "elapsed", time.Since(start).Round(time.Second))
	// The hint goes to stdout, apart from the log: make run discards it
	// as it serves the data itself.
	fmt.Fprintf(stdout, "The demo world is in %s: run  tessera serve --data %s\n", *dataDir, *dataDir)
	return nil
}

// demoDataset ingests the demo's dataset (demo.SeasGeoJSON) like an
// upload, unless a tileset of its name is there already: the tileset
// /tiles/seas/ and its features /data/seas/features.json.
func demoDataset(ctx context.Context, dataDir, cache string, log *slog.Logger) error {
	cfg, err := config.Load("", dataDir, os.Getenv)
	if err != nil {
		return err
	}
	svc, cat, closeDB, err := openIngest(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, ok := cat.Get(demo.SeasDataset); ok {
		return nil
	}
	data, err := demo.SeasGeoJSON()
	if err != nil {
		return err
	}
	file := filepath.Join(cache, demo.SeasDataset+".geojson")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	defer os.Remove(file)
	e, err := ingestFile(ctx, svc, file)
	if err != nil {
		return err
	}
	log.Info("demo: dataset ingested", "tileset", e.Name, "id", e.ID)
	return nil
}
