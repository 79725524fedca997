package topojson

import (
	"fmt"
	"slices"

	"github.com/paulmach/orb"
)

// MeshLine is one arc of an object together with the features that use it.
type MeshLine struct {
	// Arc is the arc's index in the topology.
	Arc int
	// Line is the arc in longitude/latitude, in its stored direction.
	Line orb.LineString
	// A and B index the slice returned by Features for the same object: A is
	// the first feature that uses the arc, B the last. A == B means a single
	// feature uses the arc (an outer edge, such as a coastline); A != B means
	// the arc is shared (an internal boundary between A and B).
	A, B int
}

// MeshLines returns every arc used by the object's features, in arc order,
// with the first and last feature using it. Point-only features use no arcs.
func (t *Topology) MeshLines(object string) ([]MeshLine, error) {
	members, err := t.members(object)
	if err != nil {
		return nil, err
	}
	first := make(map[int]int)
	last := make(map[int]int)
	var order []int
	feature := 0
	for _, g := range members {
		if g.Type == "" || g.Type == "null" {
			continue // skipped by Features too
		}
		arcs, err := geometryArcs(g, nil)
		if err != nil {
			return nil, fmt.Errorf("object %q: %w", object, err)
		}
		for _, a := range arcs {
			if _, ok := first[a]; !ok {
				first[a] = feature
				order = append(order, a)
			}
			last[a] = feature
		}
		feature++
	}
	slices.Sort(order)
	b := t.newBudget()
	out := make([]MeshLine, 0, len(order))
	for _, a := range order {
		if err := b.take(len(t.arcs[a])); err != nil {
			return nil, fmt.Errorf("object %q: %w", object, err)
		}
		out = append(out, MeshLine{Arc: a, Line: t.Arc(a), A: first[a], B: last[a]})
	}
	return out, nil
}

// Mesh returns the object's arcs as a MultiLineString, keeping only those for
// which filter(a, b) is true, where a and b are the first and last features
// using the arc (the same feature for arcs used once). A nil filter keeps all
// arcs. For example, filter a != b yields the internal boundaries of a set of
// polygons and a == b their outer edges.
func (t *Topology) Mesh(object string, filter func(a, b *Feature) bool) (orb.MultiLineString, error) {
	lines, err := t.MeshLines(object)
	if err != nil {
		return nil, err
	}
	var feats []Feature
	if filter != nil {
		if feats, err = t.Features(object); err != nil {
			return nil, err
		}
	}
	var mls orb.MultiLineString
	for _, l := range lines {
		if filter != nil && !filter(&feats[l.A], &feats[l.B]) {
			continue
		}
		mls = append(mls, l.Line)
	}
	return mls, nil
}

// geometryArcs appends the (non-negative) indexes of the arcs a validated
// geometry uses.
func geometryArcs(g *geometry, dst []int) ([]int, error) {
	add := func(idx []int) {
		for _, i := range idx {
			dst = append(dst, max(i, ^i))
		}
	}
	var err error
	switch g.Type {
	case "GeometryCollection":
		for _, c := range g.Geometries {
			if dst, err = geometryArcs(c, dst); err != nil {
				return nil, err
			}
		}
	case "LineString":
		var a []int
		if err = unmarshalArcs(g, &a); err == nil {
			add(a)
		}
	case "MultiLineString", "Polygon":
		var a [][]int
		if err = unmarshalArcs(g, &a); err == nil {
			for _, l := range a {
				add(l)
			}
		}
	case "MultiPolygon":
		var a [][][]int
		if err = unmarshalArcs(g, &a); err == nil {
			for _, p := range a {
				for _, l := range p {
					add(l)
				}
			}
		}
	}
	return dst, err
}
