// Command tessera is the Tessera map server: one binary whose verbs serve a
// data directory, build the demo world and ingest tileset files.
//
//	tessera serve  --data DIR --listen HOST:PORT   serve DIR (the default verb)
//	tessera demo   --data DIR                      build the demo world into DIR
//	tessera ingest --data DIR FILE...              add MBTiles, PMTiles or GeoJSON files as tilesets
//	tessera convert IN.mbtiles OUT.pmtiles|OUT_DIR copy a tileset to PMTiles or to z/x/y files
//	tessera geocode build --data DIR               build the geocoding index from open data
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
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "tessera:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		verb, args = args[0], args[1:]
	}
	switch verb {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "demo":
		return demoCmd(ctx, args, stdout, stderr)
	case "ingest":
		return ingestCmd(ctx, args, stdout, stderr)
	case "geocode":
		return geocodeCmd(ctx, args, stdout, stderr)
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
  convert  MBTiles to PMTiles, or to z/x/y files  tessera convert IN.mbtiles OUT.pmtiles|OUT_DIR
  geocode  build the geocoding index              tessera geocode build --data DIR
  render   draw a style to an image               tessera render --style style.json -o map.png
  version  print the version

Run "tessera VERB -h" for the flags of a verb.
`)
}

// newLogger makes the process logger.
func newLogger(w io.Writer, level, format string) *slog.Logger {
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
