// Command tessera is the Tessera map server: one binary whose verbs serve a
// data directory, build the demo world and ingest tileset files.
//
//	tessera serve  --data DIR --listen HOST:PORT   serve DIR (the default verb)
//	tessera demo   --data DIR                      build the demo world into DIR
//	tessera ingest --data DIR FILE...              add MBTiles, PMTiles or GeoJSON files as tilesets
//	tessera convert IN.mbtiles OUT.pmtiles|OUT_DIR copy a tileset to PMTiles or to z/x/y files
//	tessera geocode build --data DIR               build the geocoding index from open data
//	tessera weather ingest --data DIR FILE...      add GRIB2 or NetCDF model runs as weather tilesets
//	tessera version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	args := os.Args[1:]
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		// A second signal ends the process at once.
		signal.Stop(sigs)
		cancel(fmt.Errorf("interrupted by signal %q", s))
		watchdog(verbOf(args), stopGrace(verbOf(args)), os.Stderr, os.Exit)
	}()
	if err := run(ctx, args, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "tessera: %v: %v\n", context.Cause(ctx), err)
		} else {
			fmt.Fprintln(os.Stderr, "tessera:", err)
		}
		os.Exit(1)
	}
}

// stopGrace is how long a verb may take to stop once interrupted: serve
// finishes its requests (within its 10 s shutdown), every other verb
// cancels its work and returns within a second.
func stopGrace(verb string) time.Duration {
	if verb == "serve" {
		return 15 * time.Second
	}
	return 900 * time.Millisecond
}

// watchdog, started when the process is interrupted, ends it with status 1
// when the verb has not returned within its grace.
func watchdog(verb string, grace time.Duration, stderr io.Writer, exit func(int)) {
	<-time.After(grace)
	fmt.Fprintf(stderr, "tessera: %s did not stop within %v of the signal: exiting\n", verb, grace)
	exit(1)
}

// verbOf returns the verb the arguments name (serve when none).
func verbOf(args []string) string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0]
	}
	return "serve"
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := verbOf(args)
	if len(args) > 0 && args[0] == verb {
		args = args[1:]
	}
	switch verb {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "demo":
		return demoCmd(ctx, args, stdout, stderr)
	case "ingest":
		return ingestCmd(ctx, args, stdout, stderr)
	case "image":
		return imageCmd(ctx, args, stdout, stderr)
	case "geocode":
		return geocodeCmd(ctx, args, stdout, stderr)
	case "weather":
		return weatherCmd(ctx, args, stdout, stderr)
	case "convert":
		return convertCmd(ctx, args, stdout, stderr)
	case "render":
		return renderCmd(ctx, args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "tessera", version)
		return nil
	case "help", "-h", "--help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return fmt.Errorf("unknown verb %q", verb)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: tessera VERB [flags]

Verbs:
  serve    serve a data directory (default)      tessera serve --data DIR --listen HOST:PORT
  demo     build the demo world into DIR          tessera demo --data DIR
  ingest   add tileset files to DIR               tessera ingest --data DIR FILE...
  image    cut a picture into an image pyramid    tessera image --data DIR [--id ID] FILE.png|jpg|tif
  convert  MBTiles to PMTiles, or to z/x/y files  tessera convert IN.mbtiles OUT.pmtiles|OUT_DIR
  geocode  build the geocoding index              tessera geocode build --data DIR
  weather  ingest GRIB2 or NetCDF model output    tessera weather ingest --data DIR FILE.grib2|FILE.nc...
  render   draw a style to an image               tessera render --style style.json -o map.png
  version  print the version

Run "tessera VERB -h" for the flags of a verb.
`)
}

// checkLogLevel refuses a --log-level that newLogger does not know.
func checkLogLevel(verb, level string) error {
	switch level {
	case "debug", "info", "warn", "error":
		return nil
	}
	return fmt.Errorf("%s: --log-level %q: want debug, info, warn or error", verb, level)
}

// noArgs refuses positional arguments to a verb that takes none.
func noArgs(verb string, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", verb, fs.Args())
	}
	return nil
}

// newLogger makes the process logger and sets it as slog's default, so that
// packages logging through slog.Default() (opendata, geocode, ...) write in
// the same format to the same place.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	l := makeLogger(w, level, format)
	slog.SetDefault(l)
	return l
}

// makeLogger makes a logger writing to w at level in format ("json" or
// text).
func makeLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	switch level {
	case "debug":
		lv = slog.LevelDebug
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
