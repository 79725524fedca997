package tiler

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/paulmach/orb"
)

// prepare projects the features into items and computes the parts of the
// result that depend only on the input.
func prepare(layers []Layer, opts *Options) ([]*item, *Result, error) {
	res := &Result{MinZoom: opts.MinZoom, MaxZoom: opts.MaxZoom, VectorLayers: []VectorLayer{}}
	res.TileStats.Layers = []LayerStats{}
	var items []*item
	names := map[string]bool{}
	bound := orb.Bound{Min: orb.Point{math.Inf(1), math.Inf(1)}, Max: orb.Point{math.Inf(-1), math.Inf(-1)}}
	for li, layer := range layers {
		if layer.Name == "" {
			return nil, nil, fmt.Errorf("tiler: layer %d has no name", li)
		}
		if names[layer.Name] {
			return nil, nil, fmt.Errorf("tiler: duplicate layer name %q", layer.Name)
		}
		names[layer.Name] = true
		lmin, lmax := opts.MinZoom, opts.MaxZoom
		if layer.MinZoom > lmin {
			lmin = layer.MinZoom
		}
		if layer.MaxZoom > 0 && layer.MaxZoom < lmax {
			lmax = layer.MaxZoom
		}
		if lmin > lmax {
			continue // the layer is outside the tileset's zooms
		}
		st := newLayerStats(layer.Name)
		for fi := range layer.Features {
			f := &layer.Features[fi]
			if f.Geometry == nil {
				continue
			}
			if !validGeometry(f.Geometry) {
				return nil, nil, fmt.Errorf("tiler: layer %q: feature %d: non-finite coordinate", layer.Name, fi)
			}
			fmin, fmax := lmin, lmax
			if f.MinZoom > fmin {
				fmin = f.MinZoom
			}
			if f.MaxZoom > 0 && f.MaxZoom < fmax {
				fmax = f.MaxZoom
			}
			if fmin > fmax {
				continue
			}
			src := &source{layer: li, id: f.ID, props: f.Properties, minZoom: fmin, maxZoom: fmax}
			parts := [3]item{{src: src, typ: gPoint}, {src: src, typ: gLine}, {src: src, typ: gPoly}}
			collect(f.Geometry, &parts[0], &parts[1], &parts[2])
			added := false
			for i := range parts {
				if parts[i].empty() {
					continue
				}
				it := parts[i]
				it.computeBox()
				items = append(items, &it)
				st.geometry(it.typ)
				added = true
			}
			if !added {
				continue
			}
			bound = bound.Union(f.Geometry.Bound())
			st.feature(f.Properties)
		}
		res.VectorLayers = append(res.VectorLayers, VectorLayer{
			ID: layer.Name, Description: layer.Description, MinZoom: lmin, MaxZoom: lmax, Fields: st.fields(),
		})
		res.TileStats.Layers = append(res.TileStats.Layers, st.stats())
	}
	res.TileStats.LayerCount = len(res.TileStats.Layers)
	if len(items) == 0 {
		res.Bounds = [4]float64{-180, -MaxLatitude, 180, MaxLatitude}
		res.Center = [3]float64{0, 0, float64(opts.MinZoom)}
		return items, res, nil
	}
	w, e := math.Max(-180, bound.Min[0]), math.Min(180, bound.Max[0])
	s, n := math.Max(-MaxLatitude, bound.Min[1]), math.Min(MaxLatitude, bound.Max[1])
	res.Bounds = [4]float64{w, s, e, n}
	// Center zoom: the zoom at which the bounds fit in about one tile.
	x0, y0 := Project(w, n)
	x1, y1 := Project(e, s)
	size := math.Max(x1-x0, y1-y0)
	cz := float64(opts.MaxZoom)
	if size > 0 {
		cz = math.Floor(math.Log2(1 / size))
	}
	cz = math.Max(float64(opts.MinZoom), math.Min(float64(opts.MaxZoom), cz))
	cx, cy := Unproject((x0+x1)/2, (y0+y1)/2)
	res.Center = [3]float64{cx, cy, cz}
	return items, res, nil
}

