// Package sprite turns a map's icons (SVG and PNG files) into sprite sheets for MapLibre GL
// and Mapbox GL clients: one PNG image holding every icon and a JSON index
// {name: {x, y, width, height, pixelRatio[, sdf]}}.
//
// Icon names are file paths relative to the icon folder, '/'-separated, without the
// extension: icons/sub/circle.svg is "sub/circle" (as martin/spreet name them).
//
//   - SVG icons are rendered in pure Go (package svg) at their natural size (width/height,
//     else the viewBox size) times the pixel ratio: a @2x sheet is rendered at twice the size,
//     never scaled up from 1x. Sizes are rounded up to whole pixels.
//   - PNG icons are used as they are. For pixel ratio 2, "name@2x.png" is used when it exists;
//     otherwise the 1x bitmap is placed unchanged with pixelRatio 1 in its index entry, which
//     GL clients honour per image, so it displays at its correct size without resampling.
//     Likewise a 1x sheet falls back to "name@2x.png" (pixelRatio 2) when there is no 1x file.
//   - With Options.SDF every icon becomes a signed distance field (white, distance in alpha),
//     3×ratio px larger on each side, and its index entry says "sdf": true, as in martin's
//     sdf sprite endpoints. On any sheet, an icon file named "name.sdf.svg" (or .sdf.png) is
//     icon "name" drawn as a signed distance field.
//   - Icons are packed without gaps (like the reference sheets), tallest first, with a
//     deterministic skyline packer.
//
// A bad icon (unparsable, too large, empty) is reported in Sheet.Skipped and logged; it does
// not fail the sheet.
package sprite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/sprite/svg"
)

// Icon is one source image.
type Icon struct {
	// Name is the sprite name, e.g. "sub/circle".
	Name string
	// Data is the SVG or PNG source (format sniffed from the content). For a PNG it is the
	// 1x bitmap; it may be empty when only Data2x exists.
	Data []byte
	// Data2x optionally holds a PNG drawn for pixel ratio 2 (the "name@2x.png" file).
	Data2x []byte
	// Source describes where the icon came from (a file path), for messages.
	Source string
	// SDF makes this icon a signed distance field (recolourable with
	// icon-color) even when the sheet is not an SDF sheet. LoadIcons sets
	// it for files named "name.sdf.svg" or "name.sdf.png" (icon "name").
	SDF bool
}

// Options control a build.
type Options struct {
	// PixelRatio is the sheet's pixel ratio: 1 (default), 2, up to 4.
	PixelRatio int
	// SDF turns every icon into a signed distance field.
	SDF bool
	// MaxIcons bounds the number of icons (default 5000). More is an error.
	MaxIcons int
	// MaxIconSize bounds an icon's natural width and height in CSS pixels (default 1024).
	MaxIconSize int
	// MaxFileBytes bounds one source file (default 8 MiB).
	MaxFileBytes int
	// MaxTotalBytes bounds all source files together (default 256 MiB).
	MaxTotalBytes int
	// MaxSheetSide bounds the sheet's width and height in pixels (default 8192).
	MaxSheetSide int
	// MaxSheetPixels bounds the sheet's area (default 8192×4096).
	MaxSheetPixels int
	// MaxIconPixels bounds the rendered size of one icon, width×height after applying the
	// pixel ratio (default 2048×2048).
	MaxIconPixels int
}

func (o Options) withDefaults() Options {
	if o.PixelRatio <= 0 {
		o.PixelRatio = 1
	}
	if o.MaxIcons <= 0 {
		o.MaxIcons = 5000
	}
	if o.MaxIconSize <= 0 {
		o.MaxIconSize = 1024
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 8 << 20
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = 256 << 20
	}
	if o.MaxSheetSide <= 0 {
		o.MaxSheetSide = 8192
	}
	if o.MaxSheetPixels <= 0 {
		o.MaxSheetPixels = 8192 * 4096
	}
	if o.MaxIconPixels <= 0 {
		o.MaxIconPixels = 2048 * 2048
	}
	return o
}

