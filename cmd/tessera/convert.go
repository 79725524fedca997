package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tesseramaps/tessera/internal/tileconv"
)

// convertCmd copies an MBTiles file into a PMTiles archive, or exports it
// as a folder of z/x/y files (with a list of the files written).
func convertCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("list", "", "with a folder as OUT: also write the relative paths of the tiles to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("convert: usage: tessera convert IN.mbtiles OUT.pmtiles|OUT_FOLDER/")
	}
	in, out := fs.Arg(0), fs.Arg(1)
	if *list != "" && strings.ToLower(filepath.Ext(out)) == ".pmtiles" {
		return fmt.Errorf("convert: --list goes with a folder as OUT")
	}
	if strings.ToLower(filepath.Ext(in)) != ".mbtiles" {
		return fmt.Errorf("convert: the input must be an .mbtiles file")
	}
	if strings.ToLower(filepath.Ext(out)) == ".pmtiles" {
		st, err := tileconv.MBTilesToPMTiles(ctx, in, out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s -> %s: %d tiles, %d bytes\n", in, out, st.Tiles, st.Bytes)
		return nil
	}
	paths, st, err := tileconv.MBTilesToDir(ctx, in, out)
	if err != nil {
		return err
	}
	if *list != "" {
		if err := os.WriteFile(*list, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", *list, err)
		}
	}
	fmt.Fprintf(stdout, "%s -> %s/: %d tiles, %d bytes\n", in, out, st.Tiles, st.Bytes)
	return nil
}
