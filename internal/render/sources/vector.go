package sources

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/tesseramaps/tessera/internal/mvt"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
)

// LayerShape is what drawing features costs in world units: their number,
// their vertices, their lengths, and the areas of their polygons' boxes
// (ascending) with their running sums (sums[i] adds up areas[:i]).
type LayerShape struct {
	Features, Vertices int
	Length             float64
	Areas, Sums        []float64
}

// ShapeOf measures features.
func ShapeOf(runs scene.Runs) *LayerShape {
	sh := &LayerShape{Features: runs.Count()}
	add := func(pts []orb.Point) (x0, y0, x1, y1 float64) {
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i, p := range pts {
			x0, y0, x1, y1 = math.Min(x0, p[0]), math.Min(y0, p[1]), math.Max(x1, p[0]), math.Max(y1, p[1])
			if i > 0 {
				sh.Length += math.Hypot(p[0]-pts[i-1][0], p[1]-pts[i-1][1])
			}
		}
		sh.Vertices += len(pts)
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
				sh.Areas = append(sh.Areas, (x1-x0)*(y1-y0))
			}
		}
	}
	slices.Sort(sh.Areas)
	sh.Sums = make([]float64, len(sh.Areas)+1)
	for i, a := range sh.Areas {
		sh.Sums[i+1] = sh.Sums[i] + a
	}
	return sh
}

// vector reads the vector tiles of the view.
func (s *Set) vector(ctx context.Context, src *style.Source) ([]*VectorTile, error) {
	ts, err := s.tileTemplates(ctx, src, 14)
	if err != nil {
		return nil, err
	}
	tiles, scheme := ts.tiles, ts.scheme
	z := int(math.Floor(s.View.Zoom))
	z = max(ts.minZ, min(z, ts.maxZ))
	n := 1 << z
	// The tiles under the view (its corners, unrotated bounding box).
	fr := s.Frame
	wx0, wy0, wx1, wy1 := fr.ViewBox()
	// Labels may need the data of a margin around the view.
	m := s.View.LabelMargin * fr.Ratio / fr.Scale
	wx0, wy0, wx1, wy1 = wx0-m, wy0-m, wx1+m, wy1+m
	x0, x1 := int(math.Floor(wx0*float64(n))), int(math.Floor(wx1*float64(n)))
	y0, y1 := max(0, int(math.Floor(wy0*float64(n)))), min(n-1, int(math.Floor(wy1*float64(n))))
	if (x1-x0+1)*(y1-y0+1) > MaxTiles {
		return nil, fmt.Errorf("the view needs more than %d tiles", MaxTiles)
	}
	type want struct {
		url, key string
		tx, ty   int
		t        *VectorTile
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
			// The tile's zoom too: a URL without {z} names one file for
			// every zoom, decoded to other world places at each.
			key := url + "@" + strconv.Itoa(z) + "/" + strconv.Itoa(tx) + "," + strconv.Itoa(ty)
			t, _ := s.Decoded.get(key)
			if t == nil {
				missing++
			}
			wants = append(wants, want{url: url, key: key, tx: tx, ty: ty, t: t})
		}
	}
	// The tiles not decoded yet are read and decoded on all cores.
	load := func(w *want) {
		data, err := s.Res.Fetch(ctx, w.url)
		if err != nil || len(data) == 0 {
			return // an absent tile is empty
		}
		t, err := decodeTile(data, z, w.tx, w.ty)
		if err != nil {
			s.Log.Warn("render: corrupt tile skipped", "url", w.url, "err", err)
			return
		}
		s.Decoded.Put(w.key, t)
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
	var out []*VectorTile
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
func (s *Set) tileTemplates(ctx context.Context, src *style.Source, defMaxZ int) (tileSet, error) {
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
		b, err := s.Res.Fetch(ctx, src.URL)
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

// VectorTile is a vector tile decoded into world-coordinate features,
// each source layer's features in one or more runs of feats.
type VectorTile struct {
	feats  []scene.Feature
	layers map[string][][2]int
	// Size is what the tile holds in memory, for the cache's bound (0:
	// estimate it from the features).
	Size int64
	// shapes are its source layers' shapes, measured when first asked
	// for (shape).
	shapesMu sync.Mutex
	shapes   map[string]*LayerShape
}

// Shape returns what drawing a source layer's features ("": all of them)
// costs in world units, measured once.
func (t *VectorTile) Shape(layer string) *LayerShape {
	t.shapesMu.Lock()
	defer t.shapesMu.Unlock()
	if sh, ok := t.shapes[layer]; ok {
		return sh
	}
	runs, _ := t.LayerRuns(layer)
	sh := ShapeOf(runs)
	if t.shapes == nil {
		t.shapes = map[string]*LayerShape{}
	}
	t.shapes[layer] = sh
	return sh
}

// decodeTile decodes an MVT tile z/x/y into world-coordinate features.
func decodeTile(data []byte, z, tx, ty int) (*VectorTile, error) {
	feats, layers, bytes, err := decodeFeatures(data, z, tx, ty)
	if err != nil {
		return nil, err
	}
	// The features as allocated, and the copy of the tile's bytes that
	// the property strings are cut from.
	size := bytes + int64(len(data))
	return &VectorTile{feats: feats, layers: layers, Size: size}, nil
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

// VectorTiles returns the decoded tiles of a layer's source, nil when it
// is not a vector source (or not read yet).
func (s *Set) VectorTiles(l *style.Layer) []*VectorTile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.sources[l.Source]; d != nil {
		return d.tiles
	}
	return nil
}

// LayerRuns returns the runs of a tile's features of a source layer (all
// of them for ""), in the order sourceData.layer gathers them, and their
// number.
func (t *VectorTile) LayerRuns(layer string) ([][]scene.Feature, int) {
	if layer == "" {
		return [][]scene.Feature{t.feats}, len(t.feats)
	}
	var runs [][]scene.Feature
	n := 0
	for _, rg := range t.layers[layer] {
		runs = append(runs, t.feats[rg[0]:rg[1]:rg[1]])
		n += rg[1] - rg[0]
	}
	return runs, n
}
