package osm

import (
	"fmt"
	"github.com/tesseramaps/tessera/internal/geo"
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
)

// canonRing rotates a closed ring of ids to start at its smallest id and
// go towards the smaller neighbour, so rings compare regardless of start
// and direction.
func canonRing(r []int64) string {
	n := r[:len(r)-1]
	i := slices.Index(n, slices.Min(n))
	rot := append(append([]int64(nil), n[i:]...), n[:i]...)
	if len(rot) > 2 && rot[len(rot)-1] < rot[1] {
		slices.Reverse(rot[1:])
	}
	return fmt.Sprint(rot)
}

func TestAssembleRings(t *testing.T) {
	tests := []struct {
		name  string
		segs  [][]int64
		rings []string
		open  int
	}{
		{"closed way", [][]int64{{1, 2, 3, 1}}, []string{"[1 2 3]"}, 0},
		{"two ways, second reversed", [][]int64{{1, 2, 3}, {1, 4, 3}}, []string{"[1 2 3 4]"}, 0},
		{"four ways in any order and direction", [][]int64{{3, 4}, {1, 2}, {4, 1}, {3, 2}}, []string{"[1 2 3 4]"}, 0},
		{"open chain", [][]int64{{1, 2, 3}, {3, 4}}, nil, 1},
		{"ring and open chain", [][]int64{{1, 2, 3, 1}, {7, 8}}, []string{"[1 2 3]"}, 1},
		{"two rings touching at a node", [][]int64{{5, 1, 2}, {2, 3, 5}, {5, 6, 7}, {7, 8, 5}},
			[]string{"[1 2 3 5]", "[5 6 7 8]"}, 0},
		{"figure eight in one way", [][]int64{{1, 2, 5, 3, 4, 5, 1}}, []string{"[1 2 5]", "[3 4 5]"}, 0},
		{"spike dropped", [][]int64{{1, 2, 1}}, nil, 0},
		{"short segments dropped", [][]int64{{1}, {}, {1, 2, 3, 1}}, []string{"[1 2 3]"}, 0},
		{"three ways at a node prefer closing", [][]int64{{1, 2}, {2, 3, 1}, {2, 9}}, []string{"[1 2 3]"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rings, open := assembleRings(tc.segs)
			var got []string
			for _, r := range rings {
				got = append(got, canonRing(r))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.rings) || open != tc.open {
				t.Errorf("rings %v open %d, want %v open %d", got, open, tc.rings, tc.open)
			}
		})
	}
}

func TestJoinChains(t *testing.T) {
	chains := joinChains([][]int64{{3, 4}, {1, 2}, {2, 3}, {10, 11}, {5, 4}})
	if len(chains) != 2 {
		t.Fatalf("chains %v", chains)
	}
	for _, c := range chains {
		if c[0] > c[len(c)-1] { // direction of open chains is free
			slices.Reverse(c)
		}
	}
	if !slices.Equal(chains[0], []int64{1, 2, 3, 4, 5}) || !slices.Equal(chains[1], []int64{10, 11}) {
		t.Errorf("chains %v", chains)
	}
}

