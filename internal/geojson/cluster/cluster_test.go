package cluster

import (
	"errors"
	"math"
	"sort"
	"testing"
)

// px returns a world position dx, dy pixels (of zoom z, 512-pixel tiles)
// from the centre of the world.
func px(z int, dx, dy float64) Point {
	s := 512 * math.Exp2(float64(z))
	return Point{0.5 + dx/s, 0.5 + dy/s}
}

func counts(items []Item) []int {
	var c []int
	for _, it := range items {
		c = append(c, it.Count)
	}
	sort.Ints(c)
	return c
}

func TestClusters(t *testing.T) {
	// Three points 10 px apart at zoom 3 (so 40 px apart at zoom 5, 80 at
	// zoom 6) and one 283 px away (35 px at zoom 0).
	pts := []Point{px(3, 0, 0), px(3, 10, 0), px(3, 0, 10), px(3, 200, 200)}
	tests := []struct {
		name  string
		opt   Options
		zoom  float64
		count []int
	}{
		{"all near at zoom 3", Options{MaxZoom: 16}, 3, []int{1, 3}},
		{"fractional zoom rounds down", Options{MaxZoom: 16}, 3.9, []int{1, 3}},
		{"spread at zoom 6", Options{MaxZoom: 16}, 6, []int{1, 1, 1, 1}},
		{"radius 100 gathers at zoom 5", Options{Radius: 100, MaxZoom: 16}, 5, []int{1, 3}},
		{"past max zoom points stand alone", Options{MaxZoom: 2}, 3, []int{1, 1, 1, 1}},
		{"at max zoom clusters", Options{MaxZoom: 3}, 3, []int{1, 3}},
		{"min points 4 keeps three apart", Options{MaxZoom: 16, MinPoints: 4}, 3, []int{1, 1, 1, 1}},
		{"everything at zoom 0", Options{MaxZoom: 16}, 0, []int{4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := New(pts, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := counts(ix.Items(tc.zoom))
			if len(got) != len(tc.count) {
				t.Fatalf("counts %v, want %v", got, tc.count)
			}
			for i := range got {
				if got[i] != tc.count[i] {
					t.Fatalf("counts %v, want %v", got, tc.count)
				}
			}
		})
	}
}

func TestClusterCentreIDAndChildren(t *testing.T) {
	pts := []Point{px(3, 0, 0), px(3, 10, 0), px(3, 0, 10), px(3, 300, 300)}
	ix, err := New(pts, Options{MaxZoom: 16})
	if err != nil {
		t.Fatal(err)
	}
	var c *Item
	for i, it := range ix.Items(3) {
		if it.IsCluster() {
			c = &ix.Items(3)[i]
		} else if it.Index != 3 {
			t.Errorf("lone point %d, want 3", it.Index)
		}
	}
	if c == nil {
		t.Fatal("no cluster at zoom 3")
	}
	want := px(3, 10.0/3, 10.0/3)
	if math.Abs(c.X-want.X) > 1e-12 || math.Abs(c.Y-want.Y) > 1e-12 {
		t.Errorf("centre %v,%v, want %v", c.X, c.Y, want)
	}
	// The id names the zoom the cluster formed at (zoom+1 in its low five
	// bits past the point count): 5, where the points are 40 px apart.
	if z := (c.ID - len(pts)) % 32; z != 6 {
		t.Errorf("id %d encodes zoom %d, want 5", c.ID, z-1)
	}
	total := 0
	for _, ch := range ix.Children(c.ID) {
		total += ch.Count
	}
	if total != 3 {
		t.Errorf("children hold %d points, want 3", total)
	}
	if ix.Children(1) != nil {
		t.Error("an input index is no cluster id")
	}
}

func TestClusterProperties(t *testing.T) {
	pts := []Point{px(3, 0, 0), px(3, 10, 0), px(3, 0, 10), px(3, 5, 5)}
	values := []float64{1, 2, 3, 4}
	ix, err := New(pts, Options{
		MaxZoom: 16,
		Map:     func(i int) map[string]any { return map[string]any{"sum": values[i], "max": values[i]} },
		Reduce: func(acc, m map[string]any) {
			acc["sum"] = acc["sum"].(float64) + m["sum"].(float64)
			acc["max"] = math.Max(acc["max"].(float64), m["max"].(float64))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Reduced over points at one zoom and over clusters of clusters at a
	// lower one: the same sums.
	for _, z := range []float64{3, 0} {
		items := ix.Items(z)
		if len(items) != 1 || !items[0].IsCluster() {
			t.Fatalf("zoom %g: %d items, want one cluster", z, len(items))
		}
		p := items[0].Props
		if p["sum"] != 10.0 || p["max"] != 4.0 {
			t.Errorf("zoom %g: props %v, want sum 10 and max 4", z, p)
		}
	}
}

func TestAbbreviate(t *testing.T) {
	tests := []struct {
		n    int
		want any
	}{{7, 7}, {999, 999}, {1000, "1k"}, {1549, "1.5k"}, {9999, "10k"}, {12500, "13k"}}
	for _, tc := range tests {
		if got := Abbreviate(tc.n); got != tc.want {
			t.Errorf("Abbreviate(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func TestBadOptions(t *testing.T) {
	if _, err := New(nil, Options{MinZoom: 5, MaxZoom: 3}); err == nil {
		t.Error("min zoom past max zoom + 1 accepted")
	}
}

// TestMinZoomSavesLevels checks that the clusters of a zoom are the same
// whether the zooms below it are clustered or not.
func TestMinZoomSavesLevels(t *testing.T) {
	var pts []Point
	for i := 0; i < 200; i++ {
		pts = append(pts, px(2, float64(i*37%300)-150, float64(i*53%280)-140))
	}
	all, err := New(pts, Options{MaxZoom: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range []int{0, 3, 7, 11} {
		part, err := New(pts, Options{MaxZoom: 10, MinZoom: z})
		if err != nil {
			t.Fatal(err)
		}
		a, b := all.Items(float64(z)), part.Items(float64(z))
		if len(a) != len(b) {
			t.Fatalf("zoom %d: %d items, %d with MinZoom", z, len(a), len(b))
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Count != b[i].Count || a[i].X != b[i].X {
				t.Fatalf("zoom %d item %d: %+v, %+v with MinZoom", z, i, a[i], b[i])
			}
		}
	}
}

// TestStop: New asks Stop before each zoom and gives up with ErrStopped
// once it says true.
func TestStop(t *testing.T) {
	pts := make([]Point, 100)
	for i := range pts {
		pts[i] = Point{X: float64(i) / 100, Y: 0.5}
	}
	asked := 0
	_, err := New(pts, Options{MinZoom: 0, MaxZoom: 16, Stop: func() bool {
		asked++
		return asked > 3
	}})
	if !errors.Is(err, ErrStopped) || asked != 4 {
		t.Errorf("err %v after %d questions; want ErrStopped after 4", err, asked)
	}
	asked = 0
	if _, err := New(pts, Options{MinZoom: 10, MaxZoom: 16, Stop: func() bool { asked++; return false }}); err != nil || asked != 7 {
		t.Errorf("err %v after %d questions; want none after 7 (zooms 16 to 10)", err, asked)
	}
}
