package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tesseramaps/tessera/internal/config"
	"github.com/tesseramaps/tessera/internal/httpapi/server"
	"github.com/tesseramaps/tessera/internal/pyramid"
)

// imageCmd cuts a large picture (PNG streamed row by row; JPEG and TIFF
// within pyramid.MaxWholePixels) into DATA/images/<id>.mbtiles, served at
// /images/<id>/.
func imageCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data directory (default ./data, or TESSERA_DATA_DIR)")
	id := fs.String("id", "", "the image's id (default: the file name without its extension)")
	description := fs.String("description", "", "the image's description")
	attribution := fs.String("attribution", "", "the image's attribution")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("image: name one PNG, JPEG or TIFF file")
	}
	file := fs.Arg(0)
	if *id == "" {
		*id = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if err := pyramid.CheckID(*id); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	cfg, err := config.Load("", *dataDir, os.Getenv)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer f.Close()
	rows, format, err := pyramid.Open(f)
	if err != nil {
		return fmt.Errorf("image %s: %w", file, err)
	}
	out := filepath.Join(cfg.DataDir, server.ImagesDir, *id+".mbtiles")
	info, err := pyramid.WriteMBTiles(ctx, rows, out, *id, pyramid.Meta{Description: *description, Attribution: *attribution}, pyramid.Options{})
	if err != nil {
		return err
	}
	// With storage_url the image goes to the shared storage, where every
	// node finds it.
	mirror, err := server.SharedStorage(cfg, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	if err := mirror.Push(ctx, server.ImagesDir+"/"+*id+".mbtiles"); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	fmt.Fprintf(stdout, "%s (%s, %dx%d) -> image %q: zooms %d..%d, %d tiles\n", file, format, info.Width, info.Height, *id, info.MinZoom, info.MaxZoom, info.Tiles)
	return nil
}
