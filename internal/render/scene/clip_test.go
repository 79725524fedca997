package scene

import (
	"math"
	"slices"
	"testing"

	"github.com/paulmach/orb"
)

func TestSliceZoom(t *testing.T) {
	tests := []struct {
		name string
		zoom float64
		tz   int
		z    int
		ok   bool
	}{
		{"at the tile's zoom", 14.7, 14, 0, false},
		{"overzoomed", 17, 14, 17, true},
		{"fractional zoom", 16.99, 14, 16, true},
		{"past the sliced zooms", 20.5, 14, SlicedMaxZoom, true},
		// GL reads tiles of a source deeper than the sliced zooms down to
		// its maxzoom, and stretches them past it.
		{"deep source stretched", 21, 19, 0, false},
	}
	for _, tc := range tests {
		z, ok := SliceZoom(tc.zoom, tc.tz)
		if ok != tc.ok || ok && z != tc.z {
			t.Errorf("%s: sliceZoom(%v, %d) = %d, %v; want %d, %v", tc.name, tc.zoom, tc.tz, z, ok, tc.z, tc.ok)
		}
	}
}

func TestCutTiles(t *testing.T) {
	parent := [3]int{4, 2, 3} // y, x, z
	whole := TileSquare(parent, 0)
	child := func(x, y, w, h float64) Box { // in units of a child of zoom 4
		return Box{whole.X0 + x/16, whole.Y0 + y/16, whole.X0 + (x+w)/16, whole.Y0 + (y+h)/16}
	}
	tests := []struct {
		name          string
		z             int
		view, feature Box
		limit         int
		want          int
		ok            bool
	}{
		{"all four children", 4, whole, whole, 64, 4, true},
		{"a feature inside one child", 4, whole, child(0.1, 0.1, 0.1, 0.1), 64, 1, true},
		// A feature just past a child's edge, within the next one's buffer.
		{"inside a neighbour's buffer", 4, whole, child(0.1, 0.1, 0.91, 0.1), 64, 2, true},
		// A view inside one child: only that child, though the feature
		// reaches all four (a building's walls seen in its part).
		{"in view", 4, child(0.5, 0.5, 0.4, 0.4), whole, 64, 1, true},
		// A view reaching a child's buffer but not its square.
		{"a view in a buffer", 4, child(0.5, 0.5, 0.48, 0.1), whole, 64, 1, true},
		{"a feature out of view", 4, child(0, 0, 0.5, 0.5), child(1.2, 1.2, 0.3, 0.3), 64, 0, true},
		{"outside the parent", 4, whole, Box{whole.X1 + 1, whole.Y0, whole.X1 + 2, whole.Y1}, 64, 0, true},
		{"too many", 7, whole, whole, 64, 0, false},
	}
	for _, tc := range tests {
		kids, ok := Sliced.Tiles(parent, tc.z, tc.view, tc.feature, tc.limit)
		if ok != tc.ok || len(kids) != tc.want {
			t.Errorf("%s: %d children, ok %v; want %d, %v", tc.name, len(kids), ok, tc.want, tc.ok)
		}
		for _, k := range kids {
			if k[2] != tc.z || k[1]>>(tc.z-parent[2]) != parent[1] || k[0]>>(tc.z-parent[2]) != parent[0] {
				t.Errorf("%s: child %v not of zoom %d in %v", tc.name, k, tc.z, parent)
			}
		}
	}
}

