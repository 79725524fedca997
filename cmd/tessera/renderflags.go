package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/imageenc"
	"github.com/tesseramaps/tessera/internal/mapimage"
	"github.com/tesseramaps/tessera/internal/render"
	"github.com/tesseramaps/tessera/internal/staticmap"
)

// Bounds of the render verb's view flags.
const (
	// maxPixelRatio is the largest --pixel-ratio; the picture's size in
	// device pixels is bounded by render.MaxPixels as well.
	maxPixelRatio = 8
	// maxPitch is the steepest --pitch, in degrees (the renderer's, as GL
	// limits it).
	maxPitch = 60
)

// renderFlags are the render verb's flags, read and checked: every value
// is in range before anything is opened or drawn.
type renderFlags struct {
	style, data, mapID, out, cpuProfile string
	width, height                       int
	ratio                               float64
	quality                             int
	// format is the image format of a picture (from --format or the
	// output's extension), or the tiles' (from --format) with --zooms.
	format imageenc.Format

	// The view, each nil when the flag is not given (the style's own).
	center           *[2]float64
	zoom             *float64
	bearing, pitch   *float64
	tile             *[3]int // z, x, y
	tileSize         int     // 0: the default
	zooms            *[2]int // min, max
	bbox             [4]float64
	bboxSet, viewSet bool
}

// parseRenderFlags reads and checks the render verb's arguments.
func parseRenderFlags(args []string, stderr io.Writer) (*renderFlags, error) {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &renderFlags{}
	fs.StringVar(&f.style, "style", "", "the style: a file or a file:// URL")
	fs.StringVar(&f.data, "data", "", "the server's data directory: its tilesets, maps and sprites")
	fs.StringVar(&f.mapID, "map", "", "a map of the data directory (instead of --style)")
	fs.IntVar(&f.width, "width", 512, "image width in CSS pixels")
	fs.IntVar(&f.height, "height", 512, "image height in CSS pixels")
	fs.Float64Var(&f.ratio, "pixel-ratio", 1, fmt.Sprintf("device pixels per CSS pixel, above 0 and at most %d (1 or 2 with --zooms)", maxPixelRatio))
	center := fs.String("center", "", "lon,lat (default: the style's center)")
	zoom := fs.Float64("zoom", 0, fmt.Sprintf("zoom, 0 to %g (default: the style's zoom)", staticmap.MaxZoom))
	bearing := fs.Float64("bearing", 0, "bearing in degrees (default: the style's)")
	pitch := fs.Float64("pitch", 0, fmt.Sprintf("camera tilt in degrees, 0 to %d (default: the style's)", maxPitch))
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	tile := fs.String("tile", "", "draw tile z/x/y instead of a view")
	fs.IntVar(&f.tileSize, "tile-size", 0, "tile size in CSS pixels: 256 or 512 (default 512 for --tile, 256 for --zooms)")
	zooms := fs.String("zooms", "", "with --map: pre-render zooms MIN-MAX into OUT.mbtiles or OUT.pmtiles")
	bbox := fs.String("bbox", "", "with --zooms: west,south,east,north (default: the world)")
	format := fs.String("format", "", "png, jpg or webp (default: from the output's extension, or the map's)")
	fs.IntVar(&f.quality, "quality", 0, "quality of jpg and webp, 1-100")
	fs.StringVar(&f.out, "o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("render: unexpected arguments %q\n%s", fs.Args(), renderUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if (f.style == "") == (f.mapID == "") || f.out == "" {
		return nil, fmt.Errorf("render: give --style or --map, and -o\n%s", renderUsage)
	}
	if f.mapID != "" && f.data == "" {
		return nil, fmt.Errorf("render: --map needs --data")
	}
	if !(f.ratio > 0 && f.ratio <= maxPixelRatio) {
		return nil, fmt.Errorf("render: --pixel-ratio %v: want a number above 0 and at most %d", f.ratio, maxPixelRatio)
	}
	if f.quality != 0 && (f.quality < 1 || f.quality > 100) {
		return nil, fmt.Errorf("render: --quality %d: want 1 to 100", f.quality)
	}
	if f.tileSize != 0 && f.tileSize != 256 && f.tileSize != 512 {
		return nil, fmt.Errorf("render: --tile-size %d: want 256 or 512", f.tileSize)
	}
	if *format != "" {
		enc, err := imageenc.ParseFormat(*format)
		if err != nil {
			return nil, fmt.Errorf("render: --format: %w", err)
		}
		f.format = enc
	}
	for _, name := range []string{"width", "height", "center", "zoom", "bearing", "pitch", "tile"} {
		f.viewSet = f.viewSet || set[name]
	}
	if *zooms != "" {
		return f, f.checkPrerender(*zooms, *bbox)
	}
	if set["bbox"] {
		return nil, fmt.Errorf("render: --bbox goes with --zooms")
	}
	if f.format == "" {
		enc, err := imageenc.ParseFormat(strings.TrimPrefix(filepath.Ext(f.out), "."))
		if err != nil {
			return nil, fmt.Errorf("render: -o %s: %w (or give --format)", f.out, err)
		}
		f.format = enc
	}
	if f.width < 1 || f.height < 1 || f.width > render.MaxPixels || f.height > render.MaxPixels {
		return nil, fmt.Errorf("render: --width %d --height %d: want 1 or more CSS pixels each", f.width, f.height)
	}
	if *tile != "" {
		z, x, y, err := parseTile(*tile)
		if err != nil {
			return nil, fmt.Errorf("render: --tile: %w", err)
		}
		f.tile = &[3]int{z, x, y}
		if set["width"] || set["height"] {
			return nil, fmt.Errorf("render: --tile draws a tile of --tile-size: --width and --height do not apply")
		}
	} else if set["tile-size"] {
		return nil, fmt.Errorf("render: --tile-size goes with --tile or --zooms")
	}
	if w, h := f.devicePixels(); w < 1 || h < 1 || w*h > render.MaxPixels {
		return nil, fmt.Errorf("render: %dx%d device pixels: want 1 to %d in all (--width, --height, --tile-size times --pixel-ratio)", w, h, render.MaxPixels)
	}
	if *center != "" {
		c, err := parseFloats(*center, 2)
		if err != nil {
			return nil, fmt.Errorf("render: --center %q is not lon,lat", *center)
		}
		if !(c[0] >= -180 && c[0] <= 180) || !(c[1] >= -geo.MaxLat && c[1] <= geo.MaxLat) {
			return nil, fmt.Errorf("render: --center %q: want a longitude from -180 to 180 and a latitude from %.4f to %.4f (the Web Mercator map)", *center, -geo.MaxLat, geo.MaxLat)
		}
		f.center = &[2]float64{c[0], c[1]}
	}
	if set["zoom"] {
		if !(*zoom >= 0 && *zoom <= staticmap.MaxZoom) {
			return nil, fmt.Errorf("render: --zoom %v: want 0 to %g", *zoom, staticmap.MaxZoom)
		}
		f.zoom = zoom
	}
	if set["bearing"] {
		if math.IsNaN(*bearing) || math.IsInf(*bearing, 0) {
			return nil, fmt.Errorf("render: --bearing %v: want a number of degrees", *bearing)
		}
		f.bearing = bearing
	}
	if set["pitch"] {
		if !(*pitch >= 0 && *pitch <= maxPitch) {
			return nil, fmt.Errorf("render: --pitch %v: want 0 to %d degrees", *pitch, maxPitch)
		}
		f.pitch = pitch
	}
	return f, nil
}