func square(x0, y0, x1, y1 float64) orb.Ring {
	return orb.Ring{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
}

func TestBuildPolygons(t *testing.T) {
	outer := square(0, 0, 10, 10)
	hole := square(2, 2, 8, 8)
	hole.Reverse() // given clockwise... orientation is fixed anyway
	island := square(4, 4, 6, 6)
	other := square(20, 0, 21, 1)
	degenerate := orb.Ring{{0, 0}, {1, 1}, {2, 2}, {0, 0}}
	mp, bad := buildPolygons([]orb.Ring{island, other, hole, degenerate, outer})
	if bad != 1 {
		t.Errorf("bad %d, want 1 (the zero-area ring)", bad)
	}
	if len(mp) != 3 {
		t.Fatalf("%d polygons, want 3 (outer with hole, island, other)", len(mp))
	}
	// Largest first: outer+hole, island (area 4), other (area 1).
	if len(mp[0]) != 2 || mp[0][0].Bound() != outer.Bound() || mp[0][1].Bound() != hole.Bound() {
		t.Errorf("first polygon %v", mp[0])
	}
	if len(mp[1]) != 1 || mp[1][0].Bound() != island.Bound() || len(mp[2]) != 1 || mp[2][0].Bound() != other.Bound() {
		t.Errorf("island and other %v %v", mp[1], mp[2])
	}
	for i, p := range mp {
		if geo.SignedArea(p[0]) <= 0 {
			t.Errorf("polygon %d outer ring clockwise", i)
		}
		for _, h := range p[1:] {
			if geo.SignedArea(h) >= 0 {
				t.Errorf("polygon %d hole counter-clockwise", i)
			}
		}
	}
	if a := geo.SignedArea(mp[0][0]); a != 100 {
		t.Errorf("outer area %v, want 100", a)
	}
}

func TestInteriorPointAndCentroid(t *testing.T) {
	// A U shape: its centroid lies in the notch, outside the shape.
	u := orb.Ring{{0, 0}, {3, 0}, {3, 3}, {2, 3}, {2, 1}, {1, 1}, {1, 3}, {0, 3}, {0, 0}}
	c := ringCentroid(u)
	if geo.PointInRing(c, u) {
		t.Fatalf("centroid %v of the U is inside: the test shape is wrong", c)
	}
	if math.Abs(c[0]-1.5) > 1e-9 {
		t.Errorf("centroid x %v, want 1.5 by symmetry", c[0])
	}
	p, ok := interiorPoint([]orb.Ring{u})
	if !ok || !geo.PointInRing(p, u) {
		t.Errorf("interior point %v (ok %v) not inside the U", p, ok)
	}
	// With a hole covering the middle of a square, the interior point
	// avoids the hole.
	sq, hole := square(0, 0, 10, 10), square(1, 1, 9, 9)
	p, ok = interiorPoint([]orb.Ring{sq, hole})
	if !ok || !geo.PointInPolygon(p, orb.Polygon{sq, hole}) {
		t.Errorf("interior point %v of the frame not inside it", p)
	}
	if c := ringCentroid(square(2, 4, 4, 8)); c != (orb.Point{3, 6}) {
		t.Errorf("centroid %v, want 3,6", c)
	}
	if m := alongMiddle(orb.LineString{{0, 0}, {0, 1}, {0, 3}}); math.Abs(m[1]-1.5) > 1e-12 || m[0] != 0 {
		t.Errorf("middle %v, want 0,1.5", m)
	}
}

// FuzzAssembleRings joins arbitrary segments: every ring must be closed,
// simple at the node level, made of edges of the input, and use no edge
// more often than the input has it.
func FuzzAssembleRings(f *testing.F) {
	f.Add([]byte{1, 2, 3, 255, 3, 4, 1})
	f.Add([]byte{1, 2, 3, 1, 255, 5, 6, 7, 5})
	f.Add([]byte{1, 2, 5, 3, 4, 5, 1})
	f.Add([]byte{5, 1, 2, 255, 2, 3, 5, 255, 5, 6, 7, 255, 7, 8, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		var segs [][]int64
		var cur []int64
		for _, b := range data {
			if b == 255 {
				segs = append(segs, cur)
				cur = nil
				continue
			}
			cur = append(cur, int64(b%32))
		}
		segs = append(segs, cur)
		edges := map[[2]int64]int{}
		key := func(a, b int64) [2]int64 {
			if a > b {
				a, b = b, a
			}
			return [2]int64{a, b}
		}
		for _, s := range segs {
			for i := 0; i+1 < len(s); i++ {
				edges[key(s[i], s[i+1])]++
			}
		}
		rings, open := assembleRings(segs)
		if open < 0 || open > len(segs) {
			t.Fatalf("open %d of %d segments", open, len(segs))
		}
		for _, r := range rings {
			if len(r) < 4 || r[0] != r[len(r)-1] {
				t.Fatalf("ring %v not closed or too short", r)
			}
			seen := map[int64]bool{}
			for _, n := range r[:len(r)-1] {
				if seen[n] {
					t.Fatalf("ring %v passes node %d twice", r, n)
				}
				seen[n] = true
			}
			for i := 0; i+1 < len(r); i++ {
				k := key(r[i], r[i+1])
				if edges[k] == 0 {
					t.Fatalf("ring %v uses edge %v more often than the input %v", r, k, segs)
				}
				edges[k]--
			}
		}
	})
}

// FuzzBuildPolygons nests arbitrary rings: no panic, outer rings
// counter-clockwise, holes clockwise and inside their outer ring's bounds.
func FuzzBuildPolygons(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 10, 10, 0, 10, 255, 2, 2, 8, 2, 8, 8, 2, 8})
	f.Add([]byte{0, 0, 3, 0, 3, 3, 2, 3, 2, 1, 1, 1, 1, 3, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 2048 {
			return
		}
		var rings []orb.Ring
		var cur orb.Ring
		flush := func() {
			if len(cur) > 0 {
				cur = append(cur, cur[0])
				rings = append(rings, cur)
			}
			cur = nil
		}
		for i := 0; i+1 < len(data); i += 2 {
			if data[i] == 255 {
				flush()
				i--
				continue
			}
			cur = append(cur, orb.Point{float64(data[i]), float64(data[i+1])})
		}
		flush()
		mp, bad := buildPolygons(rings)
		if bad < 0 || bad > len(rings) {
			t.Fatalf("bad %d of %d", bad, len(rings))
		}
		n := 0
		for _, p := range mp {
			n += len(p)
			if geo.SignedArea(p[0]) <= 0 {
				t.Fatalf("outer ring %v not counter-clockwise", p[0])
			}
			ob := p[0].Bound()
			for _, h := range p[1:] {
				if geo.SignedArea(h) >= 0 {
					t.Fatalf("hole %v not clockwise", h)
				}
				if hb := h.Bound(); !ob.Contains(hb.Min) || !ob.Contains(hb.Max) {
					t.Fatalf("hole %v outside its outer ring %v", h, p[0])
				}
			}
		}
		if n+bad != len(rings) {
			t.Fatalf("%d rings placed and %d bad of %d", n, bad, len(rings))
		}
	})
}