// Entry is one icon's record in the sprite index.
type Entry struct {
	X          int  `json:"x"`
	Y          int  `json:"y"`
	Width      int  `json:"width"`
	Height     int  `json:"height"`
	PixelRatio int  `json:"pixelRatio"`
	SDF        bool `json:"sdf,omitempty"`
	// Stretchable icon metadata, in image pixels, from the bounding boxes of SVG elements
	// with the ids mapbox-content, mapbox-stretch-x[-N], mapbox-stretch-y[-N] and
	// mapbox-stretch (both directions), as spreet/martin read them.
	Content  []float64    `json:"content,omitempty"`  // [left, top, right, bottom]
	StretchX [][2]float64 `json:"stretchX,omitempty"` // [[from, to], ...]
	StretchY [][2]float64 `json:"stretchY,omitempty"`
}

// Sheet is a built sprite sheet.
type Sheet struct {
	PNG     []byte           // the sheet image
	Index   []byte           // the JSON index
	Entries map[string]Entry // the index, decoded
	Width   int              // sheet size in pixels
	Height  int
	Skipped []IconError // icons left out, with the reason
	// ETag is a strong HTTP entity tag (quoted) derived from the PNG and the index; use it
	// for both sprite.png and sprite.json responses of this sheet.
	ETag string
}

// IconError reports an icon that was left out of a sheet.
type IconError struct {
	Name   string
	Source string
	Err    error
}

func (e IconError) Error() string {
	src := e.Source
	if src == "" {
		src = e.Name
	}
	return fmt.Sprintf("sprite icon %s: %v", src, e.Err)
}

func (e IconError) Unwrap() error { return e.Err }

// Errors.
var (
	ErrTooManyIcons = errors.New("sprite: too many icons")
	ErrSheetTooBig  = errors.New("sprite: sheet too large")
	ErrBadRatio     = errors.New("sprite: pixel ratio must be between 1 and 4")
)

// Build renders icons into a sheet and returns the PNG and the JSON index.
func Build(ctx context.Context, icons []Icon, opts Options) (pngData, index []byte, err error) {
	s, err := BuildSheet(ctx, icons, opts)
	if err != nil {
		return nil, nil, err
	}
	return s.PNG, s.Index, nil
}

// BuildDir builds the sheet of the icons under dir, reading through os.Root so that nothing
// outside dir (symbolic links, "..") is ever read. A missing dir is an error wrapping
// fs.ErrNotExist.
func BuildDir(ctx context.Context, dir string, opts Options) (*Sheet, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("sprite: open %s: %w", dir, err)
	}
	defer root.Close()
	return BuildFS(ctx, root.FS(), opts)
}

// BuildFS loads the icons of fsys (see LoadIcons) and builds a sheet.
func BuildFS(ctx context.Context, fsys fs.FS, opts Options) (*Sheet, error) {
	icons, skipped, err := LoadIcons(ctx, fsys, opts)
	if err != nil {
		return nil, err
	}
	s, err := BuildSheet(ctx, icons, opts)
	if err != nil {
		return nil, err
	}
	s.Skipped = append(skipped, s.Skipped...)
	sort.SliceStable(s.Skipped, func(i, j int) bool { return s.Skipped[i].Name < s.Skipped[j].Name })
	return s, nil
}

type rendered struct {
	img   *image.NRGBA
	ratio int
	meta  stretchMeta
	sdf   bool
}

type stretchMeta struct {
	content            []float64
	stretchX, stretchY [][2]float64
}

