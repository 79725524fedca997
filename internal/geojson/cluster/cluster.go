// Package cluster groups points into clusters zoom by zoom, as GL styles'
// GeoJSON sources do with `cluster: true`.
//
// The clustering is hierarchical and greedy: the points are first the
// items of the level above the deepest clustered zoom; at each zoom, from
// that one up to the shallowest, the items of the level below (one zoom
// deeper) are visited in order, and each item not yet taken gathers the
// untaken items within the zoom's radius. When the group holds at least
// MinPoints points it becomes one cluster at its points' weighted centre;
// otherwise its items pass to the zoom unchanged. Neighbours are found
// through a uniform grid whose cells are one radius wide.
//
// Cluster ids follow the scheme GL clients see: (index of the seed item in
// its level << 5) + (zoom + 1) + number of input points, so an id names
// its zoom and is never an input index.
//
// The package knows nothing of styles or rendering: the properties a
// cluster carries are made by the caller's Map and Reduce.
package cluster

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Point is an input point in world coordinates (the unit Web Mercator
// square, y growing southward).
type Point struct {
	X, Y float64
}

// Options configure an Index. Zero values take GL's defaults.
type Options struct {
	// Radius is the cluster radius in pixels of a 512-pixel tile
	// (clusterRadius, 50 by default).
	Radius float64
	// MinZoom and MaxZoom bound the zooms that cluster (clusterMaxZoom;
	// above MaxZoom every point stands alone). The clusters of a zoom do
	// not depend on MinZoom: a caller that needs one zoom sets MinZoom to
	// it (MaxZoom+1 at most) and saves the work of the zooms below.
	MinZoom, MaxZoom int
	// MinPoints is the fewest points that make a cluster
	// (clusterMinPoints, 2 by default).
	MinPoints int
	// Map returns the initial cluster properties of input point i; nil
	// for no cluster properties.
	Map func(i int) map[string]any
	// Reduce folds the properties of one member (a point's mapped
	// properties or a smaller cluster's) into acc.
	Reduce func(acc, member map[string]any)
	// Stop, when not nil, is asked before each zoom is clustered: when it
	// says true, New gives up with ErrStopped (a render whose context
	// ended).
	Stop func() bool
}

// ErrStopped is New's error when Options.Stop stopped it.
var ErrStopped = errors.New("cluster: stopped")

// Item is a point or a cluster at one zoom.
type Item struct {
	X, Y float64
	// Count is the number of input points the item holds: 1 for a point.
	Count int
	// ID is the cluster id (0 for a point).
	ID int
	// Index is the input index of a point (-1 for a cluster).
	Index int
	// Props are a cluster's reduced properties (nil for a point or when
	// Options.Map is nil).
	Props map[string]any
	// taken is the zoom at which the item was gathered (MaxInt while not).
	taken int
	// parent is the id of the cluster that took the item (0 for none).
	parent int
}

// IsCluster tells whether the item is a cluster.
func (it *Item) IsCluster() bool { return it.Index < 0 }

// Index holds the items of every zoom.
type Index struct {
	opt    Options
	n      int
	levels [][]Item // levels[z-MinZoom] for z in MinZoom..MaxZoom+1
}

// New clusters points. It fails only on options that cannot be met.
func New(points []Point, opt Options) (*Index, error) {
	if opt.Radius == 0 {
		opt.Radius = 50
	}
	if opt.MinPoints == 0 {
		opt.MinPoints = 2
	}
	if opt.Radius < 0 || opt.MinZoom < 0 || opt.MaxZoom+1 < opt.MinZoom || opt.MaxZoom > 30 {
		return nil, fmt.Errorf("cluster: radius %g and zooms %d..%d out of range", opt.Radius, opt.MinZoom, opt.MaxZoom)
	}
	ix := &Index{opt: opt, n: len(points), levels: make([][]Item, opt.MaxZoom-opt.MinZoom+2)}
	top := make([]Item, 0, len(points))
	for i, p := range points {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) {
			continue
		}
		top = append(top, Item{X: p.X, Y: p.Y, Count: 1, Index: i, taken: math.MaxInt})
	}
	ix.levels[len(ix.levels)-1] = top
	for z := opt.MaxZoom; z >= opt.MinZoom; z-- {
		if opt.Stop != nil && opt.Stop() {
			return nil, ErrStopped
		}
		ix.levels[z-opt.MinZoom] = ix.clusterLevel(ix.levels[z-opt.MinZoom+1], z)
	}
	return ix, nil
}

// grid finds the items near a position: cells one radius wide.
type grid struct {
	cell  float64
	cells map[[2]int][]int
}

