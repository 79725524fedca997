package render

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/cpuslots"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/geojson"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/render/raster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// View is what to draw (see View): the map around a centre at a
// zoom, of a size in CSS pixels drawn at a pixel ratio.
type View = scene.View

// Resources gives the renderer the bytes behind the style's URLs.
type Resources interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

// Limits of one render.
const (
	MaxPixels = 4096 * 4096
	maxTiles  = 64
)

// Renderer draws styles. It is safe for concurrent use.
type Renderer struct {
	log *slog.Logger
	// comp compiles the styles' layers, once per style.
	comp *scene.Compiler
	// decoded keeps decoded vector tiles between renders.
	decoded *decodedCache
	// layouts keeps the symbol layouts of vector tiles between renders.
	layouts *layoutCache
}

// New returns a renderer.
func New(log *slog.Logger) (*Renderer, error) {
	if log == nil {
		log = slog.Default()
	}
	r := &Renderer{log: log, comp: scene.NewCompiler(log), decoded: newDecodedCache(DefaultDecodedCacheBytes),
		layouts: newLayoutCache(DefaultLayoutCacheBytes)}
	r.decoded.onEvict = r.layouts.dropTile
	return r, nil
}

// ViewOf returns the style's own view (its center and zoom) at a size.
func ViewOf(st *style.Style, width, height int, pixelRatio float64) View {
	v := View{Width: width, Height: height, PixelRatio: pixelRatio}
	if len(st.Center) == 2 {
		v.Center = [2]float64{st.Center[0], st.Center[1]}
	}
	if st.Zoom != nil {
		v.Zoom = *st.Zoom
	}
	v.Bearing = docNumber(st, "bearing")
	v.Pitch = math.Max(0, math.Min(scene.MaxPitch, docNumber(st, "pitch")))
	return v
}

// docNumber returns a number at the top of the style document, 0 when
// absent.
func docNumber(st *style.Style, key string) float64 {
	b, ok := st.Doc().Get(key)
	if !ok {
		return 0
	}
	switch f := b.(type) {
	case float64:
		return f
	case json.Number:
		n, _ := f.Float64()
		return n
	}
	return 0
}

// Render draws st in view v.
func (r *Renderer) Render(ctx context.Context, st *style.Style, v View, res Resources) (*image.RGBA, error) {
	if v.PixelRatio <= 0 {
		v.PixelRatio = 1
	}
	w, h := int(math.Round(float64(v.Width)*v.PixelRatio)), int(math.Round(float64(v.Height)*v.PixelRatio))
	if w <= 0 || h <= 0 || w*h > MaxPixels {
		return nil, fmt.Errorf("render: image size %dx%d outside 1..%d pixels", w, h, MaxPixels)
	}
	cv := raster.NewCanvas(w, h)
	// The drawing stops when the context ends or when it has done more
	// work than the picture's size allows (see workLimit).
	budget := raster.NewBudget(ctx.Done(), workLimit(w, h))
	cv.Budget = budget
	fr := scene.NewFrame(v)
	srcs := &sourceSet{r: r, st: st, res: res, frame: fr, view: v, rasters: map[string]*rasterCover{}}
	srcs.sprite = &spriteSet{s: srcs}
	sprites := &spriteSource{ctx: ctx, icons: srcs.sprite}
	prep := r.comp.Prepare(st)
	srcs.startSymbols(ctx)
	defer srcs.waitSymbols()
	var layers []int // the layers drawn, in style order
	for i, l := range st.Layers {
		if scene.Visible(l, v.Zoom) && prep.Layers[i].Err == nil { // a broken layer was logged when the style was prepared
			layers = append(layers, i)
		}
	}
	d := layerDrawer{r: r, st: st, prep: prep, srcs: srcs, sprites: sprites, fr: fr, zoom: v.Zoom, budget: budget}
	if split := d.split(ctx, layers, w*h); split > 0 {
		// The layers above the split are drawn at the same time on a
		// transparent canvas, laid over the rest at the end: "over" is
		// associative, so the picture is the same up to the rounding of
		// each pixel to 8 bits. At the same time only when a processor
		// slot is free (see cpuslots), else one run after the other: the
		// same bytes either way.
		top := raster.NewCanvas(w, h)
		top.Budget = budget
		wait := cpuslots.Render.Go(func() { d.draw(ctx, layers[split:], top) })
		func() {
			defer wait() // a panic of the upper run is raised here
			d.draw(ctx, layers[:split], cv)
		}()
		cv.Over(top)
	} else {
		d.draw(ctx, layers, cv)
	}
	// A resource cut short by the deadline leaves a picture with holes:
	// it is not the picture asked for; nor is one whose drawing was
	// stopped for asking too much.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if workObserved != nil {
		workObserved(budget.Used(), w*h)
	}
	if budget.Exceeded() {
		return nil, fmt.Errorf("render: %w (%d units of work for %dx%d pixels)", ErrWorkBound, budget.Used(), w, h)
	}
	return cv.RGBA, nil
}