type attrStats struct {
	name     string
	count    int
	types    map[string]bool
	values   []any
	seen     map[any]bool
	min, max float64
	numbers  bool
}

type layerStatsBuilder struct {
	name  string
	count int
	geoms map[gtype]bool
	attrs map[string]*attrStats
}

func newLayerStats(name string) *layerStatsBuilder {
	return &layerStatsBuilder{name: name, geoms: map[gtype]bool{}, attrs: map[string]*attrStats{}}
}

func (l *layerStatsBuilder) geometry(t gtype) { l.geoms[t] = true }

// statValue normalises a property value: its stats type and a comparable
// representation.
func statValue(v any) (string, any, float64, bool) {
	switch x := v.(type) {
	case string:
		return "string", x, 0, true
	case bool:
		return "boolean", x, 0, true
	case float64:
		return "number", x, x, true
	case float32:
		return "number", float64(x), float64(x), true
	case int:
		return "number", x, float64(x), true
	case int8:
		return "number", int64(x), float64(x), true
	case int16:
		return "number", int64(x), float64(x), true
	case int32:
		return "number", int64(x), float64(x), true
	case int64:
		return "number", x, float64(x), true
	case uint:
		return "number", uint64(x), float64(x), true
	case uint8:
		return "number", uint64(x), float64(x), true
	case uint16:
		return "number", uint64(x), float64(x), true
	case uint32:
		return "number", uint64(x), float64(x), true
	case uint64:
		return "number", x, float64(x), true
	case json.Number:
		f, err := x.Float64()
		return "number", string(x), f, err == nil
	case nil:
		return "", nil, 0, false
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return "", nil, 0, false
		}
		return "string", string(b), 0, true
	}
}

func (l *layerStatsBuilder) feature(props map[string]any) {
	l.count++
	for k, v := range props {
		typ, cmp, num, ok := statValue(v)
		if !ok {
			continue
		}
		a := l.attrs[k]
		if a == nil {
			a = &attrStats{name: k, types: map[string]bool{}, seen: map[any]bool{}}
			l.attrs[k] = a
		}
		a.count++
		a.types[typ] = true
		if typ == "number" && !math.IsNaN(num) {
			if !a.numbers || num < a.min {
				a.min = num
			}
			if !a.numbers || num > a.max {
				a.max = num
			}
			a.numbers = true
		}
		if len(a.values) < MaxStatsValues && !a.seen[cmp] {
			a.seen[cmp] = true
			a.values = append(a.values, cmp)
		}
	}
}

func (a *attrStats) typ() string {
	if len(a.types) != 1 {
		return "mixed"
	}
	for t := range a.types {
		return t
	}
	return "mixed"
}

func (l *layerStatsBuilder) sortedAttrs() []*attrStats {
	out := make([]*attrStats, 0, len(l.attrs))
	for _, a := range l.attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (l *layerStatsBuilder) fields() map[string]string {
	f := make(map[string]string, len(l.attrs))
	for _, a := range l.attrs {
		switch a.typ() {
		case "string":
			f[a.name] = "String"
		case "number":
			f[a.name] = "Number"
		case "boolean":
			f[a.name] = "Boolean"
		default:
			f[a.name] = "Mixed"
		}
	}
	return f
}

func (l *layerStatsBuilder) stats() LayerStats {
	st := LayerStats{Layer: l.name, Count: l.count, Attributes: []AttributeStats{}}
	switch len(l.geoms) {
	case 0:
	case 1:
		for g := range l.geoms {
			st.Geometry = [...]string{gPoint: "Point", gLine: "LineString", gPoly: "Polygon"}[g]
		}
	default:
		st.Geometry = "Mixed"
	}
	for _, a := range l.sortedAttrs() {
		as := AttributeStats{Attribute: a.name, Count: a.count, Type: a.typ(), Values: a.values}
		if a.numbers {
			mn, mx := a.min, a.max
			as.Min, as.Max = &mn, &mx
		}
		st.Attributes = append(st.Attributes, as)
	}
	st.AttributeCount = len(st.Attributes)
	return st
}