func TestCutParts(t *testing.T) {
	child := [3]int{10, 20, 5} // y, x, z
	n := math.Exp2(5)
	// world maps a point in the child's units (0-1 its square) to world.
	world := func(x, y float64) orb.Point { return orb.Point{(20 + x) / n, (10 + y) / n} }
	local := func(p orb.Point) (float64, float64) { return p[0]*n - 20, p[1]*n - 10 }
	buf := Sliced.Buffer
	tests := []struct {
		name  string
		parts [][]orb.Point
		rings bool
		// first point of each piece, child units
		starts [][2]float64
	}{
		{
			"line across: cut at both buffer edges",
			[][]orb.Point{{world(-1, 0.3), world(2, 0.3)}}, false,
			[][2]float64{{-buf, 0.3}},
		},
		{
			"line leaving and coming back: two pieces",
			[][]orb.Point{{world(0.5, 0.5), world(0.5, -1), world(0.7, -1), world(0.7, 0.5)}}, false,
			[][2]float64{{0.5, 0.5}, {0.7, -buf}},
		},
		{
			"line outside",
			[][]orb.Point{{world(2, 2), world(3, 2)}}, false,
			nil,
		},
		{
			"ring across the left edge: starts where it comes back in",
			[][]orb.Point{{world(-0.5, 0.2), world(0.5, 0.2), world(0.5, 0.8), world(-0.5, 0.8)}}, true,
			[][2]float64{{-buf, 0.2}},
		},
		{
			"ring inside kept whole and closed",
			[][]orb.Point{{world(0.2, 0.2), world(0.5, 0.2), world(0.5, 0.8)}}, true,
			[][2]float64{{0.2, 0.2}},
		},
	}
	for _, tc := range tests {
		got := Sliced.Parts(tc.parts, child, tc.rings)
		if len(got) != len(tc.starts) {
			t.Fatalf("%s: %d pieces, want %d", tc.name, len(got), len(tc.starts))
		}
		for i, l := range got {
			x, y := local(l[0])
			// Within half a grid unit: the points are rounded to it.
			if tol := 0.5/Sliced.Grid + 1e-12; math.Abs(x-tc.starts[i][0]) > tol || math.Abs(y-tc.starts[i][1]) > tol {
				t.Errorf("%s: piece %d starts at %.5f, %.5f; want %.5f, %.5f", tc.name, i, x, y, tc.starts[i][0], tc.starts[i][1])
			}
			if tc.rings && l[0] != l[len(l)-1] {
				t.Errorf("%s: ring %d not closed", tc.name, i)
			}
			for _, p := range l {
				x, y := local(p)
				if x < -buf-1e-12 || x > 1+buf+1e-12 || y < -buf-1e-12 || y > 1+buf+1e-12 {
					t.Errorf("%s: point %.5f, %.5f outside the buffered square", tc.name, x, y)
				}
				// On the child's 8192-unit grid.
				if gx, gy := x*Sliced.Grid, y*Sliced.Grid; math.Abs(gx-math.Round(gx)) > 1e-6 || math.Abs(gy-math.Round(gy)) > 1e-6 {
					t.Errorf("%s: point %.6f, %.6f off the grid", tc.name, x, y)
				}
			}
		}
	}
}