// ErrWorkBound is the error of a render whose style asks for more drawing
// than its picture can show: shapes that cover the picture hundreds of
// times over (lines or circles far wider than the picture, on every
// feature). Such a picture is refused rather than drawn for minutes.
var ErrWorkBound = errors.New("the style asks for more drawing than the picture can show")

// Work bounds: a render may shade some workPerPixel fragments (or cross
// as many polygon edges) for each pixel of its picture, and at least
// minWork in all. Normal styles stay far below: the dense street view of
// the benchmark does about 2.5 units a pixel (see TestWorkOfNormalStyles).
const (
	workPerPixel = 100
	minWork      = 1 << 24
)

// workObserved, when set (by tests), is told the work each render did
// and its picture's pixels.
var workObserved func(used int64, pixels int)

// workLimit returns the work a render of a w x h picture may do.
func workLimit(w, h int) int64 {
	return max(minWork, int64(w)*int64(h)*workPerPixel)
}

// layerDrawer draws a run of a style's layers onto a canvas; several may
// draw runs of one render at once.
type layerDrawer struct {
	r       *Renderer
	st      *style.Style
	prep    *scene.Prepared
	srcs    *sourceSet
	sprites *spriteSource
	fr      scene.Frame
	zoom    float64
	// budget bounds the drawing of the render (raster.Budget).
	budget *raster.Budget
}

// parallelPixels is the smallest image drawn by two goroutines: below it
// the second canvas costs more than it saves.
const parallelPixels = 256 * 256

// split returns where to cut the layers in two runs of about equal work
// drawn at once, or 0 to draw them in one run: when the machine has one
// core, the image is small or the work cannot be split. The work of a
// layer is estimated from what it reads (the features of its source
// layer, read here as drawing would: their count, their vertices, the
// image area their boxes cover) and, for backgrounds and rasters, the
// pixels. The cut depends only on the style, the view and the data, never
// on timing: a view is drawn to the same bytes every time.
func (d layerDrawer) split(ctx context.Context, layers []int, pixels int) int {
	if runtime.GOMAXPROCS(0) < 2 || pixels < parallelPixels || len(layers) < 2 {
		return 0
	}
	stats := map[[2]string]featureStats{}
	cost := make([]float64, len(layers))
	for k, i := range layers {
		l := d.st.Layers[i]
		c := 1000.0
		switch l.Type {
		case "background", "raster", "hillshade":
			c += float64(pixels)
		case "fill", "line", "circle", "symbol", "heatmap", "fill-extrusion":
			feats, err := d.srcs.features(ctx, l)
			if err != nil {
				break
			}
			key := [2]string{l.Source, l.SourceLayer}
			st, ok := stats[key]
			if !ok {
				st = d.measure(l, feats, pixels)
				stats[key] = st
			}
			// The share of the features the layer's filter keeps, from a
			// sample of them: many layers draw a few of one source
			// layer's features.
			share := d.filterShare(i, feats)
			switch l.Type {
			case "fill", "fill-extrusion", "heatmap":
				c += share * (2000*st.features + st.area)
			case "line":
				c += share * (2000*st.features + 300*st.vertices + 8*st.length)
			default:
				c += share * 3000 * st.features
			}
		}
		cost[k] = c
	}
	return balancedCut(cost)
}

// filterSample is how many features, evenly spread, filterShare tries.
const filterSample = 64

// filterShare returns the share of a sample of the features that layer i's
// Filter keeps (1 without a filter).
func (d layerDrawer) filterShare(i int, feats scene.Runs) float64 {
	f := d.prep.Layers[i].Filter
	total := feats.Count()
	if f == nil || total == 0 {
		return 1
	}
	n := min(total, filterSample)
	kept := 0
	for k := range n {
		c := &expr.EvalContext{Zoom: d.zoom, Feature: feats.At(k * total / n).Expr}
		if v := f.EvalOrDefault(c); v.Kind() == expr.KindBoolean && v.Boolean() {
			kept++
		}
	}
	return float64(kept) / float64(n)
}

// featureStats sums what drawing a source layer's features costs: their
// number, their vertices, their lengths in device pixels and the image
// area (device pixels) their boxes cover.
type featureStats struct {
	features, vertices, length, area float64
}

// measure returns the stats of a layer's features. A vector tile keeps
// what they are in world units (layerShape): a render only scales it.
func (d layerDrawer) measure(l *style.Layer, runs scene.Runs, pixels int) featureStats {
	var st featureStats
	if tiles := d.srcs.vectorTiles(l); tiles != nil {
		for _, t := range tiles {
			st.add(t.shape(l.SourceLayer), d.fr.Scale, pixels)
		}
		return st
	}
	st.add(shapeOf(runs), d.fr.Scale, pixels)
	return st
}

