package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/tesseramaps/tessera/internal/demo"
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "data", "data directory to build the demo world into")
	cacheDir := fs.String("cache", "", "folder for fetched packages (default DATA/cache)")
	maxZoom := fs.Int("max-zoom", demo.DefaultMaxZoom, "highest zoom of the world tileset")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := newLogger(stderr, *logLevel, "text")
	if err := demo.Build(ctx, demo.Options{DataDir: *dataDir, CacheDir: *cacheDir, MaxZoom: *maxZoom, Logger: log}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "The demo world is in %s: run  tessera serve --data %s\n", *dataDir, *dataDir)
	return nil
}