// BuildSheet renders icons into a sheet. Icons with the same name: the first wins.
func BuildSheet(ctx context.Context, icons []Icon, opts Options) (*Sheet, error) {
	opts = opts.withDefaults()
	if opts.PixelRatio > 4 {
		return nil, fmt.Errorf("%w: %d", ErrBadRatio, opts.PixelRatio)
	}
	if len(icons) > opts.MaxIcons {
		return nil, fmt.Errorf("%w: %d (max %d)", ErrTooManyIcons, len(icons), opts.MaxIcons)
	}
	sheet := &Sheet{Entries: map[string]Entry{}}
	seen := map[string]bool{}
	var pending []Icon
	for _, ic := range icons {
		if err := validName(ic.Name); err != nil {
			sheet.Skipped = append(sheet.Skipped, IconError{Name: ic.Name, Source: ic.Source, Err: err})
			continue
		}
		if seen[ic.Name] {
			sheet.Skipped = append(sheet.Skipped, IconError{Name: ic.Name, Source: ic.Source, Err: errors.New("duplicate name")})
			continue
		}
		seen[ic.Name] = true
		pending = append(pending, ic)
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Name < pending[j].Name })

	// Render concurrently.
	out := make([]rendered, len(pending))
	errs := make([]error, len(pending))
	// On the caller's goroutine and one more for each processor slot free
	// now (cpuslots); a panic is raised in the caller's goroutine.
	var next atomic.Int64
	cpuslots.Render.Spread(min(runtime.GOMAXPROCS(0), len(pending)), func() {
		for i := int(next.Add(1) - 1); i < len(pending) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
			out[i], errs[i] = renderIcon(ctx, pending[i], opts)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sprite: build: %w", err)
	}

	var rs []rect
	var imgs []rendered
	for i, ic := range pending {
		if errs[i] != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("sprite: build: %w", ctx.Err())
			}
			ie := IconError{Name: ic.Name, Source: ic.Source, Err: errs[i]}
			slog.WarnContext(ctx, "sprite icon skipped", "icon", ic.Name, "source", ic.Source, "err", errs[i])
			sheet.Skipped = append(sheet.Skipped, ie)
			continue
		}
		b := out[i].img.Bounds()
		rs = append(rs, rect{name: ic.Name, w: b.Dx(), h: b.Dy()})
		imgs = append(imgs, out[i])
	}
	w, h := packRects(rs)
	if w > opts.MaxSheetSide || h > opts.MaxSheetSide || w*h > opts.MaxSheetPixels {
		return nil, fmt.Errorf("%w: %dx%d (max %d)", ErrSheetTooBig, w, h, opts.MaxSheetSide)
	}
	if w == 0 || h == 0 {
		w, h = 1, 1 // an empty sheet is a valid 1×1 transparent image
	}
	canvas := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i, r := range rs {
		img := imgs[i].img
		draw.Draw(canvas, image.Rect(r.x, r.y, r.x+r.w, r.y+r.h), img, img.Bounds().Min, draw.Src)
		m := imgs[i].meta
		sheet.Entries[r.name] = Entry{X: r.x, Y: r.y, Width: r.w, Height: r.h, PixelRatio: imgs[i].ratio, SDF: imgs[i].sdf,
			Content: m.content, StretchX: m.stretchX, StretchY: m.stretchY}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, canvas); err != nil {
		return nil, fmt.Errorf("sprite: encode png: %w", err)
	}
	idx, err := json.Marshal(sheet.Entries)
	if err != nil {
		return nil, fmt.Errorf("sprite: encode index: %w", err)
	}
	sheet.PNG, sheet.Index, sheet.Width, sheet.Height = buf.Bytes(), idx, w, h
	sum := sha256.New()
	sum.Write(sheet.PNG)
	sum.Write(sheet.Index)
	sheet.ETag = `"` + hex.EncodeToString(sum.Sum(nil)[:16]) + `"`
	return sheet, nil
}