// add adds the stats of features of shape sh drawn at scale device pixels
// a world unit on an image of pixels: a polygon's box covers at most the
// image.
func (st *featureStats) add(sh *layerShape, scale float64, pixels int) {
	st.features += float64(sh.features)
	st.vertices += float64(sh.vertices)
	st.length += sh.length * scale
	s2 := scale * scale
	k, _ := slices.BinarySearchFunc(sh.areas, float64(pixels), func(a, p float64) int { return cmp.Compare(a*s2, p) })
	st.area += sh.sums[k]*s2 + float64(len(sh.areas)-k)*float64(pixels)
}

// layerShape is what drawing features costs in world units: their number,
// their vertices, their lengths, and the areas of their polygons' boxes
// (ascending) with their running sums (sums[i] adds up areas[:i]).
type layerShape struct {
	features, vertices int
	length             float64
	areas, sums        []float64
}

// shapeOf measures features.
func shapeOf(runs scene.Runs) *layerShape {
	sh := &layerShape{features: runs.Count()}
	add := func(pts []orb.Point) (x0, y0, x1, y1 float64) {
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i, p := range pts {
			x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
			if i > 0 {
				sh.length += math.Hypot(p[0]-pts[i-1][0], p[1]-pts[i-1][1])
			}
		}
		sh.vertices += len(pts)
		return
	}
	for _, run := range runs {
		for i := range run {
			f := &run[i]
			for _, part := range f.Parts {
				add(part)
			}
			for _, poly := range f.Polygons {
				if len(poly) == 0 {
					continue
				}
				x0, y0, x1, y1 := add(poly[0])
				for _, hole := range poly[1:] {
					add(hole)
				}
				sh.areas = append(sh.areas, (x1-x0)*(y1-y0))
			}
		}
	}
	slices.Sort(sh.areas)
	sh.sums = make([]float64, len(sh.areas)+1)
	for i, a := range sh.areas {
		sh.sums[i+1] = sh.sums[i] + a
	}
	return sh
}

// balancedCut returns the cut 1..len(cost)-1 that leaves the least work
// to the busier of the two runs, or 0 when there is nothing to cut.
func balancedCut(cost []float64) int {
	total := 0.0
	for _, c := range cost {
		total += c
	}
	best, bestMax, sum := 0, math.Inf(1), 0.0
	for k := 1; k < len(cost); k++ {
		sum += cost[k-1]
		if m := math.Max(sum, total-sum); m < bestMax {
			best, bestMax = k, m
		}
	}
	return best
}

// draw draws the layers (indexes into the style's layers) onto cv.
func (d layerDrawer) draw(ctx context.Context, layers []int, cv *raster.Canvas) {
	w, h := cv.Rect.Dx(), cv.Rect.Dy()
	mask := getMask(w, h)
	mask.Budget = d.budget
	defer maskPool.Put(mask)
	for _, i := range layers {
		if ctx.Err() != nil || d.budget.Stopped() {
			return
		}
		l := d.st.Layers[i]
		d.drawLayer(ctx, i, l, cv, mask)
	}
}

// drawLayer draws layer i, l, onto cv.
func (d layerDrawer) drawLayer(ctx context.Context, i int, l *style.Layer, cv *raster.Canvas, mask *raster.Mask) {
	lr := &painter{Layer: scene.Layer{Style: l, Canvas: cv, Mask: mask, Frame: d.fr, Zoom: d.zoom}, sprites: d.sprites}
	c := d.prep.Layers[i]
	lr.Filter, lr.Props = c.Filter, c.Props
	switch l.Type {
	case "background":
		lr.background()
	case "fill", "line", "circle":
		feats, err := d.srcs.features(ctx, l)
		if err != nil {
			d.r.log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
			return
		}
		lr.draw(feats)
	case "raster":
		if d.srcs.isImage(l) {
			lr.imageRaster(d.srcs.image(ctx, l)) // imagesource.go
			return
		}
		cover, err := d.srcs.raster(ctx, l)
		if err != nil {
			d.r.log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
			return
		}
		lr.raster(cover)
	case "symbol":
		d.srcs.drawSymbols(ctx, &lr.Layer)
	case "hillshade":
		cover, err := d.srcs.dem(ctx, l)
		if err != nil {
			d.r.log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
			return
		}
		lr.hillshade(cover)
	case "heatmap", "fill-extrusion":
		feats, err := d.srcs.features(ctx, l)
		if err != nil {
			d.r.log.Warn("render: source unreadable", "layer", l.ID, "source", l.Source, "err", err)
			return
		}
		if l.Type == "heatmap" {
			lr.heatmap(feats.Flat())
		} else {
			lr.extrusion(feats.Flat(), d.st)
		}
	}
}

