package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/tesseramaps/tessera/internal/geocode"
	"github.com/tesseramaps/tessera/internal/geocode/osm"
	"github.com/tesseramaps/tessera/internal/geocode/sources"
	"github.com/tesseramaps/tessera/internal/geoeval"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
)

// geocodeCmd runs the geocoding verbs: "tessera geocode build".
func geocodeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "eval" {
		return geocodeEval(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "build" {
		return fmt.Errorf("geocode: usage: tessera geocode build [--data DIR | --out FILE] [--cache DIR]\n       tessera geocode eval [--url URL] [--queries FILE]")
	}
	fs := flag.NewFlagSet("geocode build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "data", "data directory: the index goes to DATA/"+server.GeocodingIndex)
	out := fs.String("out", "", "index file to write (overrides --data)")
	cacheDir := fs.String("cache", "", "folder for fetched packages (default DATA/cache)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	osmFile := fs.String("osm", "", "an OpenStreetMap extract (.osm.pbf) whose boundaries, streets, addresses, postal codes and POIs are added")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := noArgs("geocode build", fs); err != nil {
		return err
	}
	if err := checkLogLevel("geocode build", *logLevel); err != nil {
		return err
	}
	if *dataDir == "" && *out == "" {
		return fmt.Errorf("geocode build: give --data or --out")
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
	opts := geocode.BuildOptions{CacheDir: cache, Out: path, Logger: log}
	if *osmFile != "" {
		file := *osmFile
		opts.Extra = func(ctx context.Context) ([]sources.Feature, error) {
			// Countries come from Natural Earth: OSM's would be duplicates.
			return osm.Read(ctx, file, osm.Options{Logger: log, Types: osmTypes})
		}
		opts.ExtraAttribution = osm.Attribution
	}
	if err := geocode.Build(ctx, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "geocoding index written to %s in %s\n", path, time.Since(start).Round(time.Second))
	return nil
}

// osmTypes are the place types taken from OpenStreetMap extracts.
var osmTypes = []string{"region", "subregion", "county", "joint_municipality", "municipality", "municipal_district",
	"locality", "neighbourhood", "place", "postal_code", "address", "road", "poi"}

// geocodeEval runs an evaluation file against a running server and prints
// the score table.
func geocodeEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("geocode eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", "http://127.0.0.1:8080", "the server's root URL")
	queries := fs.String("queries", "../shared/geocode-eval/queries.jsonl", "evaluation file (JSON lines)")
	conc := fs.Int("concurrency", 8, "concurrency of the throughput run")
	dur := fs.Duration("throughput-for", 10*time.Second, "length of the throughput run (negative: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := noArgs("geocode eval", fs); err != nil {
		return err
	}
	if u, err := url.Parse(*base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("geocode eval: --url %q is not an absolute http(s) URL", *base)
	}
	if *conc < 1 || *conc > 1024 {
		return fmt.Errorf("geocode eval: --concurrency %d: want 1 to 1024", *conc)
	}
	qs, err := geoeval.Load(*queries)
	if err != nil {
		return err
	}
	rep, err := geoeval.Run(ctx, *base, qs, geoeval.Options{Concurrency: *conc, ThroughputFor: *dur})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "geocoding evaluation: %d queries from %s against %s\n", len(qs), *queries, *base)
	rep.Print(stdout)
	return nil
}
