package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/style"
)

// fileResources reads file:// URLs and plain paths (relative ones from
// the style's folder) for the render verb.
type fileResources struct{ dir string }

func (f fileResources) Fetch(_ context.Context, url string) ([]byte, error) {
	path, ok := strings.CutPrefix(url, "file://")
	if !ok {
		if strings.Contains(url, "://") {
			return nil, fmt.Errorf("only file:// URLs are read by tessera render for now: %s", url)
		}
		path = filepath.Join(f.dir, url)
	}
	return os.ReadFile(path)
}

// renderCmd draws a style to an image file.
func renderCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stylePath := fs.String("style", "", "the style: a file or a file:// URL")
	width := fs.Int("width", 512, "image width in CSS pixels")
	height := fs.Int("height", 512, "image height in CSS pixels")
	ratio := fs.Float64("pixel-ratio", 1, "device pixels per CSS pixel")
	center := fs.String("center", "", "lon,lat (default: the style's center)")
	zoom := fs.Float64("zoom", -1, "zoom (default: the style's zoom)")
	bearing := fs.Float64("bearing", 0, "bearing in degrees (default: the style's)")
	format := fs.String("format", "", "png, jpg or webp (default: from the output's extension)")
	quality := fs.Int("quality", 0, "quality of jpg and webp, 1-100")
	out := fs.String("o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *stylePath == "" || *out == "" {
		return fmt.Errorf("render: usage: tessera render --style FILE -o OUT.png [--width W --height H --pixel-ratio R --center lon,lat --zoom Z --bearing B]")
	}
	path := strings.TrimPrefix(*stylePath, "file://")
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	st, err := style.Parse(raw)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if errs := style.Validate(st, style.DefaultSpec()); len(errs) > 0 {
		return fmt.Errorf("render: the style is not valid: %v", errs[0])
	}
	v := render.ViewOf(st, *width, *height, *ratio)
	if *center != "" {
		lon, lat, ok := strings.Cut(*center, ",")
		x, err1 := strconv.ParseFloat(lon, 64)
		y, err2 := strconv.ParseFloat(lat, 64)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("render: --center %q is not lon,lat", *center)
		}
		v.Center = [2]float64{x, y}
	}
	if *zoom >= 0 {
		v.Zoom = *zoom
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "bearing" {
			v.Bearing = *bearing
		}
	})
	f := *format
	if f == "" {
		f = strings.TrimPrefix(filepath.Ext(*out), ".")
	}
	enc, err := imageenc.ParseFormat(f)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	r, err := render.New(newLogger(stderr, "warn", "text"))
	if err != nil {
		return err
	}
	img, err := r.Render(ctx, st, v, fileResources{dir: filepath.Dir(path)})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := imageenc.Encode(&buf, img, imageenc.Options{Format: enc, Quality: *quality}); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	fmt.Fprintf(stdout, "%s: %dx%d\n", *out, img.Rect.Dx(), img.Rect.Dy())
	return nil
}