type sourceSet struct {
	r     *Renderer
	st    *style.Style
	res   Resources
	frame scene.Frame
	view  View
	// mu guards sources: symbol placement reads them on a goroutine of
	// its own while the other layers are drawn.
	mu      sync.Mutex
	sources map[string]*sourceData
	// rasters holds the decoded tiles of raster sources, by source name.
	rasters map[string]*rasterCover
	// dems and images hold raster-dem and image sources, by name
	// (demsource.go, imagesource.go).
	dems   map[string]*demCover
	images map[string]*imageCover
	// symbolPass, glyphs and sprite hold the symbol placement of the view
	// and the glyphs and icons it uses (see symbol.go); placed waits
	// until symbolPass is ready (raising the placement's panic, if any),
	// as often as it is called.
	symbolPass *symbolPass
	placed     func()
	glyphs     *glyphSet
	sprite     *spriteSet
	// imagePixels counts the pixels of the raster, DEM and image
	// pictures the render has admitted for decoding (admitImage).
	imagePixels atomic.Int64
}

// sourceData is what one source gives a render: the decoded vector tiles
// under the view, or the features of a GeoJSON source.
type sourceData struct {
	tiles []*decodedTile
	all   []scene.Feature // every feature, for GeoJSON
}

// layer returns the runs of the features of one source layer ("": all of
// them), tile by tile.
func (d *sourceData) layer(name string) scene.Runs {
	if d.tiles == nil {
		if d.all == nil {
			return nil
		}
		return scene.Runs{d.all}
	}
	var out scene.Runs
	for _, t := range d.tiles {
		if name == "" {
			if len(t.feats) > 0 {
				out = append(out, t.feats)
			}
			continue
		}
		for _, rg := range t.layers[name] {
			out = append(out, t.feats[rg[0]:rg[1]:rg[1]])
		}
	}
	return out
}

// features returns the features of the layer's source (and source layer).
// Safe for concurrent use.
func (s *sourceSet) features(ctx context.Context, l *style.Layer) (scene.Runs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.sources[l.Source]
	if !ok {
		src := s.st.SourceByKey[l.Source]
		if src == nil {
			return nil, fmt.Errorf("no source %q", l.Source)
		}
		d = &sourceData{}
		var err error
		switch src.Type {
		case "geojson":
			d.all, err = s.geoJSON(ctx, src)
		case "vector":
			d.tiles, err = s.vector(ctx, src)
		default:
			err = fmt.Errorf("source type %q is not drawn yet", src.Type)
		}
		if err != nil {
			return nil, err
		}
		if s.sources == nil {
			s.sources = map[string]*sourceData{}
		}
		s.sources[l.Source] = d
	}
	return d.layer(l.SourceLayer), nil
}

func (s *sourceSet) geoJSON(ctx context.Context, src *style.Source) ([]scene.Feature, error) {
	data, ok := src.Raw.Get("data")
	if !ok {
		return nil, fmt.Errorf("geojson source without data")
	}
	var body []byte
	switch d := data.(type) {
	case string:
		b, err := s.res.Fetch(ctx, d)
		if err != nil {
			return nil, err
		}
		body = b
	default:
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		body = b
	}
	feats, err := geojson.Read(ctx, bytes.NewReader(body), geojson.DefaultLimits())
	if err != nil {
		return nil, err
	}
	// GL cuts GeoJSON into tiles of 8192 units at the zoom it draws: the
	// positions land on that grid.
	maxZoom := 18.0
	if src.MaxZoom != nil {
		maxZoom = *src.MaxZoom
	}
	grid := math.Exp2(math.Max(0, math.Min(maxZoom, math.Floor(s.view.Zoom)))) * geoJSONExtent
	if clustered(src) {
		return s.clusters(ctx, src, feats, maxZoom, grid)
	}
	lm, _ := src.Raw.Get("lineMetrics")
	metrics := lm == true
	tolerance := defaultGeoJSONTolerance
	if t, ok := src.Raw.Get("tolerance"); ok {
		if n, ok := t.(float64); ok && n >= 0 {
			tolerance = n
		}
	}
	simp := newSimplifier(tolerance, int(maxZoom), int(math.Max(0, math.Min(maxZoom, math.Floor(s.view.Zoom)))))
	out := make([]scene.Feature, 0, len(feats))
	for _, f := range feats {
		mf := &expr.MapFeature{Props: propsObject(f.Properties), Id: idValue(f.ID, f.Properties)}
		sf := scene.Feature{Expr: mf, Tile: [3]int{0, 0, -1}, Metrics: metrics}
		addGeometry(&sf, f.Geometry, grid, simp)
		if sf.Kind != "" {
			mf.Type = sf.Kind
			out = append(out, sf)
		}
	}
	// A view wider than the world shows its copies, as GL draws the
	// tiles of the copies next to it (the world's own first).
	wx0, _, wx1, _ := s.frame.ViewBox()
	m := s.view.LabelMargin * s.frame.Ratio / s.frame.Scale
	first, last := int(math.Floor(wx0-m)), int(math.Floor(wx1+m))
	if first < 0 || last > 0 {
		if last-first+1 > maxTiles {
			return nil, fmt.Errorf("the view shows more than %d copies of the world", maxTiles)
		}
		n := len(out)
		for k := first; k <= last; k++ {
			if k == 0 {
				continue
			}
			for _, sf := range out[:n] {
				out = append(out, shiftedX(sf, float64(k)))
			}
		}
	}
	return out, nil
}