func validName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > 512 || !fs.ValidPath(name) || strings.ContainsAny(name, "\\\x00") {
		return fmt.Errorf("invalid name %q", name)
	}
	return nil
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// renderIcon produces the bitmap of one icon at the sheet's pixel ratio.
func renderIcon(ctx context.Context, ic Icon, opts Options) (rendered, error) {
	// An icon marked SDF is one even on a sheet that is not.
	opts.SDF = opts.SDF || ic.SDF
	ratio := opts.PixelRatio
	var res rendered
	switch {
	case len(ic.Data) == 0 && len(ic.Data2x) == 0:
		return res, errors.New("empty file")
	case len(ic.Data) == 0 || (ratio >= 2 && len(ic.Data2x) > 0):
		img, err := decodePNG(ic.Data2x, 2*opts.MaxIconSize, opts.MaxFileBytes)
		if err != nil {
			return res, fmt.Errorf("@2x png: %w", err)
		}
		res = rendered{img: img, ratio: 2}
	case bytes.HasPrefix(ic.Data, pngMagic):
		img, err := decodePNG(ic.Data, opts.MaxIconSize, opts.MaxFileBytes)
		if err != nil {
			return res, fmt.Errorf("png: %w", err)
		}
		res = rendered{img: img, ratio: 1}
	default:
		if len(ic.Data) > opts.MaxFileBytes {
			return res, fmt.Errorf("svg: %d bytes (max %d)", len(ic.Data), opts.MaxFileBytes)
		}
		doc, err := svg.ParseWithLimits(ic.Data, svg.Limits{MaxBytes: opts.MaxFileBytes, MaxPixels: opts.MaxIconPixels})
		if err != nil {
			return res, err
		}
		w, h := doc.Size()
		if !(w > 0 && h > 0) {
			return res, errors.New("svg: zero size")
		}
		if w > float64(opts.MaxIconSize) || h > float64(opts.MaxIconSize) {
			return res, fmt.Errorf("svg: %gx%g px exceeds the %d px icon limit", w, h, opts.MaxIconSize)
		}
		if math.Ceil(w*float64(ratio)-1e-6) < 1 || math.Ceil(h*float64(ratio)-1e-6) < 1 {
			return res, errors.New("svg: smaller than one pixel")
		}
		img, err := doc.Render(ctx, float64(ratio))
		if err != nil {
			return res, err
		}
		off := 0.0
		if opts.SDF {
			off = float64(sdfBuffer * ratio)
		}
		res = rendered{img: img, ratio: ratio, meta: stretchFromSVG(doc, float64(ratio), off)}
	}
	if opts.SDF {
		r := res.ratio
		res.img = sdfIcon(res.img, sdfBuffer*r, float64(sdfRadius*r), sdfCutoff)
		res.sdf = true
	}
	return res, nil
}

func decodePNG(data []byte, maxSide, maxBytes int) (*image.NRGBA, error) {
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%d bytes (max %d)", len(data), maxBytes)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, errors.New("empty image")
	}
	if cfg.Width > maxSide || cfg.Height > maxSide {
		return nil, fmt.Errorf("%dx%d px exceeds the %d px icon limit", cfg.Width, cfg.Height, maxSide)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out, nil
}