func newGrid(items []Item, cell float64) *grid {
	g := &grid{cell: cell, cells: make(map[[2]int][]int, len(items))}
	for i := range items {
		k := g.key(items[i].X, items[i].Y)
		g.cells[k] = append(g.cells[k], i)
	}
	return g
}

func (g *grid) key(x, y float64) [2]int {
	return [2]int{int(math.Floor(x / g.cell)), int(math.Floor(y / g.cell))}
}

// within calls fn with the index of every item within r of (x, y).
func (g *grid) within(items []Item, x, y, r float64, fn func(i int)) {
	k := g.key(x, y)
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			for _, i := range g.cells[[2]int{k[0] + dx, k[1] + dy}] {
				ex, ey := items[i].X-x, items[i].Y-y
				if ex*ex+ey*ey <= r*r {
					fn(i)
				}
			}
		}
	}
}

// clusterLevel gathers the items of the level below into the items of
// zoom z.
func (ix *Index) clusterLevel(below []Item, z int) []Item {
	r := ix.opt.Radius / (512 * math.Exp2(float64(z)))
	g := newGrid(below, r)
	out := make([]Item, 0, len(below))
	var near []int
	for i := range below {
		p := &below[i]
		if p.taken <= z {
			continue
		}
		p.taken = z
		near = near[:0]
		count := p.Count
		g.within(below, p.X, p.Y, r, func(j int) {
			if below[j].taken > z {
				near = append(near, j)
				count += below[j].Count
			}
		})
		if count <= p.Count || count < ix.opt.MinPoints {
			// Not enough for a cluster: the item and its neighbours stay
			// as they are (the neighbours are decided at this zoom too).
			out = append(out, ix.pass(p))
			if count > 1 {
				for _, j := range near {
					below[j].taken = z
					out = append(out, ix.pass(&below[j]))
				}
			}
			continue
		}
		id := (i << 5) + (z + 1) + ix.n
		wx, wy := p.X*float64(p.Count), p.Y*float64(p.Count)
		var props map[string]any
		if ix.opt.Map != nil && ix.opt.Reduce != nil {
			props = ix.mapped(p, true)
		}
		for _, j := range near {
			b := &below[j]
			b.taken = z
			b.parent = id
			wx += b.X * float64(b.Count)
			wy += b.Y * float64(b.Count)
			if props != nil {
				ix.opt.Reduce(props, ix.mapped(b, false))
			}
		}
		p.parent = id
		out = append(out, Item{X: wx / float64(count), Y: wy / float64(count), Count: count, ID: id, Index: -1,
			Props: props, taken: math.MaxInt})
	}
	return out
}

// pass returns a copy of an item for the next level, not yet taken there.
func (ix *Index) pass(p *Item) Item {
	c := *p
	c.taken, c.parent = math.MaxInt, 0
	return c
}

// mapped returns an item's cluster properties: a cluster's own, a point's
// from Map; copied when the caller will change them.
func (ix *Index) mapped(p *Item, clone bool) map[string]any {
	var m map[string]any
	if p.IsCluster() {
		m = p.Props
	} else {
		m = ix.opt.Map(p.Index)
		clone = clone && m != nil
	}
	if !clone {
		return m
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Items returns the points and clusters of a zoom (rounded down; zooms
// past MaxZoom hold the input points, zooms below MinZoom the clusters of
// MinZoom). The slice is shared: do not change it.
func (ix *Index) Items(zoom float64) []Item {
	z := int(math.Floor(zoom))
	z = max(ix.opt.MinZoom, min(z, ix.opt.MaxZoom+1))
	return ix.levels[z-ix.opt.MinZoom]
}

// Children returns the items a cluster was made of (nil for an unknown
// id), one zoom deeper than the cluster.
func (ix *Index) Children(id int) []Item {
	origin := (id - ix.n) >> 5
	z := (id - ix.n) % 32
	// A cluster of zoom Z has zoom Z+1 encoded; its members are at Z+1.
	lvl := z - ix.opt.MinZoom
	if id < ix.n || lvl < 0 || lvl >= len(ix.levels) || origin >= len(ix.levels[lvl]) {
		return nil
	}
	var out []Item
	for _, it := range ix.levels[lvl] {
		if it.parent == id {
			out = append(out, it)
		}
	}
	return out
}

// Abbreviate returns GL's point_count_abbreviated: the count itself below
// 1000, then thousands with one decimal ("1.5k") and from 10000 whole
// thousands ("12k").
func Abbreviate(count int) any {
	switch {
	case count >= 10000:
		return strconv.Itoa(int(math.Round(float64(count)/1000))) + "k"
	case count >= 1000:
		return strconv.FormatFloat(math.Round(float64(count)/100)/10, 'f', -1, 64) + "k"
	}
	return count
}