// shiftedX returns a copy of a GeoJSON feature moved by dx worlds.
func shiftedX(sf scene.Feature, dx float64) scene.Feature {
	line := func(ps []orb.Point) []orb.Point {
		out := make([]orb.Point, len(ps))
		for i, p := range ps {
			out[i] = orb.Point{p[0] + dx, p[1]}
		}
		return out
	}
	rings := func(rs [][]orb.Point) [][]orb.Point {
		out := make([][]orb.Point, len(rs))
		for i, r := range rs {
			out[i] = line(r)
		}
		return out
	}
	out := sf
	out.Parts = rings(sf.Parts)
	if sf.Polygons != nil {
		out.Polygons = make([][][]orb.Point, len(sf.Polygons))
		for i, p := range sf.Polygons {
			out.Polygons[i] = rings(p)
		}
	}
	return out
}

// geoJSONExtent is the tile extent GeoJSON is cut into.
const geoJSONExtent = 8192

// addGeometry projects an orb geometry into world coordinates, rounded to
// a grid of the given number of units across the world.
// Lines and rings are simplified for the zoom by simp (nil: kept whole).
func addGeometry(sf *scene.Feature, g orb.Geometry, grid float64, simp *simplifier) {
	project := func(p orb.Point) orb.Point {
		x, y := geo.LonLatToWorld(p[0], p[1])
		return orb.Point{x, y}
	}
	round := func(p orb.Point) orb.Point {
		return orb.Point{math.Round(p[0]*grid) / grid, math.Round(p[1]*grid) / grid}
	}
	points := func(ps []orb.Point) []orb.Point {
		out := make([]orb.Point, len(ps))
		for i, p := range ps {
			out[i] = round(project(p))
		}
		return out
	}
	// line projects, simplifies and rounds a line or ring (nil when it is
	// too small for the zoom).
	line := func(ps []orb.Point, ring bool) []orb.Point {
		w := make([]orb.Point, len(ps))
		for i, p := range ps {
			w[i] = project(p)
		}
		w = simp.line(w, ring)
		for i, p := range w {
			w[i] = round(p)
		}
		return w
	}
	polygon := func(p orb.Polygon) [][]orb.Point {
		var rings [][]orb.Point
		for i, r := range p {
			kept := line(r, true)
			if kept == nil {
				if i == 0 {
					return nil // the outer ring is too small: holes and all
				}
				continue
			}
			rings = append(rings, kept)
		}
		return rings
	}
	switch g := g.(type) {
	case orb.Point:
		sf.Kind, sf.Parts = "Point", [][]orb.Point{points([]orb.Point{g})}
	case orb.MultiPoint:
		sf.Kind, sf.Parts = "Point", [][]orb.Point{points(g)}
	case orb.LineString:
		if l := line(g, false); l != nil {
			sf.Kind, sf.Parts = "LineString", [][]orb.Point{l}
		}
	case orb.MultiLineString:
		for _, l := range g {
			if kept := line(l, false); kept != nil {
				sf.Kind = "LineString"
				sf.Parts = append(sf.Parts, kept)
			}
		}
	case orb.Polygon:
		if rings := polygon(g); rings != nil {
			sf.Kind = "Polygon"
			sf.Polygons = [][][]orb.Point{rings}
		}
	case orb.MultiPolygon:
		for _, p := range g {
			if rings := polygon(p); rings != nil {
				sf.Kind = "Polygon"
				sf.Polygons = append(sf.Polygons, rings)
			}
		}
	}
}

func propsObject(m map[string]any) *expr.Object {
	o := expr.NewObject()
	for k, v := range m {
		if val, err := expr.ValueFromGo(v); err == nil {
			o.Set(k, val)
		}
	}
	return o
}

// tileValue converts a vector tile property value (string, float,
// signed or unsigned integer, boolean) to an expression value.
func tileValue(v mvt.Value) expr.Value {
	switch v.Type {
	case mvt.StringValue:
		return expr.String(v.Str)
	case mvt.FloatValue:
		return expr.Number(float64(math.Float32frombits(uint32(v.Bits))))
	case mvt.DoubleValue:
		return expr.Number(math.Float64frombits(v.Bits))
	case mvt.IntValue, mvt.SintValue:
		return expr.Number(float64(int64(v.Bits)))
	case mvt.UintValue:
		return expr.Number(float64(v.Bits))
	case mvt.BoolValue:
		return expr.Bool(v.Bits != 0)
	}
	return expr.Null()
}