// LoadIcons reads the icons of fsys: *.svg and *.png files at any depth (hidden files and
// folders, non-regular files and other extensions are ignored). "name@2x.png" files become
// the Data2x of icon "name". When an SVG and a PNG share a name the SVG wins and the PNG is
// reported as skipped. Use an fs.FS that cannot escape its directory (os.Root.FS).
func LoadIcons(ctx context.Context, fsys fs.FS, opts Options) ([]Icon, []IconError, error) {
	opts = opts.withDefaults()
	byName := map[string]*Icon{}
	var names []string
	var skipped []IconError
	total := 0
	files := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			skipped = append(skipped, IconError{Name: p, Source: p, Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		base := path.Base(p)
		if p != "." && strings.HasPrefix(base, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/") >= 16 {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		ext := strings.ToLower(path.Ext(base))
		if ext != ".svg" && ext != ".png" {
			return nil
		}
		files++
		if files > 2*opts.MaxIcons {
			return fmt.Errorf("%w: more than %d files", ErrTooManyIcons, 2*opts.MaxIcons)
		}
		name := strings.TrimSuffix(p, path.Ext(p))
		is2x := false
		if ext == ".png" && strings.HasSuffix(name, "@2x") {
			name = strings.TrimSuffix(name, "@2x")
			is2x = true
		}
		sdf := false
		if n, ok := strings.CutSuffix(name, ".sdf"); ok && n != "" && !strings.HasSuffix(n, "/") {
			name, sdf = n, true
		}
		data, rerr := readLimited(fsys, p, opts.MaxFileBytes)
		if rerr != nil {
			skipped = append(skipped, IconError{Name: name, Source: p, Err: rerr})
			return nil
		}
		total += len(data)
		if total > opts.MaxTotalBytes {
			return fmt.Errorf("%w: icons exceed %d bytes", ErrSheetTooBig, opts.MaxTotalBytes)
		}
		ic := byName[name]
		if ic == nil {
			ic = &Icon{Name: name, Source: p}
			byName[name] = ic
			names = append(names, name)
		}
		ic.SDF = ic.SDF || sdf
		switch {
		case is2x:
			ic.Data2x = data
		case len(ic.Data) > 0:
			// Both name.svg and name.png: keep the SVG.
			dropSrc := p
			if ext == ".svg" {
				dropSrc = ic.Source
				ic.Data, ic.Source = data, p
			}
			skipped = append(skipped, IconError{Name: name, Source: dropSrc, Err: errors.New("duplicate name (the SVG is used)")})
		default:
			ic.Data = data
			if ic.Source == "" || len(ic.Data2x) > 0 {
				ic.Source = p
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sprite: load icons: %w", err)
	}
	sort.Strings(names)
	icons := make([]Icon, 0, len(names))
	for _, n := range names {
		ic := byName[n]
		// An SVG with a stray name@2x.png: the SVG is rendered at 2x, the PNG is ignored.
		if len(ic.Data) > 0 && !bytes.HasPrefix(ic.Data, pngMagic) && len(ic.Data2x) > 0 {
			ic.Data2x = nil
		}
		icons = append(icons, *ic)
	}
	if len(icons) > opts.MaxIcons {
		return nil, nil, fmt.Errorf("%w: %d (max %d)", ErrTooManyIcons, len(icons), opts.MaxIcons)
	}
	return icons, skipped, nil
}

func readLimited(fsys fs.FS, p string, maxBytes int) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxBytes)
	}
	return data, nil
}

// stretchFromSVG reads the stretchable icon metadata of doc, scaled to image pixels and
// shifted by off (the SDF buffer).
func stretchFromSVG(doc *svg.Document, scale, off float64) stretchMeta {
	var m stretchMeta
	px := func(v float64) float64 { return math.Round((v*scale+off)*1000) / 1000 }
	if b, ok := doc.ElementBounds("mapbox-content"); ok {
		m.content = []float64{px(b[0]), px(b[1]), px(b[2]), px(b[3])}
	}
	areas := func(axis string) [][2]float64 {
		var out [][2]float64
		lo, hi := 0, 2
		if axis == "y" {
			lo, hi = 1, 3
		}
		add := func(id string) bool {
			b, ok := doc.ElementBounds(id)
			if ok {
				out = append(out, [2]float64{px(b[lo]), px(b[hi])})
			}
			return ok
		}
		add("mapbox-stretch-" + axis)
		for i := 1; i <= 64 && add(fmt.Sprintf("mapbox-stretch-%s-%d", axis, i)); i++ {
		}
		if len(out) == 0 {
			add("mapbox-stretch")
		}
		return out
	}
	m.stretchX = areas("x")
	m.stretchY = areas("y")
	return m
}
