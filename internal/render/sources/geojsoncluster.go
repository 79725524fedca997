package sources

import (
	"context"
	"fmt"
	"math"

	"github.com/paulmach/orb"

	"github.com/tesseramaps/tessera/internal/geo"
	"github.com/tesseramaps/tessera/internal/geojson/cluster"
	"github.com/tesseramaps/tessera/internal/render/scene"
	"github.com/tesseramaps/tessera/internal/style"
	"github.com/tesseramaps/tessera/internal/style/expr"
	"github.com/tesseramaps/tessera/internal/tiler"
)

// clustered tells whether a GeoJSON source clusters its points.
func clustered(src *style.Source) bool {
	v, ok := src.Raw.Get("cluster")
	b, _ := v.(bool)
	return ok && b
}

// clusterProperty is one of a source's clusterProperties: a map
// expression over each point and a reduce expression folding two values.
type clusterProperty struct {
	name        string
	mapE, redE  *expr.Expression
	accumulates bool
}

// clusterProps compiles a source's clusterProperties; a broken one is
// logged and left out.
func (s *Set) clusterProps(src *style.Source) []clusterProperty {
	raw, ok := src.Raw.Get("clusterProperties")
	obj, _ := raw.(*style.Object)
	if !ok || obj == nil {
		return nil
	}
	var out []clusterProperty
	for _, name := range obj.Keys() {
		v, _ := obj.Get(name)
		arr, _ := v.([]any)
		if len(arr) != 2 {
			s.Log.Warn("render: cluster property skipped", "source", src.Name, "property", name, "err", "not [operator, map expression]")
			continue
		}
		// A bare operator folds the accumulated value with the member's.
		red := arr[0]
		if op, ok := red.(string); ok {
			red = []any{op, []any{"accumulated"}, []any{"get", name}}
		}
		m, errs := expr.Compile(arr[1], nil)
		if len(errs) > 0 {
			s.Log.Warn("render: cluster property skipped", "source", src.Name, "property", name, "err", errs[0].Message)
			continue
		}
		r, errs := expr.Compile(red, nil)
		if len(errs) > 0 {
			s.Log.Warn("render: cluster property skipped", "source", src.Name, "property", name, "err", errs[0].Message)
			continue
		}
		out = append(out, clusterProperty{name: name, mapE: m, redE: r})
	}
	return out
}

// sourceInt returns a numeric option of a source, def when absent.
func sourceInt(src *style.Source, key string, def float64) float64 {
	v, ok := src.Raw.Get(key)
	if !ok {
		return def
	}
	switch n := v.(type) {
	case float64:
		return n
	case interface{ Float64() (float64, error) }:
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return def
}

// clusters returns a clustered source's points and clusters at the zoom
// its tiles are cut at (GL's defaults: clusterRadius 50, clusterMaxZoom the
// source's maxzoom less one, clusterMinPoints 2), positions on the grid of
// the tiles' units. Features other than points are not clustered and, as
// in GL, not drawn.
func (s *Set) clusters(ctx context.Context, src *style.Source, feats []tiler.Feature, maxZoom, grid float64) ([]scene.Feature, error) {
	var pts []cluster.Point
	var idx []int
	for i, f := range feats {
		p, ok := f.Geometry.(orb.Point)
		if !ok {
			continue
		}
		x, y := geo.LonLatToWorld(p[0], p[1])
		pts = append(pts, cluster.Point{X: x, Y: y})
		idx = append(idx, i)
	}
	props := s.clusterProps(src)
	objs := make([]*expr.Object, len(pts)) // a point's properties, made once
	obj := func(i int) *expr.Object {
		if objs[i] == nil {
			objs[i] = propsObject(feats[idx[i]].Properties)
		}
		return objs[i]
	}
	// As in GL, a zero radius or cluster max zoom means the default, and
	// fewer than two points never make a cluster.
	opt := cluster.Options{
		Radius:    sourceInt(src, "clusterRadius", 50),
		MaxZoom:   int(math.Round(sourceInt(src, "clusterMaxZoom", 0))),
		MinPoints: max(2, int(sourceInt(src, "clusterMinPoints", 2))),
	}
	if opt.Radius <= 0 {
		opt.Radius = 50
	}
	if opt.MaxZoom == 0 {
		opt.MaxZoom = int(maxZoom) - 1
	}
	opt.MaxZoom = max(0, min(opt.MaxZoom, 24))
	// Only the tile zoom's clusters are drawn: the zooms below it need
	// not be made.
	zoom := math.Max(0, math.Min(maxZoom, math.Floor(s.View.Zoom)))
	opt.MinZoom = min(int(zoom), opt.MaxZoom+1)
	if len(props) > 0 {
		// Map and reduce are evaluated at zoom 0, as GL does.
		opt.Map = func(i int) map[string]any {
			c := &expr.EvalContext{Feature: &expr.MapFeature{Props: obj(i), Id: expr.Null()}}
			m := make(map[string]any, len(props))
			for _, p := range props {
				m[p.name] = p.mapE.EvalOrDefault(c)
			}
			return m
		}
		opt.Reduce = func(acc, member map[string]any) {
			o := expr.NewObject()
			for k, v := range member {
				o.Set(k, v.(expr.Value))
			}
			c := &expr.EvalContext{Feature: &expr.MapFeature{Props: o, Id: expr.Null()}}
			for _, p := range props {
				c.Accumulated = nil
				if a, ok := acc[p.name].(expr.Value); ok && a.Kind() == expr.KindNumber {
					n := a.Num()
					c.Accumulated = &n
				}
				acc[p.name] = p.redE.EvalOrDefault(c)
			}
		}
	}
	opt.Stop = func() bool { return ctx.Err() != nil }
	ix, err := cluster.New(pts, opt)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name, err)
	}
	items := ix.Items(zoom)
	out := make([]scene.Feature, 0, len(items))
	for _, it := range items {
		var sf scene.Feature
		if it.IsCluster() {
			o := expr.NewObject()
			for _, p := range props {
				if v, ok := it.Props[p.name].(expr.Value); ok {
					o.Set(p.name, v)
				}
			}
			o.Set("cluster", expr.Bool(true))
			o.Set("cluster_id", expr.Number(float64(it.ID)))
			o.Set("point_count", expr.Number(float64(it.Count)))
			switch a := cluster.Abbreviate(it.Count).(type) {
			case string:
				o.Set("point_count_abbreviated", expr.String(a))
			case int:
				o.Set("point_count_abbreviated", expr.Number(float64(a)))
			}
			sf.Expr = &expr.MapFeature{Props: o, Id: expr.Number(float64(it.ID)), Type: "Point"}
		} else {
			f := feats[idx[it.Index]]
			sf.Expr = &expr.MapFeature{Props: obj(it.Index), Id: idValue(f.ID, f.Properties), Type: "Point"}
		}
		sf.Kind, sf.Tile = "Point", [3]int{0, 0, -1}
		sf.Parts = [][]orb.Point{{{math.Round(it.X*grid) / grid, math.Round(it.Y*grid) / grid}}}
		out = append(out, sf)
	}
	return out, nil
}