func idValue(id uint64, props map[string]any) expr.Value {
	if id != 0 {
		return expr.Number(float64(id))
	}
	return expr.Null()
}

// vector reads the vector tiles of the view.
func (s *sourceSet) vector(ctx context.Context, src *style.Source) ([]*decodedTile, error) {
	ts, err := s.tileTemplates(ctx, src, 14)
	if err != nil {
		return nil, err
	}
	tiles, scheme := ts.tiles, ts.scheme
	z := int(math.Floor(s.view.Zoom))
	z = max(ts.minZ, min(z, ts.maxZ))
	n := 1 << z
	// The tiles under the view (its corners, unrotated bounding box).
	fr := s.frame
	wx0, wy0, wx1, wy1 := fr.ViewBox()
	// Labels may need the data of a margin around the view.
	m := s.view.LabelMargin * fr.Ratio / fr.Scale
	wx0, wy0, wx1, wy1 = wx0-m, wy0-m, wx1+m, wy1+m
	x0, x1 := int(math.Floor(wx0*float64(n))), int(math.Floor(wx1*float64(n)))
	y0, y1 := max(0, int(math.Floor(wy0*float64(n)))), min(n-1, int(math.Floor(wy1*float64(n))))
	if (x1-x0+1)*(y1-y0+1) > maxTiles {
		return nil, fmt.Errorf("the view needs more than %d tiles", maxTiles)
	}
	type want struct {
		url, key string
		tx, ty   int
		t        *decodedTile
	}
	var wants []want
	missing := 0
	for ty := y0; ty <= y1; ty++ {
		for tx := x0; tx <= x1; tx++ {
			wrapX := ((tx % n) + n) % n
			row := ty
			if scheme == "tms" {
				row = n - 1 - ty
			}
			url := strings.NewReplacer("{z}", strconv.Itoa(z), "{x}", strconv.Itoa(wrapX), "{y}", strconv.Itoa(row)).Replace(tiles[0])
			key := url + "@" + strconv.Itoa(tx) + "," + strconv.Itoa(ty)
			t, _ := s.r.decoded.get(key)
			if t == nil {
				missing++
			}
			wants = append(wants, want{url: url, key: key, tx: tx, ty: ty, t: t})
		}
	}
	// The tiles not decoded yet are read and decoded on all cores.
	load := func(w *want) {
		data, err := s.res.Fetch(ctx, w.url)
		if err != nil || len(data) == 0 {
			return // an absent tile is empty
		}
		t, err := decodeTile(data, z, w.tx, w.ty)
		if err != nil {
			s.r.log.Warn("render: corrupt tile skipped", "url", w.url, "err", err)
			return
		}
		s.r.decoded.put(w.key, t)
		w.t = t
	}
	// The render's goroutine and those of the processor slots free now
	// (cpuslots) take them in turn.
	if missing > 0 {
		var next atomic.Int64
		cpuslots.Render.Spread(min(missing, runtime.GOMAXPROCS(0)), func() {
			for k := int(next.Add(1)) - 1; k < len(wants); k = int(next.Add(1)) - 1 {
				if wants[k].t == nil {
					load(&wants[k])
				}
			}
		})
	}
	var out []*decodedTile
	for _, w := range wants {
		if w.t != nil {
			out = append(out, w.t)
		}
	}
	return out, nil
}

// tileSet is what a tiled source (vector or raster) serves: its URL
// templates and zoom range, and what a TileJSON may add.
type tileSet struct {
	tiles      []string
	minZ, maxZ int
	scheme     string    // "xyz" or "tms"
	bounds     []float64 // [w, s, e, n], nil when the source gives none
	tileSize   int       // 0 when the source gives none
}

// tileTemplates returns the source's tile URL templates and zoom range
// (maxZ defaulting to defMaxZ), reading its TileJSON when it has a url.
func (s *sourceSet) tileTemplates(ctx context.Context, src *style.Source, defMaxZ int) (tileSet, error) {
	ts := tileSet{tiles: src.Tiles, maxZ: defMaxZ, bounds: src.Bounds, tileSize: src.TileSize}
	scheme, _ := src.Raw.Get("scheme")
	ts.scheme, _ = scheme.(string)
	if src.MinZoom != nil {
		ts.minZ = int(*src.MinZoom)
	}
	if src.MaxZoom != nil {
		ts.maxZ = int(*src.MaxZoom)
	}
	if len(ts.tiles) == 0 && src.URL != "" {
		b, err := s.res.Fetch(ctx, src.URL)
		if err != nil {
			return tileSet{}, err
		}
		var tj struct {
			Tiles    []string  `json:"tiles"`
			MinZoom  *int      `json:"minzoom"`
			MaxZoom  *int      `json:"maxzoom"`
			Scheme   string    `json:"scheme"`
			Bounds   []float64 `json:"bounds"`
			TileSize int       `json:"tileSize"`
		}
		if err := json.Unmarshal(b, &tj); err != nil {
			return tileSet{}, fmt.Errorf("TileJSON %s: %w", src.URL, err)
		}
		ts.tiles = tj.Tiles
		if tj.MinZoom != nil {
			ts.minZ = *tj.MinZoom
		}
		if tj.MaxZoom != nil {
			ts.maxZ = *tj.MaxZoom
		}
		if tj.Scheme != "" {
			ts.scheme = tj.Scheme
		}
		if len(tj.Bounds) == 4 {
			ts.bounds = tj.Bounds
		}
		if tj.TileSize > 0 {
			ts.tileSize = tj.TileSize
		}
	}
	if len(ts.tiles) == 0 {
		return tileSet{}, fmt.Errorf("%s source without tiles", src.Type)
	}
	return ts, nil
}

