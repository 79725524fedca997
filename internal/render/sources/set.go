package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"github.com/paulmach/orb"
	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/geojson"
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
)

// Resources gives the renderer the bytes behind the style's URLs.
type Resources interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

// MaxTiles bounds the tiles of one source that one render reads.
const MaxTiles = 64

// Set is the sources of one render: read on first use, each once, safe
// for concurrent use by the layers drawn at the same time and the symbol
// placement.
type Set struct {
	// Log is told of the sources and resources that cannot be read.
	Log *slog.Logger
	// Decoded keeps decoded vector tiles between renders.
	Decoded *DecodedCache
	// Style is the style drawn, Res where its resources are read, View
	// and Frame the view drawn.
	Style *style.Style
	Res   Resources
	Frame scene.Frame
	View  scene.View
	// mu guards sources: symbol placement reads them on a goroutine of
	// its own while the other layers are drawn.
	mu      sync.Mutex
	sources map[string]*sourceData
	// rasters holds the decoded tiles of raster sources, by source name.
	rasters map[string]*RasterCover
	// dems and images hold raster-dem and image sources, by name
	// (dem.go, image.go).
	dems   map[string]*DEMCover
	images map[string]*ImageCover
	// Glyphs and Sprite hold the glyphs and icons of the symbols and
	// patterns.
	Glyphs *Glyphs
	Sprite *Sprites
	// imagePixels counts the pixels of the raster, DEM and image
	// pictures the render has admitted for decoding (admitImage).
	imagePixels atomic.Int64
}

// NewSet returns the sources of one render of st in view v: resources
// read through res, problems logged to log, decoded vector tiles kept in
// decoded between renders (nil: none kept).
func NewSet(st *style.Style, v scene.View, res Resources, log *slog.Logger, decoded *DecodedCache) *Set {
	s := &Set{Log: log, Decoded: decoded, Style: st, Res: res, Frame: scene.NewFrame(v), View: v, rasters: map[string]*RasterCover{}}
	s.Sprite = NewSprites(s)
	return s
}

// sourceData is what one source gives a render: the decoded vector tiles
// under the view, or the features of a GeoJSON source.
type sourceData struct {
	tiles []*VectorTile
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

// Features returns the features of the layer's source (and source layer).
// Safe for concurrent use.
func (s *Set) Features(ctx context.Context, l *style.Layer) (scene.Runs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.sources[l.Source]
	if !ok {
		src := s.Style.SourceByKey[l.Source]
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

func (s *Set) geoJSON(ctx context.Context, src *style.Source) ([]scene.Feature, error) {
	data, ok := src.Raw.Get("data")
	if !ok {
		return nil, fmt.Errorf("geojson source without data")
	}
	var body []byte
	switch d := data.(type) {
	case string:
		b, err := s.Res.Fetch(ctx, d)
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
	grid := math.Exp2(math.Max(0, math.Min(maxZoom, math.Floor(s.View.Zoom)))) * GeoJSONExtent
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
	simp := newSimplifier(tolerance, int(maxZoom), int(math.Max(0, math.Min(maxZoom, math.Floor(s.View.Zoom)))))
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
	wx0, _, wx1, _ := s.Frame.ViewBox()
	m := s.View.LabelMargin * s.Frame.Ratio / s.Frame.Scale
	first, last := int(math.Floor(wx0-m)), int(math.Floor(wx1+m))
	if first < 0 || last > 0 {
		if last-first+1 > MaxTiles {
			return nil, fmt.Errorf("the view shows more than %d copies of the world", MaxTiles)
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

// GeoJSONExtent is the tile extent GeoJSON is cut into.
const GeoJSONExtent = 8192

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
