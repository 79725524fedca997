package tiler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/tesseramaps/tessera/internal/mvt"
)

// Build cuts the layers into vector tiles at zooms opts.MinZoom..MaxZoom and
// hands every non-empty tile to sink.
//
// Features are projected to Web Mercator (latitudes clamped to
// ±MaxLatitude), then cut down the tile pyramid: each tile's features are
// clipped (with the buffer) into its four children, so geometry is clipped
// once per level rather than once per tile. Within a tile, lines and
// polygons are simplified with opts.Simplify, and features smaller than
// opts.TinyPixels are dropped below the maximum zoom. Data is expected to be
// split at the antimeridian already (longitudes within ±180); nothing wraps
// around it. Layer and feature zoom ranges restrict where features appear.
func Build(ctx context.Context, layers []Layer, opts Options, sink Sink) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if sink == nil {
		return nil, errors.New("tiler: nil sink")
	}
	start := time.Now()
	b := &builder{opts: opts, sink: sink, layers: layers}
	items, res, err := prepare(layers, &b.opts)
	if err != nil {
		return nil, err
	}
	b.res = res
	b.zooms = make([]ZoomStats, opts.MaxZoom-opts.MinZoom+1)
	for i := range b.zooms {
		b.zooms[i].Zoom = opts.MinZoom + i
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	b.sem = make(chan struct{}, workers-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.cancel = cancel

	if len(items) > 0 {
		b.node(ctx, 0, 0, 0, items)
	}
	b.wg.Wait()
	if b.err != nil {
		return nil, b.err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tiler: %w", err)
	}
	res.Zooms = b.zooms
	for _, zs := range b.zooms {
		res.Tiles += zs.Tiles
		if zs.MaxBytes > LargeTileBytes {
			opts.Logger.Warn("tiler: large tiles; consider feature zoom ranges or fewer attributes",
				"zoom", zs.Zoom, "max_bytes", zs.MaxBytes)
		}
	}
	opts.Logger.Info("tiler: build done", "tiles", res.Tiles, "minzoom", opts.MinZoom, "maxzoom", opts.MaxZoom,
		"layers", len(layers), "duration", time.Since(start).Round(time.Millisecond))
	return res, nil
}

// LargeTileBytes is the tile size above which Build logs a warning.
const LargeTileBytes = 1 << 20

type builder struct {
	opts   Options
	sink   Sink
	layers []Layer
	res    *Result
	sem    chan struct{}
	wg     sync.WaitGroup
	cancel context.CancelFunc

	mu    sync.Mutex // guards sink calls, zooms and err
	zooms []ZoomStats
	err   error
}

func (b *builder) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	b.cancel()
}

// node writes tile z/x/y from items (already clipped to its buffered area)
// and recurses into its children.
func (b *builder) node(ctx context.Context, z, x, y int, items []*item) {
	if ctx.Err() != nil {
		return
	}
	if z >= b.opts.MinZoom {
		if err := b.writeTile(ctx, z, x, y, items); err != nil {
			b.fail(err)
			return
		}
	}
	if z >= b.opts.MaxZoom {
		return
	}
	cz := z + 1
	n := float64(int64(1) << cz)
	buf := float64(b.opts.Buffer) / float64(b.opts.Extent) / n
	for i := 0; i < 2; i++ {
		cx := 2*x + i
		xs := clipItems(items, float64(cx)/n-buf, float64(cx+1)/n+buf, 0, cz)
		if len(xs) == 0 {
			continue
		}
		for j := 0; j < 2; j++ {
			cy := 2*y + j
			ys := clipItems(xs, float64(cy)/n-buf, float64(cy+1)/n+buf, 1, cz)
			if len(ys) == 0 {
				continue
			}
			select {
			case b.sem <- struct{}{}:
				b.wg.Add(1)
				go func() {
					defer b.wg.Done()
					defer func() { <-b.sem }()
					b.node(ctx, cz, cx, cy, ys)
				}()
			default:
				b.node(ctx, cz, cx, cy, ys)
			}
		}
	}
}

var gzipPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