// decodedTile is a vector tile decoded into world-coordinate features,
// each source layer's features in one or more runs of feats.
type decodedTile struct {
	feats  []scene.Feature
	layers map[string][][2]int
	// size is what the tile holds in memory, for the cache's bound (0:
	// estimate it from the features).
	size int64
	// shapes are its source layers' shapes, measured when first asked
	// for (shape).
	shapesMu sync.Mutex
	shapes   map[string]*layerShape
}

// shape returns what drawing a source layer's features ("": all of them)
// costs in world units, measured once.
func (t *decodedTile) shape(layer string) *layerShape {
	t.shapesMu.Lock()
	defer t.shapesMu.Unlock()
	if sh, ok := t.shapes[layer]; ok {
		return sh
	}
	runs, _ := t.layerRuns(layer)
	sh := shapeOf(runs)
	if t.shapes == nil {
		t.shapes = map[string]*layerShape{}
	}
	t.shapes[layer] = sh
	return sh
}

// decodeTile decodes an MVT tile z/x/y into world-coordinate features.
func decodeTile(data []byte, z, tx, ty int) (*decodedTile, error) {
	feats, layers, bytes, err := decodeFeatures(data, z, tx, ty)
	if err != nil {
		return nil, err
	}
	// The features as allocated, and the copy of the tile's bytes that
	// the property strings are cut from.
	size := bytes + int64(len(data))
	return &decodedTile{feats: feats, layers: layers, size: size}, nil
}