func TestClipRingAxis(t *testing.T) {
	sq := func(x0, y0, x1, y1 float64) []orb.Point {
		return []orb.Point{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
	}
	tests := []struct {
		name   string
		ring   []orb.Point
		lo, hi float64
		axis   int
		want   []orb.Point
	}{
		{"inside kept whole", sq(1, 1, 2, 2), 0, 3, 0, sq(1, 1, 2, 2)},
		{"outside gone", sq(5, 1, 6, 2), 0, 3, 0, nil},
		{"cut on the right, starts at the first point", sq(1, 0, 5, 1), 0, 3, 0,
			[]orb.Point{{1, 0}, {3, 0}, {3, 1}, {1, 1}, {1, 0}}},
		{"starts outside: starts where it comes in", sq(-1, 0, 2, 1), 0, 3, 0,
			[]orb.Point{{0, 0}, {2, 0}, {2, 1}, {0, 1}, {0, 0}}},
		{"an edge across the whole slab gets both crossings in order", []orb.Point{{-1, 0}, {4, 0}, {4, 1}, {-1, 1}, {-1, 0}}, 0, 3, 0,
			[]orb.Point{{0, 0}, {3, 0}, {3, 1}, {0, 1}, {0, 0}}},
		{"y axis: the first edge is below, the ring starts on the second", sq(0, -2, 1, 2), 0, 1, 1,
			[]orb.Point{{1, 0}, {1, 1}, {0, 1}, {0, 0}, {1, 0}}},
		{"a point on the bound is kept once", []orb.Point{{0, 0}, {3, 0}, {3, 1}, {0, 0}}, 0, 3, 0,
			[]orb.Point{{0, 0}, {3, 0}, {3, 1}, {0, 0}}},
		{"too short", []orb.Point{{1, 1}}, 0, 3, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := clipRingAxis(tc.ring, nil, tc.lo, tc.hi, tc.axis)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i][0]-tc.want[i][0]) > 1e-12 || math.Abs(got[i][1]-tc.want[i][1]) > 1e-12 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestCutRing(t *testing.T) {
	child := [3]int{10, 20, 5} // y, x, z
	n := math.Exp2(5)
	world := func(x, y float64) orb.Point { return orb.Point{(20 + x) / n, (10 + y) / n} }
	tests := []struct {
		name string
		ring []orb.Point
		// the edge of the ring each edge of the cut ring runs along, -1
		// along the buffer's border
		from []int
		// which cut edges OutsideEdge takes for cuts
		outside []bool
	}{
		{
			"inside, not closed: every edge its own",
			[]orb.Point{world(0.2, 0.2), world(0.5, 0.2), world(0.5, 0.8), world(0.2, 0.8)},
			[]int{0, 1, 2, 3},
			[]bool{false, false, false, false},
		},
		{
			// Clipped at x = -buf: it starts where it comes back in.
			"across the left edge",
			[]orb.Point{world(-0.5, 0.2), world(0.5, 0.2), world(0.5, 0.8), world(-0.5, 0.8), world(-0.5, 0.2)},
			[]int{0, 1, 2, -1},
			[]bool{false, false, false, true},
		},
		{
			// The west wall on the child's border is kept; the east wall
			// lies in the buffer, outside the square: no wall in this
			// child (its right neighbour builds it).
			"on the border and into the buffer",
			[]orb.Point{world(0, 0.2), world(1.01, 0.2), world(1.01, 0.8), world(0, 0.8)},
			[]int{0, 1, 2, 3},
			[]bool{false, true, false, false},
		},
		{
			"crossing both sides",
			[]orb.Point{world(-1, 0.4), world(2, 0.4), world(2, 0.6), world(-1, 0.6)},
			[]int{0, -1, 2, -1},
			[]bool{false, true, false, true},
		},
	}
	for _, tc := range tests {
		cut, from := Sliced.Ring(tc.ring, child)
		if len(cut) == 0 || cut[0] != cut[len(cut)-1] {
			t.Fatalf("%s: cut ring %v not closed", tc.name, cut)
		}
		if !slices.Equal(from, tc.from) {
			t.Errorf("%s: from %v, want %v", tc.name, from, tc.from)
		}
		whole := CloseRing(tc.ring)
		outside := OutsideEdge(cut, child)
		for i, e := range from {
			if got := outside(i); got != tc.outside[i] {
				t.Errorf("%s: edge %d outside %v, want %v", tc.name, i, got, tc.outside[i])
			}
			if e < 0 {
				continue
			}
			// Both ends of the cut edge lie on the line of the edge it
			// runs along (within the rounding to the child's grid).
			p, q := whole[e], whole[e+1]
			for _, c := range []orb.Point{cut[i], cut[i+1]} {
				cross := (q[0]-p[0])*(c[1]-p[1]) - (q[1]-p[1])*(c[0]-p[0])
				if d := math.Abs(cross) / math.Hypot(q[0]-p[0], q[1]-p[1]); d > 1/(n*Sliced.Grid) {
					t.Errorf("%s: cut edge %d is %g off edge %d", tc.name, i, d, e)
				}
			}
		}
	}
	if cut, _ := Sliced.Ring([]orb.Point{world(3, 3), world(4, 3), world(4, 4)}, child); cut != nil {
		t.Errorf("a ring outside: %v, want nil", cut)
	}
}

// TestCutBuffer checks the pieces of a line a tile of cut GeoJSON holds
// (any buffer and grid): the line clipped to the tile grown by the buffer
// on each side, cut ends on the tile's grid.
func TestCutBuffer(t *testing.T) {
	// Tile z1 (y 0, x 0) spans world x and y 0 to 0.5.
	tile := [3]int{0, 0, 1}
	tests := []struct {
		name   string
		line   []orb.Point
		buffer float64
		want   [][]orb.Point
	}{
		{"inside", []orb.Point{{0.125, 0.25}, {0.375, 0.25}}, 0.25, [][]orb.Point{{{0.125, 0.25}, {0.375, 0.25}}}},
		{"across the right edge into the buffer", []orb.Point{{0.125, 0.25}, {0.875, 0.25}}, 0.25, [][]orb.Point{{{0.125, 0.25}, {0.625, 0.25}}}},
		{"no buffer", []orb.Point{{0.125, 0.25}, {0.875, 0.25}}, 0, [][]orb.Point{{{0.125, 0.25}, {0.5, 0.25}}}},
		{"beyond the buffer", []orb.Point{{0.6875, 0.25}, {0.875, 0.25}}, 0.25, nil},
		// The cut at x 0.625 falls at y 0.354, rounded to 0.375 on the
		// grid of 8 to the tile (0.0625 of the world).
		{"cut end on the grid", []orb.Point{{0.125, 0.0625}, {0.875, 0.5}}, 0.25, [][]orb.Point{{{0.125, 0.0625}, {0.625, 0.375}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Cut{Buffer: tc.buffer, Grid: 8}.Parts([][]orb.Point{tc.line}, tile, false)
			if len(got) != len(tc.want) {
				t.Fatalf("%d pieces %v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if len(got[i]) != len(tc.want[i]) {
					t.Fatalf("piece %d: %v, want %v", i, got[i], tc.want[i])
				}
				for j := range got[i] {
					if math.Abs(got[i][j][0]-tc.want[i][j][0]) > 1e-9 || math.Abs(got[i][j][1]-tc.want[i][j][1]) > 1e-9 {
						t.Errorf("piece %d: %v, want %v", i, got[i], tc.want[i])
					}
				}
			}
		})
	}
}