func (b *builder) writeTile(ctx context.Context, z, x, y int, items []*item) error {
	data, nfeat, err := b.encodeTile(z, x, y, items)
	if err != nil {
		return fmt.Errorf("tiler: tile %d/%d/%d: %w", z, x, y, err)
	}
	if nfeat == 0 {
		return nil
	}
	if b.opts.Gzip {
		var buf bytes.Buffer
		zw := gzipPool.Get().(*gzip.Writer)
		zw.Reset(&buf)
		if _, err := zw.Write(data); err != nil {
			return fmt.Errorf("tiler: gzip tile %d/%d/%d: %w", z, x, y, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("tiler: gzip tile %d/%d/%d: %w", z, x, y, err)
		}
		gzipPool.Put(zw)
		data = buf.Bytes()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return nil
	}
	if err := b.sink.PutTile(ctx, z, x, y, data); err != nil {
		return fmt.Errorf("tiler: put tile %d/%d/%d: %w", z, x, y, err)
	}
	zs := &b.zooms[z-b.opts.MinZoom]
	zs.Tiles++
	zs.Features += int64(nfeat)
	zs.Bytes += int64(len(data))
	if int64(len(data)) > zs.MaxBytes {
		zs.MaxBytes = int64(len(data))
	}
	return nil
}

// tileTransform maps world coordinates to tile coordinates of one tile.
type tileTransform struct {
	scale, ox, oy float64
}

func (t tileTransform) apply(p pt) pt {
	return pt{p.x*t.scale - t.ox, p.y*t.scale - t.oy}
}

func round(p pt) mvt.XY {
	return mvt.XY{X: int32(math.Round(p.x)), Y: int32(math.Round(p.y))}
}

// encodeTile encodes the items visible at zoom z into an MVT tile and
// returns it with its feature count.
func (b *builder) encodeTile(z, x, y int, items []*item) ([]byte, int, error) {
	ext := float64(b.opts.Extent)
	tr := tileTransform{scale: float64(int64(1)<<z) * ext, ox: float64(x) * ext, oy: float64(y) * ext}
	pixel := ext / 256
	tol := b.opts.Simplify * pixel
	// holes of up to 16 square pixels that cross another ring are dropped
	smallHole := int64(2 * 16 * pixel * pixel)
	tol2 := tol * tol
	tiny, spacing := 0.0, 0.0
	if z < b.opts.MaxZoom {
		tiny = b.opts.TinyPixels * pixel
		spacing = b.opts.PointSpacing * pixel
	}
	var cells map[[3]int64]bool
	if spacing > 0 {
		cells = map[[3]int64]bool{}
	}
	builders := make([]*mvt.LayerBuilder, len(b.layers))
	var keep []bool
	var tmp []pt
	count := 0
	for _, it := range items {
		if z < it.src.minZoom || z > it.src.maxZoom {
			continue
		}
		g := mvt.Geometry{}
		switch it.typ {
		case gPoint:
			g.Type = mvt.Point
			g.Points = make([]mvt.XY, len(it.pts))
			for i, p := range it.pts {
				g.Points[i] = round(tr.apply(p))
			}
			if cells != nil && len(g.Points) == 1 {
				p := tr.apply(it.pts[0])
				cell := [3]int64{int64(it.src.layer), int64(math.Floor(p.x / spacing)), int64(math.Floor(p.y / spacing))}
				if cells[cell] {
					continue
				}
				cells[cell] = true
			}
		case gLine:
			g.Type = mvt.LineString
			for _, l := range it.lines {
				tmp = transform(tmp[:0], l, tr)
				if tiny > 0 && isTiny(tmp, tiny) {
					continue
				}
				var s []pt
				s, keep = simplify(tmp, tol2, keep)
				g.Lines = append(g.Lines, roundAll(s))
			}
		case gPoly:
			g.Type = mvt.Polygon
			for _, pg := range it.polys {
				var poly [][]mvt.XY
				for ri, ring := range pg {
					tmp = transform(tmp[:0], ring, tr)
					if tiny > 0 && isTiny(tmp, tiny) {
						if ri == 0 {
							break
						}
						continue
					}
					var s []pt
					s, keep = simplify(tmp, tol2, keep)
					if len(s) < 4 {
						if ri == 0 {
							break // the exterior collapsed: drop the polygon
						}
						continue
					}
					poly = append(poly, roundAll(s))
				}
				if poly = untanglePolygon(poly, smallHole); len(poly) > 0 && netArea(poly) > 0 {
					g.Polygons = append(g.Polygons, poly)
				}
			}
		}
		lb := builders[it.src.layer]
		if lb == nil {
			var err error
			lb, err = mvt.NewLayerBuilder(b.layers[it.src.layer].Name, b.opts.Extent)
			if err != nil {
				return nil, 0, err
			}
			builders[it.src.layer] = lb
		}
		added, err := lb.Add(mvt.Feature{ID: it.src.id, HasID: it.src.id != 0, Geometry: g, Properties: it.src.props})
		if err != nil {
			return nil, 0, err
		}
		if added {
			count++
		}
	}
	if count == 0 {
		return nil, 0, nil
	}
	data, err := mvt.EncodeTile(builders...)
	return data, count, err
}

// netArea returns the area of a polygon (exterior minus holes, in doubled
// square units): zero when the holes cover the whole exterior, as for a
// tile inside a lake or an ocean polygon's tiles inside land.
func netArea(poly [][]mvt.XY) int64 {
	a := absArea(poly[0])
	for _, h := range poly[1:] {
		a -= absArea(h)
	}
	return a
}

func transform(dst, src []pt, tr tileTransform) []pt {
	for _, p := range src {
		dst = append(dst, tr.apply(p))
	}
	return dst
}

func isTiny(pts []pt, size float64) bool {
	b := emptyBox()
	for _, p := range pts {
		b.add(p)
	}
	return b.maxX-b.minX < size && b.maxY-b.minY < size
}

func roundAll(pts []pt) []mvt.XY {
	out := make([]mvt.XY, len(pts))
	for i, p := range pts {
		out[i] = round(p)
	}
	return out
}