// decodeFeatures decodes an MVT tile z/x/y into world-coordinate
// features, in the tile's order, and the run of them each source layer
// has (a layer without a feature to draw has none).
// It also returns the bytes allocated for them: their headers, properties
// and geometry (not the strings of the properties, cut from one copy of
// the tile's keys and values).
func decodeFeatures(data []byte, z, tx, ty int) ([]scene.Feature, map[string][][2]int, int64, error) {
	t, err := mvt.Decode(data)
	if err != nil {
		return nil, nil, 0, err
	}
	n := float64(int(1) << z)
	square := scene.Box{X0: float64(tx) / n, Y0: float64(ty) / n, X1: float64(tx+1) / n, Y1: float64(ty+1) / n}
	total := 0
	for _, l := range t.Layers {
		total += l.Len()
	}
	out := make([]scene.Feature, 0, total)
	layers := make(map[string][][2]int, len(t.Layers))
	// One feature header and one flat geometry are decoded at a time; the
	// features' points and the slices that hold their parts are carved out
	// of a few large allocations shared by the tile.
	var (
		df     mvt.DecodedFeature
		shape  mvt.Shape
		pts    arena[orb.Point]
		parts  arena[[]orb.Point]
		polys  arena[[][]orb.Point]
		inside []orb.Point // the points of a Point feature in the tile's square, reused
		// The features' tags and tileFeatures.
		tfs        arena[tileFeature]
		tagArena   arena[uint32]
		tableBytes int64
	)
	for _, l := range t.Layers {
		start := len(out)
		keys, err := l.Keys()
		if err != nil {
			return nil, nil, 0, err
		}
		values, err := l.TypedValues()
		if err != nil {
			return nil, nil, 0, err
		}
		tl := &tileLayer{keys: keys, values: values}
		tableBytes += tl.size()
		world := newTileProjection(tx, ty, z, l.Extent).world
		for i := 0; i < l.Len(); i++ {
			if err := l.FeatureInto(i, &df); err != nil {
				return nil, nil, 0, err
			}
			if df.Shape(&shape) != nil {
				continue
			}
			tags, err := df.Tags()
			if err != nil {
				continue
			}
			sf := scene.Feature{Tile: [3]int{ty, tx, z}}
			switch shape.Type {
			case mvt.Point:
				// Points of the buffer belong to the neighbour tile, which
				// draws them: each is drawn once.
				inside = world(slices.Grow(inside[:0], len(shape.XY))[:len(shape.XY)], shape.XY)
				kept := 0 // inside is filtered in place
				for _, p := range inside {
					if p[0] >= square.X0 && p[0] < square.X1 && p[1] >= square.Y0 && p[1] < square.Y1 {
						inside[kept] = p
						kept++
					}
				}
				inside = inside[:kept]
				if len(inside) == 0 {
					continue
				}
				part := parts.take(1)
				part[0] = pts.take(len(inside))
				copy(part[0], inside)
				sf.Kind, sf.Parts = "Point", part
			case mvt.LineString:
				sf.Kind = "LineString"
				// Lines keep the tile's buffer, for their joins and dash
				// phase; they are clipped to the square as they are drawn.
				// Nothing writes to a decoded feature: its lines are its
				// parts.
				sf.Clip = &square
				sf.Parts = parts.take(shape.Parts())
				for k := range sf.Parts {
					xy := shape.Part(k)
					sf.Parts[k] = world(pts.take(len(xy)), xy)
				}
				sf.Lines = sf.Parts
			case mvt.Polygon:
				if len(shape.Polys) == 0 {
					continue // every ring was degenerate
				}
				sf.Kind = "Polygon"
				sf.Clip = &square
				sf.Unclipped = polys.take(len(shape.Polys))
				// Most polygons lie inside the square: their clipped rings
				// are their rings, and their clipped polygons the same
				// slices (nothing writes to a decoded feature). A copy is
				// made from the first ring that clipping changes.
				whole := true // every polygon so far is sf.unclipped's
				ring := 0
				for k, end := range shape.Polys {
					raw := parts.take(end - ring)
					var rings [][]orb.Point // nil while every ring is whole
					for r := range raw {
						xy := shape.Part(ring + r)
						raw[r] = world(pts.take(len(xy)), xy)
						c := scene.ClipRing(raw[r], square)
						if rings == nil && !sameSlice(c, raw[r]) {
							rings = append(parts.take(end - ring)[:0], raw[:r]...)
						}
						if rings != nil && c != nil {
							rings = append(rings, c)
						}
					}
					ring = end
					sf.Unclipped[k] = raw
					if rings == nil {
						rings = raw
					}
					if whole && sameSlice(rings, raw) {
						continue
					}
					if whole {
						whole = false
						sf.Polygons = append(polys.take(len(shape.Polys))[:0], sf.Unclipped[:k]...)
					}
					if len(rings) > 0 {
						sf.Polygons = append(sf.Polygons, rings)
					}
				}
				sf.WholePolygons = sf.Unclipped
				if whole {
					sf.Polygons = sf.Unclipped
				}
				if len(sf.Polygons) == 0 {
					sf.Polygons = nil
				}
			default:
				continue
			}
			// The feature's tags and its tileFeature are carved out of
			// allocations shared by the tile.
			tf := &tfs.take(1)[0]
			*tf = tileFeature{layer: tl, id: df.ID, hasID: df.HasID, kind: uint8(shape.Type)}
			if len(tags) > 0 {
				tf.tags = tagArena.take(len(tags))
				copy(tf.tags, tags)
			}
			sf.Expr = tf
			out = append(out, sf)
		}
		if len(out) > start {
			layers[l.Name] = [][2]int{{start, len(out)}}
		}
	}
	size := int64(cap(out))*int64(unsafe.Sizeof(scene.Feature{})) + tfs.bytes + tagArena.bytes + tableBytes +
		pts.bytes + parts.bytes + polys.bytes
	return out, layers, size, nil
}

// arena hands out slices carved from larger allocations: a tile's many
// small slices of points cost a few allocations. The slices are full
// (appending to one copies it) and are never handed out twice.
type arena[T any] struct {
	free  []T
	chunk int   // the elements of the last allocation
	bytes int64 // allocated so far
}

// arenaChunk is the most elements an arena allocates at a time (more when
// one slice needs more). Its allocations start small and double, so that
// the small tiles of low zooms do not each hold mostly empty chunks.
const arenaChunk = 2048

// take returns a slice of n elements.
func (a *arena[T]) take(n int) []T {
	if len(a.free) < n {
		a.chunk = min(arenaChunk, max(64, 2*a.chunk))
		a.free = make([]T, max(n, a.chunk))
		var zero T
		a.bytes += int64(len(a.free)) * int64(unsafe.Sizeof(zero))
	}
	s := a.free[:n:n]
	a.free = a.free[n:]
	return s
}

// maskPool keeps coverage masks between renders: a tile server draws many
// pictures of one size, and a mask is four bytes a pixel to clear.
var maskPool sync.Pool

// getMask returns an empty mask of w x h, reused when one of that size is
// free (masks are left empty by the layers that use them).
func getMask(w, h int) *raster.Mask {
	if m, ok := maskPool.Get().(*raster.Mask); ok && m.W == w && m.H == h {
		m.Reset()
		return m
	}
	return raster.NewMask(w, h)
}
