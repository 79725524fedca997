package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

// geocodeCmd runs the geocoding verbs: "tessera geocode build".
func geocodeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "build" {
		return fmt.Errorf("geocode: usage: tessera geocode build [--data DIR | --out FILE] [--cache DIR]")
	}
	fs := flag.NewFlagSet("geocode build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "data", "data directory: the index goes to DATA/"+server.GeocodingIndex)
	out := fs.String("out", "", "index file to write (overrides --data)")
	cacheDir := fs.String("cache", "", "folder for fetched packages (default DATA/cache)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	log := newLogger(stderr, *logLevel, "text")
	path := *out
	if path == "" {
		path = filepath.Join(*dataDir, server.GeocodingIndex)
	}
	cache := *cacheDir
	if cache == "" {
		cache = filepath.Join(*dataDir, "cache")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("geocode build: %w", err)
	}
	start := time.Now()
	if err := geocode.Build(ctx, geocode.BuildOptions{CacheDir: cache, Out: path, Logger: log}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "geocoding index written to %s in %s\n", path, time.Since(start).Round(time.Second))
	return nil
}