// checkPrerender checks the flags of a pre-rendering run (--zooms).
func (f *renderFlags) checkPrerender(zooms, bbox string) error {
	if f.mapID == "" {
		return fmt.Errorf("render: --zooms needs --map")
	}
	if f.viewSet {
		return fmt.Errorf("render: --zooms renders whole tiles: --width, --height, --center, --zoom, --bearing, --pitch and --tile do not apply")
	}
	if f.ratio != 1 && f.ratio != 2 {
		return fmt.Errorf("render: --pixel-ratio %v: --zooms renders tiles at 1 or 2", f.ratio)
	}
	if f.format == imageenc.Basis {
		return fmt.Errorf("render: --format basis: tilesets are png, jpg or webp (the server encodes basis tiles itself)")
	}
	switch strings.ToLower(filepath.Ext(f.out)) {
	case ".mbtiles", ".pmtiles":
	default:
		return fmt.Errorf("render: -o %s: --zooms writes an .mbtiles or a .pmtiles file", f.out)
	}
	lo, hi, ok := strings.Cut(zooms, "-")
	if !ok {
		hi = lo
	}
	zmin, err1 := strconv.Atoi(lo)
	zmax, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || zmin < 0 || zmax > mapimage.MaxZoom || zmin > zmax {
		return fmt.Errorf("render: --zooms %q: want MIN-MAX or one zoom, 0 <= MIN <= MAX <= %d", zooms, mapimage.MaxZoom)
	}
	f.zooms = &[2]int{zmin, zmax}
	if bbox != "" {
		v, err := parseFloats(bbox, 4)
		if err != nil {
			return fmt.Errorf("render: --bbox: %w", err)
		}
		if !(v[0] >= -180 && v[2] <= 180 && v[1] >= -90 && v[3] <= 90 && v[0] < v[2] && v[1] < v[3]) {
			return fmt.Errorf("render: --bbox %q: want west,south,east,north within the world, west < east, south < north", bbox)
		}
		copy(f.bbox[:], v)
		f.bboxSet = true
	}
	return nil
}

// devicePixels is the size of the picture drawn, in device pixels.
func (f *renderFlags) devicePixels() (w, h int) {
	cw, ch := f.width, f.height
	if f.tile != nil {
		cw = cmp.Or(f.tileSize, 512)
		ch = cw
	}
	return int(math.Round(float64(cw) * f.ratio)), int(math.Round(float64(ch) * f.ratio))
}

// parseTile reads z/x/y, a tile of the pyramid.
func parseTile(s string) (z, x, y int, err error) {
	parts := strings.Split(s, "/")
	var v [3]int
	if len(parts) == 3 {
		for i, p := range parts {
			if v[i], err = strconv.Atoi(p); err != nil {
				break
			}
		}
	}
	z, x, y = v[0], v[1], v[2]
	if len(parts) != 3 || err != nil || z < 0 || z > mapimage.MaxZoom || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return 0, 0, 0, fmt.Errorf("%q is not a tile z/x/y (zoom 0 to %d)", s, mapimage.MaxZoom)
	}
	return z, x, y, nil
}

// parseFloats reads n comma-separated finite numbers.
func parseFloats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%q: want %d comma-separated numbers", s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q: %q is not a number", s, p)
		}
		out[i] = v
	}
	return out, nil
}
